#!/bin/bash
# apt_progress.sh [REPO] - vm/apt-progress on a recorded apt status stream
# (data/apt-status.txt: `apt-get install --reinstall` of tmux xauth bc cpio
# at a 40 kB/s download limit, each line prefixed with its time) and on
# synthetic ones; then vm/setup-host through bash -n and shellcheck.
# The times come from the input (HOMALAB_APT_PROGRESS_TIMES=1), so every
# expected line is computed here from the same timestamps.
# shellcheck disable=SC2317  # the functions run through check()
set -u
here=$(dirname "$(readlink -f "$0")")
REPO=${1:-$(dirname "$(dirname "$here")")}
PROG=$REPO/vm/apt-progress
DATA=$here/data/apt-status.txt
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$REPO/lib/tests/tap.sh"
# timed FILE: apt-progress on FILE with its timestamps; lines in $T/out.
timed() { HOMALAB_APT_PROGRESS_TIMES=1 "$PROG" <"$1" >"$T/stdout" 2>"$T/out"; }
# clock SECONDS: m:ss, rounded as apt-progress rounds.
clock() { awk -v s="$1" 'BEGIN { s = int(s + 0.5); printf "%d:%02d", s / 60, s % 60 }'; }

timed "$DATA"
rc=$?
sed 's/^/# /' "$T/out"

