/* SPDX-License-Identifier: BSD-2-Clause */

/* The hosts this host talks to. */

#ifndef _HOMA_PEER_H
#define _HOMA_PEER_H

#include "homa_impl.h"

/**
 * struct homa_peer - a host with which RPCs are exchanged. Peers live until
 * the module is unloaded (homa_peertab_destroy()).
 */
struct homa_peer {
	/** @addr: address of the peer (IPv4 as v4-mapped IPv6). */
	struct in6_addr addr;

	/** @net: network namespace in which @addr is meaningful. */
	struct net *net;

	/** @links: in homa->peer_buckets. */
	struct hlist_node links;

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

struct homa_peer *homa_peer_find(struct homa *homa, struct net *net,
				 const struct in6_addr *addr);
void homa_peertab_destroy(struct homa *homa);
bool homa_peer_get_ack(struct homa_peer *peer, struct homa_ack *ack);
int homa_peer_get_acks(struct homa_peer *peer, struct homa_ack *acks);
int homa_peer_add_ack(struct homa_peer *peer, u64 client_id, u16 server_port,
		      struct homa_ack *full);

#endif /* _HOMA_PEER_H */
