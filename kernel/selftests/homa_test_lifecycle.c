// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_lifecycle - shutdown, close and process exit with thousands
 * of RPCs in flight (to the other guest's sink and echo server, over
 * IPv4) and threads blocked in recvmsg (waited for in /proc): every RPC
 * is freed (client_rpcs_live and server_rpcs_live fall back), ports are
 * free again; then rmmod homa succeeds and the module loads again.
 *
 * homa_test_lifecycle [--peer NAME] [--port P] [--sink-port Q]
 *                     [--rpcs N] [-- HARNESS-OPTIONS]
 *   --peer NAME    the other guest (HOMALAB_<NAME>_IP4; default G1)
 *   --port P       its echo server (500)
 *   --sink-port Q  its sink (700: fault_guest.sh sink)
 *   --rpcs N       RPCs in flight per step (2000)
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "harness.h"
#include "blocked_call.h"
#include "faults_common.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"

static struct {
	const char *peer;
	uint16_t port;
	uint16_t sink_port;
	int rpcs;
} cfg = { .peer = "G1", .port = 500, .sink_port = 700, .rpcs = 2000 };

#define LOCAL_SERVER_PORT 720	/* step 3's server */
#define CHILD_SERVER_PORT 721	/* the killed process's server */

/* Whether metric @name falls to @want or below within @seconds. */
static bool metric_falls_to(const char *name, long long want, int seconds)
{
	return homa_metric_falls_to(name, want, seconds * 1000);
}

/* A thread that takes whatever comes until its receive fails. */
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

/* Sends @n requests (every tenth 20000 B, the others up to 900 B). */
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

/* Whether all @n threads return -@want within @secs (joined). */
static bool blocked_all_return(struct blocked *b, int n, int secs, int want)
{
	long long end = faults_now_ms() + secs * 1000LL;
	bool ok = true;
	int i;

	for (i = 0; i < n; i++) {
		while (!atomic_load(&b[i].done) && faults_now_ms() < end)
			usleep(10000);
		if (!atomic_load(&b[i].done))
			return false;
		pthread_join(b[i].thread, NULL);
		if (b[i].result != -want)
			ok = false;
	}
	return ok;
}

/*
 * Waits up to @secs until @n threads of @pid (0: this process) sleep in
 * recvmsg; returns how many did at the end.
 */
static int wait_sleeping_in_recvmsg(pid_t pid, int n, int secs)
{
	long long end = faults_now_ms() + secs * 1000LL;
	int got;

	for (;;) {
		got = tasks_sleeping_in_recvmsg(pid);
		if (got >= n || faults_now_ms() > end)
			return got;
		usleep(20000);
	}
}

/* What the child of the exit step reports once it is set up. */
struct child_report {
	int err;	/* 0 or errno of the first failed step */
	int sent;	/* requests sent */
};

/*
 * The child of the exit step: a client socket with RPCs to the peer's
 * sink and echo and to its own server socket, 4 threads in recvmsg (2 on
 * each socket); reports on @wfd, then waits to be killed.
 */
