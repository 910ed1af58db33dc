// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * homa-mkcap - write small, deterministic Homa captures for the dissector's
 * tests: every packet type over IPv4 and IPv6, an RPC with loss, RESEND,
 * retransmission, duplicates and reordering, GSO DATA, TCP hijacking, an
 * old protocol number for Decode As, and each malformed case the dissector
 * must flag.  Packets are built from the structs of kernel/homa_wire.h, so
 * a change to the wire format changes these captures too.
 *
 * Usage: homa-mkcap OUTDIR
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "homa_wire.h"

#define MAX_FRAME 70000

static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x48, 0x00, 0x00 };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x48, 0x00, 0x01 };
static const uint8_t ip4_a[4] = { 198, 18, 0, 11 };
static const uint8_t ip4_b[4] = { 198, 18, 0, 12 };
static const uint8_t ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x11 };
static const uint8_t ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x12 };

#define CLIENT_PORT	0x8000
#define SERVER_PORT	99

struct cap {
	FILE *f;
	uint32_t usec;		/* timestamp of the next packet */
	int v6;			/* IP version of the next packets */
	uint8_t proto;		/* IP protocol of the next packets */
};

static void put32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }
static void put16(FILE *f, uint16_t v) { fwrite(&v, 2, 1, f); }

static int cap_open(struct cap *c, const char *dir, const char *name, int v6)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	c->f = fopen(path, "wb");
	if (!c->f) {
		fprintf(stderr, "homa-mkcap: %s: %s\n", path, strerror(errno));
		return -1;
	}
	c->usec = 0;
	c->v6 = v6;
	c->proto = 146;
	/* pcap file header (host byte order, microseconds, Ethernet) */
	put32(c->f, 0xa1b2c3d4);
	put16(c->f, 2);
	put16(c->f, 4);
	put32(c->f, 0);
	put32(c->f, 0);
	put32(c->f, 65535);
	put32(c->f, 1);
	return 0;
}

static uint16_t ip4_checksum(const uint8_t *h)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* An IPv4 header for @len bytes of payload, a->b when @a_to_b. */
static void ip4_header(uint8_t *h, int a_to_b, uint8_t proto, size_t len)
{
	uint16_t tot = (uint16_t)(20 + len), ck;

	memset(h, 0, 20);
	h[0] = 0x45;
	h[2] = (uint8_t)(tot >> 8);
	h[3] = (uint8_t)tot;
	h[6] = 0x40;	/* DF */
	h[8] = 64;
	h[9] = proto;
	memcpy(h + 12, a_to_b ? ip4_a : ip4_b, 4);
	memcpy(h + 16, a_to_b ? ip4_b : ip4_a, 4);
	ck = ip4_checksum(h);
	h[10] = (uint8_t)(ck >> 8);
	h[11] = (uint8_t)ck;
}

/*
 * Write one frame: Ethernet, IP, then @len bytes of @l4. @a_to_b chooses
 * the direction; @caplen_cut (if non-zero) truncates what is "captured".
 */
static void cap_frame(struct cap *c, int a_to_b, const void *l4, size_t len,
		      uint32_t gap_usec)
{
	static uint8_t frame[MAX_FRAME];
	size_t off = 0;

	memcpy(frame, a_to_b ? mac_b : mac_a, 6);
	memcpy(frame + 6, a_to_b ? mac_a : mac_b, 6);
	frame[12] = c->v6 ? 0x86 : 0x08;
	frame[13] = c->v6 ? 0xdd : 0x00;
	off = 14;
	if (!c->v6) {
		ip4_header(frame + off, a_to_b, c->proto, len);
		off += 20;
	} else {
		uint8_t *h = frame + off;

		memset(h, 0, 40);
		h[0] = 0x60;
		h[4] = (uint8_t)(len >> 8);
		h[5] = (uint8_t)len;
		h[6] = c->proto;
		h[7] = 64;
		memcpy(h + 8, a_to_b ? ip6_a : ip6_b, 16);
		memcpy(h + 24, a_to_b ? ip6_b : ip6_a, 16);
		off += 40;
	}
	memcpy(frame + off, l4, len);
	off += len;

	c->usec += gap_usec;
	put32(c->f, 1700000000 + c->usec / 1000000);
	put32(c->f, c->usec % 1000000);
	put32(c->f, (uint32_t)off);
	put32(c->f, (uint32_t)off);
	fwrite(frame, off, 1, c->f);
}

