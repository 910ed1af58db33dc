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

/* 1 if @f matches @a, 0 if not, -1 bad match value (@why set). */
int frame_match(const struct hp_frame *f, const struct args *a, char *why,
		size_t n);

/* Print the last unmatched frames as "# " lines. */
void dump_backlog(const struct run_ctx *c);

/* "key=value ..." of @a's match keys, for messages. */
void describe_want(const struct args *a, char *out, size_t n);

/*
 * struct deadline - the end of a wait: wall time, or a number of runs of
 * the guest's Homa timer thread (one per tick), so a window or limit
 * written in ticks lasts as long as the protocol's timers do on this
 * guest, however slow it is.
 * @ticks: timer runs to wait for (0: wall time only).
 * @tick0: timer runs counted when the wait began.
 * @end_ns: the end (wall time), or in tick mode a safety cap after which
 * the wait fails because the guest's timer stalled.
 */
struct deadline {
	uint64_t ticks, tick0, runs, start_ns, end_ns;
};

#define POLL_MS		50	/* between two reads of the guest's state */

/*
 * Start a deadline from @spec (a duration, see scen_parse_duration();
 * NULL: @def_ms). 0, or -1 with @why.
 */
int deadline_start(struct run_ctx *c, const char *spec, uint64_t def_ms,
		   struct deadline *d, char *why, size_t n);

/*
 * Has @d passed? In tick mode, @runs is the timer's run count read just
 * now. 1 passed, 0 not yet, -1 the tick-mode cap passed first (@why set).
 */
int deadline_check(struct deadline *d, uint64_t runs, char *why, size_t n);

/* "500 ms" or "20 ticks (1234 ms)", for messages. */
void deadline_describe(const struct deadline *d, char *out, size_t n);

/*
 * Read the guest's state in one agent call: its metrics into @m (if not
 * NULL) and the run count of its homa_timer thread into @runs (if not
 * NULL). 0, or -1 with @why.
 */
int guest_read(struct run_ctx *c, struct homa_metrics *m, uint64_t *runs,
	       char *why, size_t n);

/*
 * Set $RESEND_TICKS, $RESEND_INTERVAL, $TIMEOUT_TICKS and
 * $REQUEST_ACK_TICKS from the guest's net.homa sysctls. 0, or -1 with @why.
 */
int guest_tick_vars(struct run_ctx *c, char *why, size_t n);

#endif /* HP_STEPS_H */
