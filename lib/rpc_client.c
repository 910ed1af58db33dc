// SPDX-License-Identifier: GPL-2.0
/* rpc_client.c - see rpc_client.h. */
#define _GNU_SOURCE
#include "rpc_client.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "payload.h"

/*
 * Splits [0, @len) into at most @pieces iovecs over @buf: piece i gets
 * a share that varies with i, the last takes the rest. Returns the count.
 */
static int split(struct iovec *iov, int pieces, uint8_t *buf, size_t len)
{
	size_t off = 0, avg = len / (size_t)pieces, want;
	int i;

	for (i = 0; i < pieces - 1 && off < len; i++) {
		want = avg / 2 + (avg * (size_t)((i * 7) % 5)) / 4;
		if (want == 0)
			want = 1;
		if (want > len - off)
			want = len - off;
		iov[i] = (struct iovec){ buf + off, want };
		off += want;
	}
	iov[i] = (struct iovec){ buf + off, len - off };
	return i + 1;
}

static bool fail(struct rpc_result *res, const char *stage, int err)
{
	res->stage = stage;
	res->err = err;
	return false;
}

bool rpc_echo_checked(struct homa_ep *ep, struct homa_rx *rx,
		      const union homa_addr *server, uint8_t *buf, size_t len,
		      uint64_t seed, int pieces, struct rpc_result *res)
{
	uint64_t cookie = seed * 0x9e3779b97f4a7c15ULL + 1;
	static __thread struct iovec iov[RPC_MAX_PIECES];
	struct iovec rxiov[HOMA_MAX_BPAGES];
	char a[64], b[64];
	ssize_t n;
	long bad;
	int err, cnt, niov;

	memset(res, 0, sizeof(*res));
	if (pieces < 1 || pieces > RPC_MAX_PIECES)
		pieces = 1;
	payload_fill(buf, len, seed, 0);
	niov = split(iov, pieces, buf, len);
	err = homa_send_request(ep->fd, server, iov, niov, cookie, &res->id);
	if (err)
		return fail(res, "sendmsg", err);
	if (res->id == 0 || (res->id & 1)) {
		snprintf(res->detail, sizeof(res->detail),
			 "sendmsg gave id %llu (want even, non-zero)",
			 (unsigned long long)res->id);
		return fail(res, "check", 0);
	}
	n = homa_receive(ep->fd, rx, HOMA_RECVMSG_RESPONSE, res->id, 0);
	if (n < 0)
		return fail(res, "recvmsg", (int)n);
	if (rx->ctl.id != res->id || rx->ctl.completion_cookie != cookie) {
		snprintf(res->detail, sizeof(res->detail),
			 "id %llu cookie %#llx, want id %llu cookie %#llx",
			 (unsigned long long)rx->ctl.id,
			 (unsigned long long)rx->ctl.completion_cookie,
			 (unsigned long long)res->id,
			 (unsigned long long)cookie);
		return fail(res, "check", 0);
	}
	if (!homa_addr_equal(&rx->src, server)) {
		snprintf(res->detail, sizeof(res->detail),
			 "response from %s, want %s",
			 homa_addr_str(&rx->src, a, sizeof(a)),
			 homa_addr_str(server, b, sizeof(b)));
		return fail(res, "check", 0);
	}
	if ((size_t)n != len) {
		snprintf(res->detail, sizeof(res->detail),
			 "response of %zd bytes, want %zu", n, len);
		return fail(res, "check", 0);
	}
	cnt = homa_rx_iov(&ep->region, rx, rxiov);
	if (cnt < 0) {
		snprintf(res->detail, sizeof(res->detail),
			 "bad bpages: num_bpages %u for %zd bytes, first offset %u",
			 rx->ctl.num_bpages, n, rx->ctl.bpage_offsets[0]);
		return fail(res, "check", 0);
	}
	bad = payload_check_iov(rxiov, cnt, seed);
	if (bad >= 0) {
		snprintf(res->detail, sizeof(res->detail),
			 "byte %ld is %#x, want %#x", bad,
			 ((uint8_t *)rxiov[bad >> HOMA_BPAGE_SHIFT].iov_base)
				[bad & (HOMA_BPAGE_SIZE - 1)],
			 payload_byte(seed, (size_t)bad));
		return fail(res, "check", 0);
	}
	return true;
}
