#!/bin/sh
# NICs with checksum offload and TSO (the run's --offload): the host's tap
# takes the guests' multi-segment DATA skbs whole (CHECKSUM_PARTIAL at
# TCP's checksum offset, as TSO needs); the echo completes (frames the
# host cannot forward between the guests are recovered by RESEND). Two
# guests; offload_host.sh checks the taps saw such skbs.
. "$(dirname "$0")/lib.sh"
here=$(dirname "$0")/..
echo_start 1 500 4
echo_start 1 600 6
lab_on 0 "homa_test_echo --server $HOMALAB_G1_IP4 --port 500"
lab_on 0 "homa_test_echo --server $HOMALAB_G1_IP6 --port 600"
echo_stop 1 500
echo_stop 1 600
lab_host "sh $here/offload_host.sh 2"
