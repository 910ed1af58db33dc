// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_pacer - the pacer keeps to net.homa.link_mbps and serves the
 * throttled RPCs in SRPT order (fewest bytes left first). Its bounds are
 * scaled to an unpaced echo measured first in the same test, so a slow
 * (debug, TCG) guest makes them wider, not wrong.
 *
 * Runs over loopback in one guest (the pacer is per host, not per device)
 * with an echo server thread, over IPv4 and IPv6 (variants ipv4, ipv6);
 * a test that sets net.homa.link_mbps to LINK_MBPS puts the old value
 * back at its end.
 *
 * usage: homa_test_pacer [harness options: -v ipv4, -t NAME, -l ...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "echo.h"
#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "payload.h"
#include "rpc_client.h"

#define SERVER_PORT 4100
#define LINK_MBPS 20
#define LONG_LEN 1000000
#define SHORT_LEN 20000
/* The old watchdog gave set-up 120 s and each step 300 s. */
#define PACER_TIMEOUT 600

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
		ksft_print_msg("echo of %zu bytes: %s: %s (%d)\n", len,
			       res.stage, res.detail, res.err);
	/* Hand the response's bpages back. */
	homa_receive(ep->fd, &rx, HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
	return ok;
}

/*
 * An echo server thread and a client socket on loopback, and the
 * baseline: what a 1 MB echo costs this guest without pacing, at the
 * module's own link_mbps (a small echo first, so that it does not include
 * setting up the peer).
 */
FIXTURE(pacer) {
	uint8_t *lbuf, *sbuf;
	struct echo_thread srv;
	struct homa_ep ep;
	union homa_addr server;
	long old;		/* link_mbps before the test */
	double base;		/* the unpaced 1 MB echo, seconds */
	bool base_ok;
	bool srv_up, ep_up;
};

FIXTURE_VARIANT(pacer) {
	int family;
};

HOMA_FAMILY_VARIANTS(pacer);

FIXTURE_SETUP(pacer)
{
	self->old = homa_sysctl_read("link_mbps");
	TH_LOG("link_mbps is %ld", self->old);
	ASSERT_GT(self->old, 0);
	self->lbuf = malloc(LONG_LEN);
	self->sbuf = malloc(SHORT_LEN);
	ASSERT_NE(NULL, self->lbuf);
	ASSERT_NE(NULL, self->sbuf);
	ASSERT_ERRNO(0, echo_thread_start(&self->srv, variant->family,
					  SERVER_PORT, 64));
	self->srv_up = true;
	ASSERT_ERRNO(0, homa_ep_open(&self->ep, variant->family, 0, 64));
	self->ep_up = true;
	homa_addr_loopback(&self->server, variant->family, SERVER_PORT);

	self->base_ok = timed_echo(&self->ep, &self->server, self->sbuf, 100,
				   6, &self->base) &&
			timed_echo(&self->ep, &self->server, self->lbuf,
				   LONG_LEN, 6, &self->base);
	TH_LOG("unpaced 1 MB echo (baseline): %.3f s%s", self->base,
	       self->base_ok ? "" : " (failed)");
}

FIXTURE_TEARDOWN(pacer)
{
	if (self->old > 0 && homa_sysctl_set("link_mbps", self->old))
		TH_LOG("restoring link_mbps %ld failed", self->old);
	if (self->ep_up)
		homa_ep_close(&self->ep);
	if (self->srv_up)
		echo_thread_stop(&self->srv);
	free(self->lbuf);
	free(self->sbuf);
}

/* The server thread and the client socket came up (the fixture). */
TEST_F_TIMEOUT(pacer, setup_echo_server_and_client, PACER_TIMEOUT)
{
	TH_LOG("echo server on port %d, client on port %d", self->srv.ep.port,
	       self->ep.port);
}

/* The unpaced echoes of the baseline came back intact. */
TEST_F_TIMEOUT(pacer, unpaced_baseline_echo_verified, PACER_TIMEOUT)
{
	EXPECT_TRUE(self->base_ok);
}

/*
 * Request and response, each LONG_LEN bytes plus headers: no faster
 * than 90 % of the wire time; no slower than 1.5 times the wire time
 * plus twice the baseline (what the guest itself costs).
 */
TEST_F_TIMEOUT(pacer, link_mbps_20_paces_a_1MB_echo_to_its_wire_time,
	       PACER_TIMEOUT)
{
	double wire = 2.0 * LONG_LEN * 8 / (LINK_MBPS * 1e6), paced = 0;
	double lo = 0.9 * wire, hi = 1.5 * wire + 2 * self->base;
	bool ok;

	ASSERT_ERRNO(0, homa_sysctl_set("link_mbps", LINK_MBPS));
	ok = timed_echo(&self->ep, &self->server, self->lbuf, LONG_LEN, 7,
			&paced);
	TH_LOG("paced 1 MB echo at link_mbps %d: %.3f s; wire time %.3f s, so the bounds are %.3f s .. %.3f s",
	       LINK_MBPS, paced, wire, lo, hi);
	EXPECT_TRUE(ok);
	EXPECT_GE(paced, lo);
	EXPECT_LE(paced, hi);
}

/*
 * A long request, then at once a short one, both throttled: the short
 * one's response must come back first and long before the long one's.
 */
TEST_F_TIMEOUT(pacer, srpt_short_message_overtakes_throttled_long_one,
	       PACER_TIMEOUT)
{
	double t0, t_short = 0, t_long = 0;
	uint64_t lid = 0, sid = 0;
	int first = 0, i, err;
	int fd = self->ep.fd;
	struct homa_rx rx;
	ssize_t n;

	ASSERT_ERRNO(0, homa_sysctl_set("link_mbps", LINK_MBPS));
	payload_fill(self->lbuf, LONG_LEN, 31, 0);
	payload_fill(self->sbuf, SHORT_LEN, 32, 0);
	homa_rx_init(&rx);
	t0 = now_s();
	err = homa_send_request_buf(fd, &self->server, self->lbuf, LONG_LEN, 1,
				    &lid);
	if (!err)
		err = homa_send_request_buf(fd, &self->server, self->sbuf,
					    SHORT_LEN, 2, &sid);
	for (i = 0; i < 2 && !err; i++) {
		n = homa_receive(fd, &rx, HOMA_RECVMSG_RESPONSE, 0, 0);
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
	homa_receive(fd, &rx, HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
	TH_LOG("srpt: short response after %.3f s, long after %.3f s (err %d)",
	       t_short, t_long, err);
	EXPECT_ERRNO(0, err);
	EXPECT_EQ(2, first);
	EXPECT_GT(t_short, 0);
	EXPECT_GT(t_long, 0);
	EXPECT_LT(t_short, 0.25 * t_long);
}

/*
 * After paced traffic, back at the old link_mbps, a 1 MB echo costs about
 * the baseline again (with room for a busy host: twice it plus 0.1 s).
 * Where the baseline is well under the wire time (the distro kernel) this
 * is also much faster than paced; on a debug kernel slower than LINK_MBPS
 * it still shows that nothing is paced any more.
 */
TEST_F_TIMEOUT(pacer, link_mbps_restored_echo_as_fast_as_unpaced_baseline,
	       PACER_TIMEOUT)
{
	double paced = 0, fast = 0, bound = 2 * self->base + 0.1;
	bool ok;

	ASSERT_ERRNO(0, homa_sysctl_set("link_mbps", LINK_MBPS));
	ASSERT_TRUE(timed_echo(&self->ep, &self->server, self->lbuf, LONG_LEN,
			       7, &paced));
	ASSERT_ERRNO(0, homa_sysctl_set("link_mbps", self->old));
	ok = timed_echo(&self->ep, &self->server, self->lbuf, LONG_LEN, 8,
			&fast);
	TH_LOG("link_mbps %ld again: 1 MB echo %.3f s (baseline %.3f s, bound %.3f s; paced %.3f s)",
	       self->old, fast, self->base, bound, paced);
	EXPECT_TRUE(ok);
	EXPECT_LE(fast, bound);
}

TEST_HARNESS_MAIN
