/* SPDX-License-Identifier: BSD-2-Clause */
/* hp_pcap.h - pcap files (write, read) and live injection/capture. */
#ifndef HP_PCAP_H
#define HP_PCAP_H

#include <pcap/pcap.h>
#include <stddef.h>
#include <stdint.h>

#include "hp_frame.h"
#include "hp_msg.h"
#include "hp_txring.h"

/* struct hp_pcap_writer - an open pcap file being written. */
struct hp_pcap_writer {
	pcap_t *dead;
	pcap_dumper_t *dump;
};

/* Create @path (Ethernet link type). 0, or -1 with @err. */
int hp_pcap_write_open(struct hp_pcap_writer *w, const char *path,
		       char *err, size_t errlen);
/* Write @f with timestamp @ts_us (microseconds since the epoch). */
void hp_pcap_write(struct hp_pcap_writer *w, const struct hp_frame *f,
		   uint64_t ts_us);
void hp_pcap_write_close(struct hp_pcap_writer *w);

/* Append every frame of the pcap file @path to @out. */
int hp_pcap_read_all(const char *path, struct hp_list *out,
		     char *err, size_t errlen);

/*
 * struct hp_live - an interface open for injection (@tx, a transmit ring)
 * and capture (@p, libpcap, or NULL; @fd its descriptor to poll).
 */
struct hp_live {
	pcap_t *p;
	int fd;
	struct hp_txring tx;
};

/* hp_live_open() flags: open a capture too; inject past the qdisc. */
#define HP_LIVE_CAPTURE	0x1u
#define HP_LIVE_BYPASS	0x2u

/*
 * Open @iface for injection and, with HP_LIVE_CAPTURE, capture of the
 * frames coming in (from the guest on a tap) that match BPF @filter (NULL:
 * all). With HP_LIVE_BYPASS injected frames skip the qdisc, and other
 * captures on @iface do not see them. 0, or -1 with @err.
 */
int hp_live_open(struct hp_live *l, const char *iface, const char *filter,
		 unsigned int flags, char *err, size_t errlen);
/* Send one frame now: 0, or -1 with @err. */
int hp_live_send(struct hp_live *l, const struct hp_frame *f,
		 char *err, size_t errlen);
/*
 * Queue frame number @seq, sent by the next hp_live_flush() or when the
 * ring is full: 0, or -1 with @err naming the frame the kernel refused.
 */
int hp_live_queue(struct hp_live *l, const struct hp_frame *f, uint64_t seq,
		  char *err, size_t errlen);
int hp_live_flush(struct hp_live *l, char *err, size_t errlen);
/* Next captured frame before @deadline_ns (hp_now_ns clock): 1, 0 timeout, -1. */
int hp_live_recv(struct hp_live *l, struct hp_frame *f, uint64_t deadline_ns);
void hp_live_close(struct hp_live *l);

#endif /* HP_PCAP_H */
