#!/bin/sh
# kunit_results.sh SUITE: print, as this step's TAP, the results of the
# KUnit suite SUITE that ran when its module loaded (KUnit writes them to
# the kernel log, nested one level: "    ok 3 case_name"). Fails if the
# suite did not run, ran twice, or any case failed; a case KUnit skipped
# is reported as skipped (which fails a lab run).
set -eu
suite=${1:?usage: kunit_results.sh SUITE}
log=$(dmesg | sed 's/^\[[^]]*\] //')
runs=$(printf '%s\n' "$log" | grep -c "^    # Subtest: $suite\$" || true)
if [ "$runs" -ne 1 ]; then
	echo "1..1"
	echo "not ok 1 - KUnit suite $suite ran once when its module loaded # it ran $runs time(s)"
	printf '%s\n' "$log" | grep -i kunit | head -20 | sed 's/^/# /'
	exit 1
fi
# The suite's block: from its Subtest line to its own result line.
printf '%s\n' "$log" | awk -v suite="$suite" '
	$0 == "    # Subtest: " suite { inside = 1; next }
	!inside { next }
	/^    1\.\.[0-9]+$/ { sub(/^    /, ""); print; next }
	/^    (not )?ok [0-9]+ / {
		line = substr($0, 5)
		split(line, w, " ")
		if (w[1] == "not") { res = "not ok"; n = w[3]; rest = substr(line, length("not ok " n " ") + 1) }
		else { res = "ok"; n = w[2]; rest = substr(line, length("ok " n " ") + 1) }
		print res " " n " - " rest
		next
	}
	/^(not )?ok [0-9]+ / { exit }
	/^ / { sub(/^ +/, ""); sub(/^# /, ""); print "# " $0; next }
'
printf '%s\n' "$log" | grep -q "^ok [0-9]* $suite\$"
