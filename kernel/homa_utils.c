// SPDX-License-Identifier: BSD-2-Clause

/* The protocol's state, module-wide (homa_global) and per network
 * namespace (homa_net_id), its parameters with their defaults, and the
 * net.homa sysctl tables. Nothing here calls into another Homa file: every
 * other one uses this one (the layering is in kernel/README.md).
 */

#include <linux/random.h>
#include <linux/swap.h>
#include <linux/sysctl.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>

#include "homa_impl.h"

struct homa homa_global;
unsigned int homa_net_id __read_mostly;

/**
 * homa_init() - set up the protocol state with the default parameters
 * (the peer table is homa_peertab_init()'s).
 * @homa: the state to initialise.
 */
void homa_init(struct homa *homa)
{
	int i;

	memset(homa, 0, sizeof(*homa));
	spin_lock_init(&homa->port_lock);
	for (i = 0; i < HOMA_SOCKTAB_BUCKETS; i++)
		INIT_HLIST_HEAD(&homa->port_buckets[i]);
	homa->next_client_port = HOMA_MIN_DEFAULT_PORT;
	/* Key of the RPC hash tables (the peer table has its own). */
	get_random_bytes(&homa->rpc_hash_key, sizeof(homa->rpc_hash_key));
	spin_lock_init(&homa->throttle_lock);
	INIT_LIST_HEAD(&homa->throttled_rpcs);
	atomic64_set(&homa->link_idle_time, 0);
	init_waitqueue_head(&homa->pacer_wait);

	homa->reap_limit = 10;
	homa->dead_buffs_limit = 5000;
	homa->peer_idle_secs = 10;
	homa->rcvmem_max_kb = clamp_t(u64, nr_free_buffer_pages() / 4 *
				      (PAGE_SIZE / 1024), 1024, INT_MAX);
	atomic_long_set(&homa->rcvmem, 0);
	homa->link_mbps = 25000;
	homa->max_nic_queue_ns = 5000;
	homa->max_tx_queue_kb = 128;
	homa->pacer_fifo_every = 10;
	homa->throttle_min_bytes = 200;
}

static int zero;
static int one = 1;
static int two = 2;
static int max_ticks = 1000000;
static int max_mbps = 10000000;
static int max_ns = 1000000000;
static int max_tx_kb = 1024 * 1024;
static int max_msg = HOMA_MAX_MESSAGE_LENGTH;
static int min_gso = 1100;
static int max_gso = 65000;
static int max_limit = 10000000;
static int max_idle_secs = 86400;
static int min_rcvmem_kb = 1024;
static int max_int = INT_MAX;
static int min_rexmit_kb = HOMA_MAX_RESEND_BYTES / 1024;
static int max_rexmit_kb = 4 * 1024 * 1024;

#define HOMA_CTL(data_, procname_, min_, max_) {			\
	.procname	= (procname_),					\
	.data		= (data_),					\
	.maxlen		= sizeof(int),					\
	.mode		= 0644,						\
	.proc_handler	= proc_dointvec_minmax,				\
	.extra1		= (min_),					\
	.extra2		= (max_),					\
}

