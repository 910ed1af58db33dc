// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_wrap.c - the spec keys that reshape frames: reply=1 (guest to
 * peer), gso=1 (segments in one frame), icmp=port-unreachable (the error
 * quoting a packet), checked byte by byte against the wire structs.
 */
#include <arpa/inet.h>
#include <netinet/ip.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "homa_wire.h"
#include "hp_field.h"
#include "hp_frame.h"
#include "hp_spec.h"

static int build(const struct hp_kv *kv, size_t n, struct hp_list *l,
		 char *err, size_t errlen)
{
	struct hp_addrs a;

	hp_addrs_default(&a);
	hp_list_init(l);
	return hp_spec_build(&a, kv, n, l, err, errlen);
}

static void test_reply(struct check_state *st)
{
	struct hp_kv kv[] = { { "reply", "1" }, { "type", "BUSY" },
			      { "family", "6" } };
	struct hp_addrs a;
	struct hp_list l;
	char err[256];

	hp_addrs_default(&a);
	CHECK(st, build(kv, 3, &l, err, sizeof(err)) == 0 && l.n == 1 &&
	      memcmp(l.v[0]->buf, a.smac, 6) == 0 &&
	      memcmp(l.v[0]->buf + 6, a.dmac, 6) == 0 &&
	      memcmp(l.v[0]->buf + l.v[0]->l3 + 8, a.dip6, 16) == 0 &&
	      memcmp(l.v[0]->buf + l.v[0]->l3 + 24, a.sip6, 16) == 0,
	      "reply=1: MACs and IPv6 addresses swapped");
	hp_list_free(&l);
	kv[0].val = "2";
	CHECK(st, build(kv, 1, &l, err, sizeof(err)) < 0,
	      "reply=2 refused: %s", err);
	hp_list_free(&l);
}

static void test_gso(struct check_state *st)
{
	struct hp_kv kv[] = { { "msg-size", "4500" }, { "gso", "1" },
			      { "id", "20" } };
	struct hp_kv ctl[] = { { "type", "ACK" }, { "gso", "1" } };
	const size_t hdr = sizeof(struct homa_data_hdr);
	const size_t seg = sizeof(struct homa_seg_hdr);
	struct hp_list l, plain;
	char err[256];
	uint32_t off;
	uint64_t v;
	int same = 1;

	build(kv, 1, &plain, err, sizeof(err));
	CHECK(st, build(kv, 3, &l, err, sizeof(err)) == 0 && l.n == 1 &&
	      hp_frame_l4_len(l.v[0]) == hdr + 4500 + 3 * seg &&
	      hp_field_get(l.v[0], "msglen", &v) == 0 && v == 4500,
	      "gso=1: 4 segments in one frame of one header + 3 seg headers");
	for (size_t i = 1; l.n == 1 && i < 4; i++) {
		const uint8_t *p = l.v[0]->buf + l.v[0]->l4 + hdr +
				   i * (1400 + seg) - seg;

		memcpy(&off, p, 4);
		same &= ntohl(off) == i * 1400 &&
			memcmp(p + seg, plain.v[i]->buf + plain.v[i]->l4 + hdr,
			       i == 3 ? 300 : 1400) == 0;
	}
	CHECK(st, same, "gso=1: each segment's offset and bytes follow");
	hp_list_free(&l);
	hp_list_free(&plain);
	CHECK(st, build(ctl, 2, &l, err, sizeof(err)) < 0,
	      "gso=1 on ACK refused: %s", err);
	hp_list_free(&l);
}

static void test_icmp(struct check_state *st)
{
	struct hp_kv kv[] = { { "dport", "9999" }, { "icmp", "port-unreachable" } };
	struct hp_kv bad[] = { { "icmp", "echo" } };
	struct hp_list l, req;
	char err[256];
	const uint8_t *ic;

	build(kv, 1, &req, err, sizeof(err));
	CHECK(st, build(kv, 2, &l, err, sizeof(err)) == 0 && l.n == 1 &&
	      l.v[0]->buf[l.v[0]->l3 + offsetof(struct iphdr, protocol)] == 1,
	      "icmp=port-unreachable: an ICMP packet");
	ic = l.v[0]->buf + l.v[0]->l4;
	CHECK(st, ic[0] == 3 && ic[1] == 3 &&
	      hp_inet_csum(ic, l.v[0]->len - l.v[0]->l4) == 0,
	      "type 3 code 3, ICMP checksum right");
	CHECK(st, l.v[0]->len - l.v[0]->l4 == 8 + req.v[0]->len - req.v[0]->l3 &&
	      memcmp(ic + 8, req.v[0]->buf + req.v[0]->l3,
		     req.v[0]->len - req.v[0]->l3) == 0 &&
	      memcmp(l.v[0]->buf + l.v[0]->l3 + 12,
		     req.v[0]->buf + req.v[0]->l3 + 16, 4) == 0,
	      "quotes the whole request, from its destination");
	hp_list_free(&l);
	hp_list_free(&req);
	CHECK(st, build(bad, 1, &l, err, sizeof(err)) < 0,
	      "icmp=echo refused: %s", err);
	hp_list_free(&l);
}

int main(void)
{
	struct check_state st = { 0 };

	printf("TAP version 13\n");
	test_reply(&st);
	test_gso(&st);
	test_icmp(&st);
	printf("1..%d\n", st.n);
	return st.failed ? 1 : 0;
}
