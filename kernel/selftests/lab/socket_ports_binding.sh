#!/bin/sh
# Sockets, ports and binding: socket() of both families, automatic client
# ports, bind() and its conflicts, setsockopt/getsockopt errors
# (homa_test_basic.c). One guest.
. "$(dirname "$0")/lib.sh"
lab_on 0 homa_test_basic
