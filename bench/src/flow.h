/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flow.h - one stream of echo RPCs of one size with a fixed number
 * outstanding, over Homa or TCP, and what it measured.
 *
 * A flow issues RPCs from .start until .measure_to, then waits for the
 * ones still outstanding. Latencies of RPCs that complete within
 * [measure_from, measure_to) are kept; the others only count.
 */
#ifndef BENCH_FLOW_H
#define BENCH_FLOW_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "homa_addr.h"
#include "samples.h"

enum proto { PROTO_HOMA, PROTO_TCP };

#define FLOW_NAME_MAX 16

struct flow_spec {
	char name[FLOW_NAME_MAX];	/* class, e.g. "short" */
	size_t size;			/* request = response bytes */
	unsigned int outstanding;	/* RPCs in flight at once */
};

struct flow_result {
	struct samples lat;	/* ns, completions within the window */
	uint64_t sent;		/* requests sent */
	uint64_t answered;	/* responses received */
	uint64_t bad_payload;	/* responses with wrong length or bytes */
	uint64_t rpc_errors;	/* RPCs that ended with an error */
	uint64_t stray;		/* responses that match no request */
	char error[160];	/* first error, "" if none */
};

struct flow {
	struct flow_spec spec;
	enum proto proto;
	union homa_addr server;
	uint64_t seed_base;		/* seeds of this flow's messages */
	uint64_t start;			/* CLOCK_MONOTONIC ns */
	uint64_t measure_from;
	uint64_t measure_to;
	struct flow_result res;
	atomic_uint_fast64_t progress;	/* bumped on every response */
	atomic_int fd;			/* for the watchdog; -1 if none */
	atomic_int stalled;		/* the watchdog gave up on it */
	atomic_int done;
};

/* Records @msg as the flow's first error (printf-style). */
void flow_error(struct flow *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Keeps @lat_ns if @t_done lies in the measurement window. */
void flow_record(struct flow *f, uint64_t t_done, uint64_t lat_ns);

/* Requests neither answered nor failed. */
static inline uint64_t flow_unanswered(const struct flow *f)
{
	return f->res.sent - f->res.answered - f->res.rpc_errors;
}

/* Thread bodies: run flow @arg (a struct flow *) to the end. */
void *homa_flow_main(void *arg);
void *tcp_flow_main(void *arg);

#endif /* BENCH_FLOW_H */
