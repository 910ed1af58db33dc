#!/bin/sh
# socket_api_memory_blocking.sh [ARGS]: the socket API around memory and
# blocking (homa_test_sockapi.c): the send budget (SO_SNDBUF, EAGAIN,
# SO_SNDTIMEO, blocking until RPCs are freed), memory cgroup charging of
# outgoing messages, HOMAIOCABORT waking recvmsg, SO_RCVTIMEO, bind() with
# live RPCs. Both families (harness variants ipv4 and ipv6) in one run, one
# guest. ARGS go to the program (the debug kernel has no cgroups:
# --no-memcg there leaves the memcg fixture out of the plan).
. "$(dirname "$0")/lib.sh"
lab_on 0 "homa_test_sockapi $*"
