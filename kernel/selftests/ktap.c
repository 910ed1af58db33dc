// SPDX-License-Identifier: GPL-2.0
/* ktap.c - a tiny KTAP (version 1) writer; see ktap.h. */
#define _GNU_SOURCE
#include "ktap.h"

#include <stdarg.h>
#include <stdio.h>

void ktap_start(struct ktap *k, int planned)
{
	pthread_mutex_init(&k->lock, NULL);
	k->planned = planned;
	k->next = 1;
	k->passed = 0;
	k->failed = 0;
	k->skipped = 0;
	/* Line-buffer stdout so that lines reach the console in order. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%d\n", planned);
	fflush(stdout);
}

void ktap_diag(struct ktap *k, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&k->lock);
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	pthread_mutex_unlock(&k->lock);
}

static void ktap_line(struct ktap *k, const char *status, const char *fmt,
		      va_list ap, const char *skip_reason)
{
	printf("%s %d ", status, k->next++);
	vprintf(fmt, ap);
	if (skip_reason)
		printf(" # SKIP %s", skip_reason);
	fputc('\n', stdout);
	fflush(stdout);
}

bool ktap_result(struct ktap *k, bool pass, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&k->lock);
	va_start(ap, fmt);
	ktap_line(k, pass ? "ok" : "not ok", fmt, ap, NULL);
	va_end(ap);
	if (pass)
		k->passed++;
	else
		k->failed++;
	pthread_mutex_unlock(&k->lock);
	return pass;
}

void ktap_skip(struct ktap *k, const char *reason, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&k->lock);
	va_start(ap, fmt);
	ktap_line(k, "ok", fmt, ap, reason);
	va_end(ap);
	k->skipped++;
	pthread_mutex_unlock(&k->lock);
}

int ktap_finish(struct ktap *k)
{
	int missing;

	pthread_mutex_lock(&k->lock);
	missing = k->planned - (k->next - 1);
	if (missing != 0)
		printf("# plan was %d cases, %d reported\n", k->planned,
		       k->next - 1);
	printf("# totals: pass:%d fail:%d skip:%d\n", k->passed, k->failed,
	       k->skipped);
	fflush(stdout);
	pthread_mutex_unlock(&k->lock);
	return (k->failed == 0 && missing == 0) ? 0 : 1;
}
