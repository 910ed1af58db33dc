#!/bin/sh
# loss_recovery_and_stress.sh STRESS_SECONDS - loss recovery and a stress
# run, on the debug kernel (KASAN, lockdep, kmemleak), two guests.
#
# Exact drops (fault_host.py: tc u32 on the taps' ingress, on the lab
# host: the debug guest kernel has netem but no classifiers) of a
# message's first, last or only packet, each recovered by RESEND
# (homa_test_loss -f det, IPv4 and IPv6); then random loss, duplication,
# reordering and delay from netem in the guests under 240 (IPv4) + 60
# (IPv6) RPCs from several threads (homa_test_loss -f random), every one
# verified; then both guests drive RPCs at each other for STRESS_SECONDS
# under that netem (homa_test_stress -f stress). Last, once the RPCs are
# over, no RPC is left alive (server RPCs that wait for their ACK settle
# within 10 s) and packets were resent (homa_test_stress -f settled).
# max_gso_size 1100 makes every DATA skb one packet, so the host filters
# see each segment.
. "$(dirname "$0")/lib.sh"
secs=${1:?STRESS_SECONDS}
fh="python3 $(dirname "$0")/../fault_host.py"
netem0="/sbin/tc qdisc replace dev eth0 root netem delay 1ms 1ms loss 10%"
netem1="/sbin/tc qdisc replace dev eth0 root netem delay 1ms 1ms loss 10% duplicate 5% reorder 25%"
lab_on 0 "fault_guest.sh sysctl"
lab_on 1 "fault_guest.sh sysctl"
echo_start 1 500 4
echo_start 1 600 6
lab_host "$fh drops"
lab_on 0 "homa_test_loss --peer G1 --port4 500 --port6 600 -- -f det"
lab_host "$fh check-drops"
lab_host "$fh count"
lab_on 0 "$netem0"
lab_on 1 "$netem1"
lab_on 0 "homa_test_loss --peer G1 --port4 500 --port6 600 -- -f random"
lab_host "$fh check-lost"
lab_host "$fh clear"
echo_stop 1 500
echo_stop 1 600
lab_bg 1 stress "homa_test_stress --peer G0 --port 800 --seconds $secs -- -f stress"
lab_on 0 "homa_test_stress --peer G1 --port 800 --seconds $secs -- -f stress"
lab_wait 1 stress
lab_on 0 "/sbin/tc qdisc del dev eth0 root"
lab_on 1 "/sbin/tc qdisc del dev eth0 root"
lab_on 1 "homa_test_stress --settle 10 -- -T no_client_rpcs_live -f settled"
lab_on 0 "homa_test_stress --settle 10 -- -f settled"
