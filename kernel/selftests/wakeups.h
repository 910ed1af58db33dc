/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wakeups.h - calls that wait: NONBLOCKING and MSG_DONTWAIT give EAGAIN,
 * poll reports arrivals, a signal ends a blocked recvmsg with EINTR,
 * shutdown ends it with ESHUTDOWN (and poll then reports POLLIN), and
 * sockets close with RPCs in flight: every RPC is freed (the live-RPC
 * metrics fall back) and the port can be bound again.
 */
#ifndef HOMA_SELFTEST_WAKEUPS_H
#define HOMA_SELFTEST_WAKEUPS_H

#include "ktap.h"

#define WAKEUP_CASES 13

void wakeup_tests(struct ktap *k, int family);

#endif /* HOMA_SELFTEST_WAKEUPS_H */
