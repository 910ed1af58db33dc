/* SPDX-License-Identifier: GPL-2.0 */
/* client.h - the client mode: run a workload's flows at once, report. */
#ifndef BENCH_CLIENT_H
#define BENCH_CLIENT_H

#include "opts.h"

/*
 * Runs every flow of @o in its own thread against the server, with a
 * watchdog that ends a flow that gets no response for o->stall_s, and
 * prints one JSON line per flow. Returns 0 once the lines are out
 * (errors are in them), 1 if the flows could not be started.
 */
int client_main(const struct client_opts *o);

#endif /* BENCH_CLIENT_H */
