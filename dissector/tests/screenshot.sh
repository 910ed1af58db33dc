#!/usr/bin/env bash
# screenshot.sh - a PNG of Wireshark (Qt, under Xvfb) with the Homa tree open.
#
# usage: screenshot.sh PLUGIN_SO CAPTURE FRAME OUT.png
# Needs xvfb-run, xdotool and ImageMagick's import (Debian: xvfb, xdotool,
# imagemagick).  Wireshark runs as uid 65534 with the plugin from
# WIRESHARK_PLUGIN_DIR (as root it would ignore that folder), opens CAPTURE
# at FRAME (-g), hides nothing, clicks the Homa line of the details pane and
# expands its subtrees (Shift+Right), then the root window is captured.
source "$(dirname "$0")/lib.sh"
plugin="${1:?usage: screenshot.sh PLUGIN_SO CAPTURE FRAME OUT.png}"
cap="${2:?}" frame="${3:?}" out="${4:?}"
for p in xvfb-run xdotool import wireshark; do
	command -v "$p" > /dev/null || { echo "missing: $p"; exit 77; }
done
ws_setup "$plugin"
in="$(ws_input "$cap")"
mkdir -p "$WS_WORK/home/.config/wireshark"
# Packet list small, details tall: what the screenshot is about.
cat > "$WS_WORK/home/.config/wireshark/recent" <<'R'
gui.geometry_main_upper_pane: 330
gui.geometry_main_maximized: FALSE
gui.geometry_main_width: 1400
gui.geometry_main_height: 1400
gui.geometry_main_x: 0
gui.geometry_main_y: 0
R
cat > "$WS_WORK/shot.sh" <<S
#!/bin/bash
wireshark -r "$in" -g "$frame" > "$WS_WORK/home/wireshark.log" 2>&1 &
ws=\$!
sleep 15
w=\$(xdotool search --name "\$(basename "$in")" | head -1)
xdotool windowsize \$w 1400 1400 windowmove \$w 0 0
sleep 2
# The details pane lists Frame, Ethernet, IP, Homa: the 4th line is Homa.
xdotool mousemove 200 485 click 1
sleep 1
xdotool key shift+Right
sleep 2
import -window root "$WS_WORK/home/shot.png"
kill \$ws
S
chmod -R a+rwX "$WS_WORK"
ws_run env DISPLAY= timeout 90 xvfb-run -a -s "-screen 0 1400x1400x24" bash "$WS_WORK/shot.sh"
cp "$WS_WORK/home/shot.png" "$out"
echo "wrote $out"
