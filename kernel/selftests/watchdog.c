// SPDX-License-Identifier: GPL-2.0
/* watchdog.c - see watchdog.h. */
#define _GNU_SOURCE
#include "watchdog.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void *watchdog_main(void *arg)
{
	struct watchdog *w = arg;
	struct timespec ts;

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		if (w->armed && now_ms() >= w->deadline_ms) {
			char what[sizeof(w->what)];

			memcpy(what, w->what, sizeof(what));
			pthread_mutex_unlock(&w->lock);
			ktap_diag(w->ktap, "watchdog: '%s' did not finish in time",
				  what);
			ktap_result(w->ktap, false, "%s", what);
			ktap_finish(w->ktap);
			_exit(1);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 100 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->cond, &w->lock, &ts);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int watchdog_start(struct watchdog *w, struct ktap *k)
{
	pthread_condattr_t attr;
	int err;

	memset(w, 0, sizeof(*w));
	w->ktap = k;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &attr);
	pthread_condattr_destroy(&attr);
	err = pthread_create(&w->thread, NULL, watchdog_main, w);
	return -err;
}

void watchdog_arm(struct watchdog *w, int seconds, const char *what)
{
	pthread_mutex_lock(&w->lock);
	w->armed = true;
	w->deadline_ms = now_ms() + seconds * 1000LL;
	snprintf(w->what, sizeof(w->what), "%s", what);
	pthread_mutex_unlock(&w->lock);
}

void watchdog_disarm(struct watchdog *w)
{
	pthread_mutex_lock(&w->lock);
	w->armed = false;
	pthread_mutex_unlock(&w->lock);
}

void watchdog_stop(struct watchdog *w)
{
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
}
