/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchdog.h - ends a test program that hangs, with a "not ok" line.
 *
 * A Homa call that should return but blocks forever would otherwise hang
 * the guest until the lab's run timeout. The watchdog thread reports the
 * case that was running as failed and exits the process.
 */
#ifndef HOMA_SELFTEST_WATCHDOG_H
#define HOMA_SELFTEST_WATCHDOG_H

#include <pthread.h>
#include <stdbool.h>

#include "ktap.h"

struct watchdog {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ktap *ktap;
	bool armed;
	bool stop;
	long long deadline_ms;	/* CLOCK_MONOTONIC */
	char what[96];		/* the case that is running */
};

/* Starts the watchdog thread (disarmed). Returns 0 or -errno. */
int watchdog_start(struct watchdog *w, struct ktap *k);

/* The case @what must finish within @seconds. */
void watchdog_arm(struct watchdog *w, int seconds, const char *what);

void watchdog_disarm(struct watchdog *w);

/* Stops and joins the thread. */
void watchdog_stop(struct watchdog *w);

#endif /* HOMA_SELFTEST_WATCHDOG_H */
