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
 * 64 KiB MTU makes every skb one segment: the loopback tests set lo's MTU
 * to 1500 for their run (and put it back). With max_gso_size at its
 * minimum every skb is one packet and neither path runs: the control case.
 *
 * usage: homa_test_gso [--port4 P] [--port6 P] [-- HARNESS-OPTIONS]
 *   loopback.*: echoes through a server thread over 127.0.0.1 or ::1;
 *   remote.*:   echoes through homa_echo_server on the lab's other guest
 *               (HOMALAB_G1_IP4/_IP6), IPv4 on --port4 (default 500),
 *               IPv6 on --port6 (default 600). Without a second guest
 *               they are skipped.
 */
#define _GNU_SOURCE
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "echo.h"
#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "rpc_client.h"

#define SERVER_PORT	4200	/* the loopback tests' server thread */
#define MSG_LEN		200000
#define GSO_MIN		1100	/* net.homa.max_gso_size's minimum */
#define LO_MTU		1500	/* lo's MTU for the loopback tests */

/* The options, set by main() before the tests run. */
static struct {
	uint16_t port4, port6;	/* the other guest's echo servers */
} cfg = { .port4 = 500, .port6 = 600 };

/* What a test of either fixture echoes with. */
struct gso_client {
	struct homa_ep ep;
	union homa_addr server;
	uint8_t *buf;
	long gso;		/* max_gso_size before the test */
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

/*
 * Setup shared by both fixtures, once @c->server is set: max_gso_size
 * (above its minimum, or no skb has several segments), the buffer and
 * a client socket. Returns 0 or -errno.
 */
static int client_open(struct __test_metadata *_metadata,
		       struct gso_client *c)
{
	c->gso = homa_sysctl_read("max_gso_size");
	if (c->gso <= GSO_MIN) {
		TH_LOG("max_gso_size %ld: not above its minimum %d", c->gso,
		       GSO_MIN);
		return -EINVAL;
	}
	c->buf = malloc(MSG_LEN);
	if (!c->buf)
		return -ENOMEM;
	return homa_ep_open(&c->ep, c->server.sa.sa_family, 0, 64);
}

/* Puts max_gso_size back (the control test changes it). */
static void client_close(struct gso_client *c)
{
	if (homa_sysctl_read("max_gso_size") != c->gso)
		homa_sysctl_set("max_gso_size", c->gso);
	homa_ep_close(&c->ep);
	free(c->buf);
}

/*
 * One echo of MSG_LEN bytes (pattern @seed), checked byte for byte, and
 * the counters' change over it in @d.
 */
static void echo_counted(struct __test_metadata *_metadata,
			 struct gso_client *c, uint64_t seed,
			 struct gso_counts *d)
{
	struct gso_counts before, after;
	struct rpc_result res;
	struct homa_rx rx;
	bool ok;

	counts_read(&before);
	homa_rx_init(&rx);
	ok = rpc_echo_checked(&c->ep, &rx, &c->server, c->buf, MSG_LEN, seed,
			      1, &res);
	if (!ok)
		TH_LOG("echo of %d bytes: %s: %s (%d)", MSG_LEN, res.stage,
		       res.detail, res.err);
	/* Hand the response's bpages back. */
	homa_receive(c->ep.fd, &rx, HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
	counts_read(&after);
	d->tx_segmented = after.tx_segmented - before.tx_segmented;
	d->rx_split = after.rx_split - before.rx_split;
	TH_LOG("measured: max_gso_size %ld: gso_tx_segmented +%lld, gso_rx_split +%lld",
	       homa_sysctl_read("max_gso_size"), d->tx_segmented,
	       d->rx_split);
	ASSERT_TRUE(ok);
	/* -1: the metric is missing. */
	ASSERT_GE(before.tx_segmented, 0);
	ASSERT_GE(before.rx_split, 0);
	ASSERT_GE(after.tx_segmented, 0);
	ASSERT_GE(after.rx_split, 0);
}

/* Multi-segment skbs each hold at most max_gso_size bytes. */
static long long skbs_at_least(const struct gso_client *c)
{
	return MSG_LEN / c->gso;
}

/*
 * The control: with max_gso_size at its minimum (one segment per skb)
 * neither path runs.
 */
static void one_segment_per_skb(struct __test_metadata *_metadata,
				struct gso_client *c)
{
	struct gso_counts d;