static void common(struct homa_common_hdr *h, uint16_t sport, uint16_t dport,
		   uint8_t type, uint64_t sender_id, size_t hdr_len)
{
	memset(h, 0, sizeof(*h));
	h->sport = htons(sport);
	h->dport = htons(dport);
	h->type = type;
	h->doff = homa_doff(hdr_len);
	h->sender_id = htobe64(sender_id);
}

/* Deterministic message bytes: byte i of message @seed. */
static uint8_t msg_byte(uint32_t seed, uint32_t i)
{
	return (uint8_t)('a' + (seed * 7 + i) % 26);
}

/*
 * One DATA packet carrying [off, off+len) of a message of @msg_len bytes.
 * From the client when @id is even (client->server is a->b).
 */
static void data_pkt(struct cap *c, uint64_t id, uint32_t msg_len, uint32_t off,
		     uint32_t len, int retransmit, uint64_t ack_id, uint32_t gap)
{
	static uint8_t buf[MAX_FRAME];
	struct homa_data_hdr *h = (struct homa_data_hdr *)buf;
	int from_client = (id & 1) == 0;
	uint32_t i;

	common(&h->common, from_client ? CLIENT_PORT : SERVER_PORT,
	       from_client ? SERVER_PORT : CLIENT_PORT, DATA, id,
	       HOMA_DATA_PREFIX_LEN);
	h->common.sequence = htonl(off);
	h->message_length = htonl(msg_len);
	h->ack.client_id = htobe64(ack_id);
	h->ack.server_port = htons(ack_id ? SERVER_PORT : 0);
	h->retransmit = (uint8_t)retransmit;
	h->seg.offset = htonl(off);
	for (i = 0; i < len; i++)
		buf[sizeof(*h) + i] = msg_byte((uint32_t)id, off + i);
	cap_frame(c, from_client, buf, sizeof(*h) + len, gap);
}

static void resend_pkt(struct cap *c, uint64_t id, uint32_t off, uint32_t len,
		       size_t size, uint32_t gap)
{
	struct homa_resend_hdr h;
	int from_client = (id & 1) == 0;

	common(&h.common, from_client ? CLIENT_PORT : SERVER_PORT,
	       from_client ? SERVER_PORT : CLIENT_PORT, RESEND, id, sizeof(h));
	h.offset = htonl(off);
	h.length = htonl(len);
	h.priority = 0;
	cap_frame(c, from_client, &h, size, gap);
}

static void ctl_pkt(struct cap *c, uint64_t id, uint8_t type, uint32_t gap)
{
	struct homa_common_hdr h;
	int from_client = (id & 1) == 0;

	common(&h, from_client ? CLIENT_PORT : SERVER_PORT,
	       from_client ? SERVER_PORT : CLIENT_PORT, type, id, sizeof(h));
	cap_frame(c, from_client, &h, sizeof(h), gap);
}

static void ack_pkt(struct cap *c, uint64_t id, uint16_t num_acks,
		    const uint64_t *acked, int nacked, size_t size, uint32_t gap)
{
	struct homa_ack_hdr h;
	int i;

	memset(&h, 0, sizeof(h));
	common(&h.common, CLIENT_PORT, SERVER_PORT, ACK, id, sizeof(h));
	h.num_acks = htons(num_acks);
	for (i = 0; i < nacked && i < HOMA_MAX_ACKS_PER_PKT; i++) {
		h.acks[i].client_id = htobe64(acked[i]);
		h.acks[i].server_port = htons(SERVER_PORT);
	}
	cap_frame(c, 1, &h, size, gap);
}

/* Every packet type once: a small RPC and every control packet. */
static void all_types(struct cap *c)
{
	struct homa_grant_hdr g;
	struct homa_cutoffs_hdr co;
	uint64_t acked[2] = { 2, 4 };
	int i;

	data_pkt(c, 2, 100, 0, 100, 0, 0, 1000);
	data_pkt(c, 3, 200, 0, 200, 0, 0, 850);

	common(&g.common, SERVER_PORT, CLIENT_PORT, GRANT, 3, sizeof(g));
	g.offset = htonl(20000);
	g.priority = 3;
	g.resend_all = 1;
	cap_frame(c, 0, &g, sizeof(g), 100);

	resend_pkt(c, 3, 1400, 1400, sizeof(struct homa_resend_hdr), 100);
	resend_pkt(c, 2, 0, 100, HOMA_RESEND_V4_LEN, 100);
	ctl_pkt(c, 2, RPC_UNKNOWN, 100);
	ctl_pkt(c, 3, BUSY, 100);

	common(&co.common, SERVER_PORT, CLIENT_PORT, CUTOFFS, 3, sizeof(co));
	for (i = 0; i < HOMA_MAX_PRIORITIES; i++)
		co.unsched_cutoffs[i] = htonl((uint32_t)(1000 * (i + 1)));
	co.cutoff_version = htons(7);
	cap_frame(c, 0, &co, sizeof(co), 100);

	ctl_pkt(c, 2, FREEZE, 100);
	ctl_pkt(c, 3, NEED_ACK, 100);
	ack_pkt(c, 2, 2, acked, 2, sizeof(struct homa_ack_hdr), 100);
}

