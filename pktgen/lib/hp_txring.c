// SPDX-License-Identifier: BSD-2-Clause
/* hp_txring.c - fast injection through a packet socket's transmit ring. */
#include "hp_txring.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hp_frame.h"

/* Where a slot's frame starts: after its header (no PACKET_TX_HAS_OFF). */
#define SLOT_DATA	TPACKET_ALIGN(sizeof(struct tpacket2_hdr))
/* One slot holds the largest frame we build; the ring is 2 MiB of them. */
#define SLOT_SIZE	16384u
#define RING_BYTES	(2u << 20)
#define BLOCK_SIZE	65536u
/* How long a slot the kernel holds may take to come back. */
#define SLOT_WAIT_MS	2000
/* How long a device may stay full (ENOBUFS) before injection gives up. */
#define FULL_WAIT_MS	10000

_Static_assert(SLOT_DATA + HP_FRAME_MAX <= SLOT_SIZE, "a slot holds a frame");
_Static_assert(BLOCK_SIZE % SLOT_SIZE == 0 && RING_BYTES % BLOCK_SIZE == 0,
	       "slots tile blocks, blocks tile the ring");

static struct tpacket2_hdr *slot(const struct hp_txring *t, unsigned int i)
{
	return (struct tpacket2_hdr *)(t->ring + (size_t)i * t->slot_size);
}

/* The kernel and we hand slots over through tp_status: order around it. */
static unsigned int status(const struct tpacket2_hdr *h)
{
	return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
}

static void set_status(struct tpacket2_hdr *h, unsigned int s)
{
	__atomic_store_n(&h->tp_status, s, __ATOMIC_RELEASE);
}

/* Socket, ring and binding for t->ifindex. 0, or -1 with errno and @what. */
static int setup(struct hp_txring *t, const char **what)
{
	struct tpacket_req req = {
		.tp_block_size = BLOCK_SIZE,
		.tp_block_nr = RING_BYTES / BLOCK_SIZE,
		.tp_frame_size = SLOT_SIZE,
		.tp_frame_nr = RING_BYTES / SLOT_SIZE,
	};
	/* Protocol 0: the socket sends and never receives. */
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = t->ifindex,
	};
	int v2 = TPACKET_V2;

	t->slot_size = SLOT_SIZE;
	t->slots = RING_BYTES / SLOT_SIZE;
	t->head = 0;
	t->queued = 0;
	*what = "socket(AF_PACKET)";
	t->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (t->fd < 0)
		return -1;
	*what = "PACKET_VERSION";
	if (setsockopt(t->fd, SOL_PACKET, PACKET_VERSION, &v2, sizeof(v2)))
		return -1;
	*what = "PACKET_QDISC_BYPASS";
	if (t->bypass && setsockopt(t->fd, SOL_PACKET, PACKET_QDISC_BYPASS,
				    &t->bypass, sizeof(t->bypass)))
		return -1;
	*what = "PACKET_TX_RING";
	if (setsockopt(t->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)))
		return -1;
	*what = "mmap of the ring";
	t->ring_len = RING_BYTES;
	t->ring = mmap(NULL, t->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       t->fd, 0);
	if (t->ring == MAP_FAILED) {
		t->ring = NULL;
		return -1;
	}
	*what = "bind";
	return bind(t->fd, (struct sockaddr *)&sll, sizeof(sll));
}

static void teardown(struct hp_txring *t)
{
	if (t->ring)
		munmap(t->ring, t->ring_len);
	if (t->fd >= 0)
		close(t->fd);
	t->ring = NULL;
	t->fd = -1;
}

int hp_txring_open(struct hp_txring *t, const char *iface, int bypass,
		   char *err, size_t errlen)
{
	const char *what = "";

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->bypass = !!bypass;
	t->ifindex = (int)if_nametoindex(iface);
	if (!t->ifindex) {
		snprintf(err, errlen, "interface '%s': %s", iface,
			 strerror(errno));
		return -1;
	}
	t->seq = calloc(RING_BYTES / SLOT_SIZE, sizeof(*t->seq));
	if (!t->seq) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (setup(t, &what)) {
		snprintf(err, errlen, "interface '%s': %s: %s", iface, what,
			 strerror(errno));
		hp_txring_close(t);
		return -1;
	}
	return 0;
}

