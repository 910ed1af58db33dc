# shellcheck shell=bash
# lib.sh - shared helpers of the dissector's test scripts (sourced).
#
# tshark running as root ignores WIRESHARK_PLUGIN_DIR and the per-user plugin
# folder (see shared/ENVIRONMENT.md), so as root every tshark here runs as
# uid/gid 65534 through setpriv, with the plugin copied into a private,
# world-readable plugin folder: DIR/4.0/epan/homa.so.  That folder replaces
# the global one, which keeps the tests hermetic.  HOME points at an empty
# folder so no personal preferences leak in; TZ and the locale are fixed.

set -euo pipefail

HOMA_TESTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HOMA_REPO_DIR="${HOMA_REPO_DIR:-$(cd "$HOMA_TESTS_DIR/../.." && pwd)}"
HOMA_WS_ABI="${HOMA_WS_ABI:-4.0}"

# ws_setup PLUGIN_SO: make the private work area; sets WS_WORK.
ws_setup() {
	local so="$1"
	if [[ ! -f "$so" ]]; then
		echo "error: plugin $so not found (build dissector/ first)" >&2
		exit 1
	fi
	WS_WORK="$(mktemp -d /tmp/homa-ws-test.XXXXXX)"
	# shellcheck disable=SC2064
	trap "rm -rf '$WS_WORK'" EXIT
	mkdir -p "$WS_WORK/plugins/$HOMA_WS_ABI/epan" "$WS_WORK/home" "$WS_WORK/in"
	cp "$so" "$WS_WORK/plugins/$HOMA_WS_ABI/epan/homa.so"
	chmod -R a+rX "$WS_WORK"
	chmod a+rwx "$WS_WORK/home"
}

# ws_input FILE: copy FILE where uid 65534 can read it; prints the copy's path.
ws_input() {
	local src="$1" dst
	dst="$(mktemp "$WS_WORK/in/XXXXXX")"
	cp "$src" "$dst"
	chmod a+r "$dst"
	echo "$dst"
}

# ws_run PROGRAM ARGS...: run a Wireshark program with the plugin.
ws_run() {
	local -a envv=(env -i "PATH=/usr/bin:/bin" "HOME=$WS_WORK/home"
		"WIRESHARK_PLUGIN_DIR=$WS_WORK/plugins" "TZ=UTC" "LC_ALL=C.UTF-8"
		"XDG_CONFIG_HOME=$WS_WORK/home/.config")
	if [[ "$(id -u)" == 0 ]]; then
		(cd "$WS_WORK" && setpriv --reuid=65534 --regid=65534 --clear-groups \
			"${envv[@]}" "$@")
	else
		(cd "$WS_WORK" && "${envv[@]}" "$@")
	fi
}

# ws_tshark OUT ARGS...: run tshark ARGS with the plugin, stdout into the
# file OUT.  Returns 1, after printing the reason as '#' lines, when tshark
# exits non-zero or writes anything at all to stderr: a renamed field, a bad
# filter or preference, a crash all end up there, and an empty OUT must never
# be mistaken for "nothing matched".
ws_tshark() {
	local out="$1" rc=0
	shift
	ws_run tshark "$@" > "$out" 2> "$WS_WORK/tshark.err" || rc=$?
	if [[ $rc != 0 || -s "$WS_WORK/tshark.err" ]]; then
		echo "# tshark $* exited with status $rc; its stderr:"
		sed 's/^/#   /' "$WS_WORK/tshark.err" | head -n 20
		return 1
	fi
	return 0
}

# ws_check_plugin: fail unless tshark really loads our homa.so.
ws_check_plugin() {
	if ! ws_tshark "$WS_WORK/plugins.txt" -G plugins ||
	   ! grep -q "homa.so" "$WS_WORK/plugins.txt"; then
		echo "error: tshark did not load the Homa plugin from $WS_WORK/plugins" >&2
		cat "$WS_WORK/plugins.txt" >&2 || true
		exit 1
	fi
}
