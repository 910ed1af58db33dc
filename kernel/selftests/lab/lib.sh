# SPDX-License-Identifier: GPL-2.0
# lab/lib.sh - what a lab test script is made of.
#
# Each script in this folder is one kernel behaviour's test. CMake runs it
# as the one --host step of a lab run (vm/lab run --guests N --host "sh
# lab/NAME.sh"), which boots the guests with the module and the test
# programs and exports HOMALAB_LAB, each guest's agent and the lab's
# addresses (HOMALAB_G0_IP4, ...; vm/README.md). The script sources this
# file, then says what runs where:
#
#   lab_on G CMD        run CMD (sh -c) in guest G, wait for it
#   lab_host CMD        run CMD on the lab host (in the lab's namespace)
#   lab_bg G NAME CMD   start CMD in guest G in the background (the guest
#                       takes other commands meanwhile)
#   lab_wait G NAME     wait for that command to end
#   echo_start G PORT FAMILY [ARGS]   an echo server in the background
#   echo_stop G PORT                  stop it (fails if it hangs)
#
# Every command's output is one program's KTAP for the harness: a line
# "# HOMALAB-STEP WHERE: CMD" names it, and the harness checks each
# program's plan and cases on its own (vm/homalab/report.py). A command
# that fails (non-zero status) ends the script with its status and a
# "Bail out!" line naming it, as a failing --on step ends a run.

: "${HOMALAB_LAB:?run me as a vm/lab --host step}"

# _lab_ran WHERE CMD STATUS: after a command: stop the script on failure.
_lab_ran() {
	[ "$3" = 0 ] && return 0
	echo "Bail out! $1: $2: exited with status $3"
	exit "$3"
}

lab_on() {
	echo "# HOMALAB-STEP g$1: $2"
	# The run's own deadline bounds the command (the harness kills this
	# script at the end of it), so exec's is only a backstop.
	"$HOMALAB_LAB" exec --timeout 7200 "$1" "$2"
	_lab_ran "g$1" "$2" $?
}

lab_host() {
	echo "# HOMALAB-STEP host: $1"
	sh -c "$1"
	_lab_ran host "$1" $?
}

lab_bg() {
	echo "# lab_bg g$1 $2: $3"
	"$HOMALAB_LAB" exec "$1" "rm -f /tmp/$2.rc /tmp/$2.log
( ( $3 ) > /tmp/$2.log 2>&1 < /dev/null; echo \$? > /tmp/$2.rc ) > /dev/null 2>&1 &"
	_lab_ran "g$1" "starting $2 in the background" $?
}

lab_wait() {
	echo "# HOMALAB-STEP g$1: $2 (background)"
	"$HOMALAB_LAB" exec --timeout 7200 "$1" "while [ ! -f /tmp/$2.rc ]; do sleep 0.5; done
cat /tmp/$2.log; exit \$(cat /tmp/$2.rc)"
	_lab_ran "g$1" "$2 (background)" $?
}

# The echo server forks once its socket is ready and its pid is written.
echo_start() {
	g=$1 port=$2 family=$3
	shift 3
	lab_on "$g" "homa_echo_server --port $port --family $family --daemon --pidfile /tmp/echo$port.pid $*"
}

# Stopping fails (showing the server's kernel stacks) if the server has not
# exited 10 s after SIGTERM, e.g. because closing its socket hangs.
echo_stop() {
	lab_on "$1" "homa_echo_server --stop --pidfile /tmp/echo$2.pid"
}
