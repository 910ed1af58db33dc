// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_frame.c - frames have the bytes homa_wire.h says: every type, both
 * families, IPv4 checksum checked by an independent sum, truncation.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <string.h>

#include "check.h"
#include "homa_wire.h"
#include "linux/homa.h"
#include "hp_field.h"
#include "hp_frame.h"
#include "hp_parse.h"
#include "hp_spec.h"

/* Independent check: the 16-bit one's complement sum of a valid header is 0xffff. */
static int ip4_csum_ok(const struct hp_frame *f)
{
	const struct iphdr *ip = (const void *)(f->buf + f->l3);
	unsigned long sum = 0;

	for (int i = 0; i < ip->ihl * 2; i++)
		sum += ntohs(((const uint16_t *)ip)[i]);
	while (sum > 0xffff)
		sum = (sum >> 16) + (sum & 0xffff);
	return sum == 0xffff;
}

static void test_types(struct check_state *st, int family)
{
	static const unsigned int types[] = { DATA, GRANT, RESEND, RPC_UNKNOWN,
		BUSY, CUTOFFS, FREEZE, NEED_ACK, ACK };
	struct hp_addrs a;
	struct hp_frame f;

	hp_addrs_default(&a);
	a.family = family;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const struct homa_common_hdr *h;

		hp_frame_init(&f, &a, types[i]);
		h = (const void *)(f.buf + f.l4);
		CHECK(st, hp_frame_l4_len(&f) == hp_type_hdr_len(types[i]) &&
		      h->type == types[i] &&
		      homa_doff_bytes(h->doff) ==
		      (types[i] == DATA ? 52 : hp_type_hdr_len(types[i]) < 60 ?
		       hp_type_hdr_len(types[i]) & ~3u : 60),
		      "IPv%d %s: %zu header bytes, type and doff right", family,
		      hp_type_name(types[i]), hp_frame_l4_len(&f));
		if (family == 4) {
			const struct iphdr *ip = (const void *)(f.buf + f.l3);

			CHECK(st, ip4_csum_ok(&f) && ip->protocol == IPPROTO_HOMA &&
			      ntohs(ip->tot_len) == f.len - f.l3,
			      "IPv4 %s: checksum, protocol, length",
			      hp_type_name(types[i]));
		} else {
			const struct ip6_hdr *ip6 = (const void *)(f.buf + f.l3);

			CHECK(st, ip6->ip6_nxt == IPPROTO_HOMA &&
			      ntohs(ip6->ip6_plen) == f.len - f.l4 &&
			      (ntohl(ip6->ip6_flow) >> 28) == 6,
			      "IPv6 %s: next header, payload length, version",
			      hp_type_name(types[i]));
		}
	}
}

