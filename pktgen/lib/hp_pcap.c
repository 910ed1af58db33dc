// SPDX-License-Identifier: BSD-2-Clause
/* hp_pcap.c - pcap files, live capture (libpcap), injection (hp_txring). */
#include "hp_pcap.h"

#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "hp_parse.h"
#include "hp_util.h"

int hp_pcap_write_open(struct hp_pcap_writer *w, const char *path,
		       char *err, size_t errlen)
{
	w->dead = pcap_open_dead(DLT_EN10MB, HP_FRAME_MAX);
	w->dump = w->dead ? pcap_dump_open(w->dead, path) : NULL;
	if (!w->dump) {
		snprintf(err, errlen, "cannot write pcap '%s': %s", path,
			 w->dead ? pcap_geterr(w->dead) : "out of memory");
		if (w->dead)
			pcap_close(w->dead);
		w->dead = NULL;
		return -1;
	}
	return 0;
}

void hp_pcap_write(struct hp_pcap_writer *w, const struct hp_frame *f,
		   uint64_t ts_us)
{
	struct pcap_pkthdr h = {
		.ts = { .tv_sec = (time_t)(ts_us / 1000000),
			.tv_usec = (suseconds_t)(ts_us % 1000000) },
		.caplen = (bpf_u_int32)f->len,
		.len = (bpf_u_int32)f->len,
	};

	pcap_dump((u_char *)w->dump, &h, f->buf);
}

void hp_pcap_write_close(struct hp_pcap_writer *w)
{
	if (w->dump)
		pcap_dump_close(w->dump);
	if (w->dead)
		pcap_close(w->dead);
	w->dump = NULL;
	w->dead = NULL;
}

int hp_pcap_read_all(const char *path, struct hp_list *out,
		     char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct hp_frame *f;
	pcap_t *p = pcap_open_offline(path, ebuf);
	int r, ret = 0;

	if (!p) {
		snprintf(err, errlen, "cannot read pcap '%s': %s", path, ebuf);
		return -1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(err, errlen, "pcap '%s': link type %s, want EN10MB",
			 path, pcap_datalink_val_to_name(pcap_datalink(p)));
		pcap_close(p);
		return -1;
	}
	f = malloc(sizeof(*f));
	while (f && (r = pcap_next_ex(p, &h, &data)) == 1) {
		if (hp_frame_from_bytes(f, data, h->caplen) == HP_PARSE_TOOBIG ||
		    hp_list_push(out, f)) {
			snprintf(err, errlen, "pcap '%s': frame %zu too big",
				 path, out->n + 1);
			ret = -1;
			break;
		}
	}
	if (f && ret == 0 && r == PCAP_ERROR) {
		snprintf(err, errlen, "pcap '%s': %s", path, pcap_geterr(p));
		ret = -1;
	}
	if (!f) {
		snprintf(err, errlen, "out of memory");
		ret = -1;
	}
	free(f);
	pcap_close(p);
	return ret;
}

/* Open @l->p: a capture of what comes in on @iface and matches @filter. */
static int capture_open(struct hp_live *l, const char *iface,
			const char *filter, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct bpf_program prog;

	l->p = pcap_create(iface, ebuf);
	if (!l->p) {
		snprintf(err, errlen, "interface '%s': %s", iface, ebuf);
		return -1;
	}
	pcap_set_snaplen(l->p, HP_FRAME_MAX);
	pcap_set_promisc(l->p, 1);
	pcap_set_immediate_mode(l->p, 1);
	pcap_set_buffer_size(l->p, 8 << 20);
	if (pcap_activate(l->p) < 0) {
		snprintf(err, errlen, "interface '%s': %s", iface,
			 pcap_geterr(l->p));
		return -1;
	}
	if (pcap_datalink(l->p) != DLT_EN10MB) {
		snprintf(err, errlen, "interface '%s' is not Ethernet", iface);
		return -1;
	}
	/* Only what the other side sends: our own injections stay out. */
	if (pcap_setdirection(l->p, PCAP_D_IN)) {
		snprintf(err, errlen, "interface '%s': %s", iface,
			 pcap_geterr(l->p));
		return -1;
	}
	if (filter && *filter) {
		if (pcap_compile(l->p, &prog, filter, 1,
				 PCAP_NETMASK_UNKNOWN)) {
			snprintf(err, errlen, "bad filter '%s': %s", filter,
				 pcap_geterr(l->p));
			return -1;
		}
		if (pcap_setfilter(l->p, &prog)) {
			snprintf(err, errlen, "filter: %s", pcap_geterr(l->p));
			pcap_freecode(&prog);
			return -1;
		}
		pcap_freecode(&prog);
	}
	if (pcap_setnonblock(l->p, 1, ebuf)) {
		snprintf(err, errlen, "interface '%s': %s", iface, ebuf);
		return -1;
	}
	l->fd = pcap_get_selectable_fd(l->p);
	return 0;
}

int hp_live_open(struct hp_live *l, const char *iface, const char *filter,
		 unsigned int flags, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->fd = -1;
	l->tx.fd = -1;
	if (((flags & HP_LIVE_CAPTURE) &&
	     capture_open(l, iface, filter, err, errlen)) ||
	    hp_txring_open(&l->tx, iface, !!(flags & HP_LIVE_BYPASS), err,
			   errlen)) {
		hp_live_close(l);
		return -1;
	}
	return 0;
}

int hp_live_queue(struct hp_live *l, const struct hp_frame *f, uint64_t seq,
		  char *err, size_t errlen)
{
	return hp_txring_queue(&l->tx, f->buf, f->len, seq, err, errlen);
}

int hp_live_flush(struct hp_live *l, char *err, size_t errlen)
{
	return hp_txring_flush(&l->tx, err, errlen);
}

int hp_live_send(struct hp_live *l, const struct hp_frame *f,
		 char *err, size_t errlen)
{
	if (hp_live_queue(l, f, 1, err, errlen))
		return -1;
	return hp_live_flush(l, err, errlen);
}

int hp_live_recv(struct hp_live *l, struct hp_frame *f, uint64_t deadline_ns)
{
	struct pcap_pkthdr *h;
	const u_char *data;

	if (!l->p)
		return -1;
	for (;;) {
		int r = pcap_next_ex(l->p, &h, &data);
		uint64_t now;
		struct pollfd pfd = { .fd = l->fd, .events = POLLIN };

		if (r == 1) {
			if (hp_frame_from_bytes(f, data, h->caplen) ==
			    HP_PARSE_TOOBIG)
				continue;
			return 1;
		}
		if (r < 0)
			return -1;
		now = hp_now_ns();
		if (now >= deadline_ns)
			return 0;
		uint64_t ms = (deadline_ns - now + 999999) / 1000000;

		poll(&pfd, 1, ms > 100 ? 100 : (int)ms);
	}
}

void hp_live_close(struct hp_live *l)
{
	if (l->p)
		pcap_close(l->p);
	l->p = NULL;
	hp_txring_close(&l->tx);
}