	ASSERT_ERRNO(0, homa_sysctl_set("max_gso_size", GSO_MIN));
	echo_counted(_metadata, c, 2, &d);
	EXPECT_EQ(0, d.tx_segmented);
	EXPECT_EQ(0, d.rx_split);
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

/*
 * Over loopback, lo's MTU at 1500: the skbs of request and response
 * arrive whole and are split on receive; nothing is segmented on
 * transmit.
 */
FIXTURE(loopback) {
	struct gso_client c;
	struct echo_thread srv;
	int lo_mtu;		/* lo's MTU before */
};

FIXTURE_VARIANT(loopback) {
	int family;
};

HOMA_FAMILY_VARIANTS(loopback);

/*
 * Teardown runs only after a complete setup: a setup that fails after
 * changing lo's MTU puts it back itself.
 */
FIXTURE_SETUP(loopback)
{
	int err;

	ASSERT_ERRNO(0, lo_mtu_set(LO_MTU, &self->lo_mtu));
	TH_LOG("lo's MTU %d (was %d)", LO_MTU, self->lo_mtu);
	err = echo_thread_start(&self->srv, variant->family, SERVER_PORT, 64);
	if (!err) {
		homa_addr_loopback(&self->c.server, variant->family,
				   SERVER_PORT);
		err = client_open(_metadata, &self->c);
	}
	if (err)
		lo_mtu_set(self->lo_mtu, NULL);
	ASSERT_ERRNO(0, err);
}

FIXTURE_TEARDOWN(loopback)
{
	client_close(&self->c);
	echo_thread_stop(&self->srv);
	lo_mtu_set(self->lo_mtu, NULL);
}

TEST_F_TIMEOUT(loopback, multi_segment_echo_byte_for_byte, 180)
{
	struct gso_counts d;

	echo_counted(_metadata, &self->c, 1, &d);
}

TEST_F_TIMEOUT(loopback, split_on_receive, 180)
{
	struct gso_counts d;

	echo_counted(_metadata, &self->c, 1, &d);
	/* Request and response both arrive whole. */
	EXPECT_GE(d.rx_split, 2 * skbs_at_least(&self->c));
}

TEST_F_TIMEOUT(loopback, nothing_segmented_on_transmit, 180)
{
	struct gso_counts d;

	echo_counted(_metadata, &self->c, 1, &d);
	EXPECT_EQ(0, d.tx_segmented);
}

TEST_F_TIMEOUT(loopback, one_segment_per_skb_neither_path, 180)
{
	one_segment_per_skb(_metadata, &self->c);
}

/*
 * To the other guest (virtio without offload): the request's skbs are
 * segmented in software on transmit; the response arrives packet by
 * packet, with nothing to split.
 */
FIXTURE(remote) {
	struct gso_client c;
};

FIXTURE_VARIANT(remote) {
	int family;
};

HOMA_FAMILY_VARIANTS(remote);

FIXTURE_SETUP(remote)
{
	const char *g1 = homa_lab_addr("G1", variant->family);
	uint16_t port = variant->family == AF_INET6 ? cfg.port6 : cfg.port4;

	if (!g1)
		SKIP(return, "no second guest (HOMALAB_G1_IP%d)",
		     variant->family == AF_INET6 ? 6 : 4);
	ASSERT_ERRNO(0, homa_addr_parse(&self->c.server, g1, port));
	TH_LOG("server %s port %u", g1, port);
	ASSERT_ERRNO(0, client_open(_metadata, &self->c));
}

FIXTURE_TEARDOWN(remote)
{
	client_close(&self->c);
}

TEST_F_TIMEOUT(remote, multi_segment_echo_byte_for_byte, 180)
{
	struct gso_counts d;

	echo_counted(_metadata, &self->c, 1, &d);
}

TEST_F_TIMEOUT(remote, segmented_on_transmit, 180)
{
	struct gso_counts d;

	echo_counted(_metadata, &self->c, 1, &d);
	EXPECT_GE(d.tx_segmented, skbs_at_least(&self->c));
}

TEST_F_TIMEOUT(remote, nothing_split_on_receive, 180)
{
	struct gso_counts d;

	echo_counted(_metadata, &self->c, 1, &d);
	EXPECT_EQ(0, d.rx_split);
}

TEST_F_TIMEOUT(remote, one_segment_per_skb_neither_path, 180)
{
	one_segment_per_skb(_metadata, &self->c);
}

int main(int argc, char **argv)
{
	return homa_harness_run_ports(argc, argv, &cfg.port4, &cfg.port6);
}
