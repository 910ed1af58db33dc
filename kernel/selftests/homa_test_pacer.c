// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_pacer - the pacer keeps to net.homa.link_mbps and serves the
 * throttled RPCs in SRPT order (fewest bytes left first).
 *
 * Runs over loopback in one guest (the pacer is per host, not per device)
 * with an echo server thread; sets net.homa.link_mbps to LINK_MBPS and
 * puts the old value back at the end.
 *
 * usage: homa_test_pacer [--family 4|6]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "echo.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "ktap.h"
#include "payload.h"
#include "rpc_client.h"
#include "watchdog.h"

#define SERVER_PORT 4100
#define LINK_MBPS 20
#define LONG_LEN 1000000
#define SHORT_LEN 20000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One checked echo of @len bytes; its time in @secs. */
static bool timed_echo(struct homa_ep *ep, const union homa_addr *server,
		       uint8_t *buf, size_t len, uint64_t seed, double *secs)
{
	struct rpc_result res;
	struct homa_rx rx;
	double t0 = now_s();
	bool ok;

	homa_rx_init(&rx);
	ok = rpc_echo_checked(ep, &rx, server, buf, len, seed, 1, &res);
	*secs = now_s() - t0;
	if (!ok)
		fprintf(stderr, "# echo of %zu bytes: %s: %s (%d)\n", len,
			res.stage, res.detail, res.err);
	/* Hand the response's bpages back. */
	homa_receive(ep->fd, &rx, HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
	return ok;
}

/*
 * A long request, then at once a short one, both throttled: the short
 * one's response must come back first and long before the long one's.
 */
static void test_srpt(struct ktap *k, struct homa_ep *ep,
		      const union homa_addr *server, uint8_t *lbuf,
		      uint8_t *sbuf)
{
	double t0, t_short = 0, t_long = 0;
	uint64_t lid = 0, sid = 0;
	struct homa_rx rx;
	int first = 0, i, err;
	ssize_t n;

	payload_fill(lbuf, LONG_LEN, 31, 0);
	payload_fill(sbuf, SHORT_LEN, 32, 0);
	homa_rx_init(&rx);
	t0 = now_s();
	err = homa_send_request_buf(ep->fd, server, lbuf, LONG_LEN, 1, &lid);
	if (!err)
		err = homa_send_request_buf(ep->fd, server, sbuf, SHORT_LEN, 2,
					    &sid);
	for (i = 0; i < 2 && !err; i++) {
		n = homa_receive(ep->fd, &rx, HOMA_RECVMSG_RESPONSE, 0, 0);
		if (n < 0) {
			err = (int)n;
			break;
		}
		if (!first)
			first = (int)rx.ctl.completion_cookie;
		if (rx.ctl.completion_cookie == 2 && n == SHORT_LEN)
			t_short = now_s() - t0;
		else if (rx.ctl.completion_cookie == 1 && n == LONG_LEN)
			t_long = now_s() - t0;
	}
	homa_receive(ep->fd, &rx, HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
	ktap_diag(k, "srpt: short response after %.3f s, long after %.3f s (err %d)",
		  t_short, t_long, err);
	ktap_result(k, !err && first == 2 && t_short > 0 && t_long > 0 &&
		    t_short < 0.25 * t_long,
		    "srpt_short_message_overtakes_throttled_long_one");
}

int main(int argc, char **argv)
{
	int family = AF_INET, err;
	struct echo_thread srv;
	union homa_addr server;
	struct watchdog wd;
	struct homa_ep ep;
	double paced = 0, fast = 0, wire;
	uint8_t *lbuf, *sbuf;
	struct ktap k;
	long old;
	bool ok;

	if (argc == 3 && strcmp(argv[1], "--family") == 0)
		family = homa_family_parse(argv[2]);
	if (family < 0 || (argc != 1 && argc != 3)) {
		fprintf(stderr, "usage: homa_test_pacer [--family 4|6]\n");
		return 2;
	}
	ktap_start(&k, 4);
	watchdog_start(&wd, &k);
	watchdog_arm(&wd, 120, "pacer setup");
	lbuf = malloc(LONG_LEN);
	sbuf = malloc(SHORT_LEN);
	old = homa_sysctl_read("link_mbps");
	err = lbuf && sbuf ? 0 : -ENOMEM;
	if (!err)
		err = echo_thread_start(&srv, family, SERVER_PORT, 64);
	if (!err) {
		err = homa_ep_open(&ep, family, 0, 64);
		if (err)
			echo_thread_stop(&srv);
	}
	if (!err && old <= 0)
		err = -ENOENT;
	if (!ktap_result(&k, !err, "setup (echo server, client, link_mbps %ld)",
			 old))
		return ktap_finish(&k);
	homa_addr_loopback(&server, family, SERVER_PORT);

	/* Request and response, each LONG_LEN bytes plus headers. */
	wire = 2.0 * LONG_LEN * 8 / (LINK_MBPS * 1e6);
	watchdog_arm(&wd, 120, "paced echo");
	err = homa_sysctl_set("link_mbps", LINK_MBPS);
	ok = !err && timed_echo(&ep, &server, lbuf, LONG_LEN, 7, &paced);
	ktap_result(&k, ok && paced >= 0.9 * wire,
		    "link_mbps_%d_paces_a_1MB_echo (%.3f s, wire time %.3f s)",
		    LINK_MBPS, paced, wire);

	watchdog_arm(&wd, 120, "srpt");
	test_srpt(&k, &ep, &server, lbuf, sbuf);

	watchdog_arm(&wd, 120, "unpaced echo");
	err = homa_sysctl_set("link_mbps", old);
	ok = !err && timed_echo(&ep, &server, lbuf, LONG_LEN, 8, &fast);
	ktap_result(&k, ok && fast < 0.6 * paced,
		    "link_mbps_%ld_restored_is_faster (%.3f s against %.3f s)",
		    old, fast, paced);
	watchdog_stop(&wd);
	homa_ep_close(&ep);
	echo_thread_stop(&srv);
	free(lbuf);
	free(sbuf);
	return ktap_finish(&k);
}