/*
 * RPC 10: a 5000-byte request in 4 segments; segment 2 lost, segment 4
 * duplicated, RESEND, then the retransmission.  RPC 12: request with a
 * piggy-backed ack; response segments reordered.  RPC 14: no response.
 */
static void rpc_story(struct cap *c)
{
	data_pkt(c, 10, 5000, 0, 1400, 0, 0, 1000);
	/* [1400, 2800) lost */
	data_pkt(c, 10, 5000, 2800, 1400, 0, 0, 20);
	data_pkt(c, 10, 5000, 4200, 800, 0, 0, 20);
	data_pkt(c, 10, 5000, 4200, 800, 0, 0, 5);	/* duplicate */
	resend_pkt(c, 11, 1400, 1400, sizeof(struct homa_resend_hdr), 5000);
	data_pkt(c, 10, 5000, 1400, 1400, 1, 0, 30);	/* retransmission */
	data_pkt(c, 11, 3000, 0, 1400, 0, 0, 200);
	data_pkt(c, 11, 3000, 1400, 1400, 0, 0, 20);
	data_pkt(c, 11, 3000, 2800, 200, 0, 0, 20);
	data_pkt(c, 11, 3000, 1400, 1400, 1, 0, 20);	/* after completion */

	data_pkt(c, 12, 300, 0, 300, 0, 10, 1000);	/* acks RPC 10 */
	data_pkt(c, 13, 2900, 1400, 1400, 0, 0, 300);	/* out of order */
	data_pkt(c, 13, 2900, 0, 1400, 0, 0, 10);
	data_pkt(c, 13, 2900, 2800, 100, 0, 0, 10);
	ctl_pkt(c, 13, NEED_ACK, 3000);

	data_pkt(c, 14, 50, 0, 50, 0, 0, 1000);		/* never answered */
}

/*
 * A GSO DATA packet as captured on the sender: 52-byte prefix, then
 * [seg header][1400 bytes] x 3 and a last segment of 300 bytes.
 */
static void gso(struct cap *c)
{
	static uint8_t buf[MAX_FRAME];
	struct homa_data_hdr *h = (struct homa_data_hdr *)buf;
	const uint32_t msg_len = 4500, seg = 1400;
	uint32_t off, n, i;
	size_t pos = HOMA_DATA_PREFIX_LEN;

	common(&h->common, CLIENT_PORT, SERVER_PORT, DATA, 20, HOMA_DATA_PREFIX_LEN);
	h->message_length = htonl(msg_len);
	for (off = 0; off < msg_len; off += n) {
		struct homa_seg_hdr s = { .offset = htonl(off) };

		n = msg_len - off < seg ? msg_len - off : seg;
		memcpy(buf + pos, &s, sizeof(s));
		pos += sizeof(s);
		for (i = 0; i < n; i++)
			buf[pos + i] = msg_byte(20, off + i);
		pos += n;
	}
	cap_frame(c, 1, buf, pos, 1000);
	data_pkt(c, 21, 10, 0, 10, 0, 0, 500);
}

