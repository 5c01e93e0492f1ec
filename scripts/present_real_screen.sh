#!/usr/bin/env bash
# Run `jaxviz present` of the shipped lecture on a real X screen (Xvfb + openbox), full
# screen, and drive it start to end with a clicker's keys (xdotool), taking screenshots.
#   bash scripts/present_real_screen.sh [WIDTHxHEIGHT] [OUT_DIR]
set -euo pipefail
SIZE=${1:-1920x1080}
OUT=${2:-/tmp/jaxviz-present-shots}
HERE=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
DISPLAY_NUM=:$((90 + RANDOM % 50))
Xvfb "$DISPLAY_NUM" -screen 0 "${SIZE}x24" -nolisten tcp &
XVFB=$!
trap 'kill $APP $WM $XVFB 2>/dev/null || true' EXIT
sleep 1
DISPLAY=$DISPLAY_NUM openbox &
WM=$!
sleep 1
DISPLAY=$DISPLAY_NUM QT_QPA_PLATFORM=xcb "$HERE/.venv/bin/jaxviz" present \
    "$HERE/resources/lectures/parallel_jax.toml" > "$OUT/present.log" 2>&1 &
APP=$!
for _ in $(seq 1 120); do   # until the window is mapped and the deck is loaded
    if DISPLAY=$DISPLAY_NUM xdotool search --name "jaxviz present" >/dev/null 2>&1 \
            && grep -q "" /dev/null; then break; fi
    sleep 1
done
sleep 25  # tracing, stepping and the storyboards of the whole lecture
WIN=$(DISPLAY=$DISPLAY_NUM xdotool search --name "jaxviz present" | head -1)
DISPLAY=$DISPLAY_NUM xwininfo -id "$WIN" | grep -E "Width|Height|Absolute" > "$OUT/geometry.txt"
shot() { DISPLAY=$DISPLAY_NUM import -window root "$OUT/$1.png"; }
shot start
N=0
for key in Next Next Next Next Next Next Next Next Next Next Next Next Next Next Next Next \
           Next Next Next Next Next Next Next Next Next Next Next Next Next Next Next Next \
           Next Next Next Next Next Next Next Next Next Next Next Next Next Next Next Next \
           Next Next Next; do
    DISPLAY=$DISPLAY_NUM xdotool key --window "$WIN" "$key"
    N=$((N + 1))
    sleep 0.4
    case $N in 6|17|24|40) shot "after_$N" ;; esac
done
shot end
DISPLAY=$DISPLAY_NUM xdotool key --window "$WIN" b; sleep 0.5; shot black
DISPLAY=$DISPLAY_NUM xdotool key --window "$WIN" b Home; sleep 0.5; shot home
DISPLAY=$DISPLAY_NUM xdotool key --window "$WIN" 2 5 Return; sleep 0.5; shot slide25
DISPLAY=$DISPLAY_NUM xdotool key --window "$WIN" Escape
sleep 2
if kill -0 $APP 2>/dev/null; then echo "still running after Esc"; exit 1; fi
echo "left with Esc; screenshots in $OUT"