/* Module-wide: they size or pace what all namespaces share. */
#define HOMA_PARAM(name_, min_, max_)					\
	HOMA_CTL(&homa_global.name_, #name_, min_, max_)

static struct ctl_table homa_ctl_table[] = {
	HOMA_PARAM(reap_limit, &one, &max_limit),
	HOMA_PARAM(dead_buffs_limit, &one, &max_limit),
	HOMA_PARAM(peer_idle_secs, &zero, &max_idle_secs),
	HOMA_PARAM(rcvmem_max_kb, &min_rcvmem_kb, &max_int),
	HOMA_PARAM(link_mbps, &one, &max_mbps),
	HOMA_PARAM(max_nic_queue_ns, &zero, &max_ns),
	HOMA_PARAM(max_tx_queue_kb, &one, &max_tx_kb),
	HOMA_PARAM(pacer_fifo_every, &zero, &max_limit),
	HOMA_PARAM(throttle_min_bytes, &zero, &max_msg),
};

/*
 * Per namespace: .data holds the offset in struct homa_net until
 * homa_net_setup() points a copy of the table at its namespace's values.
 * The limits among them (homa_net_param_is_limit()) are read-only in a
 * namespace owned by a user namespace other than the initial one.
 */
#define HOMA_NET_PARAM(name_, min_, max_)				\
	HOMA_CTL((void *)offsetof(struct homa_net, name_), #name_, min_, max_)

static const struct ctl_table homa_net_ctl_table[] = {
	HOMA_NET_PARAM(resend_ticks, &one, &max_ticks),
	HOMA_NET_PARAM(resend_interval, &one, &max_ticks),
	HOMA_NET_PARAM(timeout_ticks, &two, &max_ticks),
	HOMA_NET_PARAM(resend_peer_limit, &one, &max_limit),
	HOMA_NET_PARAM(rexmit_peer_kb, &min_rexmit_kb, &max_rexmit_kb),
	HOMA_NET_PARAM(request_ack_ticks, &one, &max_ticks),
	HOMA_NET_PARAM(max_server_rpcs, &one, &max_limit),
	HOMA_NET_PARAM(max_server_rpcs_per_peer, &one, &max_limit),
	HOMA_NET_PARAM(max_gso_size, &min_gso, &max_gso),
};

/*
 * Whether the parameter at @offset in struct homa_net bounds what others
 * may take from this host: server RPCs that remote clients create, and
 * control packets and retransmissions sent to a peer. A namespace made by
 * an unprivileged user (root only in a user namespace of its own) must not
 * raise them, as it cannot raise the memory limits of other protocols
 * (net.core's sysctls are not even shown there); the timing parameters
 * stay its own to set.
 */
static bool homa_net_param_is_limit(uintptr_t offset)
{
	return offset == offsetof(struct homa_net, resend_peer_limit) ||
	       offset == offsetof(struct homa_net, rexmit_peer_kb) ||
	       offset == offsetof(struct homa_net, max_server_rpcs) ||
	       offset == offsetof(struct homa_net, max_server_rpcs_per_peer);
}

/**
 * homa_sysctl_init() - register the module-wide part of net.homa (in the
 * initial namespace only; homa_net_setup() adds each namespace's own).
 * @homa: the state whose parameters the table exposes.
 *
 * Return: 0 or -ENOMEM.
 */
int homa_sysctl_init(struct homa *homa)
{
	homa->sysctl_header = register_net_sysctl(&init_net, "net/homa",
						  homa_ctl_table);
	return homa->sysctl_header ? 0 : -ENOMEM;
}

/**
 * homa_sysctl_exit() - unregister the net.homa sysctl directory.
 * @homa: the state.
 */
void homa_sysctl_exit(struct homa *homa)
{
	if (homa->sysctl_header)
		unregister_net_sysctl_table(homa->sysctl_header);
	homa->sysctl_header = NULL;
}

/**
 * homa_net_setup() - set up Homa in a network namespace (pernet init):
 * the parameters at their defaults and its net.homa table (its counters
 * are homa_metrics_net_init()'s).
 * @hnet: the namespace's state (zeroed by the pernet core).
 * @net:  the namespace.
 *
 * Return: 0 or -ENOMEM.
 */
int homa_net_setup(struct homa_net *hnet, struct net *net)
{
	struct ctl_table *table;
	int i;

	hnet->net = net;
	hnet->resend_ticks = 5;
	hnet->resend_interval = 5;
	hnet->timeout_ticks = 100;
	hnet->resend_peer_limit = 8;
	hnet->rexmit_peer_kb = 8 * HOMA_MAX_RESEND_BYTES / 1024;
	hnet->request_ack_ticks = 2;
	hnet->max_server_rpcs = 4096;
	hnet->max_server_rpcs_per_peer = 512;
	hnet->max_gso_size = 10000;

	table = kmemdup(homa_net_ctl_table, sizeof(homa_net_ctl_table),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(homa_net_ctl_table); i++) {
		uintptr_t offset = (uintptr_t)table[i].data;

		if (net->user_ns != &init_user_ns &&
		    homa_net_param_is_limit(offset))
			table[i].mode = 0444;
		table[i].data = (char *)hnet + offset;
	}
	hnet->sysctl_header = register_net_sysctl_sz(net, "net/homa", table,
						     ARRAY_SIZE(homa_net_ctl_table));
	if (!hnet->sysctl_header) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

/**
 * homa_net_teardown() - the reverse of homa_net_setup().
 * @hnet: the namespace's state.
 */
void homa_net_teardown(struct homa_net *hnet)
{
	const struct ctl_table *table = hnet->sysctl_header->ctl_table_arg;

	unregister_net_sysctl_table(hnet->sysctl_header);
	kfree(table);
}
