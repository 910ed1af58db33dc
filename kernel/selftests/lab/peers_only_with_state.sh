#!/bin/sh
# peers_only_with_state.sh PKTGEN - a peer exists only while there is state
# for it. peers_host.sh injects, from 32 spoofed sources per family (the
# lab's SPOOF block, routed by the guest to the crafter so that answers
# leave), RESEND/UNKNOWN/BUSY/NEED_ACK/ACK for RPCs that do not exist: no
# peer may be created. homa_test_peers then runs RPCs to 32 local
# addresses per family (the LOCAL block, on lo): 32 peers,
# freed after peer_idle_secs (2 here) once the RPCs are over, re-created
# by the next echoes, never freed under a live RPC (both families in one
# run of homa_test_peers). One guest.
. "$(dirname "$0")/lib.sh"
host="sh $(dirname "$0")/../peers_host.sh ${1:?PKTGEN}"
lab_on 0 "/sbin/ip route add $HOMALAB_SPOOF_IP4/24 via $HOMALAB_PEER_IP4 && /sbin/ip -6 route add $HOMALAB_SPOOF_IP6/64 via $HOMALAB_PEER_IP6"
echo_start 0 540 4
echo_start 0 640 6
lab_host "$host 4 540 32"
lab_host "$host 6 640 32"
echo_stop 0 540
echo_stop 0 640
lab_on 0 "homa_test_peers --port 541 --count 32 --idle 2"
