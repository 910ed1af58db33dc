/* SPDX-License-Identifier: BSD-2-Clause */

/* The hosts this host talks to. */

#ifndef _HOMA_PEER_H
#define _HOMA_PEER_H

#include <net/dst_cache.h>

#include "homa_impl.h"

/**
 * struct homa_peer - a host with which RPCs are exchanged.
 *
 * Lifetime. A peer exists only while this host keeps state for the
 * address: it is created when an RPC is created (client sendmsg, or a
 * DATA packet that creates a server RPC), never for packets that create
 * no state (those are answered from the packet's source address). @refs
 * counts one reference for the table plus one per RPC (taken by
 * homa_rpc_alloc(), dropped when the RPC's memory is reclaimed). A peer
 * whose only reference is the table's and that has not been used for
 * net.homa.peer_idle_secs is freed by homa_peer_gc() from the timer
 * (pending acks do not keep it longer: a server that still waits for them
 * sends NEED_ACK, which is answered with an ACK without a peer). Peers of
 * a network namespace that goes away are freed by homa_peer_net_exit().
 *
 * Lookups are lock-free under RCU (homa_peer_lookup()); peers are freed
 * with kfree_rcu() after leaving the table under homa->peer_lock.
 */
struct homa_peer {
	/** @addr: address of the peer (IPv4 as v4-mapped IPv6). */
	struct in6_addr addr;

	/**
	 * @net: network namespace in which @addr is meaningful. No reference
	 * is held (as for inet_peer): the peers of a namespace are freed by
	 * the pernet exit hook, after every socket of it (and so every RPC
	 * holding one of its peers) is gone.
	 */
	struct net *net;

	/** @links: in homa->peer_buckets (RCU hlist). */
	struct hlist_node links;

	/**
	 * @refs: 1 for the table + 1 per RPC. 0 only while the peer is being
	 * removed (under homa->peer_lock); lock-free users take a reference
	 * with refcount_inc_not_zero().
	 */
	refcount_t refs;

	/** @last_used: jiffies when a reference was last taken or dropped. */
	unsigned long last_used;

	/**
	 * @dst_cache: routes to @addr, per CPU (homa_route4(),
	 * homa_route6()); the stack invalidates them when routes, policies
	 * or the path MTU change. Used only with a reference on the peer.
	 */
	struct dst_cache dst_cache;

	/** @rcu: for kfree_rcu(). */
	struct rcu_head rcu;

	/**
	 * @heard_tick: homa_ticks_now() when a packet from this peer last
	 * matched one of our RPCs (written locklessly by softirqs).
	 */
	u32 heard_tick;

	/**
	 * @resend_tick: the tick @resends counts RESENDs for. @resend_tick and
	 * @resends are used only by the timer thread.
	 */
	u32 resend_tick;

	/**
	 * @resends: RPCs that wanted to ask this peer to retransmit in
	 * @resend_tick (those past resend_peer_limit were deferred).
	 */
	u32 resends;

	/**
	 * @resends_pending: our RPCs with this peer whose RESEND is not
	 * answered yet (rpc->resend_pending); bounded in homa_resend_wait().
	 * Raised only by the timer thread, lowered by any context under the
	 * RPC's socket lock (homa_rpc_resend_answered()).
	 */
	atomic_t resends_pending;

	/** @rexmit_lock: protects @rexmit_tick and @rexmit_bytes. */
	spinlock_t rexmit_lock;

	/** @rexmit_tick: the tick @rexmit_bytes counts retransmissions for. */
	u32 rexmit_tick;

	/**
	 * @rexmit_bytes: message bytes retransmitted to this peer in
	 * @rexmit_tick, in answer to its RESEND and UNKNOWN packets (at most
	 * net.homa.rexmit_peer_kb KiB).
	 */
	u32 rexmit_bytes;

	/** @ack_lock: protects @num_acks and @acks. */
	spinlock_t ack_lock;

	/** @num_acks: valid entries in @acks. */
	int num_acks;

	/**
	 * @acks: responses received from this peer that it has not been
	 * told about yet (its server RPCs can then be freed).
	 */
	struct homa_ack acks[HOMA_MAX_ACKS_PER_PKT];
};

void homa_peertab_init(struct homa *homa);
struct homa_peer *homa_peer_lookup(struct homa *homa, struct net *net,
				   const struct in6_addr *addr);
struct homa_peer *homa_peer_get(struct homa *homa, struct net *net,
				const struct in6_addr *addr, gfp_t gfp);
void homa_peer_put(struct homa_peer *peer);
void homa_peer_gc(struct homa *homa);
bool homa_peer_rexmit_charge(struct homa_net *hnet, struct homa_peer *peer,
			     int bytes);
bool homa_peer_heard_within(struct homa *homa, struct homa_peer *peer,
			    u32 ticks);
void homa_peer_net_exit(struct homa *homa, struct net *net);
void homa_peertab_destroy(struct homa *homa);
bool homa_peer_get_ack(struct homa_peer *peer, struct homa_ack *ack);
int homa_peer_get_acks(struct homa_peer *peer, struct homa_ack *acks);
int homa_peer_add_ack(struct homa_peer *peer, u64 client_id, u16 server_port,
		      struct homa_ack *full);

/**
 * homa_peer_hold() - take another reference on a peer.
 * @peer: a peer on which the caller already holds a reference.
 */
static inline void homa_peer_hold(struct homa_peer *peer)
{
	refcount_inc(&peer->refs);
}

#endif /* _HOMA_PEER_H */