static void lifecycle_child(int wfd, const union homa_addr *sink,
			    const union homa_addr *echo, int many)
{
	struct child_report cr = { 0, 0 };
	struct homa_ep ep, srv;
	union homa_addr local;
	struct blocked b[4];
	int i, err, want = many / 2 * 2 + 200;

	err = homa_ep_open(&ep, AF_INET, 0, 256);
	if (!err)
		err = homa_ep_open(&srv, AF_INET, CHILD_SERVER_PORT, 256);
	if (err) {
		cr.err = -err;
	} else {
		homa_addr_loopback(&local, AF_INET, CHILD_SERVER_PORT);
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

/*
 * Each test starts from the live-RPC metrics as they are and checks that
 * they fall back to that within 30 s once the sockets are gone.
 */
FIXTURE(lifecycle) {
	union homa_addr echo, sink;
	long long client0, server0;
};

FIXTURE_SETUP(lifecycle)
{
	if (faults_lab_peer(&self->echo, cfg.peer, AF_INET, cfg.port) ||
	    faults_lab_peer(&self->sink, cfg.peer, AF_INET, cfg.sink_port))
		SKIP(return, "no IPv4 address of %s", cfg.peer);
	self->client0 = homa_metric("client_rpcs_live");
	self->server0 = homa_metric("server_rpcs_live");
}

FIXTURE_TEARDOWN(lifecycle)
{
}

/* Whether both live-RPC metrics fall back to where they were. */
static bool live_rpcs_fall_back(FIXTURE_DATA(lifecycle) *self)
{
	return metric_falls_to("client_rpcs_live", self->client0, 30) &&
	       metric_falls_to("server_rpcs_live", self->server0, 30);
}

/*
 * shutdown with thousands in flight and 4 threads blocked in recvmsg
 * (waited for: each sleeps in the call) returns ESHUTDOWN to all four;
 * closing then frees every client RPC.
 */
TEST_F_TIMEOUT(lifecycle, shutdown_with_rpcs_in_flight, 300)
{
	struct homa_ep ep;
	struct blocked b[4];
	int i, sent, err, asleep = 0;
	long long live;
	bool ok = false, fell;

	err = homa_ep_open(&ep, AF_INET, 0, 256);
	sent = err ? 0 : flood(ep.fd, &self->sink, cfg.rpcs / 2) +
			 flood(ep.fd, &self->echo, cfg.rpcs / 2);
	live = homa_metric("client_rpcs_live");
	for (i = 0; i < 4 && !err; i++) {
		b[i].fd = ep.fd;
		atomic_store(&b[i].done, 0);
		ASSERT_EQ(0, pthread_create(&b[i].thread, NULL, blocked_main,
					    &b[i]));
	}
	if (!err) {
		/* The echo's responses keep them busy for a while. */
		asleep = wait_sleeping_in_recvmsg(0, 4, 120);
		shutdown(ep.fd, SHUT_RDWR);
		ok = blocked_all_return(b, 4, 20, ESHUTDOWN);
		homa_ep_close(&ep);
	}
	fell = live_rpcs_fall_back(self);
	TH_LOG("shutdown: %s, %d RPCs sent, client RPCs live %lld -> %lld, now %lld; %d threads slept in recvmsg before the shutdown",
	       strerror(-err), sent, self->client0, live,
	       homa_metric("client_rpcs_live"), asleep);
	EXPECT_ERRNO(0, err);
	EXPECT_TRUE(ok);
	EXPECT_GE(asleep, 4);
	EXPECT_GT(sent, 0);
	EXPECT_GT(live, self->client0);
	EXPECT_TRUE(fell);
}

/*
 * close with thousands in flight (no thread in a call): close succeeds
 * and every client RPC of the socket is freed.
 */
TEST_F_TIMEOUT(lifecycle, close_with_rpcs_in_flight, 300)
{
	struct homa_ep ep;
	int sent, st = -1, err;
	long long live;
	bool fell;

	err = homa_ep_open(&ep, AF_INET, 0, 256);
	sent = err ? 0 : flood(ep.fd, &self->sink, cfg.rpcs / 2) +
			 flood(ep.fd, &self->echo, cfg.rpcs / 2);
	usleep(300000);
	live = homa_metric("client_rpcs_live");
	if (!err) {
		st = close(ep.fd);
		ep.fd = -1;
		homa_ep_close(&ep);
	}
	fell = live_rpcs_fall_back(self);
	TH_LOG("close: %d RPCs sent, client RPCs live %lld -> %lld, now %lld (server %lld before, now %lld)",
	       sent, self->client0, live, homa_metric("client_rpcs_live"),
	       self->server0, homa_metric("server_rpcs_live"));
	EXPECT_ERRNO(0, err);
	EXPECT_EQ(0, st);
	EXPECT_GT(sent, 0);
	EXPECT_GT(live, self->client0);
	EXPECT_TRUE(fell);
}

/*
 * A local server closed with requests queued and 50 in service: its
 * server RPCs and the client's are freed, its port is free.
 */
TEST_F_TIMEOUT(lifecycle, server_close_with_requests_queued, 300)
{
	struct homa_ep ep, srv;
	union homa_addr local;
	int i, sent = 0, fd, rebind, err;
	long long live;
	bool fell;

	err = homa_ep_open(&srv, AF_INET, LOCAL_SERVER_PORT, 256);
	if (!err) {
		err = homa_ep_open(&ep, AF_INET, 0, 256);
		if (err)
			homa_ep_close(&srv);
	}
	homa_addr_loopback(&local, AF_INET, LOCAL_SERVER_PORT);
	if (!err) {
		struct homa_rx rx;

		sent = flood(ep.fd, &local, cfg.rpcs);
		homa_rx_init(&rx);
		for (i = 0; i < 50; i++) {
			rx.ret_count = 0;	/* keep: in service */
			homa_receive(srv.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0);
		}
	}
	live = homa_metric("server_rpcs_live");
	if (!err) {
		homa_ep_close(&srv);
		homa_ep_close(&ep);
	}
	fell = metric_falls_to("server_rpcs_live", self->server0, 30) &&
	       metric_falls_to("client_rpcs_live", self->client0, 30);
	fd = homa_socket(AF_INET);
	rebind = fd < 0 ? fd : homa_bind_port(fd, AF_INET, LOCAL_SERVER_PORT);
	if (fd >= 0)
		close(fd);
	TH_LOG("server close: %d requests sent, server RPCs live %lld -> %lld, now %lld; client RPCs now %lld (before %lld); binding port %d again: %s",
	       sent, self->server0, live, homa_metric("server_rpcs_live"),
	       homa_metric("client_rpcs_live"), self->client0,
	       LOCAL_SERVER_PORT, strerror(-rebind));
	EXPECT_ERRNO(0, err);
	EXPECT_GT(live, self->server0);
	EXPECT_TRUE(fell);
	EXPECT_ERRNO(0, rebind);
}

/*
 * The process dies with RPCs in flight and blocked threads: every RPC it
 * had (client RPCs to the peer and to itself, server RPCs of its own
 * server socket) is freed.
 */
TEST_F_TIMEOUT(lifecycle, process_killed_with_rpcs_in_flight, 300)
{
	struct child_report cr = { .err = -1 };
	long long live, svl;
	int st = 0, asleep = 0, pfd[2];
	bool piped, fell;
	pid_t pid;

	piped = pipe(pfd) == 0;
	pid = piped ? fork() : -1;
	if (pid == 0)
		lifecycle_child(pfd[1], &self->sink, &self->echo, cfg.rpcs);
	if (piped)
		close(pfd[1]);
	if (pid > 0) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };

		if (poll(&p, 1, 120000) != 1 ||
		    read(pfd[0], &cr, sizeof(cr)) != (ssize_t)sizeof(cr))
			cr.err = -1;
		asleep = cr.err ? 0 : wait_sleeping_in_recvmsg(pid, 4, 120);
	}
	if (piped)
		close(pfd[0]);
	live = homa_metric("client_rpcs_live");
	svl = homa_metric("server_rpcs_live");
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	fell = live_rpcs_fall_back(self);
	TH_LOG("exit: child set-up %s (%d RPCs sent), %d threads slept in recvmsg; at the kill client RPCs live %lld (before %lld), server %lld (before %lld); now %lld and %lld",
	       cr.err ? strerror(cr.err > 0 ? cr.err : EIO) : "ok",
	       cr.sent, asleep, live, self->client0, svl, self->server0,
	       homa_metric("client_rpcs_live"),
	       homa_metric("server_rpcs_live"));
	ASSERT_GT(pid, 0);
	EXPECT_EQ(0, cr.err);
	EXPECT_GE(asleep, 4);
	EXPECT_GT(live, self->client0);
	EXPECT_GT(svl, self->server0);
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	EXPECT_TRUE(fell);
}

