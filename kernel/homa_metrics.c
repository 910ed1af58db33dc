// SPDX-License-Identifier: BSD-2-Clause

/* /proc/net/homa_metrics of each network namespace (names in
 * homa_metrics.h).
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "homa_impl.h"

static const char * const homa_type_names[HOMA_NUM_TYPES] = {
	"DATA", "GRANT", "RESEND", "UNKNOWN", "BUSY", "CUTOFFS", "FREEZE",
	"NEED_ACK", "ACK",
};

#define HOMA_SUM_OF(set, field) ({					\
	s64 sum_ = 0;							\
	int cpu_;							\
	for_each_possible_cpu(cpu_)					\
		sum_ += per_cpu_ptr((set), cpu_)[0].field;		\
	sum_; })

static int homa_metrics_show(struct seq_file *m, void *v)
{
	struct homa_net *hnet = homa_net(seq_file_single_net(m));
	struct homa_metrics __percpu *global = homa_net(&init_net)->metrics;
	struct homa_metrics __percpu *set = hnet->metrics;
	int i;

#define HOMA_SUM(field) HOMA_SUM_OF(set, field)

	for (i = 0; i < HOMA_NUM_TYPES; i++)
		seq_printf(m, "pkts_sent_%s %lld\n", homa_type_names[i],
			   HOMA_SUM(pkts_sent[i]));
	for (i = 0; i < HOMA_NUM_TYPES; i++)
		seq_printf(m, "pkts_rcvd_%s %lld\n", homa_type_names[i],
			   HOMA_SUM(pkts_rcvd[i]));
#define HOMA_SHOW(field) seq_printf(m, #field " %lld\n", HOMA_SUM(field))
	HOMA_SHOW(drop_short);
	HOMA_SHOW(drop_bad_type);
	HOMA_SHOW(drop_unknown_socket);
	HOMA_SHOW(drop_malformed);
	HOMA_SHOW(drop_unknown_rpc);
	HOMA_SHOW(drop_unsupported);
	HOMA_SHOW(drop_duplicate);
	HOMA_SHOW(drop_no_buffer);
	HOMA_SHOW(drop_rpc_limit);
	HOMA_SHOW(buf_timeouts);
	HOMA_SHOW(resent_packets);
	HOMA_SHOW(resend_requests_sent);
	HOMA_SHOW(timeouts);
	HOMA_SHOW(rpcs_created);
	HOMA_SHOW(rpcs_freed);
	HOMA_SHOW(bytes_sent);
	HOMA_SHOW(bytes_rcvd);
	HOMA_SHOW(server_rpcs_live);
	HOMA_SHOW(client_rpcs_live);
	HOMA_SHOW(throttled_rpcs_added);
	HOMA_SHOW(icmp_errors);
	HOMA_SHOW(acks_rcvd);
	HOMA_SHOW(ack_timeouts);
	HOMA_SHOW(peers_live);
	HOMA_SHOW(peers_freed);
	HOMA_SHOW(drop_rcvbuf);
	HOMA_SHOW(drop_msg_mem);
	seq_printf(m, "rcvmem_bytes %lld\n", HOMA_SUM_OF(global, rcvmem_bytes));
	HOMA_SHOW(drop_not_host);
	HOMA_SHOW(drop_policy);
	HOMA_SHOW(drop_filter);
	HOMA_SHOW(icmp_soft_errors);
	HOMA_SHOW(icmp_ignored);
	HOMA_SHOW(resends_deferred);
	HOMA_SHOW(rexmit_limited);
	HOMA_SHOW(route_lookups);
	HOMA_SHOW(icmp_pmtu);
	seq_printf(m, "timer_runs %lld\n", HOMA_SUM_OF(global, timer_runs));
	HOMA_SHOW(timer_checks);
	seq_printf(m, "timer_ns %lld\n", HOMA_SUM_OF(global, timer_ns));
#undef HOMA_SHOW
#undef HOMA_SUM
	return 0;
}

/**
 * homa_metrics_net_init() - allocate a namespace's counters and create
 * its /proc/net/homa_metrics.
 * @hnet: the namespace's Homa state.
 *
 * Return: 0 or -ENOMEM.
 */
int homa_metrics_net_init(struct homa_net *hnet)
{
	hnet->metrics = alloc_percpu(struct homa_metrics);
	if (!hnet->metrics)
		return -ENOMEM;
	if (!proc_create_net_single("homa_metrics", 0444, hnet->net->proc_net,
				    homa_metrics_show, NULL)) {
		free_percpu(hnet->metrics);
		hnet->metrics = NULL;
		return -ENOMEM;
	}
	return 0;
}

/**
 * homa_metrics_net_exit() - remove a namespace's /proc/net/homa_metrics
 * and free its counters (nothing of the namespace counts any more).
 * @hnet: the namespace's Homa state.
 */
void homa_metrics_net_exit(struct homa_net *hnet)
{
	remove_proc_entry("homa_metrics", hnet->net->proc_net);
	free_percpu(hnet->metrics);
	hnet->metrics = NULL;
}
