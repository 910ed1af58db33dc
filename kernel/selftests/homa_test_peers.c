// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_peers - peers exist only with state and are freed when idle
 * (issue 10, item 9).
 *
 * Runs inside one guest. The guest gets COUNT extra addresses on lo (the
 * lab's LOCAL block: $HOMALAB_LOCAL_IP4 or _IP6 plus k, /32 or /128), an
 * echo server thread on PORT and
 * a client socket; each echo to one of those addresses makes the module
 * keep state (one client and one server RPC) for a new host, so it must
 * create exactly one peer for it (the source of the request is the
 * address itself over loopback). Checked through /proc/net/homa_metrics
 * (peers_live, peers_freed):
 *   - RPCs to COUNT addresses create peers (peers_live rises by COUNT);
 *   - once the RPCs are over and net.homa.peer_idle_secs passed, the
 *     peers are freed (peers_live falls back, peers_freed counts them);
 *   - echoes to the same addresses work again after that, re-create the
 *     peers, which are freed again; a loopback echo works too;
 *   - with peer_idle_secs 0 (the collector frees every unreferenced peer
 *     at once), 1 MB echoes still work: RPCs hold their peers.
 * The packets that must create no peer (from spoofed sources) are sent
 * by peers_host.sh.
 *
 * usage: homa_test_peers [--family 4|6] [--port P] [--count N] [--idle S]
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
#include "expect.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "ktap.h"
#include "rpc_client.h"
#include "watchdog.h"

#define MAX_COUNT 250

struct opts {
	int family;
	int port;
	int count;
	int idle;
};

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--family 4|6] [--port P] [--count N] "
		"[--idle SECONDS]\n", prog);
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'c' },
		{ "idle", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->family = AF_INET;
	o->port = 530;
	o->count = 32;
	o->idle = 2;
	while ((c = getopt_long(argc, argv, "f:p:c:i:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->family = homa_family_parse(optarg);
			if (o->family < 0)
				usage(argv[0]);
			break;
		case 'p':
			o->port = atoi(optarg);
			break;
		case 'c':
			o->count = atoi(optarg);
			break;
		case 'i':
			o->idle = atoi(optarg);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (o->port <= 0 || o->port > 0xffff || o->count < 1 ||
	    o->count > MAX_COUNT || o->idle < 0 || o->idle > 60)
		usage(argv[0]);
}

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
static int lo_addrs(const struct opts *o, bool add)
{
	char ip[64], cmd[160];
	int k, err = 0;

	for (k = 1; k <= o->count; k++) {
		test_ip(ip, sizeof(ip), o->family, k);
		snprintf(cmd, sizeof(cmd), "/sbin/ip %s addr %s %s/%d dev lo",
			 o->family == AF_INET ? "-4" : "-6",
			 add ? "add" : "del", ip,
			 o->family == AF_INET ? 32 : 128);
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

/* One echo of @len bytes to each test address; returns how many worked. */
static int echo_all(struct ktap *k, struct homa_ep *ep, struct homa_rx *rx,
		    const struct opts *o, uint8_t *buf, size_t len, int n)
{
	struct rpc_result res;
	union homa_addr dst;
	char ip[64];
	int i, ok = 0;

	for (i = 1; i <= n; i++) {
		test_ip(ip, sizeof(ip), o->family, i);
		if (homa_addr_parse(&dst, ip, (uint16_t)o->port) < 0)
			continue;
		if (rpc_echo_checked(ep, rx, &dst, buf, len, 1000 + i, 1,
				     &res)) {
			ok++;
			continue;
		}
		if (res.err)
			ktap_diag(k, "echo to %s: %s failed: %s", ip, res.stage,
				  errno_name(res.err));
		else
			ktap_diag(k, "echo to %s: %s", ip, res.detail);
	}
	return ok;
}

int main(int argc, char **argv)
{
	long long base, v, freed0, freed1;
	struct echo_thread srv;
	union homa_addr lo;
	struct rpc_result res;
	struct watchdog wd;
	struct homa_ep ep;
	struct homa_rx rx;
	struct ktap k;
	long old_idle;
	uint8_t *buf;
	struct opts o;
	int wait_ms, n, err;
	bool hit;

	parse(argc, argv, &o);
	ktap_start(&k, 13);
	ktap_diag(&k, "IPv%d, port %d, %d addresses, peer_idle_secs %d",
		  o.family == AF_INET ? 4 : 6, o.port, o.count, o.idle);
	watchdog_start(&wd, &k);
	/* The collector sees the whole table every 64 ms. */
	wait_ms = o.idle * 1000 + 5000;

	old_idle = homa_sysctl_read("peer_idle_secs");
	err = homa_sysctl_set("peer_idle_secs", o.idle);
	if (!ktap_result(&k, old_idle >= 0 && err == 0 &&
			 homa_metric("peers_live") >= 0 &&
			 homa_metric("peers_freed") >= 0,
			 "peer_idle_secs_and_peer_metrics_exist"))
		ktap_diag(&k, "peer_idle_secs %ld (set: %d), peers_live %lld, "
			  "peers_freed %lld", old_idle, err,
			  homa_metric("peers_live"),
			  homa_metric("peers_freed"));

	buf = malloc(HOMA_MAX_MESSAGE_LENGTH);
	err = buf ? lo_addrs(&o, true) : -ENOMEM;
	if (!err)
		err = echo_thread_start(&srv, o.family, (uint16_t)o.port, 64);
	if (!err)
		err = homa_ep_open(&ep, o.family, 0, 64);
	if (!expect_errno(&k, err < 0 ? err : 0, 0,
			  "setup_addresses_server_client"))
		return ktap_finish(&k);
	homa_rx_init(&rx);

	/* Nothing else runs RPCs in this guest meanwhile; peers of earlier
	 * steps may still be on their way out.
	 */
	base = homa_metric("peers_live");
	freed0 = homa_metric("peers_freed");
	ktap_diag(&k, "peers_live before %lld, peers_freed %lld", base,
		  freed0);

	/* (b) RPCs to COUNT hosts: COUNT peers. None may go while the
	 * peak is measured (slow kernels take seconds for the round), so
	 * the idle time is long meanwhile; lowering it later applies to
	 * peers already idle.
	 */
	homa_sysctl_set("peer_idle_secs", 600);
	watchdog_arm(&wd, 60, "echo_to_each_address");
	n = echo_all(&k, &ep, &rx, &o, buf, 100, o.count);
	ktap_diag(&k, "echoes to each address: %d of %d", n, o.count);
	ktap_result(&k, n == o.count, "echo_to_each_address");
	v = homa_metric("peers_live");
	ktap_diag(&k, "peers_live after the RPCs (peak) %lld (+%lld, want +%d)",
		  v, v - base, o.count);
	ktap_result(&k, base >= 0 && v >= base + o.count &&
		    v <= base + o.count + 1,
		    "one_peer_per_address_with_state");

	/* Freed once idle (the RPCs are over: client RPCs when their
	 * responses were received, server RPCs when acked).
	 */
	homa_sysctl_set("peer_idle_secs", o.idle);
	watchdog_arm(&wd, wait_ms / 1000 + 30, "idle_peers_freed");
	v = peers_reach(base, true, wait_ms, &hit);
	freed1 = homa_metric("peers_freed");
	ktap_diag(&k, "peers_live after idle %lld (peers_freed +%lld)", v,
		  freed1 - freed0);
	ktap_result(&k, hit, "idle_peers_freed");
	ktap_result(&k, freed1 - freed0 >= o.count, "peers_freed_counted");

	/* (c) The same hosts again: new peers, then freed again. */
	homa_sysctl_set("peer_idle_secs", 600);
	watchdog_arm(&wd, 60, "echo_after_peers_freed");
	n = echo_all(&k, &ep, &rx, &o, buf, 1000, o.count);
	ktap_diag(&k, "echoes after the peers were freed: %d of %d", n,
		  o.count);
	ktap_result(&k, n == o.count, "echo_after_peers_freed");
	v = homa_metric("peers_live");
	ktap_diag(&k, "peers_live after the second round %lld (+%lld, want +%d)",
		  v, v - base, o.count);
	ktap_result(&k, base >= 0 && v >= base + o.count, "peers_recreated");
	homa_sysctl_set("peer_idle_secs", o.idle);
	watchdog_arm(&wd, wait_ms / 1000 + 30, "recreated_peers_freed");
	v = peers_reach(base, true, wait_ms, &hit);
	ktap_diag(&k, "peers_live after the second idle wait %lld", v);
	ktap_result(&k, hit, "recreated_peers_freed");

	watchdog_arm(&wd, 60, "loopback_echo_after_gc");
	homa_addr_loopback(&lo, o.family, (uint16_t)o.port);
	ktap_result(&k, rpc_echo_checked(&ep, &rx, &lo, buf, 10000, 5, 1,
					 &res),
		    "loopback_echo_after_gc");

	/* RPCs hold their peers: a collector that frees every unreferenced
	 * peer at once must not free one under an RPC (KASAN on the debug
	 * kernel).
	 */
	homa_sysctl_set("peer_idle_secs", 0);
	watchdog_arm(&wd, 120, "echo_1mb_with_idle_0");
	n = echo_all(&k, &ep, &rx, &o, buf, HOMA_MAX_MESSAGE_LENGTH,
		     o.count < 4 ? o.count : 4);
	ktap_diag(&k, "1 MB echoes with peer_idle_secs 0: %d", n);
	ktap_result(&k, n == (o.count < 4 ? o.count : 4),
		    "echo_1mb_with_peer_idle_secs_0");
	v = peers_reach(base, true, 5000, &hit);
	ktap_diag(&k, "peers_live with peer_idle_secs 0: %lld", v);
	ktap_result(&k, hit, "peers_freed_with_idle_0");
	watchdog_disarm(&wd);

	homa_ep_close(&ep);
	echo_thread_stop(&srv);
	/* Closing the sockets ended every RPC: nothing holds a peer. */
	v = peers_reach(base, true, 5000, &hit);
	ktap_diag(&k, "peers_live after close: %lld", v);
	ktap_result(&k, hit, "no_peer_left_after_close");
	if (old_idle >= 0)
		homa_sysctl_set("peer_idle_secs", old_idle);
	lo_addrs(&o, false);
	free(buf);
	watchdog_stop(&wd);
	return ktap_finish(&k);
}
