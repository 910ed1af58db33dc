/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the TAP writer of lib/'s host tests: one "ok N - what" line per
 * check, the plan last (TAP allows it there), the exit status from it.
 */
#ifndef HOMA_LIB_TAP_H
#define HOMA_LIB_TAP_H

#include <stdarg.h>
#include <stdio.h>

/* struct tap - the checks made so far and how many failed. */
struct tap {
	int cases;
	int failed;
};

/* One case: @ok, described by the printf-style @fmt. Returns @ok. */
static inline int __attribute__((format(printf, 3, 4)))
tap_check(struct tap *t, int ok, const char *fmt, ...)
{
	va_list ap;

	t->cases++;
	if (!ok)
		t->failed++;
	printf("%sok %d - ", ok ? "" : "not ", t->cases);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return ok;
}

/* The plan; the exit status of the test (0: every case passed). */
static inline int tap_done(const struct tap *t)
{
	printf("1..%d\n", t->cases);
	return t->failed ? 1 : 0;
}

#endif /* HOMA_LIB_TAP_H */
