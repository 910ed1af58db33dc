// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz.c - the fuzz step: random and mutated Homa packets at a fixed seed,
 * bounded by count and time. The IP layer stays valid so every packet
 * reaches Homa. While fuzzing, NEED_ACKs from the guest are acknowledged,
 * as a real client would, so complete requests do not pile up.
 */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "homa_wire.h"
#include "linux/homa.h"
#include "hp_field.h"
#include "hp_parse.h"
#include "hp_spec.h"
#include "hp_util.h"
#include "send.h"

/* struct fuzz - state of one fuzz step. */
struct fuzz {
	uint64_t rng;
	unsigned int port;
	uint64_t sent, acked;
};

static uint64_t rnd(struct fuzz *z, uint64_t bound)
{
	return bound ? hp_rand(&z->rng) % bound : hp_rand(&z->rng);
}

/* A value that often sits on an edge: 0, 1, max, around the longest
 * message...
 */
static uint64_t edgy(struct fuzz *z, unsigned int size)
{
	static const uint64_t edges[] = { 0, 1, 2, 5, 6, 100, 1399, 1400,
		65535, HOMA_MAX_MESSAGE_LENGTH - 1, HOMA_MAX_MESSAGE_LENGTH,
		HOMA_MAX_MESSAGE_LENGTH + 1, 2 * HOMA_MAX_MESSAGE_LENGTH,
		0x7fffffff, 0xffffffff };
	uint64_t max = size >= 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;

	if (rnd(z, 3) == 0)
		return edges[rnd(z, sizeof(edges) / sizeof(edges[0]))] & max;
	return rnd(z, 0) & max;
}

/* Set a random Homa field of @f to a random value. */
static void mutate_field(struct fuzz *z, struct hp_frame *f)
{
	for (int tries = 0; tries < 20; tries++) {
		const struct hp_field_def *d =
			hp_field_at((size_t)rnd(z, hp_field_count()));
		const struct hp_field_def *e;

		if (d->layer != HP_L_HOMA)
			continue;
		e = hp_field_lookup(f, d->name, NULL);
		if (e != d)
			continue;
		hp_field_put(f, d, edgy(z, d->size));
		return;
	}
}

static const unsigned int ctl_types[] = { RESEND, RPC_UNKNOWN, BUSY, NEED_ACK,
					  ACK, GRANT, CUTOFFS, FREEZE };

/* One fuzz frame into @f. */
static void make_frame(struct run_ctx *c, struct fuzz *z, struct hp_frame *f)
{
	struct hp_addrs a = c->addrs;
	unsigned int mode = (unsigned int)rnd(z, 100), type;
	uint64_t id = rnd(z, 4) ? (rnd(z, 1000) + 1) * 2 : rnd(z, 0);
	uint8_t pay[2048];

	a.family = c->family;
	if (mode < 70) {
		/* A plausible DATA or control packet... */
		type = mode < 40 ? DATA : ctl_types[rnd(z, 8)];
		hp_frame_init(f, &a, type);
		hp_field_put(f, hp_field_lookup(f, "sport", NULL),
			     40000 + rnd(z, 1000));
		hp_field_put(f, hp_field_lookup(f, "dport", NULL),
			     rnd(z, 10) < 8 ? z->port : rnd(z, 65536));
		hp_field_put(f, hp_field_lookup(f, "id", NULL), id);
		if (type == DATA) {
			uint64_t mlen = rnd(z, 8) ? rnd(z, 3000) + 1 : edgy(z, 4);
			uint64_t off = rnd(z, 2) ? 0 : rnd(z, mlen + 1);
			size_t plen = (size_t)rnd(z, 1400);

			if (mlen < 3000 && off + plen > mlen)
				plen = (size_t)(mlen - off);
			hp_field_put(f, hp_field_lookup(f, "msglen", NULL), mlen);
			hp_field_put(f, hp_field_lookup(f, "offset", NULL), off);
			hp_field_put(f, hp_field_lookup(f, "seq", NULL), off);
			hp_msg_pattern(pay, plen, z->sent);
			hp_frame_append(f, pay, plen);
		} else if (type == RESEND) {
			hp_field_put(f, hp_field_lookup(f, "offset", NULL),
				     edgy(z, 4));
			hp_field_put(f, hp_field_lookup(f, "length", NULL),
				     edgy(z, 4));
		} else if (type == ACK) {
			hp_field_put(f, hp_field_lookup(f, "num_acks", NULL),
				     rnd(z, 8));
		}
		/* ...then zero to three mutations. */
		for (uint64_t k = rnd(z, 4); k > 0; k--) {
			if (rnd(z, 2))
				mutate_field(z, f);
			else if (hp_frame_l4_len(f))
				f->buf[f->l4 + rnd(z, hp_frame_l4_len(f) < 90 ?
					hp_frame_l4_len(f) : 90)] = (uint8_t)rnd(z, 256);
		}
		if (rnd(z, 5) == 0)
			hp_frame_truncate_l4(f, (size_t)rnd(z, hp_frame_l4_len(f) + 1));
	} else {
		/* Garbage after a common header of any type byte. */
		size_t len = (size_t)rnd(z, 120);

		hp_frame_init(f, &a, (unsigned int)rnd(z, 256));
		hp_field_put(f, hp_field_lookup(f, "dport", NULL),
			     rnd(z, 4) ? z->port : rnd(z, 65536));
		for (size_t i = 0; i < hp_frame_l4_len(f); i++)
			if (i != offsetof(struct homa_common_hdr, dport) &&
			    i != offsetof(struct homa_common_hdr, dport) + 1 &&
			    rnd(z, 2))
				f->buf[f->l4 + i] = (uint8_t)rnd(z, 256);
		hp_frame_truncate_l4(f, len < hp_frame_l4_len(f) ? len
				     : hp_frame_l4_len(f));
		for (size_t i = hp_frame_l4_len(f); i < len; i++)
			pay[i] = (uint8_t)rnd(z, 256);
		if (len > hp_frame_l4_len(f))
			hp_frame_append(f, pay + hp_frame_l4_len(f),
					len - hp_frame_l4_len(f));
	}
	hp_frame_finalize(f);
}

