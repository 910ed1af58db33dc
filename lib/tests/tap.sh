# SPDX-License-Identifier: GPL-2.0
# tap.sh - the TAP writer of the shell tests (lib/tests/tap.h is the C
# one). Source it, then:
#   ok WHAT, notok WHAT   one case, numbered in order
#   check WHAT CMD...     ok when CMD succeeds, else not ok
#   tap_done              the plan (1..N, last, as TAP allows), then exit:
#                         0 when every case passed, else 1
# $n counts the cases and $fail is 1 once one failed.
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $*"; }
check() {
	_tap_what=$1
	shift
	if "$@"; then ok "$_tap_what"; else notok "$_tap_what"; fi
}
tap_done() {
	echo "1..$n"
	exit "$fail"
}