# 1. Both phases, in order (no download line after the first install line),
#    percents never going down within a phase.
phases_in_order() {
	[ "$rc" = 0 ] && [ ! -s "$T/stdout" ] || return 1
	awk '/^\[setup\] downloading [0-9]+%/ { if (inst) bad = 1; d++; p = $3 + 0; if (p < dl) bad = 1; dl = p }
	     /^\[setup\] installing [0-9]+%/ { inst++; p = $3 + 0; if (p < il) bad = 1; il = p }
	     END { exit !(d >= 5 && inst >= 5 && !bad) }' "$T/out"
}
check "download then install progress lines, percents non-decreasing in each phase" phases_in_order
# 2. The estimate on the first line at or past 50% of the download: elapsed
#    since the first dlstatus line, extrapolated to 100%.
read -r el left pct < <(awk -F'[ :]' '$2 == "dlstatus" && !t0 { t0 = $1 }
	$2 == "dlstatus" && $4 >= 50 { e = $1 - t0; printf "%.6f %.6f %d\n", e, e * (100 - $4) / $4, $4; exit }' "$DATA")
want="[setup] downloading $pct% (file 3 of 4), $(clock "$el") elapsed, about $(clock "$left") left"
if grep -qxF "$want" "$T/out"; then
	ok "time left at $pct% is $(clock "$left") as the timestamps give"
else
	notok "no line: $want"
fi
if head -1 "$T/out" | grep -q 'elapsed, estimating$'; then
	ok "the first line says estimating"
else
	notok "first line: $(head -1 "$T/out")"
fi

# 3. One final line per phase: the download lasts from its first line to
#    dpkg's first, the install to the end of the stream.
read -r dl_s in_s < <(awk -F'[ :]' '$2 == "dlstatus" && !d0 { d0 = $1 }
	$2 == "pmstatus" && !p0 { p0 = $1 } { last = $1 }
	END { printf "%.6f %.6f\n", p0 - d0, last - p0 }' "$DATA")
finals=$(grep -E '^\[setup\] (downloaded|installed) in ' "$T/out")
want="[setup] downloaded in $(clock "$dl_s")
[setup] installed in $(clock "$in_s")"
if [ "$finals" = "$want" ]; then
	ok "final lines: ${finals//$'\n'/, }"
else
	notok "final lines: '$finals', want '$want'"
fi

# 4. apt's own percent can step back (a download's total grew): never shown.
printf '%s\n' '1 dlstatus:1:12.0:Retrieving file 1 of 2' '12 dlstatus:1:9.0:Retrieving file 2 of 2' \
	'13 dlstatus:1:16.0:Retrieving file 2 of 2' >"$T/back.txt"
timed "$T/back.txt"
got=$(sed -n 's/^\[setup\] downloading \([0-9]*\)%.*/\1/p' "$T/out" | tr '\n' ' ')
if [ "$got" = "12 12 16 " ]; then
	ok "a percent that steps back is shown as the highest so far ($got)"
else
	notok "a percent that steps back: lines at $got (want 12 12 16)"
fi

# 5. A pmerror is reported at once (right after the line before it), a
#    package name with a colon in it kept whole.
awk '{ print } /Unpacking xauth/ {
	print $1 " pmerror:/var/cache/apt/archives/xauth_1%3a1.1.2-1_amd64.deb:41.1765:trying to overwrite '\''/usr/bin/xauth'\'', which is also in package foo 1.0"
	print $1 " pmerror:libfoo:amd64:41.1765:installed libfoo:amd64 package post-installation script subprocess returned error exit status 1" }' \
	"$DATA" >"$T/err.txt"
timed "$T/err.txt"
errs=$(grep -A2 '^\[setup\] installing 41% (unpacking xauth)' "$T/out" | tail -2)
want="[setup] apt error: /var/cache/apt/archives/xauth_1%3a1.1.2-1_amd64.deb: trying to overwrite '/usr/bin/xauth', which is also in package foo 1.0
[setup] apt error: libfoo:amd64: installed libfoo:amd64 package post-installation script subprocess returned error exit status 1"
if [ "$errs" = "$want" ]; then
	ok "pmerror lines reported at once"
else
	notok "pmerror: got '$errs'"
fi

# 6. Rate limits: 1000 lines at 0.1% steps in 2 s give a line per 5% step
#    (20, the first line and the final one: at most 25); 100 lines at 0.05%
#    steps, one a second, give a line every 10 s (t=1, 11, ..., 91) and
#    one at 5% (t=100).
awk 'BEGIN { for (i = 1; i <= 1000; i++) printf "%.3f dlstatus:1:%.4f:Retrieving file 1 of 1\n", i * 0.002, i * 0.1 }' >"$T/fast.txt"
timed "$T/fast.txt"
lines=$(wc -l <"$T/out")
if [ "$lines" -le 25 ] && [ "$lines" -ge 20 ]; then
	ok "1000 status lines in 2 s: $lines progress lines"
else
	notok "1000 status lines in 2 s: $lines progress lines (want 20-25)"
fi
awk 'BEGIN { for (i = 1; i <= 100; i++) printf "%d pmstatus:bc:%.4f:Unpacking bc (amd64)\n", i, i * 0.05 }' >"$T/slow.txt"
timed "$T/slow.txt"
got=$(sed -n 's/.*, \([0-9:]*\) elapsed.*/\1/p' "$T/out" | tr '\n' ' ')
if [ "$got" = "0:00 0:10 0:20 0:30 0:40 0:50 1:00 1:10 1:20 1:30 1:39 " ]; then
	ok "slow progress: a line every 10 s ($got)"
else
	notok "slow progress: lines at $got"
fi

# 7. Garbage and empty input, with and without timestamps: exit 0, nothing
#    printed, no traceback.
printf 'garbage\n\n::::\n12.5\n12.5 dlstatus\n1 dlstatus:1:150:x\nx pmstatus:a:5:b\n2 pmstatus:a:nan:b\n3 dlstatus:1:inf:z\n\377\376\000\001 pmstatus:\n' >"$T/junk.txt"
garbage_ok=1
for env in 1 0; do
	for f in /dev/null "$T/junk.txt"; do
		HOMALAB_APT_PROGRESS_TIMES=$env "$PROG" <"$f" >"$T/stdout" 2>"$T/out"
		rc=$?
		if [ "$rc" != 0 ] || [ -s "$T/out" ] || [ -s "$T/stdout" ]; then
			garbage_ok=0
			echo "# TIMES=$env $f: exit $rc: $(cat "$T/out")"
		fi
	done
done
check "garbage and empty input: exit 0, silent" [ "$garbage_ok" = 1 ]

# 8. Without timestamps (the live clock) the same stream still gives both
#    phases and their final lines.
cut -d' ' -f2- "$DATA" | "$PROG" >/dev/null 2>"$T/out"
live_ok() {
	grep -q '^\[setup\] downloading 0% (file 1 of 4), 0:00 elapsed, estimating$' "$T/out" &&
		grep -q '^\[setup\] downloaded in 0:00$' "$T/out" &&
		grep -q '^\[setup\] installing 94% (installed tmux), ' "$T/out" &&
		grep -q '^\[setup\] installed in 0:00$' "$T/out"
}
check "live clock: both phases and their final lines" live_ok

# 9. vm/setup-host parses, and shellcheck finds nothing in it.
check "bash -n vm/setup-host" bash -n "$REPO/vm/setup-host"
if command -v shellcheck >/dev/null; then
	shellcheck "$REPO/vm/setup-host" >"$T/sc" 2>&1
	rc=$?
	sed 's/^/# /' "$T/sc"
	if [ "$rc" = 0 ]; then ok "shellcheck vm/setup-host"; else notok "shellcheck vm/setup-host"; fi
else
	ok "shellcheck vm/setup-host # SKIP shellcheck is not installed"
fi

tap_done
