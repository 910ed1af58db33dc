/* SPDX-License-Identifier: BSD-2-Clause */
/* hp_pcap.h - pcap files (write, read) and live injection/capture. */
#ifndef HP_PCAP_H
#define HP_PCAP_H

#include <pcap/pcap.h>
#include <stddef.h>
#include <stdint.h>

#include "hp_frame.h"
#include "hp_msg.h"

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

/* struct hp_live - an interface open for injection and capture. */
struct hp_live {
	pcap_t *p;
	int fd;
};

/*
 * Open @iface; capture only frames coming in (from the guest on a tap)
 * that match BPF @filter (NULL: all). 0, or -1 with @err.
 */
int hp_live_open(struct hp_live *l, const char *iface, const char *filter,
		 char *err, size_t errlen);
/* Send one frame: 0, or -1 with @err. */
int hp_live_send(struct hp_live *l, const struct hp_frame *f,
		 char *err, size_t errlen);
/* Next captured frame before @deadline_ns (hp_now_ns clock): 1, 0 timeout, -1. */
int hp_live_recv(struct hp_live *l, struct hp_frame *f, uint64_t deadline_ns);
void hp_live_close(struct hp_live *l);

#endif /* HP_PCAP_H */
