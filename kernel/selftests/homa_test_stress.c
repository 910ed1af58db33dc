// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_stress - two guests drive RPCs at each other, then nothing is
 * left over.
 *
 *   stress   S echo threads on port P here and C client threads to the
 *            peer's port P for T seconds, mixed sizes (the peer runs the
 *            same at the same time); every request gets exactly one
 *            verified response; prints the figures.
 *   settled  once the traffic is over (and the lossy link repaired): no
 *            RPC is left alive (RPCs waiting for their ACK after a lossy
 *            run are given --settle seconds) and packets were resent.
 *
 * homa_test_stress [--peer NAME] [--port P] [--clients C] [--servers S]
 *                  [--seconds T] [--settle S] [-- HARNESS-OPTIONS]
 *   --peer NAME  the other guest (HOMALAB_<NAME>_IP4; default G1)
 *   --port P     800; --clients 3; --servers 2; --seconds 30 (at most 600);
 *   --settle S   10 (at most 50)
 * The lab runs "-- -f stress" on both guests at once, then "-- -f settled"
 * (guest 1: "-- -T no_client_rpcs_live -f settled").
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "echo.h"
#include "faults_common.h"
#include "homa_addr.h"
#include "homa_sock.h"
#include "homa_sysctl.h"

#define STRESS_MAX_THREADS 16
#define STRESS_MAX_SECONDS 600
#define SETTLE_MAX_SECONDS 50

static struct {
	const char *peer;
	uint16_t port;
	int clients;
	int servers;
	int seconds;
	int settle;
	long long start_ms;	/* when the program started */
} cfg = {
	.peer = "G1", .port = 800, .clients = 3, .servers = 2, .seconds = 30,
	.settle = 10,
};

/* The figures of the stress run (it can run once: the peer's runs too). */
struct stress_run {
	bool done;
	struct fault_client_totals tot;
	long served;
};

static struct stress_run *shared;

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

/*
 * The stress run: both guests serve and call each other for --seconds
 * under the lab's netem; every request gets exactly one verified response
 * and this guest's servers served the peer's clients. The run happens in
 * the set-up of the first test; each test checks one thing about it.
 */
FIXTURE(stress) {
	struct stress_run *run;
};

FIXTURE_SETUP(stress)
{
	struct fault_client c[STRESS_MAX_THREADS];
	struct server_thread s[STRESS_MAX_THREADS];
	struct stress_run *run = shared;
	long long rp0, to0, t0;
	union homa_addr peer;
	atomic_llong last;
	struct homa_ep ep;
	int i;

	self->run = run;
	if (run->done)
		return;
	if (faults_lab_peer(&peer, cfg.peer, AF_INET, cfg.port))
		SKIP(return, "no IPv4 address of %s", cfg.peer);
	rp0 = homa_metric("resent_packets");
	to0 = homa_metric("timeouts");
	ASSERT_ERRNO(0, homa_ep_open(&ep, AF_INET, cfg.port, 512));
	atomic_store(&last, faults_now_ms());
	for (i = 0; i < cfg.servers; i++) {
		s[i].ep = &ep;
		s[i].served = 0;
		s[i].last = &last;
		ASSERT_EQ(0, pthread_create(&s[i].thread, NULL, server_main,
					    &s[i]));
	}
	memset(c, 0, sizeof(c));
	t0 = faults_now_ms();
	for (i = 0; i < cfg.clients; i++) {
		c[i].srv = peer;
		c[i].family = AF_INET;
		c[i].deadline_ms = t0 + cfg.seconds * 1000LL;
		c[i].seed = 1234 + i * 17 + (unsigned int)getpid();
		c[i].allow_big = i == 0;
		ASSERT_EQ(0, pthread_create(&c[i].thread, NULL,
					    fault_client_main, &c[i]));
	}
	for (i = 0; i < cfg.clients; i++)
		pthread_join(c[i].thread, NULL);
	/* Serve the peer's clients until they are done too. */
	while (faults_now_ms() - atomic_load(&last) < 15000)
		usleep(500000);
	shutdown(ep.fd, SHUT_RDWR);
	for (i = 0; i < cfg.servers; i++) {
		pthread_join(s[i].thread, NULL);
		run->served += s[i].served;
	}
	homa_ep_close(&ep);
	fault_clients_sum(c, cfg.clients, &run->tot);
	for (i = 0; i < cfg.clients; i++)
		if (c[i].first_error[0])
			TH_LOG("client %d: first error: %s", i,
			       c[i].first_error);
	TH_LOG("stress clients: RPCs completed %ld (%lld bytes each way), failed %ld, timeouts observed %ld (metric timeouts +%lld), retransmitted packets here %lld, %lld ms",
	       run->tot.done, run->tot.bytes, run->tot.failed,
	       run->tot.timeouts, homa_metric("timeouts") - to0,
	       homa_metric("resent_packets") - rp0, faults_now_ms() - t0);
	TH_LOG("stress: this guest's %d server threads served %ld requests; metrics here: resent_packets %lld, resend_requests_sent %lld, timeouts %lld, drop_duplicate %lld",
	       cfg.servers, run->served, homa_metric("resent_packets"),
	       homa_metric("resend_requests_sent"), homa_metric("timeouts"),
	       homa_metric("drop_duplicate"));
	run->done = true;
}

