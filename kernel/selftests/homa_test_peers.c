// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_peers - peers exist only with state and are freed when idle
 * (issue 10, item 9).
 *
 * Runs inside one guest. The guest gets COUNT extra addresses on lo (the
 * lab's LOCAL block: $HOMALAB_LOCAL_IP4 or _IP6 plus k, /32 or /128), an
 * echo server thread on PORT and a client socket; each echo to one of
 * those addresses makes the module keep state (one client and one server
 * RPC) for a new host, so it must create exactly one peer for it (the
 * source of the request is the address itself over loopback). Checked
 * through /proc/net/homa_metrics (peers_live, peers_freed), over IPv4 and
 * IPv6 (the fixture's variants):
 *   - RPCs to COUNT addresses create peers (peers_live rises by COUNT);
 *   - once the RPCs are over and net.homa.peer_idle_secs passed, the
 *     peers are freed (peers_live falls back, peers_freed counts them);
 *   - echoes to the same addresses work again after that, re-create the
 *     peers, which are freed again; a loopback echo works too;
 *   - with peer_idle_secs 0 (the collector frees every unreferenced peer
 *     at once), 1 MB echoes still work: RPCs hold their peers;
 *   - once the sockets are closed no peer is left.
 * The packets that must create no peer (from spoofed sources) are sent
 * by peers_host.sh.
 *
 * usage: homa_test_peers [--port P] [--count N] [--idle S]
 *                        [-- HARNESS ARGS]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
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
#include "rpc_client.h"

#define MAX_COUNT 250
/* peer_idle_secs while a peak is measured: no peer may go meanwhile. */
#define IDLE_LONG 600

/* The options, for the tests to read. */
static struct {
	int port;
	int count;
	int idle;
} cfg = { .port = 530, .count = 32, .idle = 2 };

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The k-th test address (1-based) of @family as text: the lab's LOCAL block. */
static void test_ip(char *buf, size_t len, int family, int k)
{
	if (!homa_lab_nth_addr("LOCAL", family, k, buf, len))
		exit(2);
}

static int run(const char *cmd)
{
	int st = system(cmd);

	return st == 0 ? 0 : -1;
}

/* Adds (@add) or removes the test addresses on lo; 0 or -1. */
static int lo_addrs(int family, bool add)
{
	char ip[64], cmd[160];
	int k, err = 0;

	for (k = 1; k <= cfg.count; k++) {
		test_ip(ip, sizeof(ip), family, k);
		snprintf(cmd, sizeof(cmd), "/sbin/ip %s addr %s %s/%d dev lo",
			 family == AF_INET ? "-4" : "-6",
			 add ? "add" : "del", ip,
			 family == AF_INET ? 32 : 128);
		if (run(cmd) && add)
			err = -1;
	}
	return err;
}

/*
 * Polls peers_live until it is <= @want (@down) or >= @want, for up to
 * @ms. A missing metric (-1) never matches. Returns the last value read.
 */
static long long peers_reach(long long want, bool down, int ms, bool *hit)
{
	long long deadline = now_ms() + ms, v;

	for (;;) {
		v = homa_metric("peers_live");
		*hit = v >= 0 && (down ? v <= want : v >= want);
		if (*hit || now_ms() >= deadline)
			return v;
		usleep(50 * 1000);
	}
}

/*
 * One echo of @len bytes to each of the first @n test addresses; returns
 * how many worked.
 */
static int echo_all(struct __test_metadata *_metadata, struct homa_ep *ep,
		    struct homa_rx *rx, int family, uint8_t *buf, size_t len,
		    int n)
{
	struct rpc_result res;
	union homa_addr dst;
	char ip[64];
	int i, ok = 0;

	for (i = 1; i <= n; i++) {
		test_ip(ip, sizeof(ip), family, i);
		if (homa_addr_parse(&dst, ip, (uint16_t)cfg.port) < 0)
			continue;
		if (rpc_echo_checked(ep, rx, &dst, buf, len, 1000 + i, 1,
				     &res)) {
			ok++;
			continue;
		}
		if (res.err)
			TH_LOG("echo to %s: %s failed: %s", ip, res.stage,
			       errno_name(res.err));
		else
			TH_LOG("echo to %s: %s", ip, res.detail);
	}
	return ok;
}

/* The sysctl and the two metrics the tests below read exist. */
TEST(peer_idle_secs_and_peer_metrics_exist)
{
	long old_idle = homa_sysctl_read("peer_idle_secs");
	int err = homa_sysctl_set("peer_idle_secs", cfg.idle);

	TH_LOG("peer_idle_secs %ld (set to %d: %s), peers_live %lld, peers_freed %lld",
	       old_idle, cfg.idle, errno_name(err), homa_metric("peers_live"),
	       homa_metric("peers_freed"));
	EXPECT_GE(old_idle, 0);
	EXPECT_ERRNO(0, err);
	EXPECT_GE(homa_metric("peers_live"), 0);
	EXPECT_GE(homa_metric("peers_freed"), 0);
	if (old_idle >= 0)
		homa_sysctl_set("peer_idle_secs", old_idle);
}

/*
 * COUNT addresses on lo, an echo server thread on --port and a client
 * socket. Nothing else runs RPCs in this guest meanwhile; the peers a
 * test made are gone before the next one (teardown).
 */
FIXTURE(peers) {
	struct echo_thread srv;
	struct homa_ep ep;
	struct homa_rx rx;
	uint8_t *buf;
	long old_idle;
	long long base, freed0;
	int wait_ms;
	bool addrs, srv_up, ep_open;
};

FIXTURE_VARIANT(peers) {
	int family;
};

HOMA_FAMILY_VARIANTS(peers);

/* Closes what is open, lets this test's peers go, puts things back. */
static void peers_cleanup(FIXTURE_DATA(peers) *self, int family)
{
	bool hit;

	if (self->ep_open)
		homa_ep_close(&self->ep);
	self->ep_open = false;
	if (self->srv_up)
		echo_thread_stop(&self->srv);
	self->srv_up = false;
	if (self->base >= 0) {
		homa_sysctl_set("peer_idle_secs", 0);
		peers_reach(self->base, true, self->wait_ms, &hit);
	}
	if (self->old_idle >= 0)
		homa_sysctl_set("peer_idle_secs", self->old_idle);
	if (self->addrs)
		lo_addrs(family, false);
	self->addrs = false;
	free(self->buf);
	self->buf = NULL;
}

FIXTURE_SETUP(peers)
{
	int err = 0;

	/* The collector sees the whole table every 64 ms. */
	self->wait_ms = cfg.idle * 1000 + 5000;
	self->base = -1;
	self->old_idle = homa_sysctl_read("peer_idle_secs");
	self->buf = malloc(HOMA_MAX_MESSAGE_LENGTH);
	if (!self->buf)
		err = -ENOMEM;
	if (!err) {
		self->addrs = true;
		if (lo_addrs(variant->family, true))
			err = -EADDRNOTAVAIL;
	}
	if (!err)
		err = echo_thread_start(&self->srv, variant->family,
					(uint16_t)cfg.port, 64);
	self->srv_up = !err;
	if (!err)
		err = homa_ep_open(&self->ep, variant->family, 0, 64);
	self->ep_open = !err;
	if (err)
		peers_cleanup(self, variant->family);
	ASSERT_ERRNO(0, err < 0 ? err : 0)
		TH_LOG("setup: addresses on lo, server, client");
	homa_rx_init(&self->rx);
	/* Peers of earlier steps may still be on their way out. */
	self->base = homa_metric("peers_live");
	self->freed0 = homa_metric("peers_freed");
	TH_LOG("IPv%d, port %d, %d addresses, peer_idle_secs %d; peers_live before %lld, peers_freed %lld",
	       variant->family == AF_INET ? 4 : 6, cfg.port, cfg.count,
	       cfg.idle, self->base, self->freed0);
	if (self->base < 0)
		peers_cleanup(self, variant->family);
	ASSERT_GE(self->base, 0) TH_LOG("no peers_live metric");
}

FIXTURE_TEARDOWN(peers)
{
	peers_cleanup(self, variant->family);
}

/*
 * One echo to each of the first @n addresses (@len bytes); every one
 * must work.
 */
#define ECHO_ALL(len, n) do { \
	int __want = (n); \
	int __got = echo_all(_metadata, &self->ep, &self->rx, \
			     variant->family, self->buf, (len), __want); \
	TH_LOG("%zu B echoes: %d of %d", (size_t)(len), __got, __want); \
	EXPECT_EQ(__want, __got); \
} while (0)

/*
 * RPCs to COUNT hosts make COUNT peers; once the RPCs are over (client
 * RPCs when their responses were received, server RPCs when acked) and
 * peer_idle_secs passed, they are freed and counted. No peer may go
 * while the peak is measured (slow kernels take seconds for the round),
 * so the idle time is long meanwhile; lowering it later applies to peers
 * already idle. The old watchdog allowed 60 s for the round and
 * peer_idle_secs + 35 s for the wait.
 */
TEST_F_TIMEOUT(peers, peers_created_and_freed_when_idle, 300)
{
	long long v, freed;
	bool hit;

	homa_sysctl_set("peer_idle_secs", IDLE_LONG);
	ECHO_ALL(100, cfg.count);
	v = homa_metric("peers_live");
	TH_LOG("peers_live after the RPCs (peak) %lld (+%lld, want +%d)", v,
	       v - self->base, cfg.count);
	EXPECT_GE(v, self->base + cfg.count);
	EXPECT_LE(v, self->base + cfg.count + 1);

	homa_sysctl_set("peer_idle_secs", cfg.idle);
	v = peers_reach(self->base, true, self->wait_ms, &hit);
	freed = homa_metric("peers_freed") - self->freed0;
	TH_LOG("peers_live after idle %lld (peers_freed +%lld)", v, freed);
	EXPECT_TRUE(hit) TH_LOG("idle peers not freed");
	EXPECT_GE(freed, cfg.count);
}

/*
 * Peers freed when idle (as above) come back with the next RPCs to the
 * same hosts and are freed again; a loopback echo works after that.
 */
TEST_F_TIMEOUT(peers, peers_recreated_after_being_freed, 400)
{
	struct rpc_result res;
	union homa_addr lo;
	long long v;
	bool hit;

	homa_sysctl_set("peer_idle_secs", IDLE_LONG);
	ECHO_ALL(100, cfg.count);
	homa_sysctl_set("peer_idle_secs", cfg.idle);
	v = peers_reach(self->base, true, self->wait_ms, &hit);
	ASSERT_TRUE(hit) TH_LOG("first peers not freed: peers_live %lld", v);

	homa_sysctl_set("peer_idle_secs", IDLE_LONG);
	ECHO_ALL(1000, cfg.count);
	v = homa_metric("peers_live");
	TH_LOG("peers_live after the second round %lld (+%lld, want +%d)", v,
	       v - self->base, cfg.count);
	EXPECT_GE(v, self->base + cfg.count);

	homa_sysctl_set("peer_idle_secs", cfg.idle);
	v = peers_reach(self->base, true, self->wait_ms, &hit);
	TH_LOG("peers_live after the second idle wait %lld", v);
	EXPECT_TRUE(hit) TH_LOG("re-created peers not freed");

	homa_addr_loopback(&lo, variant->family, (uint16_t)cfg.port);
	EXPECT_TRUE(rpc_echo_checked(&self->ep, &self->rx, &lo, self->buf,
				     10000, 5, 1, &res))
		TH_LOG("loopback echo after the collector: %s %s %s",
		       res.stage ? res.stage : "", errno_name(res.err),
		       res.detail);
}

/*
 * RPCs hold their peers: a collector that frees every unreferenced peer
 * at once (peer_idle_secs 0) must not free one under an RPC (KASAN on the
 * debug kernel), and frees them all once the RPCs are over. The old
 * watchdog allowed 120 s.
 */
TEST_F_TIMEOUT(peers, rpcs_hold_peers_with_idle_0, 300)
{
	long long v;
	bool hit;

	homa_sysctl_set("peer_idle_secs", 0);
	ECHO_ALL(HOMA_MAX_MESSAGE_LENGTH, cfg.count < 4 ? cfg.count : 4);
	v = peers_reach(self->base, true, 5000, &hit);
	TH_LOG("peers_live with peer_idle_secs 0: %lld", v);
	EXPECT_TRUE(hit) TH_LOG("peers not freed with peer_idle_secs 0");
}

/* Closing the sockets ends every RPC: nothing holds a peer then. */
TEST_F_TIMEOUT(peers, no_peer_left_after_close, 300)
{
	long long v;
	bool hit;

	homa_sysctl_set("peer_idle_secs", 0);
	ECHO_ALL(100, cfg.count);
	homa_ep_close(&self->ep);
	self->ep_open = false;
	echo_thread_stop(&self->srv);
	self->srv_up = false;
	v = peers_reach(self->base, true, 5000, &hit);
	TH_LOG("peers_live after close: %lld", v);
	EXPECT_TRUE(hit) TH_LOG("peers left after close");
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--port P] [--count N] [--idle SECONDS] [-- HARNESS ARGS]\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'c' },
		{ "idle", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt_long(argc, argv, "p:c:i:", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			cfg.port = atoi(optarg);
			break;
		case 'c':
			cfg.count = atoi(optarg);
			break;
		case 'i':
			cfg.idle = atoi(optarg);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (cfg.port <= 0 || cfg.port > 0xffff || cfg.count < 1 ||
	    cfg.count > MAX_COUNT || cfg.idle < 0 || cfg.idle > 60)
		usage(argv[0]);
	return homa_harness_run(argc, argv, optind);
}
