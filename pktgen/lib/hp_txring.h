/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hp_txring.h - fast injection: a packet socket with a transmit ring.
 *
 * Frames are copied into a TPACKET_V2 ring shared with the kernel and
 * handed over many at a time by one send(): no syscall per frame, which is
 * what one pcap_inject() per frame costs. With @bypass the frames also skip
 * the qdisc (PACKET_QDISC_BYPASS) and go straight to the driver; then, as
 * packet(7) warns, other packet sockets on the interface (tcpdump,
 * Wireshark) do not see them. Capture stays with libpcap.
 */
#ifndef HP_TXRING_H
#define HP_TXRING_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct hp_txring - an interface open for injection through a ring.
 * @fd: the AF_PACKET socket, bound to the interface, receiving nothing.
 * @ring: the mapped ring of @slots slots of @slot_size bytes.
 * @head: the next slot to fill.
 * @queued: slots filled but not yet handed to the kernel.
 * @seq: the caller's number of the frame in each slot, to name a bad one.
 * @ifindex, @bypass: how it was opened, to reopen it after an error.
 */
struct hp_txring {
	int fd;
	uint8_t *ring;
	size_t ring_len;
	unsigned int slot_size, slots, head, queued;
	uint64_t *seq;
	int ifindex, bypass;
};

/* Open @iface for injection (@bypass: skip the qdisc). 0, or -1 with @err. */
int hp_txring_open(struct hp_txring *t, const char *iface, int bypass,
		   char *err, size_t errlen);
/*
 * Queue frame number @seq (@len bytes at @buf); the ring is flushed when
 * full. 0, or -1 with @err naming the frame the kernel refused.
 */
int hp_txring_queue(struct hp_txring *t, const void *buf, size_t len,
		    uint64_t seq, char *err, size_t errlen);
/*
 * Hand every queued frame to the kernel and wait until the driver has
 * them. 0, or -1 with @err naming the frame the kernel refused (that
 * frame and those queued after it are not sent; the ring is ready again).
 */
int hp_txring_flush(struct hp_txring *t, char *err, size_t errlen);
void hp_txring_close(struct hp_txring *t);

#endif /* HP_TXRING_H */
