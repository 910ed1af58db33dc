// SPDX-License-Identifier: GPL-2.0
/*
 * homa_server.c - Homa echo: the response is sent straight from the
 * request's bpages, which go back to the pool with the next recvmsg.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "homa_msg.h"
#include "server.h"

void *homa_server_main(void *arg)
{
	const struct homa_ep *ep = arg;
	struct iovec iov[HOMA_MAX_BPAGES];
	unsigned long send_errors = 0;
	struct homa_rx in;
	ssize_t n;
	int cnt, err;

	homa_rx_init(&in);
	for (;;) {
		n = homa_receive(ep->fd, &in, HOMA_RECVMSG_REQUEST, 0, 0);
		if (n < 0) {
			if (n == -EINTR || in.ctl.id != 0)
				continue;	/* a failed RPC: the client sees it */
			fprintf(stderr, "homa_bench server: recvmsg: %s\n",
				strerror((int)-n));
			return NULL;
		}
		cnt = homa_rx_iov(&ep->region, &in, iov);
		if (cnt < 0)
			continue;
		err = homa_send_response(ep->fd, &in.src, in.ctl.id, iov, cnt);
		if (err && send_errors++ < 10)
			fprintf(stderr, "homa_bench server: sendmsg: %s\n",
				strerror(-err));
	}
}