static void test_fields(struct check_state *st)
{
	struct hp_addrs a;
	struct hp_frame f;
	char err[256];
	const struct homa_data_hdr *d;
	const struct homa_resend_hdr *r;
	const struct homa_ack_hdr *k;

	hp_addrs_default(&a);
	hp_frame_init(&f, &a, DATA);
	d = (const void *)(f.buf + f.l4);
	CHECK(st, hp_field_set(&f, "sport", "0x1234", err, sizeof(err)) == 0 &&
	      hp_field_set(&f, "dport", "99", err, sizeof(err)) == 0 &&
	      hp_field_set(&f, "id", "0x0102030405060708", err, sizeof(err)) == 0 &&
	      hp_field_set(&f, "msglen", "2000000", err, sizeof(err)) == 0 &&
	      hp_field_set(&f, "offset", "4294967295", err, sizeof(err)) == 0 &&
	      hp_field_set(&f, "retransmit", "1", err, sizeof(err)) == 0 &&
	      hp_field_set(&f, "ack.id", "6", err, sizeof(err)) == 0 &&
	      hp_field_set(&f, "ack.port", "7", err, sizeof(err)) == 0,
	      "DATA fields accept values incl. invalid ones");
	CHECK(st, ntohs(d->common.sport) == 0x1234 &&
	      ntohs(d->common.dport) == 99 &&
	      be64toh(d->common.sender_id) == 0x0102030405060708ull &&
	      ntohl(d->message_length) == 2000000 &&
	      ntohl(d->seg.offset) == 0xffffffffu && d->retransmit == 1 &&
	      be64toh(d->ack.client_id) == 6 && ntohs(d->ack.server_port) == 7,
	      "DATA fields land where struct homa_data_hdr has them");
	CHECK(st, hp_field_set(&f, "length", "1", err, sizeof(err)) < 0 &&
	      strstr(err, "packet type"),
	      "RESEND-only field refused on DATA: %s", err);
	CHECK(st, hp_field_set(&f, "sport", "65536", err, sizeof(err)) < 0,
	      "sport 65536 refused: %s", err);
	CHECK(st, hp_field_set(&f, "nosuch", "1", err, sizeof(err)) < 0,
	      "unknown field refused: %s", err);
	CHECK(st, hp_field_set(&f, "ip6.hlim", "1", err, sizeof(err)) < 0,
	      "IPv6 field refused on IPv4: %s", err);
	CHECK(st, hp_field_set(&f, "ip.ttl", "1", err, sizeof(err)) == 0 &&
	      ip4_csum_ok(&f) == 0, "a field change without finalize leaves "
	      "the old checksum (corruption possible)");
	hp_frame_finalize(&f);
	CHECK(st, ip4_csum_ok(&f), "finalize fixes the checksum");
	CHECK(st, hp_field_set(&f, "ip.csum", "0xdead", err, sizeof(err)) == 0,
	      "ip.csum settable");
	hp_frame_finalize(&f);
	CHECK(st, !ip4_csum_ok(&f) &&
	      ntohs(((struct iphdr *)(f.buf + f.l3))->check) == 0xdead,
	      "an explicit ip.csum survives finalize");

	hp_frame_init(&f, &a, RESEND);
	r = (const void *)(f.buf + f.l4);
	CHECK(st, hp_field_set(&f, "offset", "1000", err, sizeof(err)) == 0 &&
	      hp_field_set(&f, "length", "2000", err, sizeof(err)) == 0 &&
	      ntohl(r->offset) == 1000 && ntohl(r->length) == 2000,
	      "RESEND offset/length");
	hp_frame_init(&f, &a, ACK);
	k = (const void *)(f.buf + f.l4);
	CHECK(st, hp_field_set(&f, "num_acks", "6", err, sizeof(err)) == 0 &&
	      hp_field_set(&f, "acks[4].id", "88", err, sizeof(err)) == 0 &&
	      hp_field_set(&f, "acks[4].port", "77", err, sizeof(err)) == 0 &&
	      ntohs(k->num_acks) == 6 && be64toh(k->acks[4].client_id) == 88 &&
	      ntohs(k->acks[4].server_port) == 77, "ACK num_acks and acks[4]");
	CHECK(st, hp_field_match(&f, "num_acks", "5..9", err, sizeof(err)) == 1 &&
	      hp_field_match(&f, "num_acks", "1|2", err, sizeof(err)) == 0 &&
	      hp_field_match(&f, "type", "ACK", err, sizeof(err)) == 1 &&
	      hp_field_match(&f, "src", "198.18.0.100", err, sizeof(err)) == 1 &&
	      hp_field_match(&f, "offset", "*", err, sizeof(err)) == 0,
	      "matches: range, alternatives, type name, address, absent field");
}

static void test_truncate(struct check_state *st, int family)
{
	struct hp_addrs a;
	struct hp_frame f, g;
	int ok = 1;

	hp_addrs_default(&a);
	a.family = family;
	for (size_t n = 0; n <= sizeof(struct homa_data_hdr); n++) {
		hp_frame_init(&f, &a, DATA);
		hp_frame_truncate_l4(&f, n);
		hp_frame_finalize(&f);
		if (f.len != f.l4 + n)
			ok = 0;
		if (family == 4 &&
		    (!ip4_csum_ok(&f) ||
		     ntohs(((struct iphdr *)(f.buf + f.l3))->tot_len) != 20 + n))
			ok = 0;
		if (family == 6 &&
		    ntohs(((struct ip6_hdr *)(f.buf + f.l3))->ip6_plen) != n)
			ok = 0;
		if (hp_frame_from_bytes(&g, f.buf, f.len) != HP_PARSE_HOMA ||
		    g.l4 != f.l4 || (n > 11) != (hp_frame_type(&g) == DATA))
			ok = 0;
	}
	CHECK(st, ok, "IPv%d DATA truncated at every header byte 0..56: IP "
	      "length follows, parser agrees", family);
	hp_frame_init(&f, &a, DATA);
	CHECK(st, hp_frame_truncate_l4(&f, 57) < 0, "truncating past the end fails");
}

int main(void)
{
	struct check_state st = { 0 };

	printf("TAP version 13\n");
	test_types(&st, 4);
	test_types(&st, 6);
	test_fields(&st);
	test_truncate(&st, 4);
	test_truncate(&st, 6);
	printf("1..%d\n", st.n);
	return st.failed ? 1 : 0;
}
