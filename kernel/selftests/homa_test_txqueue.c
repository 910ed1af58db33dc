// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_txqueue - the devices' transmit completions clock the pacer.
 *
 * Homa keeps what it has handed to IP and the device has not sent yet
 * (metric tx_queued_bytes) under net.homa.max_tx_queue_kb; a message that
 * would go over waits for the pacer, which the completions wake. With
 * link_mbps so high that the rate estimate never holds a packet back,
 * only the completions can (max_tx_queue_kb set to 1 for the tests, less
 * than an skb): long echoes to the other guest must then be throttled,
 * complete intact, and leave nothing queued. The pacer's waits that no
 * completion ended (pacer_stalls) are printed. And one pick in
 * pacer_fifo_every takes the oldest message: a 1 MB message under a
 * stream of shorter ones gets such picks (pacer_fifo_picks; with
 * pacer_fifo_every 1, and the short queue makes the shorter messages
 * wait too).
 *
 * usage: homa_test_txqueue [--port4 P] [--port6 P] [-- HARNESS-OPTIONS]
 *   echoes go to homa_echo_server on the lab's other guest
 *   (HOMALAB_G1_IP4/_IP6), IPv4 on --port4 (default 500), IPv6 on
 *   --port6 (default 600).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"

#define LONG_LEN	1000000
#define MID_LEN		30000
#define ECHOES		4
#define STREAM		8
#define FAST_MBPS	10000000	/* link_mbps's maximum */
/*
 * max_tx_queue_kb for the tests: less than one skb, so that any skb still
 * in the device holds the next one back. With the default (128) a debug
 * guest, 24 times slower, never fills the queue: its device completes
 * each skb before the next is built.
 */
#define QUEUE_KB	1

static struct {
	uint16_t port4, port6;
} cfg = { .port4 = 500, .port6 = 600 };

FIXTURE(txqueue) {
	struct homa_ep ep;
	union homa_addr server;
	struct homa_rx rx;
	long link_mbps, fifo_every, queue_kb;
	uint8_t *buf;
};

FIXTURE_VARIANT(txqueue) {
	int family;
};

HOMA_FAMILY_VARIANTS(txqueue);

FIXTURE_SETUP(txqueue)
{
	const char *ip = homa_lab_addr("G1", variant->family);

	ASSERT_NE(NULL, ip);
	ASSERT_ERRNO(0, homa_addr_parse(&self->server, ip,
					variant->family == AF_INET ?
					cfg.port4 : cfg.port6));
	self->link_mbps = homa_sysctl_read("link_mbps");
	self->fifo_every = homa_sysctl_read("pacer_fifo_every");
	self->queue_kb = homa_sysctl_read("max_tx_queue_kb");
	self->buf = malloc(LONG_LEN);
	ASSERT_NE(NULL, self->buf);
	memset(self->buf, 'q', LONG_LEN);
	homa_rx_init(&self->rx);
	ASSERT_ERRNO(0, homa_ep_open(&self->ep, variant->family, 0, 256));
	ASSERT_ERRNO(0, homa_sysctl_set("link_mbps", FAST_MBPS));
	ASSERT_ERRNO(0, homa_sysctl_set("max_tx_queue_kb", QUEUE_KB));
}

FIXTURE_TEARDOWN(txqueue)
{
	homa_sysctl_set("link_mbps", self->link_mbps);
	if (self->fifo_every >= 0)
		homa_sysctl_set("pacer_fifo_every", self->fifo_every);
	if (self->queue_kb > 0)
		homa_sysctl_set("max_tx_queue_kb", self->queue_kb);
	homa_ep_close(&self->ep);
	free(self->buf);
}

/* Sends @n requests of @len bytes; their ids go to @ids. */
static void send_n(struct __test_metadata *_metadata,
		   FIXTURE_DATA(txqueue) *self, int n, size_t len,
		   uint64_t *ids)
{
	int i;

	for (i = 0; i < n; i++)
		ASSERT_ERRNO(0, homa_send_request_buf(self->ep.fd,
						      &self->server,
						      self->buf, len, i,
						      &ids[i]));
}

/* Each of @n responses comes back whole within 60 s. */
static void receive_n(struct __test_metadata *_metadata,
		      FIXTURE_DATA(txqueue) *self, int n, size_t len,
		      const uint64_t *ids)
{
	int i;

	for (i = 0; i < n; i++)
		EXPECT_EQ((ssize_t)len,
			  homa_receive_within(self->ep.fd, &self->rx,
					      HOMA_RECVMSG_RESPONSE, ids[i],
					      60000));
}

TEST_F_TIMEOUT(txqueue, completions_clock_the_pacer, 180)
{
	long long throttled = homa_metric("throttled_rpcs_added");
	long long stalls = homa_metric("pacer_stalls");
	uint64_t ids[ECHOES];

	ASSERT_LE(0, stalls);
	send_n(_metadata, self, ECHOES, LONG_LEN / 2, ids);
	receive_n(_metadata, self, ECHOES, LONG_LEN / 2, ids);
	TH_LOG("measured: throttled_rpcs_added +%lld, pacer_stalls +%lld",
	       homa_metric("throttled_rpcs_added") - throttled,
	       homa_metric("pacer_stalls") - stalls);
	EXPECT_LT(throttled, homa_metric("throttled_rpcs_added"));
	EXPECT_TRUE(homa_metric_falls_to("tx_queued_bytes", 0, 2000));
}

TEST_F_TIMEOUT(txqueue, fifo_share_reaches_oldest, 180)
{
	long long picks = homa_metric("pacer_fifo_picks");
	uint64_t ids[1 + STREAM];

	ASSERT_LE(0, picks);
	/* Every pick to the oldest. */
	ASSERT_ERRNO(0, homa_sysctl_set("pacer_fifo_every", 1));
	send_n(_metadata, self, 1, LONG_LEN, ids);
	send_n(_metadata, self, STREAM, MID_LEN, ids + 1);
	receive_n(_metadata, self, STREAM, MID_LEN, ids + 1);
	receive_n(_metadata, self, 1, LONG_LEN, ids);
	TH_LOG("measured: pacer_fifo_picks +%lld",
	       homa_metric("pacer_fifo_picks") - picks);
	EXPECT_LT(picks, homa_metric("pacer_fifo_picks"));
}

int main(int argc, char **argv)
{
	return homa_harness_run_ports(argc, argv, &cfg.port4, &cfg.port6);
}
