// SPDX-License-Identifier: BSD-2-Clause
/*
 * match.c - frames from the guest: capture into a backlog, match them
 * against a step's FIELD=VALUE list (and ICMP errors against the packet
 * they quote), report what was left unmatched.
 */
#include "steps.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/homa.h"
#include "hp_field.h"
#include "hp_parse.h"

/* Most captured frames kept unmatched; the oldest go first. */
#define BACKLOG_MAX	4096

/* Value of @key in @a (NULL if absent); the last one wins. */
const char *arg(const struct args *a, const char *key)
{
	const char *v = NULL;

	for (size_t i = 0; i < a->n; i++)
		if (a->kv[i].val && strcmp(a->kv[i].key, key) == 0)
			v = a->kv[i].val;
	return v;
}

static int is_proto(const struct hp_frame *f, unsigned int proto)
{
	if (f->family == 4)
		return f->len > f->l3 + 9 && f->buf[f->l3 + 9] == proto;
	if (f->family == 6)
		return f->len > f->l3 + 6 && f->buf[f->l3 + 6] == proto;
	return 0;
}

/*
 * ICMP matches: the frame must be an ICMP "destination unreachable" of the
 * kind asked; @inner becomes a view of the packet it quotes, so field
 * matches apply to the Homa header we sent.
 */
static int icmp_view(const struct hp_frame *f, const char *kind,
		     struct hp_frame *inner)
{
	int v6 = f->family == 6;
	size_t icmp = f->l4;
	uint8_t type, code;

	if (!is_proto(f, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP) ||
	    f->len < icmp + 8)
		return 0;
	type = f->buf[icmp];
	code = f->buf[icmp + 1];
	if (strcmp(kind, "port-unreachable") == 0 &&
	    !(v6 ? type == 1 && code == 4 : type == 3 && code == 3))
		return 0;
	if (strcmp(kind, "unreachable") == 0 && type != (v6 ? 1 : 3))
		return 0;
	memcpy(inner, f, offsetof(struct hp_frame, buf) + f->len);
	inner->l3 = icmp + 8;
	inner->l4 = inner->l3 + (v6 ? 40 : (size_t)(f->buf[inner->l3] & 15) * 4);
	return 1;
}

/* 1 match, 0 no, -1 bad match value (@why set). */
int frame_match(const struct hp_frame *f, const struct args *a, char *why,
		size_t n)
{
	const char *icmp = arg(a, "icmp");
	const struct hp_frame *g = f;
	struct hp_frame *inner = NULL;
	int ret = 1;

	if (icmp) {
		inner = malloc(sizeof(*inner));
		if (!inner || !icmp_view(f, icmp, inner)) {
			free(inner);
			return 0;
		}
		g = inner;
	} else if (!is_proto(f, IPPROTO_HOMA)) {
		return 0;
	}
	for (size_t i = 0; i < a->n && ret == 1; i++) {
		const char *k = a->kv[i].key;

		if (!a->kv[i].val || !hp_field_known(k))
			continue;
		ret = hp_field_match(g, k, a->kv[i].val, why, n);
	}
	free(inner);
	return ret;
}

static void backlog_add(struct run_ctx *c, const struct hp_frame *f)
{
	if (c->backlog.n >= BACKLOG_MAX)
		hp_list_drop(&c->backlog, 0);
	hp_list_push(&c->backlog, f);
}

/* Capture until @deadline_ns without matching anything. */
void pump(struct run_ctx *c, uint64_t deadline_ns)
{
	struct hp_frame *f = malloc(sizeof(*f));

	while (f && hp_live_recv(&c->live, f, deadline_ns) == 1)
		backlog_add(c, f);
	free(f);
}

/*
 * Take the first frame matching @a, from the backlog or arriving before
 * @deadline_ns, into @got. 1 found, 0 timeout, -1 error.
 */
int take(struct run_ctx *c, const struct args *a, uint64_t deadline_ns,
		struct hp_frame *got, char *why, size_t n)
{
	char line[512];

	for (size_t i = 0; i < c->backlog.n; i++) {
		int r = frame_match(c->backlog.v[i], a, why, n);

		if (r < 0)
			return -1;
		if (r) {
			memcpy(got, c->backlog.v[i], sizeof(*got));
			hp_list_drop(&c->backlog, i);
			return 1;
		}
	}
	for (;;) {
		int r = hp_live_recv(&c->live, got, deadline_ns);

		if (r <= 0) {
			if (r < 0)
				snprintf(why, n, "capture failed");
			return r;
		}
		if (c->verbose) {
			hp_frame_describe(got, line, sizeof(line));
			printf("# < %s\n", line);
		}
		r = frame_match(got, a, why, n);
		if (r)
			return r;
		backlog_add(c, got);
	}
}

void dump_backlog(const struct run_ctx *c)
{
	char line[512];
	size_t from = c->backlog.n > 20 ? c->backlog.n - 20 : 0;

	printf("# %zu unmatched frames from the guest%s\n", c->backlog.n,
	       from ? " (last 20)" : "");
	for (size_t i = from; i < c->backlog.n; i++) {
		hp_frame_describe(c->backlog.v[i], line, sizeof(line));
		printf("#   %s\n", line);
	}
}

void describe_want(const struct args *a, char *out, size_t n)
{
	size_t pos = 0;

	out[0] = 0;
	for (size_t i = 0; i < a->n && pos < n; i++)
		if (a->kv[i].val && strcmp(a->kv[i].key, "within") &&
		    strcmp(a->kv[i].key, "count"))
			pos += (size_t)snprintf(out + pos, n - pos, "%s%s=%s",
						pos ? " " : "", a->kv[i].key,
						a->kv[i].val);
}

