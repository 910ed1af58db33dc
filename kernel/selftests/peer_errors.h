/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peer_errors.h - client RPCs that cannot succeed end with an error that
 * recvmsg reports with the RPC's id: ENOTCONN when the server's port
 * has no socket (ICMP port unreachable), ETIMEDOUT when the peer never
 * answers (the lab's crafter address, which nothing on the guest side
 * owns).
 */
#ifndef HOMA_SELFTEST_PEER_ERRORS_H
#define HOMA_SELFTEST_PEER_ERRORS_H

#include "ktap.h"

#define PEER_ERROR_CASES 2

/* @silent_peer: numeric address of a host that never answers. */
void peer_error_tests(struct ktap *k, int family, const char *silent_peer);

#endif /* HOMA_SELFTEST_PEER_ERRORS_H */