/* The module's reference count came back: rmmod succeeds (tried for 10 s). */
TEST_F_TIMEOUT(lifecycle, rmmod_succeeds_after_all_that, 120)
{
	long long t0 = faults_now_ms();
	int i, st = 1;

	for (i = 0; i < 100; i++) {
		st = system("rmmod homa 2>/dev/null");
		if (st == 0)
			break;
		usleep(100000);
	}
	TH_LOG("rmmod homa: status %d after %lld ms", st,
	       faults_now_ms() - t0);
	EXPECT_EQ(0, st);
}

TEST_F_TIMEOUT(lifecycle, modprobe_loads_it_again, 120)
{
	EXPECT_EQ(0, system("modprobe homa"));
}

/* ------------------------------------------------------------------ */
static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--peer NAME] [--port P] [--sink-port Q] [--rpcs N] [-- HARNESS-OPTIONS]\n",
		prog);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "peer", required_argument, NULL, 'p' },
		{ "port", required_argument, NULL, 'P' },
		{ "sink-port", required_argument, NULL, 's' },
		{ "rpcs", required_argument, NULL, 'n' },
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
		case 's':
			cfg.sink_port = (uint16_t)atoi(optarg);
			break;
		case 'n':
			cfg.rpcs = atoi(optarg);
			break;
		default:
			return usage(argv[0]);
		}
	}
	if (cfg.rpcs < 2)
		return usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	return homa_harness_run(argc, argv, optind);
}
