/* SPDX-License-Identifier: GPL-2.0 */
/* opts.h - command lines of the three modes of homa_bench. */
#ifndef BENCH_OPTS_H
#define BENCH_OPTS_H

#include <stdint.h>
#include <stdio.h>

#include "flow.h"

#define BENCH_DEFAULT_PORT 4000
#define BENCH_MAX_FLOWS 4
#define BENCH_MAX_SIZE 1000000	/* HOMA_MAX_MESSAGE_LENGTH */

struct client_opts {
	const char *server;
	uint16_t port;
	enum proto proto;
	const char *workload;
	unsigned int run;
	double duration_s;
	double warmup_s;
	double stall_s;		/* give a flow up after this long without a response */
	struct flow_spec flows[BENCH_MAX_FLOWS];
	unsigned int nflows;
};

struct server_opts {
	uint16_t port;
	int family;
	unsigned int homa_threads;
};

struct wait_opts {
	const char *server;
	uint16_t port;
	double timeout_s;
};

/* Each parses argv after the mode word; 0, or -1 after a message. */
int opts_client(int argc, char **argv, struct client_opts *o);
int opts_server(int argc, char **argv, struct server_opts *o);
int opts_wait(int argc, char **argv, struct wait_opts *o);

void opts_usage(FILE *out);

#endif /* BENCH_OPTS_H */
