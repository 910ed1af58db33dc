// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_overload - many RPCs outstanding to one slow server (issue 11).
 *
 * slow (default): one client socket sends --rpcs one-packet requests to
 * --server (a homa_echo_server --delay-ms that answers one at a time),
 * then takes every response. All must complete, none time out, and the
 * control traffic the waiting causes must stay bounded: RESENDs sent by
 * this host at most resend_peer_limit per tick, per RPC at most
 * --max-resends, and nearly all answered by a BUSY before the run ends
 * (no queue of control packets between the hosts). The counts per RPC
 * are printed as "# measured".
 *
 * hold: --rpcs requests to a socket of this program on loopback that
 * never reads them (so every RPC waits; raise max_server_rpcs_per_peer and
 * max_server_rpcs above N first, or the excess times out) for --hold-ms. No
 * RPC may time out while the server is alive, and the timer's cost per
 * tick (timer_ns / timer_runs) must stay under --max-tick-us. With --dead
 * ADDR (an address of the lab's subnet that no host has, same family), one
 * more request goes there while the RPCs wait: it must fail (ETIMEDOUT,
 * or EHOSTUNREACH from the neighbour's failure) within half a timeout
 * (timeout_ticks) late, however many RPCs the timer looks after.
 *
 * Usage: homa_test_overload [slow] --server ADDR [--port P] [--rpcs N]
 *                           [--max-resends R]
 *        homa_test_overload hold [--family 4|6] [--rpcs N] [--hold-ms MS]
 *                           [--max-tick-us U] [--dead ADDR]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "expect.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "ktap.h"
#include "payload.h"
#include "watchdog.h"

#define REQUEST_LEN 100
#define HOLD_PORT 4711

struct overload_opts {
	bool hold;
	const char *server;
	const char *dead;
	uint16_t port;
	int family;
	int rpcs;
	int max_resends;
	int hold_ms;
	int max_tick_us;
};

/* Metrics read before and after a run. */
struct counters {
	long long resends, busys_rcvd, busys_sent, deferred, timeouts;
	long long timer_runs, timer_ns, timer_checks;
	long long ack_timeouts, buf_timeouts;
};

static void counters_read(struct counters *c)
{
	c->resends = homa_metric("pkts_sent_RESEND");
	c->busys_rcvd = homa_metric("pkts_rcvd_BUSY");
	c->busys_sent = homa_metric("pkts_sent_BUSY");
	c->deferred = homa_metric("resends_deferred");
	c->timeouts = homa_metric("timeouts");
	c->timer_runs = homa_metric("timer_runs");
	c->timer_ns = homa_metric("timer_ns");
	c->timer_checks = homa_metric("timer_checks");
	c->ack_timeouts = homa_metric("ack_timeouts");
	c->buf_timeouts = homa_metric("buf_timeouts");
}

static void counters_delta(struct counters *d, const struct counters *a,
			   const struct counters *b)
{
	d->resends = b->resends - a->resends;
	d->busys_rcvd = b->busys_rcvd - a->busys_rcvd;
	d->busys_sent = b->busys_sent - a->busys_sent;
	d->deferred = b->deferred - a->deferred;
	d->timeouts = b->timeouts - a->timeouts;
	d->timer_runs = b->timer_runs - a->timer_runs;
	d->timer_ns = b->timer_ns - a->timer_ns;
	d->timer_checks = b->timer_checks - a->timer_checks;
	d->ack_timeouts = b->ack_timeouts - a->ack_timeouts;
	d->buf_timeouts = b->buf_timeouts - a->buf_timeouts;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Send @n requests of REQUEST_LEN bytes (payload seed i + 1) to @dst. */
static int send_requests(struct ktap *k, int fd, const union homa_addr *dst,
			 int n, uint64_t *ids)
{
	uint8_t buf[REQUEST_LEN];
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		payload_fill(buf, sizeof(buf), (uint64_t)i + 1, 0);
		err = homa_send_request_buf(fd, dst, buf, sizeof(buf),
					    (uint64_t)i, &ids[i]);
	}
	if (err)
		ktap_diag(k, "request %d: %s", i - 1, errno_name(err));
	return err;
}

/* Take @n responses; returns how many were right (id, length, payload). */
static int receive_responses(struct ktap *k, struct homa_ep *ep, int n,
			     const uint64_t *ids, char *seen)
{
	struct iovec iov[HOMA_MAX_BPAGES];
	int got = 0, good = 0, i, cnt;
	struct homa_rx rx;
	ssize_t len;

	homa_rx_init(&rx);
	while (got < n) {
		len = homa_receive(ep->fd, &rx, HOMA_RECVMSG_RESPONSE, 0, 0);
		if (len < 0) {
			ktap_diag(k, "recvmsg after %d responses: %s (id %llu)",
				  got, errno_name((int)len),
				  (unsigned long long)rx.ctl.id);
			break;
		}
		got++;
		i = (int)rx.ctl.completion_cookie;
		cnt = homa_rx_iov(&ep->region, &rx, iov);
		if (i < 0 || i >= n || seen[i] || rx.ctl.id != ids[i] ||
		    len != REQUEST_LEN || cnt < 0 ||
		    payload_check_iov(iov, cnt, (uint64_t)i + 1) >= 0) {
			ktap_diag(k, "bad response: cookie %d id %llu, %zd bytes",
				  i, (unsigned long long)rx.ctl.id, len);
			continue;
		}
		seen[i] = 1;
		good++;
	}
	return good;
}

static void run_slow(struct ktap *k, const struct overload_opts *o)
{
	uint64_t *ids = calloc((size_t)o->rpcs, sizeof(*ids));
	char *seen = calloc((size_t)o->rpcs, 1);
	long limit = homa_sysctl_read("resend_peer_limit");
	struct counters c0, c1, d;
	union homa_addr dst;
	struct homa_ep ep;
	long long t0, ms;
	int err, good = 0;

	if (!ids || !seen || homa_addr_parse(&dst, o->server, o->port)) {
		ktap_diag(k, "bad --server '%s' or out of memory", o->server);
		exit(2);
	}
	err = homa_ep_open(&ep, dst.sa.sa_family, 0, 256);
	if (!expect_errno(k, err, 0, "client_socket"))
		exit(1);
	counters_read(&c0);
	t0 = now_ms();
	err = send_requests(k, ep.fd, &dst, o->rpcs, ids);
	expect_errno(k, err, 0, "send_%d_requests", o->rpcs);
	if (!err)
		good = receive_responses(k, &ep, o->rpcs, ids, seen);
	ms = now_ms() - t0;
	counters_read(&c1);
	counters_delta(&d, &c0, &c1);
	ktap_result(k, good == o->rpcs, "all_%d_rpcs_complete_with_their_bytes",
		    o->rpcs);
	ktap_diag(k, "measured: %d RPCs in %lld ms, %lld ticks: RESEND %lld "
		  "(%.2f per RPC), BUSY received %lld (%.2f per RPC), "
		  "RESENDs deferred %lld, timer %.1f us and %.1f checks per tick",
		  o->rpcs, ms, d.timer_runs, d.resends,
		  (double)d.resends / o->rpcs, d.busys_rcvd,
		  (double)d.busys_rcvd / o->rpcs, d.deferred,
		  d.timer_runs ? d.timer_ns / 1000.0 / d.timer_runs : 0.0,
		  d.timer_runs ? (double)d.timer_checks / d.timer_runs : 0.0);
	ktap_result(k, d.timeouts == 0, "no_rpc_timed_out (%lld)", d.timeouts);
	/*
	 * One-packet messages: each RPC that asks sends one RESEND, so the
	 * per-peer bound caps RESENDs at limit x ticks (all to one peer).
	 */
	ktap_result(k, limit > 0 && d.resends <= limit * d.timer_runs,
		    "resends_at_most_resend_peer_limit_per_tick (%lld <= %ld x %lld)",
		    d.resends, limit, d.timer_runs);
	ktap_result(k, d.resends <= (long long)o->max_resends * o->rpcs,
		    "resends_per_rpc_at_most_%d", o->max_resends);
	/*
	 * RESENDs are clocked by their answers (at most resend_peer_limit
	 * RPCs a peer said BUSY to wait for one), so nearly
	 * every RESEND draws its BUSY while the RPCs wait: no queue of
	 * control packets builds up between the hosts. Without that clock, on the debug kernel, a
	 * quarter to a half of the BUSYs were still on their way when the
	 * run ended (1,428 RESENDs, 1,016 BUSYs back) and RPCs timed out.
	 */
	ktap_result(k, d.resends > 0 && d.busys_rcvd * 100 >= d.resends * 95,
		    "resends_answered_by_busy");
	ktap_diag(k, "%lld of %lld RESENDs answered by BUSY", d.busys_rcvd,
		  d.resends);
	homa_ep_close(&ep);
	free(ids);
	free(seen);
}

/*
 * One request to o->dead from @ep: it must fail by timeout about
 * timeout_ticks after it was sent (a tick is a timer run, one per 2^20 ns
 * while the timer keeps up), at most half a timeout plus 100 ms late. Returns 1 if it timed out (a timeout the caller
 * expects in the metrics), else 0.
 */
static int probe_dead_peer(struct ktap *k, struct homa_ep *ep,
			   const struct overload_opts *o)
{
	long ticks = homa_sysctl_read("timeout_ticks");
	long long want_ms = ticks * 1049 / 1000, bound_ms = want_ms * 3 / 2 + 100;
	uint8_t buf[REQUEST_LEN];
	union homa_addr dst;
	struct homa_rx rx;
	long long t0, ms;
	uint64_t id = 0;
	ssize_t r;
	int err;

	if (homa_addr_parse(&dst, o->dead, 9)) {
		ktap_diag(k, "bad --dead '%s'", o->dead);
		exit(2);
	}
	payload_fill(buf, sizeof(buf), 1, 0);
	t0 = now_ms();
	err = homa_send_request_buf(ep->fd, &dst, buf, sizeof(buf), 0, &id);
	homa_rx_init(&rx);
	r = err ? -err : homa_receive(ep->fd, &rx, HOMA_RECVMSG_RESPONSE, id,
				      0);
	ms = now_ms() - t0;
	ktap_diag(k, "measured: request to %s (no such host) ended with %s "
		  "after %lld ms; timeout_ticks %ld is %lld ms, bound %lld ms",
		  o->dead, r < 0 ? errno_name((int)-r) : "a response", ms,
		  ticks, want_ms, bound_ms);
	ktap_result(k, (r == -ETIMEDOUT || r == -EHOSTUNREACH) &&
		    rx.ctl.id == id && ms >= want_ms - 5 && ms <= bound_ms,
		    "silent_peer_times_out_near_timeout_ticks");
	return r == -ETIMEDOUT || r == -EHOSTUNREACH;
}

static void run_hold(struct ktap *k, const struct overload_opts *o)
{
	uint64_t *ids = calloc((size_t)o->rpcs, sizeof(*ids));
	struct counters c0, c1, d;
	struct homa_ep server, client;
	union homa_addr dst;
	long long t0, left, expected = 0;
	struct homa_rx rx;
	double tick_us;
	ssize_t r;
	int err;

	if (!ids)
		exit(2);
	err = homa_ep_open(&server, o->family, HOLD_PORT, 64);
	if (!err)
		err = homa_ep_open(&client, o->family, 0, 64);
	if (!expect_errno(k, err, 0, "server_and_client_sockets"))
		exit(1);
	homa_addr_loopback(&dst, o->family, HOLD_PORT);
	err = send_requests(k, client.fd, &dst, o->rpcs, ids);
	expect_errno(k, err, 0, "send_%d_requests_to_a_server_that_does_not_read",
		     o->rpcs);
	/* Let the first RESENDs and BUSYs settle before measuring. */
	usleep(200 * 1000);
	counters_read(&c0);
	t0 = now_ms();
	if (o->dead)
		expected = probe_dead_peer(k, &client, o);
	left = o->hold_ms - (now_ms() - t0);
	if (left > 0)
		usleep((useconds_t)left * 1000);
	counters_read(&c1);
	counters_delta(&d, &c0, &c1);
	tick_us = d.timer_runs ? d.timer_ns / 1000.0 / d.timer_runs : 0.0;
	ktap_diag(k, "measured: %d RPCs held %d ms: %lld ticks, timer %.1f us "
		  "per tick, %.1f RPCs checked per tick, RESEND %lld, BUSY "
		  "sent %lld, deferred %lld",
		  o->rpcs, o->hold_ms, d.timer_runs, tick_us,
		  d.timer_runs ? (double)d.timer_checks / d.timer_runs : 0.0,
		  d.resends, d.busys_sent, d.deferred);
	ktap_result(k, d.timeouts == expected,
		    "no_rpc_times_out_while_the_server_answers (%lld, of "
		    "which %lld waiting for an ACK, %lld for buffers)",
		    d.timeouts - expected, d.ack_timeouts, d.buf_timeouts);
	homa_rx_init(&rx);
	r = homa_receive(client.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
			 MSG_DONTWAIT);
	expect_errno(k, (int)(r < 0 ? r : 0), EAGAIN,
		     "no_rpc_failed_or_was_answered");
	ktap_result(k, d.timer_runs > 0 && tick_us <= o->max_tick_us,
		    "timer_tick_at_most_%d_us_with_%d_rpcs", o->max_tick_us,
		    o->rpcs);
	homa_ep_close(&client);
	homa_ep_close(&server);
	free(ids);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "family", required_argument, NULL, 'f' },
		{ "rpcs", required_argument, NULL, 'n' },
		{ "max-resends", required_argument, NULL, 'r' },
		{ "hold-ms", required_argument, NULL, 'h' },
		{ "max-tick-us", required_argument, NULL, 'u' },
		{ "dead", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct overload_opts o = { .port = 500, .family = AF_INET,
				   .rpcs = 200, .max_resends = 50,
				   .hold_ms = 2000, .max_tick_us = 500 };
	struct watchdog wd;
	struct ktap k;
	int c;

	if (argc > 1 && argv[1][0] != '-') {
		o.hold = strcmp(argv[1], "hold") == 0;
		if (!o.hold && strcmp(argv[1], "slow") != 0) {
			fprintf(stderr, "unknown mode '%s'\n", argv[1]);
			return 2;
		}
		argv++;
		argc--;
	}
	while ((c = getopt_long(argc, argv, "s:p:f:n:r:h:u:d:", opts,
				NULL)) != -1) {
		switch (c) {
		case 's':
			o.server = optarg;
			break;
		case 'p':
			o.port = (uint16_t)atoi(optarg);
			break;
		case 'f':
			o.family = homa_family_parse(optarg);
			break;
		case 'n':
			o.rpcs = atoi(optarg);
			break;
		case 'r':
			o.max_resends = atoi(optarg);
			break;
		case 'h':
			o.hold_ms = atoi(optarg);
			break;
		case 'u':
			o.max_tick_us = atoi(optarg);
			break;
		case 'd':
			o.dead = optarg;
			break;
		default:
			return 2;
		}
	}
	if (o.family < 0 || o.rpcs <= 0 || o.hold_ms <= 0 ||
	    (!o.hold && !o.server)) {
		fprintf(stderr, "usage: see the comment at the top of %s.c\n",
			"homa_test_overload");
		return 2;
	}
	ktap_start(&k, o.hold ? 5 + (o.dead != NULL) : 7);
	watchdog_start(&wd, &k);
	watchdog_arm(&wd, 600, o.hold ? "hold" : "slow server");
	if (o.hold)
		run_hold(&k, &o);
	else
		run_slow(&k, &o);
	watchdog_stop(&wd);
	return ktap_finish(&k);
}
