/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rpc_client.h - one patterned request/response round trip, checked:
 * the response has the request's id and cookie, comes from the server's
 * address, has the expected length and the expected bytes.
 */
#ifndef HOMA_USER_RPC_CLIENT_H
#define HOMA_USER_RPC_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "homa_msg.h"
#include "homa_sock.h"

struct rpc_result {
	int err;		/* 0, or -errno of sendmsg/recvmsg */
	const char *stage;	/* "sendmsg", "recvmsg" or "check" */
	char detail[160];	/* what did not match */
	uint64_t id;
};

/* Most iovecs rpc_echo_checked() splits a request into. */
#define RPC_MAX_PIECES 1000

/*
 * Sends @len patterned bytes (seed @seed) to @server from @buf (at least
 * @len bytes, filled here), split over @pieces iovecs of uneven sizes
 * (1..RPC_MAX_PIECES), and checks that the response is the same bytes.
 * Returns true when everything matched.
 */
bool rpc_echo_checked(struct homa_ep *ep, struct homa_rx *rx,
		      const union homa_addr *server, uint8_t *buf, size_t len,
		      uint64_t seed, int pieces, struct rpc_result *res);

#endif /* HOMA_USER_RPC_CLIENT_H */
