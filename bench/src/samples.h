/* SPDX-License-Identifier: GPL-2.0 */
/* samples.h - latency samples (ns) and their percentiles. */
#ifndef BENCH_SAMPLES_H
#define BENCH_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

struct samples {
	uint64_t *v;
	size_t n;
	size_t cap;
	int oom;	/* an add failed for lack of memory */
};

void samples_init(struct samples *s);
void samples_free(struct samples *s);
void samples_add(struct samples *s, uint64_t ns);

/* Sorts the samples; call before samples_pct. */
void samples_sort(struct samples *s);

/* Nearest-rank percentile @p (0..100) of sorted samples; 0 if none. */
uint64_t samples_pct(const struct samples *s, double p);

/* Mean in ns; 0 if none. */
double samples_mean(const struct samples *s);

#endif /* BENCH_SAMPLES_H */
