// SPDX-License-Identifier: GPL-2.0
/* client.c - see client.h. */
#include "client.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "report.h"

#define WATCH_PERIOD_US 200000

struct client {
	const struct client_opts *o;
	struct flow flows[BENCH_MAX_FLOWS];
	pthread_t threads[BENCH_MAX_FLOWS];
	unsigned int started;
};

static void flows_init(struct client *c, const union homa_addr *server)
{
	const struct client_opts *o = c->o;
	uint64_t start = now_ns() + 1000000;	/* every flow starts together */
	unsigned int i;

	for (i = 0; i < o->nflows; i++) {
		struct flow *f = &c->flows[i];

		memset(f, 0, sizeof(*f));
		f->spec = o->flows[i];
		f->proto = o->proto;
		f->server = *server;
		f->seed_base = ((uint64_t)o->run << 40) | ((uint64_t)i << 36);
		f->start = start;
		f->measure_from = start + (uint64_t)(o->warmup_s * 1e9);
		f->measure_to = f->measure_from + (uint64_t)(o->duration_s * 1e9);
		samples_init(&f->res.lat);
		atomic_init(&f->progress, 0);
		atomic_init(&f->fd, -1);
		atomic_init(&f->stalled, 0);
		atomic_init(&f->done, 0);
	}
}

/* Ends flows that got no response for stall_s; returns when all are done. */
static void watch(struct client *c)
{
	uint64_t last[BENCH_MAX_FLOWS], since[BENCH_MAX_FLOWS];
	uint64_t limit = (uint64_t)(c->o->stall_s * 1e9), now;
	unsigned int i, running;
	int fd;

	for (i = 0; i < c->started; i++) {
		last[i] = 0;
		since[i] = now_ns();
	}
	do {
		usleep(WATCH_PERIOD_US);
		now = now_ns();
		running = 0;
		for (i = 0; i < c->started; i++) {
			struct flow *f = &c->flows[i];
			uint64_t p = atomic_load(&f->progress);

			if (atomic_load(&f->done))
				continue;
			running++;
			if (p != last[i]) {
				last[i] = p;
				since[i] = now;
				continue;
			}
			if (now - since[i] < limit || atomic_load(&f->stalled))
				continue;
			atomic_store(&f->stalled, 1);
			flow_error(f, "no response for %.0f s: flow ended",
				   c->o->stall_s);
			fd = atomic_load(&f->fd);
			if (fd >= 0)
				shutdown(fd, SHUT_RDWR);
		}
	} while (running > 0);
}

int client_main(const struct client_opts *o)
{
	struct client c;
	struct run_info ri = {
		.workload = o->workload, .run = o->run,
		.duration_s = o->duration_s, .warmup_s = o->warmup_s,
	};
	union homa_addr server;
	unsigned int i;
	int err;

	if (homa_addr_parse(&server, o->server, o->port)) {
		fprintf(stderr, "homa_bench: bad server address '%s'\n", o->server);
		return 1;
	}
	c.o = o;
	c.started = 0;
	flows_init(&c, &server);
	for (i = 0; i < o->nflows; i++) {
		err = pthread_create(&c.threads[i], NULL,
				     o->proto == PROTO_HOMA ? homa_flow_main : tcp_flow_main,
				     &c.flows[i]);
		if (err) {
			flow_error(&c.flows[i], "pthread_create: %s", strerror(err));
			break;
		}
		c.started++;
	}
	watch(&c);
	for (i = 0; i < c.started; i++)
		pthread_join(c.threads[i], NULL);
	for (i = 0; i < o->nflows; i++) {
		report_flow(stdout, &ri, &c.flows[i]);
		samples_free(&c.flows[i].res.lat);
	}
	return c.started == o->nflows ? 0 : 1;
}
