// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_gso - Homa's two GSO paths, each seen in its counter.
 *
 * A message longer than one packet leaves Homa in skbs of several
 * segments (up to net.homa.max_gso_size bytes each). Where the device
 * cannot segment them (the lab's virtio NIC without --offload) the stack
 * calls homa_gso_segment() on transmit (metric gso_tx_segmented); where
 * they arrive whole (over loopback) homa_softirq() splits them
 * (gso_rx_split). Segments are sized to the route's MTU, and loopback's
 * 64 KiB MTU makes every skb one segment: the loopback mode sets lo's MTU
 * to 1500 for its run (and puts it back). With max_gso_size at its
 * minimum every skb is one packet and neither path runs: the control case.
 *
 * usage: homa_test_gso loopback [--family 4|6]
 *        homa_test_gso remote --server ADDR --port P
 *   loopback: echoes through a server thread over 127.0.0.1 or ::1;
 *   remote:   echoes through homa_echo_server on another guest.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "echo.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "ktap.h"
#include "rpc_client.h"
#include "watchdog.h"

#define SERVER_PORT	4200
#define MSG_LEN		200000
#define GSO_MIN		1100	/* net.homa.max_gso_size's minimum */
#define LO_MTU		1500	/* lo's MTU for the loopback run */

struct gso_run {
	struct ktap k;
	struct watchdog wd;
	struct homa_ep ep;
	union homa_addr server;
	uint8_t *buf;
	bool remote;
};

struct gso_counts {
	long long tx_segmented;
	long long rx_split;
};

static void counts_read(struct gso_counts *c)
{
	c->tx_segmented = homa_metric("gso_tx_segmented");
	c->rx_split = homa_metric("gso_rx_split");
}

/* One checked echo of MSG_LEN bytes; the counters' change in @d. */
static bool echo_counted(struct gso_run *r, uint64_t seed,
			 struct gso_counts *d)
{
	struct gso_counts before, after;
	struct rpc_result res;
	struct homa_rx rx;
	bool ok;

	counts_read(&before);
	homa_rx_init(&rx);
	ok = rpc_echo_checked(&r->ep, &rx, &r->server, r->buf, MSG_LEN, seed,
			      1, &res);
	if (!ok)
		ktap_diag(&r->k, "echo of %d bytes: %s: %s (%d)", MSG_LEN,
			  res.stage, res.detail, res.err);
	/* Hand the response's bpages back. */
	homa_receive(r->ep.fd, &rx, HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
	counts_read(&after);
	d->tx_segmented = after.tx_segmented - before.tx_segmented;
	d->rx_split = after.rx_split - before.rx_split;
	ktap_diag(&r->k, "measured: max_gso_size %ld: gso_tx_segmented +%lld, gso_rx_split +%lld",
		  homa_sysctl_read("max_gso_size"), d->tx_segmented,
		  d->rx_split);
	return ok && before.tx_segmented >= 0 && before.rx_split >= 0 &&
	       after.tx_segmented >= 0 && after.rx_split >= 0;
}

static void run_cases(struct gso_run *r, long gso)
{
	/* Each multi-segment skb holds at most max_gso_size bytes. */
	long long skbs = MSG_LEN / gso;
	struct gso_counts d;
	bool ok;

	watchdog_arm(&r->wd, 120, "echo with multi-segment skbs");
	ok = echo_counted(r, 1, &d);
	ktap_result(&r->k, ok, "an echo of 200000 bytes in multi-segment skbs completes byte for byte");
	if (r->remote) {
		ktap_result(&r->k, ok && d.tx_segmented >= skbs,
			    "the request's skbs were segmented in software on transmit (gso_tx_segmented)");
		ktap_result(&r->k, ok && d.rx_split == 0,
			    "the response arrived packet by packet: nothing to split (gso_rx_split)");
	} else {
		/* Request and response both arrive whole. */
		ktap_result(&r->k, ok && d.rx_split >= 2 * skbs,
			    "the skbs arrived whole and were split on receive (gso_rx_split)");
		ktap_result(&r->k, ok && d.tx_segmented == 0,
			    "loopback took them whole: nothing segmented on transmit (gso_tx_segmented)");
	}

	watchdog_arm(&r->wd, 120, "echo with one segment per skb");
	ok = homa_sysctl_set("max_gso_size", GSO_MIN) == 0;
	ok = echo_counted(r, 2, &d) && ok;
	ktap_result(&r->k, ok && d.tx_segmented == 0 && d.rx_split == 0,
		    "with max_gso_size at its minimum (one segment per skb) neither path runs");
	homa_sysctl_set("max_gso_size", gso);
}

/* Sets lo's MTU to @mtu; its old MTU in *@old. Returns 0 or -errno. */
static int lo_mtu_set(int mtu, int *old)
{
	struct ifreq ifr;
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (old) {
		if (ioctl(fd, SIOCGIFMTU, &ifr))
			err = -errno;
		*old = ifr.ifr_mtu;
	}
	ifr.ifr_mtu = mtu;
	if (!err && ioctl(fd, SIOCSIFMTU, &ifr))
		err = -errno;
	close(fd);
	return err;
}

static int usage(void)
{
	fprintf(stderr, "usage: homa_test_gso loopback [--family 4|6]\n"
		"       homa_test_gso remote --server ADDR --port P\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct echo_thread srv = { .ep.fd = -1 };
	struct gso_run r = { .ep.fd = -1 };
	int family = AF_INET, err, lo_mtu = 0;
	long gso;

	if (argc == 2 && strcmp(argv[1], "loopback") == 0) {
		r.remote = false;
	} else if (argc == 4 && strcmp(argv[1], "loopback") == 0 &&
		   strcmp(argv[2], "--family") == 0) {
		family = homa_family_parse(argv[3]);
		if (family < 0)
			return usage();
	} else if (argc == 6 && strcmp(argv[1], "remote") == 0 &&
		   strcmp(argv[2], "--server") == 0 &&
		   strcmp(argv[4], "--port") == 0) {
		r.remote = true;
		if (homa_addr_parse(&r.server, argv[3], atoi(argv[5])) < 0) {
			fprintf(stderr, "homa_test_gso: bad address %s\n", argv[3]);
			return 2;
		}
		family = r.server.sa.sa_family;
	} else {
		return usage();
	}

	ktap_start(&r.k, 4);
	watchdog_start(&r.wd, &r.k);
	watchdog_arm(&r.wd, 60, "setup");
	gso = homa_sysctl_read("max_gso_size");
	r.buf = malloc(MSG_LEN);
	err = r.buf ? 0 : -ENOMEM;
	if (!err && !r.remote)
		err = lo_mtu_set(LO_MTU, &lo_mtu);
	if (!err && !r.remote) {
		err = echo_thread_start(&srv, family, SERVER_PORT, 64);
		homa_addr_loopback(&r.server, family, SERVER_PORT);
	}
	if (!err)
		err = homa_ep_open(&r.ep, family, 0, 64);
	if (err || gso <= GSO_MIN) {
		ktap_diag(&r.k, "setup: %s; max_gso_size %ld", strerror(-err),
			  gso);
		watchdog_stop(&r.wd);
		if (lo_mtu)
			lo_mtu_set(lo_mtu, NULL);
		return ktap_finish(&r.k);
	}
	if (r.remote)
		ktap_diag(&r.k, "remote echo, IPv%d, max_gso_size %ld",
			  family == AF_INET6 ? 6 : 4, gso);
	else
		ktap_diag(&r.k, "loopback echo, IPv%d, max_gso_size %ld, lo's MTU %d (was %d)",
			  family == AF_INET6 ? 6 : 4, gso, LO_MTU, lo_mtu);
	run_cases(&r, gso);
	watchdog_stop(&r.wd);
	homa_ep_close(&r.ep);
	if (!r.remote) {
		echo_thread_stop(&srv);
		lo_mtu_set(lo_mtu, NULL);
	}
	free(r.buf);
	return ktap_finish(&r.k);
}
