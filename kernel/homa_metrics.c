// SPDX-License-Identifier: BSD-2-Clause

/* /proc/net/homa_metrics of each network namespace (names in
 * homa_metrics.h).
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "homa_impl.h"

#define HOMA_SUM_OF(set, field) ({					\
	s64 sum_ = 0;							\
	int cpu_;							\
	for_each_possible_cpu(cpu_)					\
		sum_ += per_cpu_ptr((set), cpu_)[0].field;		\
	sum_; })

static int homa_metrics_show(struct seq_file *m, void *v)
{
	struct net *this_net = seq_file_single_net(m);
	struct homa_metrics __percpu *net = homa_net(this_net)->metrics;
	struct homa_metrics __percpu *mod = homa_net(&init_net)->metrics;
	int i;

	for (i = 0; i < HOMA_NUM_TYPES; i++)
		seq_printf(m, "pkts_sent_%s %lld\n",
			   homa_type_name(HOMA_TYPE_MIN + i),
			   HOMA_SUM_OF(net, pkts_sent[i]));
	for (i = 0; i < HOMA_NUM_TYPES; i++)
		seq_printf(m, "pkts_rcvd_%s %lld\n",
			   homa_type_name(HOMA_TYPE_MIN + i),
			   HOMA_SUM_OF(net, pkts_rcvd[i]));
	/* Each counter from its scope's set: NET or MOD. */
#define HOMA_SCOPE_NET net
#define HOMA_SCOPE_MOD mod
#define HOMA_METRIC(name, scope, ...)					\
	seq_printf(m, #name " %lld\n", HOMA_SUM_OF(HOMA_SCOPE_##scope, name))
#include "homa_metrics_list.h"
#undef HOMA_METRIC
#undef HOMA_SCOPE_NET
#undef HOMA_SCOPE_MOD
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
