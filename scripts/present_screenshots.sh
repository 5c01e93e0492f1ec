#!/usr/bin/env bash
# The README's presentation pictures: the shipped lecture exported headless at 1280x720
# and 1920x1080 (the drawing the room sees), six of its slides copied into docs/images.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
declare -A CHOSEN=([03]=timing [07]=diff [19]=device_pmap [25]=stepping_psum
                   [27]=device_psum [46]=shard_map_program)
for SIZE in 1280x720 1920x1080; do
    "$HERE/.venv/bin/jaxviz" present "$HERE/resources/lectures/parallel_jax.toml" \
        --export "$TMP/$SIZE/" --size "$SIZE"
    for N in "${!CHOSEN[@]}"; do
        cp "$TMP/$SIZE/slide-$N.png" "$HERE/docs/images/present_${CHOSEN[$N]}_$SIZE.png"
    done
done
