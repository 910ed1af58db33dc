// SPDX-License-Identifier: BSD-2-Clause

/* The table of peers and their pending acks. */

#include <linux/jhash.h>
#include <linux/slab.h>

#include "homa_impl.h"
#include "homa_peer.h"

static u32 homa_peer_hash(const struct in6_addr *addr)
{
	return jhash2((const u32 *)addr, 4, 0) & (HOMA_PEERTAB_BUCKETS - 1);
}

/**
 * homa_peer_find() - the peer for an address, created if needed.
 * @homa: the protocol state.
 * @net:  network namespace of @addr.
 * @addr: the address (IPv4 as v4-mapped IPv6).
 *
 * Any context; peers live until homa_peertab_destroy().
 * Return: the peer, or NULL if memory ran out.
 */
struct homa_peer *homa_peer_find(struct homa *homa, struct net *net,
				 const struct in6_addr *addr)
{
	struct hlist_head *bucket = &homa->peer_buckets[homa_peer_hash(addr)];
	struct homa_peer *peer;

	spin_lock_bh(&homa->peer_lock);
	hlist_for_each_entry(peer, bucket, links) {
		if (ipv6_addr_equal(&peer->addr, addr) && net_eq(peer->net, net))
			goto done;
	}
	peer = kzalloc(sizeof(*peer), GFP_ATOMIC);
	if (!peer)
		goto done;
	peer->addr = *addr;
	peer->net = net;
	spin_lock_init(&peer->ack_lock);
	hlist_add_head(&peer->links, bucket);
done:
	spin_unlock_bh(&homa->peer_lock);
	return peer;
}

/**
 * homa_peertab_destroy() - free every peer (module unload).
 * @homa: the protocol state.
 */
void homa_peertab_destroy(struct homa *homa)
{
	struct homa_peer *peer;
	struct hlist_node *tmp;
	int i;

	spin_lock_bh(&homa->peer_lock);
	for (i = 0; i < HOMA_PEERTAB_BUCKETS; i++) {
		hlist_for_each_entry_safe(peer, tmp, &homa->peer_buckets[i],
					  links) {
			hlist_del(&peer->links);
			kfree(peer);
		}
	}
	spin_unlock_bh(&homa->peer_lock);
}

/**
 * homa_peer_get_ack() - take one pending ack, to piggy-back on DATA.
 * @peer: the peer the DATA goes to.
 * @ack:  filled with the ack, or zeroed if there is none.
 *
 * Return: true if an ack was taken.
 */
bool homa_peer_get_ack(struct homa_peer *peer, struct homa_ack *ack)
{
	bool found = false;

	spin_lock_bh(&peer->ack_lock);
	if (peer->num_acks > 0) {
		peer->num_acks--;
		*ack = peer->acks[peer->num_acks];
		found = true;
	} else {
		memset(ack, 0, sizeof(*ack));
	}
	spin_unlock_bh(&peer->ack_lock);
	return found;
}

/**
 * homa_peer_get_acks() - take every pending ack, for an ACK packet.
 * @peer: the peer.
 * @acks: room for HOMA_MAX_ACKS_PER_PKT acks.
 *
 * Return: the number of acks taken.
 */
int homa_peer_get_acks(struct homa_peer *peer, struct homa_ack *acks)
{
	int n;

	spin_lock_bh(&peer->ack_lock);
	n = peer->num_acks;
	memcpy(acks, peer->acks, n * sizeof(*acks));
	peer->num_acks = 0;
	spin_unlock_bh(&peer->ack_lock);
	return n;
}

/**
 * homa_peer_add_ack() - remember that the response of a client RPC arrived
 * so the server can free its RPC.
 * @peer:        the server.
 * @client_id:   the client's id of the RPC.
 * @server_port: the server's port.
 * @full:        if the list was full, its HOMA_MAX_ACKS_PER_PKT acks are
 *               moved here and the list is emptied; the caller must send
 *               them in an ACK packet (the new ack is not added then).
 *
 * Return: the number of acks moved to @full (0 when the ack was queued).
 */
int homa_peer_add_ack(struct homa_peer *peer, u64 client_id, u16 server_port,
		      struct homa_ack *full)
{
	int n = 0;

	spin_lock_bh(&peer->ack_lock);
	if (peer->num_acks < HOMA_MAX_ACKS_PER_PKT) {
		peer->acks[peer->num_acks].client_id = cpu_to_be64(client_id);
		peer->acks[peer->num_acks].server_port = htons(server_port);
		peer->num_acks++;
	} else {
		n = peer->num_acks;
		memcpy(full, peer->acks, n * sizeof(*full));
		peer->num_acks = 0;
	}
	spin_unlock_bh(&peer->ack_lock);
	return n;
}