/*
 * The kernel refused a frame (error @e): name it, and start over with an
 * empty ring, since the kernel stops at a refused slot for good.
 */
static int refused(struct hp_txring *t, int e, char *err, size_t errlen)
{
	const char *what = "";
	int n = 0;

	for (unsigned int i = 0; i < t->slots; i++) {
		if (status(slot(t, i)) != TP_STATUS_WRONG_FORMAT)
			continue;
		n = snprintf(err, errlen, "frame %llu: ",
			     (unsigned long long)t->seq[i]);
		break;
	}
	if (n < 0 || (size_t)n >= errlen)
		n = 0;
	snprintf(err + n, errlen - n, "inject: %s", strerror(e));
	teardown(t);
	if (setup(t, &what)) {
		snprintf(err, errlen, "inject: %s: reopening the ring: %s: %s",
			 strerror(e), what, strerror(errno));
		teardown(t);
	}
	return -1;
}

int hp_txring_flush(struct hp_txring *t, char *err, size_t errlen)
{
	int full_ms = 0;

	if (t->fd < 0) {
		snprintf(err, errlen, "inject: the ring is closed");
		return -1;
	}
	while (t->queued) {
		/* Blocking: returns once the driver has every queued frame. */
		if (send(t->fd, NULL, 0, 0) >= 0) {
			t->queued = 0;
			break;
		}
		if (errno == EINTR)
			continue;
		/*
		 * The qdisc or the driver was full: the kernel keeps the
		 * frame it could not place at the ring's head, and the next
		 * send() offers it again.
		 */
		if ((errno == ENOBUFS || errno == EAGAIN) &&
		    full_ms < FULL_WAIT_MS) {
			poll(NULL, 0, 1);
			full_ms++;
			continue;
		}
		return refused(t, errno, err, errlen);
	}
	return 0;
}

/* Wait until the kernel gives slot @h back (after a flush it has). */
static int slot_free(struct hp_txring *t, struct tpacket2_hdr *h)
{
	struct pollfd pfd = { .fd = t->fd, .events = POLLOUT };

	for (int ms = 0; status(h) != TP_STATUS_AVAILABLE; ms += 10) {
		if (status(h) == TP_STATUS_WRONG_FORMAT || ms >= SLOT_WAIT_MS)
			return -1;
		poll(&pfd, 1, 10);
	}
	return 0;
}

int hp_txring_queue(struct hp_txring *t, const void *buf, size_t len,
		    uint64_t seq, char *err, size_t errlen)
{
	struct tpacket2_hdr *h;

	if (len > t->slot_size - SLOT_DATA) {
		snprintf(err, errlen, "frame %llu: %zu bytes, more than %u",
			 (unsigned long long)seq, len,
			 (unsigned int)(t->slot_size - SLOT_DATA));
		return -1;
	}
	if (t->queued == t->slots && hp_txring_flush(t, err, errlen))
		return -1;
	if (t->fd < 0) {
		snprintf(err, errlen, "inject: the ring is closed");
		return -1;
	}
	h = slot(t, t->head);
	if (slot_free(t, h)) {
		snprintf(err, errlen, "frame %llu: inject: the kernel kept "
			 "ring slot %u", (unsigned long long)seq, t->head);
		return -1;
	}
	memcpy((uint8_t *)h + SLOT_DATA, buf, len);
	h->tp_len = (uint32_t)len;
	t->seq[t->head] = seq;
	set_status(h, TP_STATUS_SEND_REQUEST);
	t->head = (t->head + 1) % t->slots;
	t->queued++;
	return 0;
}

void hp_txring_close(struct hp_txring *t)
{
	teardown(t);
	free(t->seq);
	t->seq = NULL;
}
