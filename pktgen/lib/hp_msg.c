// SPDX-License-Identifier: BSD-2-Clause
/* hp_msg.c - frame lists and message operations. */
#include "hp_msg.h"

#include <stdlib.h>
#include <string.h>

#include "homa_wire.h"
#include "hp_field.h"
#include "hp_util.h"

void hp_list_init(struct hp_list *l)
{
	memset(l, 0, sizeof(*l));
}

void hp_list_free(struct hp_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	hp_list_init(l);
}

static int reserve(struct hp_list *l, size_t n)
{
	struct hp_frame **v;
	size_t cap = l->cap ? l->cap : 8;

	if (n <= l->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	v = realloc(l->v, cap * sizeof(*v));
	if (!v)
		return -1;
	l->v = v;
	l->cap = cap;
	return 0;
}

/* A copy of @f stored at its length (cap = len: it may shrink, not grow). */
static struct hp_frame *copy_frame(const struct hp_frame *f)
{
	struct hp_frame *c = malloc(offsetof(struct hp_frame, buf) + f->len);

	if (c) {
		memcpy(c, f, offsetof(struct hp_frame, buf) + f->len);
		c->cap = f->len;
	}
	return c;
}

int hp_list_push(struct hp_list *l, const struct hp_frame *f)
{
	struct hp_frame *c;

	if (reserve(l, l->n + 1))
		return -1;
	c = copy_frame(f);
	if (!c)
		return -1;
	l->v[l->n++] = c;
	return 0;
}

static void put_named(struct hp_frame *f, const char *name, uint64_t v)
{
	const struct hp_field_def *d = hp_field_lookup(f, name, NULL);

	if (d)
		hp_field_put(f, d, v);
}

int hp_msg_segments(struct hp_list *l, const struct hp_frame *tmpl,
		    const uint8_t *msg, uint32_t msg_len, uint32_t seg_size)
{
	struct hp_frame *f;
	uint32_t off = 0;
	int added = 0;

	if (!seg_size || hp_frame_l4_len(tmpl) < sizeof(struct homa_data_hdr))
		return -1;
	f = malloc(sizeof(*f));
	if (!f)
		return -1;
	do {
		uint32_t n = msg_len - off < seg_size ? msg_len - off : seg_size;

		memcpy(f, tmpl, offsetof(struct hp_frame, buf) + tmpl->len);
		put_named(f, "msglen", msg_len);
		put_named(f, "offset", off);
		put_named(f, "seq", off);
		if (hp_frame_append(f, msg + off, n) || hp_list_push(l, f)) {
			free(f);
			return -1;
		}
		hp_frame_finalize(l->v[l->n - 1]);
		off += n;
		added++;
	} while (off < msg_len);
	free(f);
	return added;
}

void hp_msg_pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t st = seed * 0x9e3779b97f4a7c15ull + 1;

	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(hp_rand(&st) >> 56);
}

int hp_list_select(struct hp_list *l, const size_t *idx, size_t n)
{
	struct hp_frame **v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (idx[i] >= l->n || !(v[i] = copy_frame(l->v[idx[i]]))) {
			while (i--)
				free(v[i]);
			free(v);
			return -1;
		}
	}
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = v;
	l->n = n;
	l->cap = n ? n : 1;
	return 0;
}

int hp_order_parse(const char *spec, size_t count, size_t *idx, size_t max)
{
	uint64_t v;
	size_t n = 0;

	if (strcmp(spec, "all") == 0 || strcmp(spec, "reverse") == 0) {
		if (count > max)
			return -1;
		for (size_t i = 0; i < count; i++)
			idx[i] = spec[0] == 'r' ? count - 1 - i : i;
		return (int)count;
	}
	if (strncmp(spec, "shuffle:", 8) == 0) {
		uint64_t st;

		if (hp_parse_u64(spec + 8, UINT64_MAX, &st) || count > max)
			return -1;
		for (size_t i = 0; i < count; i++)
			idx[i] = i;
		for (size_t i = count; i > 1; i--) {
			size_t j = (size_t)(hp_rand(&st) % i), t = idx[i - 1];

			idx[i - 1] = idx[j];
			idx[j] = t;
		}
		return (int)count;
	}
	if (strncmp(spec, "drop:", 5) == 0 || strncmp(spec, "dup:", 4) == 0) {
		int drop = spec[1] == 'r';

		if (hp_parse_u64(spec + (drop ? 5 : 4), count ? count - 1 : 0, &v) ||
		    !count || count + 1 > max)
			return -1;
		for (size_t i = 0; i < count; i++) {
			if (i == v && drop)
				continue;
			idx[n++] = i;
			if (i == v)
				idx[n++] = i;
		}
		return (int)n;
	}
	/* Explicit comma-separated list. */
	const char *p = spec;

	while (*p) {
		char num[24];
		size_t len = strcspn(p, ",");

		if (len == 0 || len >= sizeof(num) || n >= max)
			return -1;
		memcpy(num, p, len);
		num[len] = 0;
		if (hp_parse_u64(num, count ? count - 1 : 0, &v) || !count)
			return -1;
		idx[n++] = (size_t)v;
		p += len;
		if (*p == ',' && *++p == 0)
			return -1;
	}
	return n ? (int)n : -1;
}

int hp_list_duplicate(struct hp_list *l, size_t i)
{
	struct hp_frame *c;

	if (i >= l->n || reserve(l, l->n + 1))
		return -1;
	c = copy_frame(l->v[i]);
	if (!c)
		return -1;
	memmove(&l->v[i + 2], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
	l->v[i + 1] = c;
	l->n++;
	return 0;
}

int hp_list_drop(struct hp_list *l, size_t i)
{
	if (i >= l->n)
		return -1;
	free(l->v[i]);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
	l->n--;
	return 0;
}

int hp_frame_mark_retransmit(struct hp_frame *f)
{
	const struct hp_field_def *d = hp_field_lookup(f, "retransmit", NULL);

	return d ? hp_field_put(f, d, 1) : -1;
}
