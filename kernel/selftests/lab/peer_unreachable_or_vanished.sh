#!/bin/sh
# What a client sees when its server's host answers for a gone RPC, cannot
# be reached, or vanishes, on the debug kernel, two guests:
#  - unknown: UNKNOWN for an RPC the server no longer has
#    (homa_test_peer_failure -f unknown, IPv4 and IPv6);
#  - icmp: ICMP port unreachable (guest 1's rate limits off) ends the RPC
#    (homa_test_peer_failure -f icmp, IPv4 and IPv6);
#  - lifecycle: 2,000 RPCs to a sink that holds them, closed and reopened
#    under load, then rmmod (homa_test_lifecycle);
#  - vanish: the module unloaded under 1,000 RPCs in flight ends them with
#    ENOTCONN or EPROTONOSUPPORT (-v module_unloaded); the link down under
#    300 ends them with ETIMEDOUT (-v link_down).
. "$(dirname "$0")/lib.sh"
echo_start 1 500 4
echo_start 1 600 6
lab_on 0 "homa_test_peer_failure -- -f unknown"
lab_on 1 "fault_guest.sh icmp-ratelimit off"
lab_on 0 "homa_test_peer_failure --peer G1 --icmp-port 999 -- -f icmp"
lab_on 1 "fault_guest.sh icmp-ratelimit default"
lab_on 1 "fault_guest.sh sink"
lab_on 0 "homa_test_lifecycle --peer G1 --port 500 --sink-port 700 --rpcs 2000"
lab_on 1 "fault_guest.sh sink-kill"
lab_on 1 "fault_guest.sh sink"
lab_bg 0 v1 "homa_test_peer_failure --peer G1 --sink-port 700 -- -v module_unloaded"
lab_on 0 "fault_guest.sh ready"
lab_on 1 "fault_guest.sh sink-kill && homa_echo_server --stop --pidfile /tmp/echo500.pid && homa_echo_server --stop --pidfile /tmp/echo600.pid && rmmod homa"
lab_wait 0 v1
lab_on 1 "modprobe homa && fault_guest.sh sink"
lab_bg 0 v2 "homa_test_peer_failure --peer G1 --sink-port 700 -- -v link_down"
lab_on 0 "fault_guest.sh ready"
lab_on 1 "/sbin/ip link set eth0 down"
lab_wait 0 v2
lab_on 1 "/sbin/ip link set eth0 up && fault_guest.sh sink-kill"
