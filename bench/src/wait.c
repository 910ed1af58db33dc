// SPDX-License-Identifier: GPL-2.0
/* wait.c - see wait.h. */
#include "wait.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "tcp_io.h"

static int tcp_echo_once(const union homa_addr *server)
{
	char c = 'x', r = 0;
	int fd = tcp_connect(server), ok;

	if (fd < 0)
		return -1;
	ok = !tcp_send_msg(fd, &c, 1) && tcp_recv_len(fd) == 1 &&
	     !tcp_read_full(fd, &r, 1) && r == c;
	close(fd);
	return ok ? 0 : -1;
}

static int homa_echo_once(const union homa_addr *server)
{
	struct pollfd pfd;
	struct homa_rx in;
	struct homa_ep ep;
	uint64_t id = 0;
	int ok = 0;

	if (homa_ep_open(&ep, server->sa.sa_family, 0, 4))
		return -1;
	homa_rx_init(&in);
	if (!homa_send_request_buf(ep.fd, server, "x", 1, 7, &id)) {
		pfd.fd = ep.fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 2000) == 1 &&
		    homa_receive(ep.fd, &in, HOMA_RECVMSG_RESPONSE, 0, 0) == 1 &&
		    in.ctl.completion_cookie == 7)
			ok = 1;
	}
	homa_ep_close(&ep);
	return ok ? 0 : -1;
}

int wait_main(const struct wait_opts *o)
{
	uint64_t deadline = now_ns() + (uint64_t)(o->timeout_s * 1e9);
	union homa_addr server;
	int tcp = -1, homa = -1;

	if (homa_addr_parse(&server, o->server, o->port)) {
		fprintf(stderr, "homa_bench: bad server address '%s'\n", o->server);
		return 1;
	}
	while (now_ns() < deadline) {
		if (tcp)
			tcp = tcp_echo_once(&server);
		if (homa)
			homa = homa_echo_once(&server);
		if (!tcp && !homa) {
			printf("homa_bench: server %s port %u answers over TCP and Homa\n",
			       o->server, o->port);
			return 0;
		}
		usleep(200000);
	}
	fprintf(stderr, "homa_bench: server %s port %u: no answer over%s%s\n",
		o->server, o->port, tcp ? " TCP" : "", homa ? " Homa" : "");
	return 1;
}
