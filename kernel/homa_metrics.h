/* SPDX-License-Identifier: BSD-2-Clause */

/* Counters exported in /proc/net/homa_metrics, one set per network
 * namespace: each counts the packets, RPCs and peers of its namespace;
 * those marked MOD in homa_metrics_list.h are module-wide (the one timer
 * thread, the receive memory all namespaces share) and read the same
 * everywhere.
 *
 * The file holds one "name value" pair per line, value in decimal: first
 * pkts_sent_<TYPE> and pkts_rcvd_<TYPE> (packets transmitted, and received
 * and accepted for processing, per type; <TYPE> is one of DATA GRANT
 * RESEND UNKNOWN BUSY CUTOFFS FREEZE NEED_ACK ACK), then the counters
 * listed, with what each counts, in homa_metrics_list.h, in its order.
 */

#ifndef _HOMA_METRICS_H
#define _HOMA_METRICS_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "homa_wire.h"

/**
 * struct homa_metrics - per-CPU counters: the per-type packet counts and
 * one u64 per entry of homa_metrics_list.h, named as there.
 */
struct homa_metrics {
	/** @pkts_sent: packets sent, indexed by type - DATA. */
	u64 pkts_sent[HOMA_NUM_TYPES];
	/** @pkts_rcvd: packets received, indexed by type - DATA. */
	u64 pkts_rcvd[HOMA_NUM_TYPES];
#define HOMA_METRIC(name, ...) u64 name
#include "homa_metrics_list.h"
#undef HOMA_METRIC
};

struct homa_net;

/*
 * Add to a counter of namespace @hnet (struct homa_net) from any context
 * (preemption-safe per-CPU add).
 */
#define HOMA_ADD(hnet, field, n) this_cpu_add((hnet)->metrics[0].field, (n))
#define HOMA_INC(hnet, field)	HOMA_ADD(hnet, field, 1)

/*
 * The module-wide counters (timer_runs and timer_ns, of the one timer
 * thread, pacer_stalls of the one pacer, and the gauges rcvmem_bytes and
 * tx_queued_bytes, of the memory all namespaces share)
 * are kept in the initial namespace's set; every namespace's file shows
 * them from there.
 */
#define HOMA_GLOBAL_ADD(field, n) HOMA_ADD(homa_net(&init_net), field, (n))

int homa_metrics_net_init(struct homa_net *hnet);
void homa_metrics_net_exit(struct homa_net *hnet);

#endif /* _HOMA_METRICS_H */
