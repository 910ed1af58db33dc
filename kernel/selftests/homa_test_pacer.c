// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_pacer - the pacer keeps to net.homa.link_mbps and serves the
 * throttled RPCs in SRPT order (fewest bytes left first). Its bounds are
 * scaled to an unpaced echo measured first in the same run, so a slow
 * (debug, TCG) guest makes them wider, not wrong.
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
	double paced = 0, fast = 0, base = 0, wire;
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
	ktap_start(&k, 5);
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
	ktap_diag(&k, "link_mbps is %ld; set-up: %s", old, strerror(-err));
	if (!ktap_result(&k, !err, "setup_echo_server_and_client"))
		return ktap_finish(&k);
	homa_addr_loopback(&server, family, SERVER_PORT);

	/*
	 * The baseline, measured in this run at the module's own link_mbps:
	 * what a 1 MB echo costs this guest without pacing (a small echo
	 * first, so that it does not include setting up the peer).
	 */
	watchdog_arm(&wd, 300, "unpaced baseline echo");
	ok = timed_echo(&ep, &server, sbuf, 100, 6, &base) &&
	     timed_echo(&ep, &server, lbuf, LONG_LEN, 6, &base);
	ktap_diag(&k, "unpaced 1 MB echo (baseline): %.3f s", base);
	ktap_result(&k, ok, "unpaced_baseline_echo_verified");

	/*
	 * Request and response, each LONG_LEN bytes plus headers: no faster
	 * than 90 % of the wire time; no slower than 1.5 times the wire time
	 * plus twice the baseline (what the guest itself costs).
	 */
	wire = 2.0 * LONG_LEN * 8 / (LINK_MBPS * 1e6);
	watchdog_arm(&wd, 300, "paced echo");
	err = homa_sysctl_set("link_mbps", LINK_MBPS);
	ok = !err && timed_echo(&ep, &server, lbuf, LONG_LEN, 7, &paced);
	ktap_diag(&k, "paced 1 MB echo at link_mbps %d: %.3f s; wire time %.3f s, so the bounds are %.3f s .. %.3f s",
		  LINK_MBPS, paced, wire, 0.9 * wire, 1.5 * wire + 2 * base);
	ktap_result(&k, ok && paced >= 0.9 * wire &&
		    paced <= 1.5 * wire + 2 * base,
		    "link_mbps_20_paces_a_1MB_echo_to_its_wire_time");

	watchdog_arm(&wd, 300, "srpt");
	test_srpt(&k, &ep, &server, lbuf, sbuf);

	/*
	 * Back at the old link_mbps, a 1 MB echo costs about the baseline
	 * again (with room for a busy host: twice it plus 0.1 s). Where the
	 * baseline is well under the wire time (the distro kernel) this is
	 * also much faster than paced; on a debug kernel slower than
	 * LINK_MBPS it still shows that nothing is paced any more.
	 */
	watchdog_arm(&wd, 300, "unpaced echo");
	err = homa_sysctl_set("link_mbps", old);
	ok = !err && timed_echo(&ep, &server, lbuf, LONG_LEN, 8, &fast);
	ktap_diag(&k, "link_mbps %ld again: 1 MB echo %.3f s (baseline %.3f s, bound %.3f s; paced %.3f s)",
		  old, fast, base, 2 * base + 0.1, paced);
	ktap_result(&k, ok && fast <= 2 * base + 0.1,
		    "link_mbps_restored_echo_as_fast_as_unpaced_baseline");
	watchdog_stop(&wd);
	homa_ep_close(&ep);
	echo_thread_stop(&srv);
	free(lbuf);
	free(sbuf);
	return ktap_finish(&k);
}
