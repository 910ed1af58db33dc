/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent.h - run a command in a lab guest through its agent socket
 * (protocol in vm/README.md and vm/homalab/guest.py: one line
 * "HOMALAB-CMD <base64 command>", answered by the output and a line
 * "\001HOMALAB-EXIT <status>"), and read /proc/net/homa_metrics with it.
 */
#ifndef HP_AGENT_H
#define HP_AGENT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Run @cmd with sh -c in the guest behind the unix socket @sock.
 * On success *out (malloc'd, NUL-terminated) holds its combined output and
 * *status its exit status; returns 0. -1 with @err on failure or timeout.
 */
int agent_run(const char *sock, const char *cmd, unsigned int timeout_ms,
	      char **out, int *status, char *err, size_t errlen);

#define METRICS_MAX	256

/* struct metrics - a snapshot of "name value" lines. */
struct metrics {
	size_t n;
	char name[METRICS_MAX][48];
	int64_t val[METRICS_MAX];
};

/* Parse "name value" lines; lines of another shape are ignored. */
void metrics_parse(const char *text, struct metrics *m);

/* Value of @name: 0, or -1 if absent. */
int metrics_get(const struct metrics *m, const char *name, int64_t *v);

/*
 * Sum of the metrics @expr names: "a+b+prefix_*" (a trailing * matches
 * every name with that prefix). 0, or -1 if a term matches nothing.
 */
int metrics_sum(const struct metrics *m, const char *expr, int64_t *v);

/* Read the guest's /proc/net/homa_metrics. 0, or -1 with @err. */
int metrics_read(const char *sock, struct metrics *m, char *err,
		 size_t errlen);

#endif /* HP_AGENT_H */
