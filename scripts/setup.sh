#!/usr/bin/env bash
# Set up jaxviz on a fresh Debian 12 / Python 3.11 machine (or any Linux with
# python3 >= 3.11): the system libraries Qt needs, a virtual environment in
# .venv, and jaxviz installed into it.
#
#   bash scripts/setup.sh          # the app:   pip install .
#   bash scripts/setup.sh --test   # the tests: pip install -e ".[test]"
#
# System packages are installed with apt-get when they are missing (as root, or
# through sudo); elsewhere the script only says which ones to install.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=app
[ "${1:-}" = "--test" ] && mode=test

# Qt's offscreen and xcb platforms need these on a minimal Debian (see DESIGN.md);
# xvfb gives a virtual screen for `xvfb-run jaxviz` on machines without one.
debs="python3-venv libgl1 libegl1 libxkbcommon0 libxkbcommon-x11-0 libglib2.0-0
libfontconfig1 libfreetype6 libdbus-1-3 libxcb-cursor0 libxcb-icccm4 libxcb-image0
libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0
libxcb-xkb1 libxcb-xfixes0 libxcb-sync1 libxcb-shm0 libx11-xcb1 xvfb xauth"

# The tests check exports the way other programs read them: SVGs rasterised by
# librsvg (rsvg-convert) and CairoSVG (which needs cairo), PDFs by poppler
# (pdftoppm, pdftotext). They also open the real window on an Xvfb screen under a
# window manager (openbox; xwininfo and xprop from x11-utils read back where it
# went; xdotool presses keys on it) and validate the desktop entry
# (desktop-file-validate). The app itself
# needs none of them.
if [ "$mode" = test ]; then
  debs="$debs librsvg2-bin poppler-utils libcairo2 openbox x11-utils xdotool desktop-file-utils"
fi

if command -v dpkg-query >/dev/null 2>&1; then
  missing=""
  for p in $debs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
    if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
      echo "setup: installing system packages:$missing" >&2
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
    else
      echo "setup: please install these system packages:$missing" >&2
    fi
  fi
fi

python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "setup: jaxviz needs Python >= 3.11; $python is $("$python" --version 2>&1)" >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
if [ "$mode" = test ]; then
  .venv/bin/python -m pip install -q -e ".[test]"
else
  .venv/bin/python -m pip install -q .
fi
echo "setup: jaxviz installed in .venv ($mode)" >&2
