#!/bin/sh
# Echo RPCs of every size inside one guest, over loopback, IPv4 and IPv6,
# byte for byte (homa_test_echo.c against homa_echo_server.c).
. "$(dirname "$0")/lib.sh"
echo_start 0 500 4
echo_start 0 600 6
lab_on 0 "homa_test_echo --server 127.0.0.1 --port 500"
lab_on 0 "homa_test_echo --server ::1 --port 600"
echo_stop 0 500
echo_stop 0 600
