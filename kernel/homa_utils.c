// SPDX-License-Identifier: BSD-2-Clause

/* Set-up and tear-down of the shared protocol state, and
 * the net.homa sysctl table.
 */

#include <linux/random.h>
#include <linux/swap.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "homa_impl.h"
#include "homa_peer.h"

/**
 * homa_init() - set up the protocol state with the default parameters.
 * @homa: the state to initialise.
 *
 * Return: 0 (kept as int so that later set-up may fail).
 */
int homa_init(struct homa *homa)
{
	int i;

	memset(homa, 0, sizeof(*homa));
	spin_lock_init(&homa->port_lock);
	for (i = 0; i < HOMA_SOCKTAB_BUCKETS; i++)
		INIT_HLIST_HEAD(&homa->port_buckets[i]);
	homa->next_client_port = HOMA_MIN_DEFAULT_PORT;
	homa_peertab_init(homa);
	/* Keys of the RPC hash tables (the peer table's is set above). */
	get_random_bytes(&homa->rpc_hash_key, sizeof(homa->rpc_hash_key));
	spin_lock_init(&homa->throttle_lock);
	INIT_LIST_HEAD(&homa->throttled_rpcs);
	atomic64_set(&homa->link_idle_time, 0);
	init_waitqueue_head(&homa->pacer_wait);

	homa->resend_ticks = 5;
	homa->resend_interval = 5;
	homa->timeout_ticks = 100;
	homa->resend_peer_limit = 8;
	homa->rexmit_peer_kb = 8 * HOMA_MAX_RESEND_BYTES / 1024;
	homa->request_ack_ticks = 2;
	homa->reap_limit = 10;
	homa->dead_buffs_limit = 5000;
	homa->max_server_rpcs = 4096;
	homa->max_server_rpcs_per_peer = 512;
	homa->peer_idle_secs = 10;
	homa->rcvmem_max_kb = clamp_t(u64, nr_free_buffer_pages() / 4 *
				      (PAGE_SIZE / 1024), 1024, INT_MAX);
	atomic_long_set(&homa->rcvmem, 0);
	homa->link_mbps = 25000;
	homa->max_nic_queue_ns = 5000;
	homa->throttle_min_bytes = 200;
	homa->max_gso_size = 10000;
	return 0;
}

/**
 * homa_destroy() - release the protocol state (peers). No socket exists
 * any more and the kernel threads have stopped.
 * @homa: the state.
 */
void homa_destroy(struct homa *homa)
{
	homa_peertab_destroy(homa);
}

static int zero;
static int one = 1;
static int two = 2;
static int max_ticks = 1000000;
static int max_mbps = 10000000;
static int max_ns = 1000000000;
static int max_msg = HOMA_MAX_MESSAGE_LENGTH;
static int min_gso = 1100;
static int max_gso = 65000;
static int max_limit = 10000000;
static int max_idle_secs = 86400;
static int min_rcvmem_kb = 1024;
static int max_int = INT_MAX;
static int min_rexmit_kb = HOMA_MAX_RESEND_BYTES / 1024;
static int max_rexmit_kb = 4 * 1024 * 1024;

#define HOMA_PARAM(name_, min_, max_) {				\
	.procname	= #name_,					\
	.data		= &homa_global.name_,				\
	.maxlen		= sizeof(int),					\
	.mode		= 0644,						\
	.proc_handler	= proc_dointvec_minmax,				\
	.extra1		= (min_),					\
	.extra2		= (max_),					\
}

static struct ctl_table homa_ctl_table[] = {
	HOMA_PARAM(resend_ticks, &one, &max_ticks),
	HOMA_PARAM(resend_interval, &one, &max_ticks),
	HOMA_PARAM(timeout_ticks, &two, &max_ticks),
	HOMA_PARAM(resend_peer_limit, &one, &max_limit),
	HOMA_PARAM(rexmit_peer_kb, &min_rexmit_kb, &max_rexmit_kb),
	HOMA_PARAM(request_ack_ticks, &one, &max_ticks),
	HOMA_PARAM(reap_limit, &one, &max_limit),
	HOMA_PARAM(dead_buffs_limit, &one, &max_limit),
	HOMA_PARAM(max_server_rpcs, &one, &max_limit),
	HOMA_PARAM(max_server_rpcs_per_peer, &one, &max_limit),
	HOMA_PARAM(peer_idle_secs, &zero, &max_idle_secs),
	HOMA_PARAM(rcvmem_max_kb, &min_rcvmem_kb, &max_int),
	HOMA_PARAM(link_mbps, &one, &max_mbps),
	HOMA_PARAM(max_nic_queue_ns, &zero, &max_ns),
	HOMA_PARAM(throttle_min_bytes, &zero, &max_msg),
	HOMA_PARAM(max_gso_size, &min_gso, &max_gso),
};

/**
 * homa_sysctl_init() - register the net.homa sysctl directory.
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