/* Acknowledge NEED_ACKs that arrive before @deadline; drop the rest. */
static void answer(struct run_ctx *c, struct fuzz *z, uint64_t deadline)
{
	struct hp_frame *g = malloc(sizeof(*g));

	while (g && hp_live_recv(&c->live, g, deadline) == 1)
		if (run_ack_need_ack(c, g) == 1)
			z->acked++;
	free(g);
}

static int key_num(const struct hp_kv *kv, size_t n, const char *key,
		   uint64_t def, uint64_t max, uint64_t *out, char *why,
		   size_t wn)
{
	*out = def;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(kv[i].key, key) || !kv[i].val)
			continue;
		if (hp_parse_u64(kv[i].val, max, out)) {
			snprintf(why, wn, "fuzz: bad %s=%s", key, kv[i].val);
			return -1;
		}
	}
	return 0;
}

int fuzz_run(struct run_ctx *c, const struct hp_kv *kv, size_t nkv,
	     char *why, size_t n)
{
	uint64_t count, seed, secs, pps, port, report, min;
	struct fuzz z = { 0 };
	struct hp_frame *f;
	struct hp_list one;
	uint64_t start = hp_now_ns(), end;

	if (key_num(kv, nkv, "count", 1000, 100000000, &count, why, n) ||
	    key_num(kv, nkv, "seed", 1, UINT64_MAX, &seed, why, n) ||
	    key_num(kv, nkv, "time", 60, 86400, &secs, why, n) ||
	    key_num(kv, nkv, "pps", 0, 10000000, &pps, why, n) ||
	    key_num(kv, nkv, "report", 0, UINT64_MAX, &report, why, n) ||
	    key_num(kv, nkv, "min", 0, UINT64_MAX, &min, why, n) ||
	    key_num(kv, nkv, "dport", c->family == 6 ? c->port6 : c->port4,
		    65535, &port, why, n))
		return -1;
	if (c->offline && count > 500)
		count = 500;	/* a sample is enough for a pcap */
	z.rng = seed * 0x9e3779b97f4a7c15ull + 7;
	z.port = (unsigned int)port;
	end = start + secs * 1000000000ull;
	f = malloc(sizeof(*f));
	hp_list_init(&one);
	if (!f)
		return -1;
	for (z.sent = 0; z.sent < count; z.sent++) {
		if (!c->offline && hp_now_ns() >= end)
			break;
		make_frame(c, &z, f);
		hp_list_push(&one, f);
		if (pps)
			hp_sleep_until_ns(start + z.sent * 1000000000ull / pps);
		if (run_send_list(c, &one, why, n)) {
			hp_list_free(&one);
			free(f);
			return -1;
		}
		hp_list_drop(&one, 0);
		if (!c->offline && z.sent % 64 == 63)
			answer(c, &z, hp_now_ns());
		if (report && z.sent % report == report - 1)
			printf("# fuzz: %llu packets\n",
			       (unsigned long long)z.sent + 1);
	}
	/*
	 * Keep acknowledging until the guest has been quiet for 300 ms (at
	 * most 5 s): complete fuzz requests leave server RPCs that ask for
	 * acks every tick.
	 */
	for (uint64_t stop = hp_now_ns() + 5000000000ull;
	     !c->offline && hp_now_ns() < stop;) {
		uint64_t before = z.acked;

		answer(c, &z, hp_now_ns() + 300000000ull);
		if (z.acked == before)
			break;
	}
	printf("# fuzz: seed %llu: sent %llu packets in %.1f s, acked %llu "
	       "NEED_ACKs\n", (unsigned long long)seed,
	       (unsigned long long)z.sent,
	       (double)(hp_now_ns() - start) / 1e9, (unsigned long long)z.acked);
	hp_list_free(&one);
	free(f);
	if (!c->offline && z.sent < min) {
		snprintf(why, n, "fuzz: only %llu packets within %llu s, want "
			 "at least %llu", (unsigned long long)z.sent,
			 (unsigned long long)secs, (unsigned long long)min);
		return -1;
	}
	return 0;
}
