// SPDX-License-Identifier: BSD-2-Clause

/* /proc/net/homa_metrics (names in homa_metrics.h). */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "homa_impl.h"

DEFINE_PER_CPU(struct homa_metrics, homa_metrics);

static const char * const homa_type_names[HOMA_NUM_TYPES] = {
	"DATA", "GRANT", "RESEND", "UNKNOWN", "BUSY", "CUTOFFS", "FREEZE",
	"NEED_ACK", "ACK",
};

#define HOMA_SUM(field) ({					\
	s64 sum_ = 0;							\
	int cpu_;							\
	for_each_possible_cpu(cpu_)					\
		sum_ += per_cpu(homa_metrics, cpu_).field;		\
	sum_; })

static int homa_metrics_show(struct seq_file *m, void *v)
{
	int i;

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
	HOMA_SHOW(rcvmem_bytes);
	HOMA_SHOW(drop_not_host);
	HOMA_SHOW(drop_policy);
	HOMA_SHOW(drop_filter);
	HOMA_SHOW(icmp_soft_errors);
	HOMA_SHOW(icmp_ignored);
	HOMA_SHOW(resends_deferred);
	HOMA_SHOW(rexmit_limited);
	HOMA_SHOW(route_lookups);
	HOMA_SHOW(icmp_pmtu);
	HOMA_SHOW(timer_runs);
	HOMA_SHOW(timer_checks);
	HOMA_SHOW(timer_ns);
#undef HOMA_SHOW
	return 0;
}

/**
 * homa_metrics_init() - create /proc/net/homa_metrics.
 *
 * Return: 0 or -ENOMEM.
 */
int homa_metrics_init(void)
{
	if (!proc_create_single("homa_metrics", 0444, init_net.proc_net,
				homa_metrics_show))
		return -ENOMEM;
	return 0;
}

/**
 * homa_metrics_exit() - remove /proc/net/homa_metrics.
 */
void homa_metrics_exit(void)
{
	remove_proc_entry("homa_metrics", init_net.proc_net);
}
