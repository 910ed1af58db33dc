// SPDX-License-Identifier: GPL-2.0
/* peer_errors.c - see peer_errors.h. */
#define _GNU_SOURCE
#include "peer_errors.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "expect.h"
#include "homa_msg.h"
#include "homa_sock.h"

#define NOBODY_PORT 4999

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Sends one request to @dst; returns what recvmsg reports for it. */
static int rpc_outcome(struct ktap *k, struct homa_ep *ep,
		       const union homa_addr *dst, size_t len)
{
	static uint8_t buf[20000];
	struct homa_rx rx;
	long long t0 = now_ms();
	uint64_t id = 0;
	ssize_t n;
	int err;

	memset(buf, 0x33, sizeof(buf));
	err = homa_send_request_buf(ep->fd, dst, buf, len, 9, &id);
	if (err)
		return err;
	homa_rx_init(&rx);
	n = homa_receive(ep->fd, &rx, HOMA_RECVMSG_RESPONSE, id, 0);
	ktap_diag(k, "request %llu: %s after %lld ms (recvmsg id %llu)",
		  (unsigned long long)id, errno_name(n < 0 ? (int)n : 0),
		  now_ms() - t0, (unsigned long long)rx.ctl.id);
	if (n < 0 && rx.ctl.id != id)
		return -EBADMSG;	/* the error must name the RPC */
	return n < 0 ? (int)n : 0;
}

void peer_error_tests(struct ktap *k, int family, const char *silent_peer)
{
	union homa_addr dst;
	struct homa_ep ep;
	int err;

	err = homa_ep_open(&ep, family, 0, 4);
	if (err) {
		expect_errno(k, err, ENOTCONN, "request_to_port_without_socket_enotconn");
		expect_errno(k, err, ETIMEDOUT, "request_to_silent_peer_etimedout");
		return;
	}
	homa_addr_loopback(&dst, family, NOBODY_PORT);
	expect_errno(k, rpc_outcome(k, &ep, &dst, 100), ENOTCONN,
		     "request_to_port_without_socket_enotconn");
	if (homa_addr_parse(&dst, silent_peer, 500) < 0 ||
	    dst.sa.sa_family != family) {
		ktap_diag(k, "bad --silent-peer %s", silent_peer);
		ktap_result(k, false, "request_to_silent_peer_etimedout");
	} else {
		expect_errno(k, rpc_outcome(k, &ep, &dst, 5000), ETIMEDOUT,
			     "request_to_silent_peer_etimedout");
	}
	homa_ep_close(&ep);
}
