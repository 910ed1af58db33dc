/* SPDX-License-Identifier: BSD-2-Clause */
/* run.h - running scenarios against a lab guest (or into pcap files). */
#ifndef HP_RUN_H
#define HP_RUN_H

#include <stdint.h>

#include "agent.h"
#include "expand.h"
#include "hp_frame.h"
#include "hp_msg.h"
#include "hp_pcap.h"
#include "hp_spec.h"
#include "scen.h"

struct args;

#define HELD_MAX	8

/* struct run_ctx - everything a scenario run needs. */
struct run_ctx {
	struct hp_live live;		/* open in live mode */
	int offline;			/* 1: write sent frames to @pcap only */
	struct hp_pcap_writer pcap;	/* offline output */
	uint64_t pcap_ts_us;		/* next offline timestamp */
	const char *agent;		/* guest agent socket or NULL */
	struct hp_addrs addrs;		/* peer -> guest */
	unsigned int port4, port6;	/* guest server ports */
	unsigned int run_index;		/* makes ids and ports unique */
	int verbose;
	struct hp_list backlog;		/* captured, not yet matched */
	struct homa_metrics base;	/* baseline for metric deltas */
	int base_ok;
	struct vars vars;
	int family;
	int timer_pid;			/* the guest's homa_timer thread, 0: not known */
	/* expect-none steps with until=end: no such frame until the end. */
	struct args *held[HELD_MAX];
	int held_line[HELD_MAX];
	size_t nheld;
	/* sysctl steps: net.homa.<name> to set back to <old> at the end. */
	char sysctl_name[HELD_MAX][48];
	char sysctl_old[HELD_MAX][24];
	size_t nsysctl;
};

/* Result of scen_run(). There is no "skip": what cannot run fails. */
enum run_result { RUN_PASS = 0, RUN_FAIL = 1 };

/*
 * Run @s once for @family. On failure, @why holds one line;
 * diagnostics go to stdout as "# ..." lines.
 */
enum run_result scen_run(struct run_ctx *c, const struct scenario *s,
			 int family, char *why, size_t n);

/*
 * If @g is a NEED_ACK from the guest, answer it with an ACK as a client
 * would. 1 answered, 0 not a NEED_ACK, -1 send error.
 */
int run_ack_need_ack(struct run_ctx *c, const struct hp_frame *g);

/*
 * Between scenarios: for @ms ms acknowledge every NEED_ACK (captured or
 * arriving), so RPCs a scenario left behind stop talking; then forget
 * every captured frame. A captured or arriving frame that an expect-none
 * step with until=end forbids is not swallowed: returns -1 with @why
 * naming the step and the frame (after settling all the same); else 0.
 */
int run_settle(struct run_ctx *c, unsigned int ms, char *why, size_t n);

/* fuzz step: @kv already expanded. 0, or -1 with @why. */
int fuzz_run(struct run_ctx *c, const struct hp_kv *kv, size_t nkv,
	     char *why, size_t n);

#endif /* HP_RUN_H */
