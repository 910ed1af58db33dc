// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_msg.c - segmentation, order specs, message operations, specs and
 * the pcap round trip.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "homa_wire.h"
#include "hp_field.h"
#include "hp_msg.h"
#include "hp_parse.h"
#include "hp_pcap.h"
#include "hp_spec.h"

/* Reassemble a message from DATA frames by their seg.offset. */
static int reassemble(const struct hp_list *l, uint8_t *out, size_t len)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct homa_data_hdr *d =
			(const void *)(l->v[i]->buf + l->v[i]->l4);
		const uint8_t *p;
		size_t n = hp_frame_payload(l->v[i], &p);
		uint32_t off = ntohl(d->seg.offset);

		if (ntohl(d->message_length) != len || off + n > len ||
		    ntohl(d->common.sequence) != off)
			return -1;
		memcpy(out + off, p, n);
	}
	return 0;
}

static void test_segments(struct check_state *st)
{
	static const uint32_t sizes[][2] = { { 3000, 1000 }, { 2500, 1000 },
		{ 10, 1 }, { 1, 1400 }, { 100000, 1400 }, { 1400, 1400 } };
	struct hp_addrs a;
	struct hp_frame tmpl;
	struct hp_list l;

	hp_addrs_default(&a);
	hp_frame_init(&tmpl, &a, DATA);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i][0], seg = sizes[i][1];
		uint8_t *msg = malloc(len), *back = calloc(1, len);
		int n;

		hp_msg_pattern(msg, len, i);
		hp_list_init(&l);
		n = hp_msg_segments(&l, &tmpl, msg, len, seg);
		CHECK(st, n == (int)((len + seg - 1) / seg) &&
		      reassemble(&l, back, len) == 0 && memcmp(msg, back, len) == 0,
		      "message %u in segments of %u: %d frames reassemble", len,
		      seg, n);
		hp_list_free(&l);
		free(msg);
		free(back);
	}
}

static void test_order(struct check_state *st)
{
	size_t idx[16];
	int n;

	n = hp_order_parse("2,0,1,1", 3, idx, 16);
	CHECK(st, n == 4 && idx[0] == 2 && idx[1] == 0 && idx[3] == 1,
	      "explicit order with a duplicate");
	n = hp_order_parse("reverse", 3, idx, 16);
	CHECK(st, n == 3 && idx[0] == 2 && idx[2] == 0, "reverse");
	n = hp_order_parse("drop:1", 3, idx, 16);
	CHECK(st, n == 2 && idx[0] == 0 && idx[1] == 2, "drop:1");
	n = hp_order_parse("dup:0", 2, idx, 16);
	CHECK(st, n == 3 && idx[0] == 0 && idx[1] == 0 && idx[2] == 1, "dup:0");
	n = hp_order_parse("shuffle:7", 5, idx, 16);
	{
		int seen = 0;

		for (int i = 0; i < n; i++)
			seen |= 1 << idx[i];
		CHECK(st, n == 5 && seen == 0x1f, "shuffle is a permutation");
	}
	CHECK(st, hp_order_parse("3", 3, idx, 16) < 0 &&
	      hp_order_parse("1,", 3, idx, 16) < 0 &&
	      hp_order_parse("", 3, idx, 16) < 0 &&
	      hp_order_parse("x", 3, idx, 16) < 0 &&
	      hp_order_parse("drop:3", 3, idx, 16) < 0,
	      "bad order specs refused");
}

