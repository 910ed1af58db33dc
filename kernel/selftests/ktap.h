/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap.h - a tiny KTAP (version 1) writer for the Homa guest tests.
 *
 * One line per case: "ok N name", "not ok N name", or
 * "ok N name # SKIP reason". Diagnostics are "# text" lines.
 * The writer is safe to use from several threads.
 */
#ifndef HOMA_SELFTEST_KTAP_H
#define HOMA_SELFTEST_KTAP_H

#include <pthread.h>
#include <stdbool.h>

struct ktap {
	pthread_mutex_t lock;
	int planned;	/* N of the "1..N" plan line */
	int next;	/* number of the next case */
	int passed;
	int failed;
	int skipped;
};

/* Prints the header and the plan line. */
void ktap_start(struct ktap *k, int planned);

/* Prints "# ..." (printf format). */
void ktap_diag(struct ktap *k, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Records one case: ok when @pass, else not ok. Returns @pass. */
bool ktap_result(struct ktap *k, bool pass, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Records one skipped case with its reason. */
void ktap_skip(struct ktap *k, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Prints the totals; cases planned but never reported count as failed.
 * Returns the process exit status: 0 when every planned case passed or
 * was skipped, 1 otherwise.
 */
int ktap_finish(struct ktap *k);

#endif /* HOMA_SELFTEST_KTAP_H */
