/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wait.h - the wait mode: returns once the server answers a 1-byte echo
 * over TCP and over Homa (the server starts in the background).
 */
#ifndef BENCH_WAIT_H
#define BENCH_WAIT_H

#include "opts.h"

/* 0 once both transports answered, 1 at the timeout. */
int wait_main(const struct wait_opts *o);

#endif /* BENCH_WAIT_H */