/* Each malformed or suspicious case once. */
static void malformed(struct cap *c)
{
	static uint8_t buf[MAX_FRAME];
	struct homa_data_hdr *d = (struct homa_data_hdr *)buf;
	struct homa_common_hdr *h = (struct homa_common_hdr *)buf;
	uint64_t acked[5] = { 2, 4, 6, 8, 10 };

	/* 1: common header cut short (20 of 28 bytes) */
	common(h, CLIENT_PORT, SERVER_PORT, DATA, 30, HOMA_DATA_PREFIX_LEN);
	cap_frame(c, 1, buf, 20, 1000);

	/* 2: DATA header cut short (40 of 56 bytes) */
	memset(buf, 0, sizeof(*d));
	common(&d->common, CLIENT_PORT, SERVER_PORT, DATA, 32, HOMA_DATA_PREFIX_LEN);
	d->message_length = htonl(100);
	cap_frame(c, 1, buf, 40, 100);

	/* 3: unknown type */
	common(h, CLIENT_PORT, SERVER_PORT, 0x42, 34, sizeof(*h));
	cap_frame(c, 1, buf, sizeof(*h), 100);

	/* 4: doff disagrees with the type (BUSY saying 56 bytes) */
	common(h, SERVER_PORT, CLIENT_PORT, BUSY, 35, sizeof(*h));
	h->doff = homa_doff(sizeof(struct homa_data_hdr));
	cap_frame(c, 0, buf, sizeof(*h), 100);

	/* 5: segment runs past message_length (offset 50 + 100 bytes of 100) */
	memset(buf, 0, sizeof(*d) + 100);
	common(&d->common, CLIENT_PORT, SERVER_PORT, DATA, 36, HOMA_DATA_PREFIX_LEN);
	d->message_length = htonl(100);
	d->seg.offset = htonl(50);
	cap_frame(c, 1, buf, sizeof(*d) + 100, 100);

	/* 6: message_length over HOMA_MAX_MESSAGE_LENGTH (2,000,000) */
	memset(buf, 0, sizeof(*d) + 10);
	common(&d->common, CLIENT_PORT, SERVER_PORT, DATA, 38, HOMA_DATA_PREFIX_LEN);
	d->message_length = htonl(2000000);
	cap_frame(c, 1, buf, sizeof(*d) + 10, 100);

	/* 7: num_acks over HOMA_MAX_ACKS_PER_PKT */
	ack_pkt(c, 40, 7, acked, 5, sizeof(struct homa_ack_hdr), 100);

	/* 8: num_acks over what a (short) packet holds: 3 acks, room for 1 */
	ack_pkt(c, 42, 3, acked, 3, offsetof(struct homa_ack_hdr, acks) + sizeof(struct homa_ack), 100);

	/* 9: non-zero reserved fields (flags, window, urgent, pad), checksum */
	memset(buf, 0, sizeof(*d) + 10);
	common(&d->common, CLIENT_PORT, SERVER_PORT, DATA, 44, HOMA_DATA_PREFIX_LEN);
	d->common.ack[2] = 0x01;
	d->common.flags = 0x12;
	d->common.window = htons(0xffff);
	d->common.checksum = htons(0xbeef);
	d->common.urgent = htons(0x0001);
	d->message_length = htonl(10);
	d->pad[1] = 0x5a;
	cap_frame(c, 1, buf, sizeof(*d) + 10, 100);

	/* 10: RESEND cut short (30 of 36 bytes) */
	resend_pkt(c, 47, 0, 100, 30, 100);

	/* 11: full-Homa style seg.offset 0xffffffff (use sequence) */
	memset(buf, 0, sizeof(*d) + 10);
	common(&d->common, CLIENT_PORT, SERVER_PORT, DATA, 48, HOMA_DATA_PREFIX_LEN);
	d->common.sequence = htonl(0);
	d->message_length = htonl(10);
	d->seg.offset = htonl(HOMA_SEG_OFFSET_USE_SEQ);
	cap_frame(c, 1, buf, sizeof(*d) + 10, 100);
}

/*
 * A request to a port with no socket and the ICMP port unreachable that
 * answers it, quoting the whole request: the quoted Homa header is decoded
 * but must not take part in RPC analysis.
 */
static void icmp_error(struct cap *c)
{
	static uint8_t buf[MAX_FRAME];
	struct homa_data_hdr *d;
	const size_t data_len = 100, homa_len = sizeof(*d) + data_len;
	uint32_t i;

	memset(buf, 0, sizeof(buf));
	/* ICMP header: type 3 (unreachable), code 3 (port), checksum, unused */
	buf[0] = 3;
	buf[1] = 3;
	ip4_header(buf + 8, 1, 146, homa_len);
	d = (struct homa_data_hdr *)(buf + 28);
	common(&d->common, CLIENT_PORT, 9999, DATA, 70, HOMA_DATA_PREFIX_LEN);
	d->message_length = htonl((uint32_t)data_len);
	for (i = 0; i < data_len; i++)
		buf[28 + sizeof(*d) + i] = msg_byte(70, i);

	c->proto = 146;
	cap_frame(c, 1, d, homa_len, 1000);
	c->proto = 1;
	cap_frame(c, 0, buf, 28 + homa_len, 200);
}

