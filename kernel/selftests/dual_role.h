/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dual_role.h - sockets that are client and server at once: each sends
 * requests and, with one recvmsg loop (REQUEST | RESPONSE), both answers
 * the requests it gets and collects the responses to its own.
 */
#ifndef HOMA_SELFTEST_DUAL_ROLE_H
#define HOMA_SELFTEST_DUAL_ROLE_H

#include "ktap.h"

/* KTAP cases that dual_role_tests() reports. */
#define DUAL_ROLE_CASES 5

void dual_role_tests(struct ktap *k, int family);

#endif /* HOMA_SELFTEST_DUAL_ROLE_H */
