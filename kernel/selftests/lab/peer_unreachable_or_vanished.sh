#!/bin/sh
# What a client sees when its server's host answers for a gone RPC, cannot
# be reached, or vanishes, on the debug kernel, two guests
# (homa_test_faults):
#  - unknown: UNKNOWN for an RPC the server no longer has;
#  - icmp: ICMP port unreachable (guest 1's rate limits off) ends the RPC;
#  - lifecycle: 2,000 RPCs to a sink that holds them, closed and reopened
#    under load;
#  - vanish: the module unloaded under 1,000 RPCs in flight ends them with
#    ENOTCONN or EPROTONOSUPPORT; the link down under 300 ends them with
#    ETIMEDOUT.
. "$(dirname "$0")/lib.sh"
echo_start 1 500 4
echo_start 1 600 6
lab_on 0 "homa_test_faults unknown"
lab_on 1 "fault_guest.sh icmp-ratelimit off"
lab_on 0 "homa_test_faults icmp --server $HOMALAB_G1_IP4 --port 999"
lab_on 0 "homa_test_faults icmp --server $HOMALAB_G1_IP6 --port 999"
lab_on 1 "fault_guest.sh icmp-ratelimit default"
lab_on 1 "fault_guest.sh sink"
lab_on 0 "homa_test_faults lifecycle --server $HOMALAB_G1_IP4 --port 500 --sink-port 700 --rpcs 2000"
lab_on 1 "fault_guest.sh sink-kill"
lab_on 1 "fault_guest.sh sink"
lab_bg 0 v1 "homa_test_faults vanish --server $HOMALAB_G1_IP4 --port 700 --count 1000 --expect ENOTCONN,EPROTONOSUPPORT"
lab_on 0 "fault_guest.sh ready"
lab_on 1 "fault_guest.sh sink-kill && homa_echo_server --stop --pidfile /tmp/echo500.pid && homa_echo_server --stop --pidfile /tmp/echo600.pid && rmmod homa"
lab_wait 0 v1
lab_on 1 "modprobe homa && fault_guest.sh sink"
lab_bg 0 v2 "homa_test_faults vanish --server $HOMALAB_G1_IP4 --port 700 --count 300 --expect ETIMEDOUT"
lab_on 0 "fault_guest.sh ready"
lab_on 1 "/sbin/ip link set eth0 down"
lab_wait 0 v2
lab_on 1 "/sbin/ip link set eth0 up && fault_guest.sh sink-kill"