/* Homa in TCP headers: urgent pointer HOMA_TCP_URGENT, flags RST|SYN. */
static void hijack(struct cap *c)
{
	static uint8_t buf[MAX_FRAME];
	struct homa_data_hdr *d = (struct homa_data_hdr *)buf;
	uint32_t i;

	c->proto = 6;
	memset(buf, 0, sizeof(*d) + 64);
	common(&d->common, CLIENT_PORT, SERVER_PORT, DATA, 50, HOMA_DATA_PREFIX_LEN);
	d->common.flags = 0x06;
	d->common.urgent = htons(HOMA_TCP_URGENT);
	d->message_length = htonl(64);
	for (i = 0; i < 64; i++)
		buf[sizeof(*d) + i] = msg_byte(50, i);
	cap_frame(c, 1, buf, sizeof(*d) + 64, 1000);

	/* An ordinary TCP SYN must stay TCP. */
	memset(buf, 0, 20);
	buf[0] = 0x9c; buf[1] = 0x40;	/* 40000 */
	buf[2] = 0x00; buf[3] = 0x50;	/* 80 */
	buf[7] = 1;
	buf[12] = 0x50;
	buf[13] = 0x02;
	buf[14] = 0xff; buf[15] = 0xff;
	cap_frame(c, 1, buf, 20, 100);
}

/*
 * A capture of at least @npkts packets for timing the dissector: RPCs with
 * distinct ids, each a 100-byte request, a 10,000-byte response in 8
 * packets, NEED_ACK and ACK (11 packets), alternating IPv4 and IPv6.
 */
static int bench(const char *dir, const char *name, long npkts)
{
	struct cap c;
	uint64_t id = 2;
	long n = 0;
	uint32_t off;

	if (cap_open(&c, dir, name, 0))
		return 1;
	while (n < npkts) {
		c.v6 = (id / 2) % 2;
		data_pkt(&c, id, 100, 0, 100, 0, id > 2 ? id - 2 : 0, 50);
		for (off = 0; off < 10000; off += 1400)
			data_pkt(&c, id + 1, 10000, off, 10000 - off < 1400 ? 10000 - off : 1400,
				 0, 0, 10);
		ctl_pkt(&c, id + 1, NEED_ACK, 100);
		ack_pkt(&c, id, 0, NULL, 0, sizeof(struct homa_ack_hdr), 10);
		n += 11;
		id += 2;
	}
	fclose(c.f);
	return 0;
}

int main(int argc, char **argv)
{
	struct cap c;

	if (argc == 4 && strcmp(argv[1], "--bench") == 0)
		return bench(".", argv[3], atol(argv[2]));
	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n       %s --bench NPACKETS FILE\n",
			argv[0], argv[0]);
		return 2;
	}
	if (cap_open(&c, argv[1], "types-ipv4.pcap", 0))
		return 1;
	all_types(&c);
	fclose(c.f);

	if (cap_open(&c, argv[1], "types-ipv6.pcap", 1))
		return 1;
	all_types(&c);
	fclose(c.f);

	if (cap_open(&c, argv[1], "rpc-analysis.pcap", 0))
		return 1;
	rpc_story(&c);
	fclose(c.f);

	if (cap_open(&c, argv[1], "rpc-analysis-ipv6.pcap", 1))
		return 1;
	rpc_story(&c);
	fclose(c.f);

	if (cap_open(&c, argv[1], "gso.pcap", 0))
		return 1;
	gso(&c);
	fclose(c.f);

	if (cap_open(&c, argv[1], "malformed.pcap", 0))
		return 1;
	malformed(&c);
	fclose(c.f);

	if (cap_open(&c, argv[1], "tcp-hijack.pcap", 0))
		return 1;
	hijack(&c);
	fclose(c.f);

	if (cap_open(&c, argv[1], "icmp-error.pcap", 0))
		return 1;
	icmp_error(&c);
	fclose(c.f);

	/* Older Homa used IP protocol 0xFD: decoded with Decode As. */
	if (cap_open(&c, argv[1], "proto-0xfd.pcap", 1))
		return 1;
	c.proto = 0xfd;
	data_pkt(&c, 60, 10, 0, 10, 0, 0, 1000);
	data_pkt(&c, 61, 10, 0, 10, 0, 0, 100);
	fclose(c.f);
	return 0;
}
