// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_faults - Homa under loss, faults and peers that go away.
 *
 *   det --server ADDR --port P
 *       echo RPCs whose first/last/only packets the lab host drops
 *       (fault_host.py drops: the lengths below must match its table);
 *       each must complete, verified, within a bound scaled to a lossless
 *       echo of (almost) the same size and to the timer tick, both
 *       measured first in the same run.
 *   random --server ADDR --port P [--count N] [--threads T]
 *       N verified RPCs of every size class over a lossy, reordering,
 *       duplicating link (netem in the guests).
 *   stress --peer ADDR --port P [--clients C] [--servers S] [--seconds T]
 *       S echo threads on port P here and C client threads to the peer's
 *       port P for T seconds, mixed sizes; every request gets exactly one
 *       verified response; prints the figures.
 *   sink --port P [--pidfile F]
 *       receives requests and never answers (until killed).
 *   vanish --server ADDR --port P --count N --expect E1[,E2] [--bound S]
 *          [--ready FILE]
 *       N requests to a sink; writes FILE once the sink has them all, then
 *       every RPC must fail with one of the errnos within S seconds.
 *   unknown
 *       per RPC (100, 5000, 150000 B) a server that takes the request,
 *       closes its port and opens it again: the client's RESEND gets
 *       UNKNOWN (pkts_rcvd_UNKNOWN rises), the request is sent again and
 *       completes.
 *   icmp --server ADDR
 *       every request to a port without a socket fails with ENOTCONN
 *       (the server's guest must not rate-limit ICMP errors).
 *   lifecycle --server ADDR --port P --sink-port Q
 *       shutdown/close/process exit with thousands of RPCs in flight and
 *       threads blocked in recvmsg (waited for in /proc): every RPC is
 *       freed (client_rpcs_live and server_rpcs_live fall back); then
 *       rmmod homa must succeed (and the module is loaded again).
 *   metric [--within S] NAME OP VALUE ...
 *       KTAP: conditions on /proc/net/homa_metrics (OP: > >= == <);
 *       with --within, read again every 50 ms until all hold or S seconds
 *       have passed (state that settles, such as RPCs waiting for their
 *       ACK after a lossy run, is given time; state that never does
 *       still fails).
 *
 * Prints KTAP; a watchdog turns a hang into a "not ok" line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blocked_call.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "echo.h"
#include "ktap.h"
#include "payload.h"
#include "rpc_client.h"
#include "watchdog.h"

static struct ktap k;
static struct watchdog wd;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* A metric of /proc/net/homa_metrics ("prefix_*": the sum), or -1. */
static long long metric(const char *name)
{
	return homa_metric(name);
}

/* Whether metric @name falls to @want or below within @seconds. */
static bool metric_falls_to(const char *name, long long want, int seconds)
{
	return homa_metric_falls_to(name, want, seconds * 1000);
}

static const char *opt(int argc, char **argv, const char *name,
		       const char *def)
{
	int i;

	for (i = 1; i < argc - 1; i++)
		if (strcmp(argv[i], name) == 0)
			return argv[i + 1];
	return def;
}

static int server_addr(int argc, char **argv, const char *name,
		       union homa_addr *a)
{
	const char *ip = opt(argc, argv, name, NULL);
	int port = atoi(opt(argc, argv, "--port", "500"));

	if (!ip || homa_addr_parse(a, ip, (uint16_t)port)) {
		fprintf(stderr, "need %s ADDR\n", name);
		exit(2);
	}
	return a->sa.sa_family;
}

/* ------------------------------------------------------------------ */
/* det: the lengths of fault_host.py's deterministic drops. */
struct det_case {
	size_t len;
	int watchdog_s;		/* only against a hang; the bound is measured */
	const char *what;
};

static const struct det_case det4[] = {
	{ 700, 30, "request's only packet lost" },
	{ 3000, 30, "request's first packet lost" },
	{ 3001, 30, "request's last packet lost" },
	{ 701, 30, "response's only packet lost" },
	{ 3002, 30, "response's first packet lost" },
	{ 3003, 30, "response's last packet lost (NEED_ACK must not stall)" },
	{ 200000, 60, "200000 B: request first+middle, response last lost" },
	{ 1000000, 120, "1000000 B: request middle, response last lost" },
};

static const struct det_case det6[] = {
	{ 702, 30, "request's only packet lost" },
	{ 3004, 30, "request's first packet lost" },
	{ 3005, 30, "request's last packet lost" },
	{ 703, 30, "response's only packet lost" },
	{ 3006, 30, "response's first packet lost" },
	{ 3007, 30, "response's last packet lost (NEED_ACK must not stall)" },
	{ 200001, 60, "200001 B: request first, response last lost" },
	{ 999999, 120, "999999 B: response last lost" },
};

/*
 * The baseline of a case is an echo of DET_BASE_SHORTER bytes less: the
 * same number of packets, but a length no drop filter of fault_host.py
 * matches (its filters match the exact message length).
 */
#define DET_BASE_SHORTER 16
#define DET_TICK_PORT 730
/*
 * Recovery takes one or two resend periods; a stall (the NEED_ACK bug)
 * lasts until a timeout (timeout_ticks, 1000 in these runs) or forever.
 * 50 periods (250 ticks) leave room for a busy shared host while staying
 * well under a timeout.
 */
#define DET_RESEND_PERIODS 50

/*
 * Milliseconds per timer tick in this guest now (the timer thread slows
 * down on a busy TCG guest). A local socket takes a request and never
 * answers; the client asks for the response (RESEND) after resend_ticks
 * silent ticks, and again resend_ticks after each BUSY answer: four
 * RESENDs take about 4 * resend_ticks ticks. -1 on failure.
 */
static double measure_tick_ms(int fam, long resend_ticks)
{
	struct homa_ep srv, cli;
	union homa_addr to;
	struct homa_rx rx;
	long long r0, t0;
	double ms = -1;
	uint8_t b = 1;
	uint64_t id;

	if (resend_ticks <= 0 || homa_ep_open(&srv, fam, DET_TICK_PORT, 4))
		return -1;
	if (homa_ep_open(&cli, fam, 0, 4)) {
		homa_ep_close(&srv);
		return -1;
	}
	homa_addr_loopback(&to, fam, DET_TICK_PORT);
	homa_rx_init(&rx);
	r0 = metric("resend_requests_sent");
	if (!homa_send_request_buf(cli.fd, &to, &b, 1, 1, &id) &&
	    homa_receive(srv.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0) == 1) {
		t0 = now_us();
		while (metric("resend_requests_sent") < r0 + 4 &&
		       now_us() - t0 < 30000000)
			usleep(200);
		if (metric("resend_requests_sent") >= r0 + 4)
			ms = (double)(now_us() - t0) / 1000.0 /
			     (4.0 * (double)resend_ticks);
	}
	homa_ep_close(&cli);
	homa_ep_close(&srv);
	return ms;
}

static int run_det(int argc, char **argv)
{
	union homa_addr srv;
	int fam = server_addr(argc, argv, "--server", &srv);
	const struct det_case *c = fam == AF_INET ? det4 : det6;
	int n = 8, i, v = fam == AF_INET ? 4 : 6;
	long resend_ticks = homa_sysctl_read("resend_ticks");
	long long unknown0, rr0, rp0;
	double tick_ms;
	struct rpc_result res;
	struct homa_ep ep;
	struct homa_rx rx;
	uint8_t *buf;

	ktap_start(&k, 1 + n + 3);
	buf = malloc(HOMA_MAX_MESSAGE_LENGTH);
	if (!buf || homa_ep_open(&ep, fam, 0, 64)) {
		ktap_diag(&k, "set-up failed: %s", strerror(errno));
		return ktap_finish(&k);
	}
	homa_rx_init(&rx);
	watchdog_arm(&wd, 60, "det: tick length");
	tick_ms = measure_tick_ms(fam, resend_ticks);
	watchdog_disarm(&wd);
	ktap_diag(&k, "timer tick here: %.3f ms (resend_ticks %ld)", tick_ms,
		  resend_ticks);
	/* A first echo sets up the peer (and its neighbour entry). */
	watchdog_arm(&wd, 60, "det: first echo");
	ktap_result(&k, tick_ms > 0 &&
		    rpc_echo_checked(&ep, &rx, &srv, buf, 100, 999, 1, &res),
		    "det IPv%d: timer tick measured, a first echo verified", v);
	watchdog_disarm(&wd);
	unknown0 = metric("pkts_rcvd_UNKNOWN");
	rr0 = metric("resend_requests_sent");
	rp0 = metric("resent_packets");
	for (i = 0; i < n; i++) {
		/* Small cases run several times (the filter drops every
		 * first transmission): a stall that only sometimes happens
		 * (the NEED_ACK bug) shows up in the total.
		 */
		int reps = c[i].len < 10000 ? 5 : 1, r;
		long long total = 0, worst = 0, dt, t0, base = 0;
		double allow_ms;
		bool ok, base_ok;

		watchdog_arm(&wd, (reps + 1) * c[i].watchdog_s, c[i].what);
		/* Baseline: the same size (minus a few bytes), no loss. */
		t0 = now_us();
		base_ok = rpc_echo_checked(&ep, &rx, &srv, buf,
					   c[i].len - DET_BASE_SHORTER,
					   2000 + i, 1, &res);
		base = now_us() - t0;
		if (!base_ok)
			ktap_diag(&k, "%s: baseline echo: %s %s %s", c[i].what,
				  res.stage, res.err ? strerror(-res.err) : "",
				  res.detail);
		ok = base_ok;
		for (r = 0; r < reps && ok; r++) {
			t0 = now_us();
			ok = rpc_echo_checked(&ep, &rx, &srv, buf, c[i].len,
					      1000 + i * 10 + r, 1, &res);
			dt = now_us() - t0;
			total += dt;
			if (dt > worst)
				worst = dt;
		}
		watchdog_disarm(&wd);
		if (!ok && base_ok)
			ktap_diag(&k, "%s: %s %s %s", c[i].what, res.stage,
				  res.err ? strerror(-res.err) : "",
				  res.detail);
		/*
		 * Each repetition within four baselines plus
		 * DET_RESEND_PERIODS resend periods of this guest's ticks;
		 * all of them within twice that.
		 */
		allow_ms = 4.0 * (double)base / 1000.0 +
			   DET_RESEND_PERIODS * (double)resend_ticks * tick_ms;
		ktap_diag(&k, "IPv%d %zu B x%d (%s): slowest %.1f ms, all %.1f ms; baseline (%zu B, no loss) %.1f ms, so bound %.1f ms each, %.1f ms all",
			  v, c[i].len, reps, c[i].what, worst / 1000.0,
			  total / 1000.0, c[i].len - DET_BASE_SHORTER,
			  base / 1000.0, allow_ms,
			  reps > 1 ? 2 * allow_ms : allow_ms);
		ktap_result(&k, ok && tick_ms > 0 &&
			    worst / 1000.0 <= allow_ms &&
			    total / 1000.0 <= (reps > 1 ? 2 : 1) * allow_ms,
			    "IPv%d %zu B x%d, %s: verified, within the bound scaled to a lossless echo",
			    v, c[i].len, reps, c[i].what);
	}
	ktap_diag(&k, "resend_requests_sent +%lld, resent_packets +%lld, pkts_rcvd_UNKNOWN +%lld",
		  metric("resend_requests_sent") - rr0,
		  metric("resent_packets") - rp0,
		  metric("pkts_rcvd_UNKNOWN") - unknown0);
	ktap_result(&k, metric("resend_requests_sent") > rr0,
		    "the client asked for retransmissions (resend_requests_sent rose)");
	ktap_result(&k, metric("resent_packets") > rp0,
		    "the client retransmitted request packets (resent_packets rose)");
	ktap_result(&k, metric("pkts_rcvd_UNKNOWN") > unknown0,
		    "a lost first request packet was recovered through UNKNOWN");
	homa_ep_close(&ep);
	free(buf);
	return ktap_finish(&k);
}

/* ------------------------------------------------------------------ */
/* Size classes for random and stress. */
static size_t pick_size(unsigned int *seed, bool allow_big)
{
	unsigned int r = rand_r(seed);

	switch (r % (allow_big ? 10 : 9)) {
	case 0: case 1: case 2:
		return 1 + rand_r(seed) % 100;		/* small */
	case 3: case 4:
		return 100 + rand_r(seed) % 900;	/* one packet */
	case 5: case 6: case 7:
		return 1000 + rand_r(seed) % 60000;	/* a few packets */
	case 8:
		return 60000 + rand_r(seed) % 200000;	/* many */
	default:
		return 900000 + rand_r(seed) % 100001;	/* ~1 MB */
	}
}

struct client_thread {
	pthread_t thread;
	union homa_addr srv;
	int family;
	long count;		/* RPCs to make (random) */
	long long deadline;	/* ms (stress); 0: use count */
	unsigned int seed;
	bool allow_big;
	long done;		/* verified round trips */
	long failed;
	long timeouts;
	long extra;		/* responses nobody asked for */
	long long bytes;
	char first_error[200];
};

static void *client_main(void *arg)
{
	struct client_thread *t = arg;
	struct rpc_result res;
	struct homa_ep ep;
	struct homa_rx rx;
	uint8_t *buf = malloc(HOMA_MAX_MESSAGE_LENGTH);
	long i;

	if (!buf || homa_ep_open(&ep, t->family, 0, 128)) {
		t->failed++;
		snprintf(t->first_error, sizeof(t->first_error),
			 "set-up: %s", strerror(errno));
		free(buf);
		return NULL;
	}
	homa_rx_init(&rx);
	/* Stress: the peer's server may come up a little later. */
	if (t->deadline) {
		long long give_up = now_ms() + 60000;

		while (!rpc_echo_checked(&ep, &rx, &t->srv, buf, 10, 1, 1,
					 &res) && now_ms() < give_up)
			usleep(200000);
	}
	for (i = 0; t->deadline ? now_ms() < t->deadline : i < t->count;
	     i++) {
		size_t len = pick_size(&t->seed, t->allow_big);
		uint64_t seed = ((uint64_t)t->seed << 20) ^ (uint64_t)i;

		if (rpc_echo_checked(&ep, &rx, &t->srv, buf, len, seed,
				     1 + (int)(i % 3), &res)) {
			t->done++;
			t->bytes += (long long)len;
			continue;
		}
		t->failed++;
		if (res.err == -ETIMEDOUT)
			t->timeouts++;
		if (!t->first_error[0])
			snprintf(t->first_error, sizeof(t->first_error),
				 "%zu B: %s %s %s", len, res.stage,
				 res.err ? strerror(-res.err) : "",
				 res.detail);
	}
	/* Exactly one response per request: nothing else may be waiting. */
	usleep(200000);
	while (homa_receive(ep.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
			    MSG_DONTWAIT) >= 0)
		t->extra++;
	homa_ep_close(&ep);
	free(buf);
	return NULL;
}

static void report_clients(struct client_thread *c, int n, long long ms,
			   const char *what, long long rp0, long long to0)
{
	long done = 0, failed = 0, timeouts = 0, extra = 0;
	long long bytes = 0;
	int i;

	for (i = 0; i < n; i++) {
		done += c[i].done;
		failed += c[i].failed;
		timeouts += c[i].timeouts;
		extra += c[i].extra;
		bytes += c[i].bytes;
		if (c[i].first_error[0])
			ktap_diag(&k, "client %d: first error: %s", i,
				  c[i].first_error);
	}
	ktap_diag(&k, "%s: RPCs completed %ld (%lld bytes each way), failed %ld, timeouts observed %ld (metric timeouts +%lld), retransmitted packets here %lld, %lld ms",
		  what, done, bytes, failed, timeouts,
		  metric("timeouts") - to0, metric("resent_packets") - rp0,
		  ms);
	ktap_result(&k, done > 0 && failed == 0,
		    "%s: all %ld RPCs got a verified response", what, done);
	ktap_result(&k, extra == 0,
		    "%s: no response without a request (%ld extra)", what,
		    extra);
}

static int run_random(int argc, char **argv)
{
	union homa_addr srv;
	int fam = server_addr(argc, argv, "--server", &srv);
	long count = atol(opt(argc, argv, "--count", "200"));
	int nthreads = atoi(opt(argc, argv, "--threads", "4"));
	struct client_thread c[16];
	long long rp0 = metric("resent_packets"), to0 = metric("timeouts");
	long long rr0 = metric("resend_requests_sent");
	long long t0;
	int i;

	if (nthreads < 1 || nthreads > 16)
		nthreads = 4;
	ktap_start(&k, 3);
	memset(c, 0, sizeof(c));
	t0 = now_ms();
	watchdog_arm(&wd, 900, "random loss: every RPC completes");
	for (i = 0; i < nthreads; i++) {
		c[i].srv = srv;
		c[i].family = fam;
		c[i].count = count / nthreads;
		c[i].seed = 77 + i;
		c[i].allow_big = i == 0;
		pthread_create(&c[i].thread, NULL, client_main, &c[i]);
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(c[i].thread, NULL);
	watchdog_disarm(&wd);
	report_clients(c, nthreads, now_ms() - t0, "random loss", rp0, to0);
	ktap_result(&k, metric("resend_requests_sent") > rr0 &&
		    metric("resent_packets") > rp0,
		    "losses were repaired here: resend_requests_sent +%lld, resent_packets +%lld",
		    metric("resend_requests_sent") - rr0,
		    metric("resent_packets") - rp0);
	return ktap_finish(&k);
}

/* ------------------------------------------------------------------ */
struct server_thread {
	pthread_t thread;
	struct homa_ep *ep;
	long served;
	atomic_llong *last;
};

static void *server_main(void *arg)
{
	struct server_thread *t = arg;

	echo_serve(t->ep, &t->served, NULL, t->last);
	return NULL;
}

static int run_stress(int argc, char **argv)
{
	union homa_addr peer;
	int fam = server_addr(argc, argv, "--peer", &peer);
	int nc = atoi(opt(argc, argv, "--clients", "3"));
	int ns = atoi(opt(argc, argv, "--servers", "2"));
	int secs = atoi(opt(argc, argv, "--seconds", "30"));
	struct client_thread c[16];
	struct server_thread s[16];
	long long rp0 = metric("resent_packets"), to0 = metric("timeouts");
	atomic_llong last;
	struct homa_ep ep;
	long served = 0;
	long long t0;
	int i;

	if (nc < 1 || nc > 16)
		nc = 3;
	if (ns < 1 || ns > 16)
		ns = 2;
	ktap_start(&k, 3);
	if (homa_ep_open(&ep, fam, homa_addr_port(&peer), 512)) {
		ktap_diag(&k, "server socket: %s", strerror(errno));
		return ktap_finish(&k);
	}
	atomic_store(&last, now_ms());
	for (i = 0; i < ns; i++) {
		s[i].ep = &ep;
		s[i].served = 0;
		s[i].last = &last;
		pthread_create(&s[i].thread, NULL, server_main, &s[i]);
	}
	memset(c, 0, sizeof(c));
	t0 = now_ms();
	watchdog_arm(&wd, secs + 300, "stress");
	for (i = 0; i < nc; i++) {
		c[i].srv = peer;
		c[i].family = fam;
		c[i].deadline = t0 + secs * 1000LL;
		c[i].seed = 1234 + i * 17 + (unsigned int)getpid();
		c[i].allow_big = i == 0;
		pthread_create(&c[i].thread, NULL, client_main, &c[i]);
	}
	for (i = 0; i < nc; i++)
		pthread_join(c[i].thread, NULL);
	/* Serve the peer's clients until they are done too. */
	while (now_ms() - atomic_load(&last) < 15000)
		usleep(500000);
	shutdown(ep.fd, SHUT_RDWR);
	for (i = 0; i < ns; i++) {
		pthread_join(s[i].thread, NULL);
		served += s[i].served;
	}
	watchdog_disarm(&wd);
	homa_ep_close(&ep);
	report_clients(c, nc, now_ms() - t0, "stress clients", rp0, to0);
	ktap_diag(&k, "stress: this guest's %d server threads served %ld requests; metrics here: resent_packets %lld, resend_requests_sent %lld, timeouts %lld, drop_duplicate %lld",
		  ns, served, metric("resent_packets"),
		  metric("resend_requests_sent"), metric("timeouts"),
		  metric("drop_duplicate"));
	ktap_result(&k, served > 0, "stress servers served %ld requests",
		    served);
	return ktap_finish(&k);
}

/* ------------------------------------------------------------------ */
static int run_sink(int argc, char **argv)
{
	int port = atoi(opt(argc, argv, "--port", "700"));
	int fam = atoi(opt(argc, argv, "--family", "4")) == 6 ? AF_INET6 :
		  AF_INET;
	const char *pidfile = opt(argc, argv, "--pidfile", NULL);
	struct homa_ep ep;
	struct homa_rx rx;
	long n = 0;

	if (homa_ep_open(&ep, fam, (uint16_t)port, 1024)) {
		perror("sink");
		return 1;
	}
	if (pidfile) {
		FILE *f = fopen(pidfile, "w");

		if (f) {
			fprintf(f, "%d\n", getpid());
			fclose(f);
		}
	}
	homa_rx_init(&rx);
	for (;;) {
		/* Keep every request (and its bpages): never answer. */
		rx.ret_count = 0;
		if (homa_receive(ep.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0) < 0) {
			if (errno == EINTR)
				continue;
			usleep(1000);
			continue;
		}
		n++;
	}
	return 0;
}

/*
 * Watches for the peer's last sign of life: the time the guest last
 * received any Homa packet (while RPCs to a sink wait, the sink answers
 * the client's RESENDs with BUSY, so packets keep coming until it is gone).
 * A packet counted by a read was received after the previous read began:
 * that start is the time recorded (the earliest the packet can have come),
 * so the silence measured is never shorter than the real one.
 */
struct life_watch {
	pthread_t thread;
	atomic_int stop;
	atomic_llong last_rx_us;
};

static void *life_watch_main(void *arg)
{
	struct life_watch *w = arg;
	long long t_prev = now_us(), seen = metric("pkts_rcvd_*"), n, t;

	while (!atomic_load(&w->stop)) {
		t = now_us();
		n = metric("pkts_rcvd_*");
		if (n != seen) {
			seen = n;
			atomic_store(&w->last_rx_us, t_prev);
		}
		t_prev = t;
		usleep(1000);
	}
	return NULL;
}

static int run_vanish(int argc, char **argv)
{
	union homa_addr srv;
	int fam = server_addr(argc, argv, "--server", &srv);
	long count = atol(opt(argc, argv, "--count", "100"));
	int bound = atoi(opt(argc, argv, "--bound", "20"));
	const char *expect = opt(argc, argv, "--expect", "ETIMEDOUT");
	const char *ready = opt(argc, argv, "--ready", "/tmp/vanish.ready");
	long got = 0, bad = 0, i;
	int bad_err = 0;
	long long t0 = 0, t0_us = 0, last = 0, silent, timeouts0;
	long sent_bad;
	long ticks = homa_sysctl_read("timeout_ticks");
	struct life_watch life;
	struct homa_ep ep;
	struct homa_rx rx;
	uint8_t buf[64];
	uint64_t id;

	ktap_start(&k, 2);
	if (homa_ep_open(&ep, fam, 0, 64)) {
		ktap_diag(&k, "socket: %s", strerror(errno));
		return ktap_finish(&k);
	}
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < count; i++)
		if (homa_send_request_buf(ep.fd, &srv, buf, sizeof(buf), i,
					  &id))
			bad++;
	sent_bad = bad;
	timeouts0 = metric("timeouts");
	/* Give the sink (on the other guest) time to take them all. */
	sleep((unsigned int)atoi(opt(argc, argv, "--settle", "3")));
	ktap_diag(&k, "%ld requests sent (%ld failed to send)", count, bad);
	atomic_store(&life.stop, 0);
	atomic_store(&life.last_rx_us, now_us());
	pthread_create(&life.thread, NULL, life_watch_main, &life);
	close(open(ready, O_CREAT | O_WRONLY, 0644));
	watchdog_arm(&wd, bound + 300, "vanish: RPCs fail");
	homa_rx_init(&rx);
	for (got = 0; got < count - bad; got++) {
		ssize_t r = homa_receive(ep.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
					 0);
		const char *name = r == -ETIMEDOUT ? "ETIMEDOUT" :
				   r == -ENOTCONN ? "ENOTCONN" :
				   r == -EPROTONOSUPPORT ? "EPROTONOSUPPORT" :
				   r == -EHOSTUNREACH ? "EHOSTUNREACH" : "?";

		if (!t0) {
			t0_us = now_us();
			t0 = t0_us / 1000;
		}
		last = now_ms();
		if (r >= 0 || !strstr(expect, name)) {
			bad++;
			bad_err = (int)r;
		}
	}
	watchdog_disarm(&wd);
	atomic_store(&life.stop, 1);
	pthread_join(life.thread, NULL);
	unlink(ready);
	silent = t0_us - atomic_load(&life.last_rx_us);	/* us */
	ktap_diag(&k, "the peer was last heard %.3f ms before the first failure; the last failure %lld ms after the first (timeout_ticks %ld)",
		  silent / 1000.0, last - t0, ticks);
	ktap_diag(&k, "%ld RPCs, %ld did not fail with %s (last %d)", count,
		  bad, expect, bad_err);
	ktap_result(&k, bad == 0, "every RPC failed with one of %s", expect);
	if (strcmp(expect, "ETIMEDOUT") == 0) {
		/*
		 * A tick is 1 ms at best: never earlier than timeout_ticks ms
		 * after the peer fell silent. A busy TCG guest on the debug
		 * kernel stretches ticks (with 300 RPCs to check and resend
		 * for, 100 ticks took about 3 s), so the upper bound is
		 * --bound seconds. Every RPC is counted as a timeout.
		 */
		ktap_diag(&k, "silence before the first timeout %.3f ms (timeout_ticks %ld), all within %lld ms (bound %d s), metric timeouts +%lld for %ld RPCs",
			  silent / 1000.0, ticks, last - t0, bound,
			  metric("timeouts") - timeouts0, count - sent_bad);
		ktap_result(&k, ticks > 0 && silent >= ticks * 1000LL &&
			    silent <= bound * 1000000LL &&
			    last - t0 <= bound * 1000LL &&
			    metric("timeouts") - timeouts0 == count - sent_bad,
			    "they timed out no earlier than timeout_ticks ms of silence, within the bound, each counted in the timeouts metric");
	} else {
		ktap_diag(&k, "the last failure %lld ms after the first (bound %d s)",
			  last - t0, bound);
		ktap_result(&k, last - t0 <= bound * 1000LL,
			    "all failed within the bound of the first");
	}
	homa_ep_close(&ep);
	return ktap_finish(&k);
}

/* ------------------------------------------------------------------ */
/*
 * unknown: the server loses its RPC (socket closed, port reopened). One
 * server per RPC: it takes exactly one request, forgets it by closing its
 * socket, opens the port again and echoes what comes next. The client's
 * RESEND then gets UNKNOWN and the client sends the request again (the
 * start of it; the server asks for the rest with RESENDs).
 */
struct reopen_server {
	uint16_t port;
	int family;
	int err;
	atomic_int bound;	/* the first socket has its port */
	atomic_int final_fd;	/* the last socket, for shutdown */
	long served;		/* requests echoed by the last socket */
};

static void *reopen_main(void *arg)
{
	struct reopen_server *s = arg;
	struct homa_ep ep;
	struct homa_rx rx;

	if (homa_ep_open(&ep, s->family, s->port, 64)) {
		s->err = errno;
		atomic_store(&s->bound, -1);
		return NULL;
	}
	atomic_store(&s->bound, 1);
	homa_rx_init(&rx);
	/* Take the request, then forget it by closing the socket. */
	if (homa_receive(ep.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0) < 0)
		s->err = errno;
	homa_ep_close(&ep);
	if (homa_ep_open(&ep, s->family, s->port, 64)) {
		s->err = errno;
		atomic_store(&s->final_fd, -2);
		return NULL;
	}
	atomic_store(&s->final_fd, ep.fd);
	homa_rx_init(&rx);
	/* Serve until the client is done (shutdown). */
	for (;;) {
		ssize_t r = echo_once(&ep, &rx, 0);

		if (r < 0 && echo_error_is_final((int)-r))
			break;
		if (r >= 0)
			s->served++;
	}
	homa_ep_close(&ep);
	return NULL;
}

static int run_unknown(void)
{
	static const size_t lens[] = { 100, 5000, 150000 };
	int fams[2] = { AF_INET, AF_INET6 }, f, i;
	long old_timeout = homa_sysctl_read("timeout_ticks");
	long old_resend = homa_sysctl_read("resend_ticks");
	uint8_t *buf = malloc(200000);

	/* The server must reopen its port before the client's first RESEND
	 * (else ICMP port unreachable ends the RPC): 200 ticks here.
	 */
	homa_sysctl_set("timeout_ticks", 2000);
	homa_sysctl_set("resend_ticks", 200);
	ktap_start(&k, 6);
	for (f = 0; f < 2; f++) {
		union homa_addr srv;
		struct homa_ep ep;
		struct homa_rx rx;

		homa_addr_loopback(&srv, fams[f], (uint16_t)(710 + f));
		if (!buf || homa_ep_open(&ep, fams[f], 0, 64)) {
			for (i = 0; i < 3; i++)
				ktap_result(&k, false,
					    "IPv%d %zu B: set-up", f ? 6 : 4,
					    lens[i]);
			continue;
		}
		homa_rx_init(&rx);
		for (i = 0; i < 3; i++) {
			struct reopen_server s = { .port = (uint16_t)(710 + f),
						   .family = fams[f] };
			long long u0 = metric("pkts_rcvd_UNKNOWN"), t0, u;
			struct rpc_result res;
			pthread_t th;
			bool ok;

			atomic_store(&s.bound, 0);
			atomic_store(&s.final_fd, -1);
			watchdog_arm(&wd, 60, "unknown: request sent again");
			pthread_create(&th, NULL, reopen_main, &s);
			while (atomic_load(&s.bound) == 0)
				usleep(1000);
			t0 = now_ms();
			ok = atomic_load(&s.bound) > 0 &&
			     rpc_echo_checked(&ep, &rx, &srv, buf, lens[i],
					      50 + i, 1, &res);
			if (!ok)
				ktap_diag(&k, "%s %s %s", res.stage,
					  res.err ? strerror(-res.err) : "",
					  res.detail);
			/* End the server: its last socket, once open. */
			while (atomic_load(&s.final_fd) == -1)
				usleep(1000);
			if (atomic_load(&s.final_fd) >= 0)
				shutdown(atomic_load(&s.final_fd), SHUT_RDWR);
			pthread_join(th, NULL);
			watchdog_disarm(&wd);
			if (s.err)
				ktap_diag(&k, "server thread: %s",
					  strerror(s.err));
			u = metric("pkts_rcvd_UNKNOWN") - u0;
			ktap_diag(&k, "IPv%d %zu B: %lld ms, UNKNOWN packets received +%lld, requests echoed after the reopen %ld",
				  f ? 6 : 4, lens[i], now_ms() - t0, u,
				  s.served);
			ktap_result(&k, ok && u > 0 && s.served == 1,
				    "IPv%d %zu B: the server forgot the request; UNKNOWN made the client send it again",
				    f ? 6 : 4, lens[i]);
		}
		homa_ep_close(&ep);
	}
	free(buf);
	homa_sysctl_set("resend_ticks", old_resend > 0 ? old_resend : 5);
	homa_sysctl_set("timeout_ticks", old_timeout > 0 ? old_timeout : 100);
	return ktap_finish(&k);
}

/*
 * icmp: a port without a socket answers ICMP port unreachable, and that
 * ends the RPC with ENOTCONN. The server's guest must not rate-limit its
 * ICMP errors (fault_guest.sh icmp-ratelimit off there): every RPC must get
 * ENOTCONN, none may time out instead.
 */
static int run_icmp(int argc, char **argv)
{
	union homa_addr srv;
	int fam = server_addr(argc, argv, "--server", &srv);
	long long t0, dt;
	struct homa_ep ep;
	struct homa_rx rx;
	uint8_t buf[3000];
	uint64_t id;
	int i, bad = 0, enotconn = 0, timedout = 0, unsent = 0;
	static const char *const seen[] = {
		"icmp_ignored", "icmp_soft_errors", "resend_requests_sent",
		"resends_deferred", "resends_unanswered_wait", "timer_runs",
	};
	long long aborted = metric("icmp_errors");
	long long before[sizeof(seen) / sizeof(seen[0])];
	const int nseen = sizeof(seen) / sizeof(seen[0]);
	ssize_t r = 0;

	ktap_start(&k, 2);
	if (homa_ep_open(&ep, fam, 0, 64)) {
		ktap_diag(&k, "socket: %s", strerror(errno));
		return ktap_finish(&k);
	}
	homa_rx_init(&rx);
	memset(buf, 1, sizeof(buf));
	for (i = 0; i < nseen; i++)
		before[i] = metric(seen[i]);
	t0 = now_ms();
	watchdog_arm(&wd, 60, "icmp");
	for (i = 0; i < 20; i++)
		if (homa_send_request_buf(ep.fd, &srv, buf, 1 + i * 100, 0,
					  &id))
			unsent++;
	for (i = 0; i < 20 - unsent; i++) {
		r = homa_receive(ep.fd, &rx, HOMA_RECVMSG_RESPONSE, 0, 0);
		if (r == -ENOTCONN)
			enotconn++;
		else if (r == -ETIMEDOUT)
			timedout++;
		else
			bad++;
	}
	watchdog_disarm(&wd);
	dt = now_ms() - t0;
	ktap_diag(&k, "IPv%d: 20 RPCs to a port without a socket: %d not sent, %d ENOTCONN, %d ETIMEDOUT, %d other, in %lld ms",
		  fam == AF_INET ? 4 : 6, unsent, enotconn, timedout, bad, dt);
	/* What the client did meanwhile, for a run where some timed out. */
	for (i = 0; i < nseen; i++)
		ktap_diag(&k, "  %s +%lld", seen[i],
			  metric(seen[i]) - before[i]);
	ktap_result(&k, unsent == 0 && enotconn == 20 && dt < 10000,
		    "IPv%d: every RPC to a port without a socket fails with ENOTCONN (ICMP port unreachable) within 10 s",
		    fam == AF_INET ? 4 : 6);
	/* Each ICMP aborts every RPC to the port; later ones find them done. */
	aborted = metric("icmp_errors") - aborted;
	ktap_diag(&k, "IPv%d: icmp_errors +%lld for %d RPCs ended by ENOTCONN",
		  fam == AF_INET ? 4 : 6, aborted, enotconn);
	ktap_result(&k, aborted == enotconn,
		    "IPv%d: icmp_errors counts each RPC an ICMP error ended once",
		    fam == AF_INET ? 4 : 6);
	homa_ep_close(&ep);
	return ktap_finish(&k);
}

/* ------------------------------------------------------------------ */
/* lifecycle */
struct blocked {
	pthread_t thread;
	int fd;
	ssize_t result;
	atomic_int done;
};

static void *blocked_main(void *arg)
{
	struct blocked *b = arg;
	struct homa_rx rx;

	homa_rx_init(&rx);
	/* Responses that arrive are taken; wait until shutdown. */
	do {
		b->result = homa_receive(b->fd, &rx, HOMA_RECVMSG_RESPONSE |
					 HOMA_RECVMSG_REQUEST, 0, 0);
	} while (b->result >= 0);
	atomic_store(&b->done, 1);
	return NULL;
}

static int flood(int fd, const union homa_addr *dst, int n)
{
	static uint8_t buf[20000];
	uint64_t id;
	int i, sent = 0;

	for (i = 0; i < n; i++)
		if (!homa_send_request_buf(fd, dst, buf,
					   i % 10 == 0 ? 20000 : 1 + i % 900,
					   i, &id))
			sent++;
	return sent;
}

static bool blocked_all_return(struct blocked *b, int n, int secs, int want)
{
	long long end = now_ms() + secs * 1000LL;
	bool ok = true;
	int i;

	for (i = 0; i < n; i++) {
		while (!atomic_load(&b[i].done) && now_ms() < end)
			usleep(10000);
		if (!atomic_load(&b[i].done))
			return false;
		pthread_join(b[i].thread, NULL);
		if (b[i].result != -want)
			ok = false;
	}
	return ok;
}

static bool rmmod_homa(long long *ms)
{
	long long t0 = now_ms();
	int i, st = 1;

	for (i = 0; i < 100; i++) {
		st = system("rmmod homa 2>/dev/null");
		if (st == 0)
			break;
		usleep(100000);
	}
	*ms = now_ms() - t0;
	return st == 0;
}

/* Waits up to @secs until @n threads of @pid (0: this process) sleep in
 * recvmsg; returns how many did at the end.
 */
static int wait_sleeping_in_recvmsg(pid_t pid, int n, int secs)
{
	long long end = now_ms() + secs * 1000LL;
	int got;

	for (;;) {
		got = tasks_sleeping_in_recvmsg(pid);
		if (got >= n || now_ms() > end)
			return got;
		usleep(20000);
	}
}

/* What the lifecycle child reports once it is set up. */
struct child_report {
	int err;	/* 0 or errno of the first failed step */
	int sent;	/* requests sent */
};

/*
 * The lifecycle child: a client socket with RPCs to the peer's sink and
 * echo and to its own server socket, 4 threads in recvmsg (2 on each
 * socket); reports on @wfd, then waits to be killed.
 */
static void lifecycle_child(int wfd, int fam, const union homa_addr *sink,
			    const union homa_addr *echo, int many)
{
	struct child_report cr = { 0, 0 };
	struct homa_ep ep, srv;
	union homa_addr local;
	struct blocked b[4];
	int i, want = many / 2 * 2 + 200;

	if (homa_ep_open(&ep, fam, 0, 256) ||
	    homa_ep_open(&srv, fam, 721, 256)) {
		cr.err = errno ? errno : EIO;
	} else {
		homa_addr_loopback(&local, fam, 721);
		cr.sent = flood(ep.fd, sink, many / 2) +
			  flood(ep.fd, echo, many / 2) +
			  flood(ep.fd, &local, 200);
		if (cr.sent != want)
			cr.err = EIO;
		for (i = 0; i < 4 && !cr.err; i++) {
			b[i].fd = i < 2 ? ep.fd : srv.fd;
			atomic_store(&b[i].done, 0);
			cr.err = pthread_create(&b[i].thread, NULL,
						blocked_main, &b[i]);
		}
	}
	if (write(wfd, &cr, sizeof(cr)) != (ssize_t)sizeof(cr))
		_exit(1);
	for (;;)
		pause();
}

static int run_lifecycle(int argc, char **argv)
{
	union homa_addr echo, sink;
	int fam = server_addr(argc, argv, "--server", &echo);
	int sink_port = atoi(opt(argc, argv, "--sink-port", "700"));
	int many = atoi(opt(argc, argv, "--rpcs", "2000"));
	struct blocked b[4];
	struct homa_ep ep, srv;
	union homa_addr local;
	struct child_report cr;
	long long ms, live0, live, srv0, svl;
	int i, sent, st, err, asleep, rebind, pfd[2];
	bool ok, fell;
	pid_t pid;

	sink = echo;
	if (fam == AF_INET)
		sink.in4.sin_port = htons((uint16_t)sink_port);
	else
		sink.in6.sin6_port = htons((uint16_t)sink_port);
	ktap_start(&k, 6);

	/* 1: shutdown with thousands in flight and 4 threads blocked in
	 * recvmsg (waited for: each sleeps in the call) returns ESHUTDOWN
	 * to all four; closing then frees every client RPC.
	 */
	watchdog_arm(&wd, 300, "lifecycle: shutdown");
	live0 = metric("client_rpcs_live");
	srv0 = metric("server_rpcs_live");
	err = homa_ep_open(&ep, fam, 0, 256);
	sent = err ? 0 : flood(ep.fd, &sink, many / 2) +
			 flood(ep.fd, &echo, many / 2);
	live = metric("client_rpcs_live");
	for (i = 0; i < 4 && !err; i++) {
		b[i].fd = ep.fd;
		atomic_store(&b[i].done, 0);
		pthread_create(&b[i].thread, NULL, blocked_main, &b[i]);
	}
	/* The echo's responses keep them busy for a while. */
	asleep = err ? 0 : wait_sleeping_in_recvmsg(0, 4, 120);
	if (!err)
		shutdown(ep.fd, SHUT_RDWR);
	ok = !err && blocked_all_return(b, 4, 20, ESHUTDOWN);
	homa_ep_close(&ep);
	fell = metric_falls_to("client_rpcs_live", live0, 30) &&
	       metric_falls_to("server_rpcs_live", srv0, 30);
	ktap_diag(&k, "shutdown: %s, %d RPCs sent, client RPCs live %lld -> %lld, now %lld; %d threads slept in recvmsg before the shutdown",
		  strerror(-err), sent, live0, live,
		  metric("client_rpcs_live"), asleep);
	ktap_result(&k, ok && asleep >= 4 && sent > 0 && live > live0 && fell,
		    "shutdown with thousands of RPCs in flight: 4 blocked recvmsg calls return ESHUTDOWN, close frees every RPC");
	watchdog_disarm(&wd);

	/* 2: close with thousands in flight (no thread in a call): close
	 * succeeds and every client RPC of the socket is freed.
	 */
	watchdog_arm(&wd, 300, "lifecycle: close");
	live0 = metric("client_rpcs_live");
	srv0 = metric("server_rpcs_live");
	err = homa_ep_open(&ep, fam, 0, 256);
	sent = err ? 0 : flood(ep.fd, &sink, many / 2) +
			 flood(ep.fd, &echo, many / 2);
	usleep(300000);
	live = metric("client_rpcs_live");
	st = err ? -1 : close(ep.fd);
	ep.fd = -1;
	homa_ep_close(&ep);
	fell = metric_falls_to("client_rpcs_live", live0, 30) &&
	       metric_falls_to("server_rpcs_live", srv0, 30);
	ktap_diag(&k, "close: %d RPCs sent, client RPCs live %lld -> %lld, now %lld (server %lld before, now %lld)",
		  sent, live0, live, metric("client_rpcs_live"), srv0,
		  metric("server_rpcs_live"));
	ktap_result(&k, st == 0 && sent > 0 && live > live0 && fell,
		    "close with thousands of RPCs in flight returns 0 and frees every RPC");
	watchdog_disarm(&wd);

	/* 3: a local server closed with requests queued and in service:
	 * its server RPCs and the client's are freed, its port is free.
	 */
	watchdog_arm(&wd, 300, "lifecycle: server close");
	srv0 = metric("server_rpcs_live");
	live0 = metric("client_rpcs_live");
	err = homa_ep_open(&srv, fam, 720, 256);
	if (!err) {
		err = homa_ep_open(&ep, fam, 0, 256);
		if (err)
			homa_ep_close(&srv);
	}
	homa_addr_loopback(&local, fam, 720);
	sent = err ? 0 : flood(ep.fd, &local, many);
	if (!err) {
		struct homa_rx rx;

		homa_rx_init(&rx);
		for (i = 0; i < 50; i++) {
			rx.ret_count = 0;	/* keep: in service */
			homa_receive(srv.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0);
		}
	}
	live = metric("server_rpcs_live");
	if (!err) {
		homa_ep_close(&srv);
		homa_ep_close(&ep);
	}
	fell = metric_falls_to("server_rpcs_live", srv0, 30) &&
	       metric_falls_to("client_rpcs_live", live0, 30);
	st = homa_socket(fam);
	rebind = st < 0 ? st : homa_bind_port(st, fam, 720);
	if (st >= 0)
		close(st);
	ktap_diag(&k, "server close: %d requests sent, server RPCs live %lld -> %lld, now %lld; client RPCs now %lld (before %lld); binding port 720 again: %s",
		  sent, srv0, live, metric("server_rpcs_live"),
		  metric("client_rpcs_live"), live0, strerror(-rebind));
	ktap_result(&k, !err && live > srv0 && fell && rebind == 0,
		    "server socket closed with requests queued and 50 in service: every server and client RPC freed, port free again");
	watchdog_disarm(&wd);

	/* 4: the process dies with RPCs in flight and blocked threads:
	 * every RPC it had (client RPCs to the peer and to itself, server
	 * RPCs of its own server socket) is freed.
	 */
	watchdog_arm(&wd, 300, "lifecycle: exit");
	live0 = metric("client_rpcs_live");
	srv0 = metric("server_rpcs_live");
	ok = pipe(pfd) == 0;
	pid = ok ? fork() : -1;
	if (pid == 0)
		lifecycle_child(pfd[1], fam, &sink, &echo, many);
	if (ok)
		close(pfd[1]);
	memset(&cr, 0, sizeof(cr));
	cr.err = -1;
	if (pid > 0) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };

		if (poll(&p, 1, 120000) != 1 ||
		    read(pfd[0], &cr, sizeof(cr)) != (ssize_t)sizeof(cr))
			cr.err = -1;
		asleep = cr.err ? 0 : wait_sleeping_in_recvmsg(pid, 4, 120);
	} else {
		asleep = 0;
	}
	if (ok)
		close(pfd[0]);
	live = metric("client_rpcs_live");
	svl = metric("server_rpcs_live");
	st = 0;
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	fell = metric_falls_to("client_rpcs_live", live0, 30) &&
	       metric_falls_to("server_rpcs_live", srv0, 30);
	ktap_diag(&k, "exit: child set-up %s (%d RPCs sent), %d threads slept in recvmsg; at the kill client RPCs live %lld (before %lld), server %lld (before %lld); now %lld and %lld",
		  cr.err ? strerror(cr.err > 0 ? cr.err : EIO) : "ok",
		  cr.sent, asleep, live, live0, svl, srv0,
		  metric("client_rpcs_live"), metric("server_rpcs_live"));
	ktap_result(&k, pid > 0 && cr.err == 0 && asleep >= 4 &&
		    live > live0 && svl > srv0 &&
		    WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && fell,
		    "a process killed with RPCs in flight and 4 threads in recvmsg: every RPC it had is freed");
	watchdog_disarm(&wd);

	/* 5: module reference count returns: rmmod succeeds, then reload. */
	watchdog_arm(&wd, 120, "lifecycle: rmmod");
	ms = 0;
	ok = rmmod_homa(&ms);
	ktap_result(&k, ok, "rmmod homa succeeds after all that (%lld ms)",
		    ms);
	st = system("modprobe homa");
	ktap_result(&k, st == 0, "modprobe homa loads it again");
	watchdog_disarm(&wd);
	return ktap_finish(&k);
}

