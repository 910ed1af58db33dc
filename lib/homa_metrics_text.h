/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * homa_metrics_text.h - the one parser of /proc/net/homa_metrics text:
 * lines "name value" (other lines are ignored), as a snapshot that can
 * be looked up and summed. The text may come from the file itself (a guest
 * program) or from anywhere else (the scenario runner gets it from the
 * guest agent); any "name value" text parses the same way.
 */
#ifndef HOMA_USER_METRICS_TEXT_H
#define HOMA_USER_METRICS_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HOMA_METRICS_MAX	256	/* names kept; later lines dropped */
#define HOMA_METRIC_NAME_MAX	48	/* longer names are ignored */

/* A snapshot of "name value" lines, in their order. */
struct homa_metrics {
	size_t n;
	char name[HOMA_METRICS_MAX][HOMA_METRIC_NAME_MAX];
	int64_t val[HOMA_METRICS_MAX];
};

/* Parses @text (NUL-terminated) into @m. */
void homa_metrics_parse(const char *text, struct homa_metrics *m);

/* Parses the lines read from @f into @m. 0, or -1 on a read error. */
int homa_metrics_parse_file(FILE *f, struct homa_metrics *m);

/* Value of @name: 0, or -1 if absent. */
int homa_metrics_get(const struct homa_metrics *m, const char *name,
		     int64_t *v);

/*
 * Sum of the metrics @expr names: "a+b+prefix_*" (a trailing * matches
 * every name with that prefix). 0, or -1 if a term matches nothing.
 */
int homa_metrics_sum(const struct homa_metrics *m, const char *expr,
		     int64_t *v);

#endif /* HOMA_USER_METRICS_TEXT_H */
