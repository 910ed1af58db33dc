#!/bin/sh
# wire_scenarios.sh SCENARIO RUNNER_DIR... - the kernel's behaviour at the
# wire: homa-scenario (pktgen/runner) plays the scenarios of each folder
# (scenarios/<feature>/*.scn, fuzz/, fuzz-soak/) against guest 0, which
# runs an echo server per family (ports 5000 and 5001, as the scenarios
# expect). The servers are stopped even when a scenario fails.
. "$(dirname "$0")/lib.sh"
runner=${1:?homa-scenario}
shift
echo_start 0 5000 4
echo_start 0 5001 6
echo "# HOMALAB-STEP host: homa-scenario $*"
"$runner" "$@"
rc=$?
echo_stop 0 5000
echo_stop 0 5001
_lab_ran host "homa-scenario $*" $rc
