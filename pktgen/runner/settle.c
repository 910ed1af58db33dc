// SPDX-License-Identifier: BSD-2-Clause
/*
 * settle.c - behave like a polite client towards RPCs a scenario left
 * behind: acknowledge their NEED_ACKs so they are freed and stop talking.
 * It does not swallow what a scenario forbade until its end (expect-none
 * ... until=end): such a frame, captured or arriving now, fails the run.
 */
#include "run.h"

#include <stdlib.h>

#include "homa_wire.h"
#include "hp_field.h"
#include "hp_parse.h"
#include "hp_util.h"
#include "held.h"

static void put(struct hp_frame *f, const char *name, uint64_t v)
{
	const struct hp_field_def *d = hp_field_lookup(f, name, NULL);

	if (d)
		hp_field_put(f, d, v);
}

int run_ack_need_ack(struct run_ctx *c, const struct hp_frame *g)
{
	struct hp_addrs a = c->addrs;
	struct hp_frame *ack;
	uint64_t id, sp, dp;
	char err[256];
	int r;

	if (hp_frame_type(g) != NEED_ACK || hp_field_get(g, "id", &id) ||
	    hp_field_get(g, "sport", &sp) || hp_field_get(g, "dport", &dp))
		return 0;
	ack = malloc(sizeof(*ack));
	if (!ack)
		return -1;
	/* Answer in the family the NEED_ACK came in. */
	a.family = g->family;
	hp_frame_init(ack, &a, ACK);
	put(ack, "sport", dp);
	put(ack, "dport", sp);
	put(ack, "id", id ^ 1);
	put(ack, "num_acks", 1);
	put(ack, "acks[0].id", id ^ 1);
	put(ack, "acks[0].port", sp);
	hp_frame_finalize(ack);
	r = hp_live_send(&c->live, ack, err, sizeof(err)) ? -1 : 1;
	free(ack);
	return r;
}

int run_settle(struct run_ctx *c, unsigned int ms, char *why, size_t n)
{
	uint64_t deadline = hp_now_ns() + (uint64_t)ms * 1000000ull;
	struct hp_frame *g = malloc(sizeof(*g));
	int bad = 0;

	for (size_t i = 0; i < c->backlog.n; i++) {
		if (!bad)
			bad = run_held_check(c, c->backlog.v[i], why, n);
		run_ack_need_ack(c, c->backlog.v[i]);
	}
	hp_list_free(&c->backlog);
	while (g && hp_live_recv(&c->live, g, deadline) == 1) {
		if (!bad)
			bad = run_held_check(c, g, why, n);
		run_ack_need_ack(c, g);
	}
	free(g);
	return bad ? -1 : 0;
}