static void test_ops(struct check_state *st)
{
	struct hp_addrs a;
	struct hp_list l;
	char err[256];
	uint64_t v;
	struct hp_kv kv[] = { { "msg-size", "3000" }, { "seg-size", "1000" },
			      { "order", "2,0,1,1" }, { "id", "100" },
			      { "family", "6" } };
	struct hp_kv bad[] = { { "type", "RESEND" }, { "msglen", "5" } };
	struct hp_kv over[] = { { "msg-size", "10" }, { "msglen", "1000001" },
				{ "offset", "20" } };

	hp_addrs_default(&a);
	hp_list_init(&l);
	CHECK(st, hp_spec_build(&a, kv, 5, &l, err, sizeof(err)) == 0 &&
	      l.n == 4 && l.v[0]->family == 6 &&
	      hp_field_get(l.v[0], "offset", &v) == 0 && v == 2000 &&
	      hp_field_get(l.v[3], "offset", &v) == 0 && v == 1000 &&
	      hp_field_get(l.v[3], "id", &v) == 0 && v == 100,
	      "spec: IPv6 request, reordered and duplicated segments");
	CHECK(st, hp_list_duplicate(&l, 0) == 0 && l.n == 5 &&
	      hp_list_drop(&l, 4) == 0 && l.n == 4 &&
	      hp_list_drop(&l, 4) < 0, "duplicate and drop");
	CHECK(st, hp_frame_mark_retransmit(l.v[1]) == 0 &&
	      hp_field_get(l.v[1], "retransmit", &v) == 0 && v == 1,
	      "mark retransmit");
	hp_list_free(&l);
	CHECK(st, hp_spec_build(&a, bad, 2, &l, err, sizeof(err)) < 0,
	      "spec: DATA field on RESEND refused: %s", err);
	hp_list_free(&l);
	CHECK(st, hp_spec_build(&a, over, 3, &l, err, sizeof(err)) == 0 &&
	      l.n == 1 && hp_field_get(l.v[0], "msglen", &v) == 0 &&
	      v == 1000001 && hp_field_get(l.v[0], "offset", &v) == 0 && v == 20,
	      "spec: user fields override segmentation (corruption)");
	hp_list_free(&l);
	{
		struct hp_kv poke[] = { { "type", "BUSY" }, { "poke", "13:0xab" } };
		struct hp_kv cut[] = { { "truncate-frame", "40" } };
		uint16_t iplen;

		CHECK(st, hp_spec_build(&a, poke, 2, &l, err, sizeof(err)) == 0 &&
		      l.v[0]->buf[l.v[0]->l4 + 13] == 0xab,
		      "poke writes one Homa header byte (flags)");
		hp_list_free(&l);
		CHECK(st, hp_spec_build(&a, cut, 1, &l, err, sizeof(err)) == 0 &&
		      l.v[0]->len == 40, "truncate-frame cuts the frame");
		memcpy(&iplen, l.v[0]->buf + l.v[0]->l3 + 2, 2);
		CHECK(st, ntohs(iplen) == 20 + 56 + 100,
		      "truncate-frame keeps the IP length of the whole packet");
		hp_list_free(&l);
	}
}

static void test_pcap(struct check_state *st)
{
	char path[] = "/tmp/hp_test_XXXXXX";
	int fd = mkstemp(path);
	struct hp_pcap_writer w;
	struct hp_addrs a;
	struct hp_list l, back;
	char err[256];
	struct hp_kv kv[] = { { "msg-size", "5000" } };
	int same = 1;

	close(fd);
	hp_addrs_default(&a);
	hp_list_init(&l);
	hp_list_init(&back);
	hp_spec_build(&a, kv, 1, &l, err, sizeof(err));
	CHECK(st, hp_pcap_write_open(&w, path, err, sizeof(err)) == 0,
	      "pcap opened for writing");
	for (size_t i = 0; i < l.n; i++)
		hp_pcap_write(&w, l.v[i], i);
	hp_pcap_write_close(&w);
	CHECK(st, hp_pcap_read_all(path, &back, err, sizeof(err)) == 0 &&
	      back.n == l.n, "pcap read back: %zu frames", back.n);
	for (size_t i = 0; i < l.n && i < back.n; i++)
		same &= back.v[i]->len == l.v[i]->len &&
			memcmp(back.v[i]->buf, l.v[i]->buf, l.v[i]->len) == 0 &&
			back.v[i]->l4 == l.v[i]->l4;
	CHECK(st, same, "pcap round trip keeps every byte");
	CHECK(st, hp_pcap_read_all("/nonexistent.pcap", &back, err,
				   sizeof(err)) < 0, "missing pcap: %s", err);
	unlink(path);
	hp_list_free(&l);
	hp_list_free(&back);
}

/* A list keeps each frame at its length and refuses to lengthen it. */
static void test_list_copies(struct check_state *st)
{
	struct hp_addrs a;
	struct hp_frame f;
	struct hp_list l;
	char err[256];
	size_t len;

	hp_addrs_default(&a);
	hp_frame_init(&f, &a, RESEND);
	len = f.len;
	hp_list_init(&l);
	CHECK(st, hp_list_push(&l, &f) == 0 && l.v[0]->cap == len &&
	      memcmp(l.v[0]->buf, f.buf, len) == 0,
	      "a pushed copy is stored at its length (%zu bytes)", len);
	CHECK(st, hp_frame_append(l.v[0], "x", 1) < 0 && l.v[0]->len == len,
	      "appending to a list's copy is refused");
	CHECK(st, hp_field_set(l.v[0], "dport", "99", err, sizeof(err)) == 0,
	      "a field within it can be edited");
	hp_frame_truncate_l4(&f, 10);
	CHECK(st, hp_list_push(&l, &f) == 0 &&
	      hp_field_set(l.v[1], "id", "7", err, sizeof(err)) < 0 &&
	      strstr(err, "past the frame") && l.v[1]->len == f.len,
	      "a field past a short copy's end is refused: %s", err);
	CHECK(st, hp_frame_append(&f, "x", 1) == 0 && f.len == f.l4 + 11,
	      "the full-size original still grows");
	hp_list_free(&l);
}

int main(void)
{
	struct check_state st = { 0 };

	printf("TAP version 13\n");
	test_segments(&st);
	test_order(&st);
	test_ops(&st);
	test_pcap(&st);
	test_list_copies(&st);
	printf("1..%d\n", st.n);
	return st.failed ? 1 : 0;
}
