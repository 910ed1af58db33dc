// SPDX-License-Identifier: GPL-2.0
/* samples.c - see samples.h. */
#include "samples.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void samples_init(struct samples *s)
{
	memset(s, 0, sizeof(*s));
}

void samples_free(struct samples *s)
{
	free(s->v);
	samples_init(s);
}

void samples_add(struct samples *s, uint64_t ns)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		uint64_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			s->oom = 1;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void samples_sort(struct samples *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
}

uint64_t samples_pct(const struct samples *s, double p)
{
	double rank;
	size_t i;

	if (s->n == 0)
		return 0;
	rank = ceil(p / 100.0 * (double)s->n);
	i = rank < 1 ? 0 : (size_t)rank - 1;
	return s->v[i < s->n ? i : s->n - 1];
}

double samples_mean(const struct samples *s)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		sum += (double)s->v[i];
	return s->n ? sum / (double)s->n : 0;
}