FIXTURE_TEARDOWN(stress)
{
}

/*
 * The old watchdog allowed --seconds + 300 s; --seconds is at most
 * STRESS_MAX_SECONDS, and any of the tests may run it.
 */
#define STRESS_TIMEOUT (STRESS_MAX_SECONDS + 300)

TEST_F_TIMEOUT(stress, clients_all_verified, STRESS_TIMEOUT)
{
	TH_LOG("%ld RPCs verified, %ld failed", self->run->tot.done,
	       self->run->tot.failed);
	EXPECT_GT(self->run->tot.done, 0);
	EXPECT_EQ(0, self->run->tot.failed);
}

TEST_F_TIMEOUT(stress, no_response_without_request, STRESS_TIMEOUT)
{
	TH_LOG("%ld responses nobody asked for", self->run->tot.extra);
	EXPECT_EQ(0, self->run->tot.extra);
}

TEST_F_TIMEOUT(stress, servers_served, STRESS_TIMEOUT)
{
	TH_LOG("this guest's servers served %ld requests", self->run->served);
	EXPECT_GT(self->run->served, 0);
}

/* ------------------------------------------------------------------ */
/*
 * After the traffic: the metrics of /proc/net/homa_metrics settle. Each
 * is read again every 50 ms until it holds or --settle seconds have
 * passed since the program started (state that settles, such as server
 * RPCs waiting for their ACK after a lossy run, is given time; state that
 * never does still fails).
 */
FIXTURE(settled) {
	long long start_ms;
};

FIXTURE_SETUP(settled)
{
	self->start_ms = cfg.start_ms;
}

FIXTURE_TEARDOWN(settled)
{
}

/*
 * Metric @name once it is @want (@above false) or more than @want (@above
 * true), or at the end of the wait; -1 if it does not exist.
 */
static long long settled_value(struct __test_metadata *_metadata,
			       FIXTURE_DATA(settled) *self, const char *name,
			       bool above, long long want)
{
	long long v;

	for (;;) {
		v = homa_metric(name);
		if (v >= 0 && (above ? v > want : v == want))
			break;
		if (faults_now_ms() - self->start_ms >= cfg.settle * 1000LL)
			break;
		usleep(50000);
	}
	TH_LOG("%s is %lld after %lld ms (allowed %d s)", name, v,
	       faults_now_ms() - self->start_ms, cfg.settle);
	return v;
}

TEST_F_TIMEOUT(settled, no_server_rpcs_live, SETTLE_MAX_SECONDS + 10)
{
	EXPECT_EQ(0, settled_value(_metadata, self, "server_rpcs_live",
				   false, 0));
}

TEST_F_TIMEOUT(settled, no_client_rpcs_live, SETTLE_MAX_SECONDS + 10)
{
	EXPECT_EQ(0, settled_value(_metadata, self, "client_rpcs_live",
				   false, 0));
}

TEST_F_TIMEOUT(settled, packets_were_resent, SETTLE_MAX_SECONDS + 10)
{
	EXPECT_GT(settled_value(_metadata, self, "resent_packets", true, 0),
		  0);
}

/* ------------------------------------------------------------------ */
static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--peer NAME] [--port P] [--clients 1-%d] [--servers 1-%d] [--seconds 1-%d] [--settle 0-%d] [-- HARNESS-OPTIONS]\n",
		prog, STRESS_MAX_THREADS, STRESS_MAX_THREADS,
		STRESS_MAX_SECONDS, SETTLE_MAX_SECONDS);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "peer", required_argument, NULL, 'p' },
		{ "port", required_argument, NULL, 'P' },
		{ "clients", required_argument, NULL, 'c' },
		{ "servers", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 'T' },
		{ "settle", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			cfg.peer = optarg;
			break;
		case 'P':
			cfg.port = (uint16_t)atoi(optarg);
			break;
		case 'c':
			cfg.clients = atoi(optarg);
			break;
		case 's':
			cfg.servers = atoi(optarg);
			break;
		case 'T':
			cfg.seconds = atoi(optarg);
			break;
		case 'S':
			cfg.settle = atoi(optarg);
			break;
		default:
			return usage(argv[0]);
		}
	}
	if (cfg.clients < 1 || cfg.clients > STRESS_MAX_THREADS ||
	    cfg.servers < 1 || cfg.servers > STRESS_MAX_THREADS ||
	    cfg.seconds < 1 || cfg.seconds > STRESS_MAX_SECONDS ||
	    cfg.settle < 0 || cfg.settle > SETTLE_MAX_SECONDS)
		return usage(argv[0]);
	cfg.start_ms = faults_now_ms();
	shared = faults_shared(sizeof(*shared));
	if (!shared) {
		perror("mmap");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	return homa_harness_run(argc, argv, optind);
}