/* ------------------------------------------------------------------ */
/* Whether the condition NAME OP VALUE at @cond holds now; the value in *@v. */
static bool metric_holds(char **cond, long long *v)
{
	const char *op = cond[1];
	long long want = atoll(cond[2]);

	*v = metric(cond[0]);
	if (*v < 0)
		return false;
	return strcmp(op, ">") == 0 ? *v > want :
	       strcmp(op, ">=") == 0 ? *v >= want :
	       strcmp(op, "<") == 0 ? *v < want : *v == want;
}

static int run_metric(int argc, char **argv)
{
	int i, n, first = 2, within_s = 0;
	long long start = now_ms(), v;
	bool all;

	if (argc > 3 && strcmp(argv[2], "--within") == 0) {
		within_s = atoi(argv[3]);
		first = 4;
	}
	n = (argc - first) / 3;
	if (n < 1 || (argc - first) % 3 || within_s < 0) {
		fprintf(stderr, "usage: homa_test_faults metric [--within S] NAME OP VALUE ...\n");
		return 2;
	}
	ktap_start(&k, n);
	for (;;) {
		all = true;
		for (i = 0; i < n; i++)
			all = metric_holds(argv + first + 3 * i, &v) && all;
		if (all || now_ms() - start >= within_s * 1000LL)
			break;
		usleep(50000);
	}
	if (within_s)
		ktap_diag(&k, "%s after %lld ms (allowed %d s)",
			  all ? "all held" : "not all held", now_ms() - start,
			  within_s);
	for (i = 0; i < n; i++) {
		char **c = argv + first + 3 * i;
		bool ok = metric_holds(c, &v);

		ktap_result(&k, ok, "%s %s %s (it is %lld)", c[0], c[1], c[2],
			    v);
	}
	return ktap_finish(&k);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (strcmp(mode, "sink") == 0)
		return run_sink(argc, argv);
	if (strcmp(mode, "metric") == 0)
		return run_metric(argc, argv);
	watchdog_start(&wd, &k);
	if (strcmp(mode, "det") == 0)
		r = run_det(argc, argv);
	else if (strcmp(mode, "random") == 0)
		r = run_random(argc, argv);
	else if (strcmp(mode, "stress") == 0)
		r = run_stress(argc, argv);
	else if (strcmp(mode, "vanish") == 0)
		r = run_vanish(argc, argv);
	else if (strcmp(mode, "unknown") == 0)
		r = run_unknown();
	else if (strcmp(mode, "icmp") == 0)
		r = run_icmp(argc, argv);
	else if (strcmp(mode, "lifecycle") == 0)
		r = run_lifecycle(argc, argv);
	else {
		fprintf(stderr, "usage: %s det|random|stress|sink|vanish|unknown|icmp|lifecycle|metric ...\n",
			argv[0]);
		return 2;
	}
	watchdog_stop(&wd);
	return r;
}
