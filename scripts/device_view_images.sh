#!/usr/bin/env bash
# The device-view pictures of the README (docs/images), drawn by `jaxviz animate`
# from the storyboards of real runs, at 1280x720 and 1920x1080.
#
#   bash scripts/device_view_images.sh [.venv/bin/jaxviz]
set -euo pipefail
cd "$(dirname "$0")/.."
jaxviz=${1:-.venv/bin/jaxviz}
out=docs/images
gather=(--specs "P('data','model'), P(None,'model')")
for size in 1280x720 1920x1080; do
  "$jaxviz" animate example:tensor_parallel --variant sharded --phase 2 --size "$size" \
    --out "$out/device_view_tensor_parallel_$size.png"
  "$jaxviz" animate example:tensor_parallel --variant sharded "${gather[@]}" --phase 4 \
    --size "$size" --out "$out/device_view_all_gather_$size.png"
  "$jaxviz" animate example:normalize --variant vmap --phase 2 --size "$size" \
    --out "$out/device_view_normalize_vmap_$size.png"
  "$jaxviz" animate example:normalize --variant pmap --devices 32 \
    --batched-args "jnp.arange(32.)" --phase 4 --size "$size" \
    --out "$out/device_view_32_devices_$size.png"
  "$jaxviz" animate example:multi_host --phase 4 --size "$size" \
    --out "$out/device_view_multi_host_$size.png"
done
"$jaxviz" animate example:normalize --variant pmap --phase 4 --theme dark \
  --out "$out/device_view_normalize_dark.png"
"$jaxviz" animate example:tensor_parallel --variant sharded --devices 256 \
  --mesh "data=16,model=16" --phase 4 --out "$out/device_view_256.png"
"$jaxviz" animate example:convolve --variant pmap --size 960x540 --out "$out/convolve.gif"
