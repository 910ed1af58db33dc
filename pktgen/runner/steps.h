/* SPDX-License-Identifier: BSD-2-Clause */
/* steps.h - what the step implementations of homa-scenario share. */
#ifndef HP_STEPS_H
#define HP_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"

#define TOK_MAX		64
#define TOK_LEN		512

/* struct args - the expanded tokens of one step, split into KEY=VALUE. */
struct args {
	size_t n;
	char tok[TOK_MAX][TOK_LEN];
	struct hp_kv kv[TOK_MAX];
};

/* Value of @key in @a (NULL if absent); the last one wins. */
const char *arg(const struct args *a, const char *key);

/* Capture until @deadline_ns into the backlog, matching nothing. */
void pump(struct run_ctx *c, uint64_t deadline_ns);

/*
 * Take the first frame matching @a, from the backlog or arriving before
 * @deadline_ns, into @got. 1 found, 0 timeout, -1 error (@why set).
 */
int take(struct run_ctx *c, const struct args *a, uint64_t deadline_ns,
	 struct hp_frame *got, char *why, size_t n);

/* Print the last unmatched frames as "# " lines. */
void dump_backlog(const struct run_ctx *c);

/* "key=value ..." of @a's match keys, for messages. */
void describe_want(const struct args *a, char *out, size_t n);

#endif /* HP_STEPS_H */
