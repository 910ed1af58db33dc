// SPDX-License-Identifier: BSD-2-Clause

/* The table of peers and their pending acks. */

#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <net/netns/hash.h>

#include "homa_impl.h"
#include "homa_peer.h"

/* Most buckets, and about the most peers (whole buckets are examined),
 * homa_peer_gc() looks at in one timer tick: the whole table is seen every
 * HOMA_PEERTAB_BUCKETS / HOMA_PEER_GC_BUCKETS ticks (64 ms).
 */
#define HOMA_PEER_GC_BUCKETS	16
#define HOMA_PEER_GC_SCAN	128

static u32 homa_peer_hash(const struct homa *homa, const struct net *net,
			  const struct in6_addr *addr)
{
	const __be32 *a = addr->s6_addr32;
	u64 hi = ((u64)(__force u32)a[0] << 32) | (__force u32)a[1];
	u64 lo = ((u64)(__force u32)a[2] << 32) | (__force u32)a[3];

	/* Keyed (random per boot): a remote host cannot choose addresses
	 * that share a chain.
	 */
	return siphash_3u64(hi, lo, net_hash_mix(net), &homa->peer_hash_key) &
	       (HOMA_PEERTAB_BUCKETS - 1);
}

/**
 * homa_peertab_init() - set up an empty peer table with a fresh hash key.
 * @homa: the protocol state.
 */
void homa_peertab_init(struct homa *homa)
{
	int i;

	spin_lock_init(&homa->peer_lock);
	for (i = 0; i < HOMA_PEERTAB_BUCKETS; i++)
		INIT_HLIST_HEAD(&homa->peer_buckets[i]);
	get_random_bytes(&homa->peer_hash_key, sizeof(homa->peer_hash_key));
	homa->peer_gc_bucket = 0;
}

/**
 * homa_peer_lookup() - find the peer for an address; never creates one.
 * @homa: the protocol state.
 * @net:  network namespace of @addr.
 * @addr: the address (IPv4 as v4-mapped IPv6).
 *
 * The caller must be in an RCU read-side critical section (softirq
 * counts); the peer may be used until that section ends, without a
 * reference. Lock-free.
 * Return: the peer, or NULL if this host keeps no state for @addr.
 */
struct homa_peer *homa_peer_lookup(struct homa *homa, struct net *net,
				   const struct in6_addr *addr)
{
	struct hlist_head *bucket =
		&homa->peer_buckets[homa_peer_hash(homa, net, addr)];
	struct homa_peer *peer;

	hlist_for_each_entry_rcu(peer, bucket, links) {
		if (ipv6_addr_equal(&peer->addr, addr) &&
		    net_eq(peer->net, net))
			return peer;
	}
	return NULL;
}

/**
 * homa_peer_get() - a reference on the peer for an address, created if
 * needed. Only for callers that are about to create state (an RPC).
 * @homa: the protocol state.
 * @net:  network namespace of @addr.
 * @addr: the address (IPv4 as v4-mapped IPv6).
 * @gfp:  allocation flags for a new peer.
 *
 * Any context (GFP_ATOMIC in atomic context); homa->peer_lock is a leaf
 * and is taken only if the peer does not exist yet or is being freed.
 * Return: the peer with a reference the caller must drop with
 * homa_peer_put(), or NULL if memory ran out.
 */
struct homa_peer *homa_peer_get(struct homa *homa, struct net *net,
				const struct in6_addr *addr, gfp_t gfp)
{
	struct hlist_head *bucket =
		&homa->peer_buckets[homa_peer_hash(homa, net, addr)];
	struct homa_peer *peer, *new;

	rcu_read_lock();
	peer = homa_peer_lookup(homa, net, addr);
	if (peer && refcount_inc_not_zero(&peer->refs)) {
		rcu_read_unlock();
		WRITE_ONCE(peer->last_used, jiffies);
		return peer;
	}
	rcu_read_unlock();

	new = kzalloc(sizeof(*new), gfp);
	if (!new)
		return NULL;
	new->addr = *addr;
	new->net = net;
	refcount_set(&new->refs, 2);	/* The table's and the caller's. */
	new->last_used = jiffies;
	new->heard_tick = homa_ticks_now();
	spin_lock_init(&new->ack_lock);
	spin_lock_init(&new->rexmit_lock);
	if (dst_cache_init(&new->dst_cache, gfp)) {
		kfree(new);
		return NULL;
	}

	spin_lock_bh(&homa->peer_lock);
	/* Under the lock no peer in the table has refs == 0 (the collector
	 * takes them out under this lock), so a match is alive.
	 */
	hlist_for_each_entry(peer, bucket, links) {
		if (ipv6_addr_equal(&peer->addr, addr) &&
		    net_eq(peer->net, net)) {
			refcount_inc(&peer->refs);
			WRITE_ONCE(peer->last_used, jiffies);
			spin_unlock_bh(&homa->peer_lock);
			dst_cache_destroy(&new->dst_cache);
			kfree(new);
			return peer;
		}
	}
	hlist_add_head_rcu(&new->links, bucket);
	spin_unlock_bh(&homa->peer_lock);
	HOMA_INC(homa_net(net), peers_live);
	return new;
}

/**
 * homa_peer_put() - drop a reference taken by homa_peer_get() or
 * homa_peer_hold(). The table keeps its own, so this never frees.
 * @peer: the peer.
 */
void homa_peer_put(struct homa_peer *peer)
{
	WRITE_ONCE(peer->last_used, jiffies);
	/* The table's reference is dropped only by the collector. */
	WARN_ON_ONCE(refcount_dec_and_test(&peer->refs));
}

/* Unlink @peer from @homa's table (homa->peer_lock held). Its refs just
 * went from 1 to 0, except for a peer left at module unload
 * (homa_peertab_destroy()).
 */
static void homa_peer_unlink(struct homa *homa, struct homa_peer *peer)
{
	lockdep_assert_held(&homa->peer_lock);
	hlist_del_rcu(&peer->links);
	/* No reference is left, so nobody uses the routes any more. */
	dst_cache_destroy(&peer->dst_cache);
	kfree_rcu(peer, rcu);
}

/* Free @peer as homa_peer_unlink() does, counted in its namespace (which
 * is alive: the peer was still in the table).
 */
static void homa_peer_free(struct homa *homa, struct homa_peer *peer)
{
	struct homa_net *hnet = homa_net(peer->net);

	homa_peer_unlink(homa, peer);
	HOMA_ADD(hnet, peers_live, -1);
	HOMA_INC(hnet, peers_freed);
}

/**
 * homa_peer_gc() - free idle peers: no RPC refers to them and they have
 * not been used for net.homa.peer_idle_secs. Called by the timer every
 * tick; examines at most HOMA_PEER_GC_BUCKETS buckets and stops after
 * the bucket in which HOMA_PEER_GC_SCAN peers were reached (bounded work:
 * chains are short because the hash is keyed), going round the table.
 * @homa: the protocol state.
 */
void homa_peer_gc(struct homa *homa)
{
	unsigned long idle;
	struct homa_peer *peer;
	struct hlist_node *tmp;
	int scanned = 0;
	int b, n;

	idle = (unsigned long)READ_ONCE(homa->peer_idle_secs) * HZ;
	spin_lock_bh(&homa->peer_lock);
	b = homa->peer_gc_bucket;
	for (n = 0; n < HOMA_PEER_GC_BUCKETS && scanned < HOMA_PEER_GC_SCAN;
	     n++) {
		hlist_for_each_entry_safe(peer, tmp, &homa->peer_buckets[b],
					  links) {
			scanned++;
			if (refcount_read(&peer->refs) != 1 ||
			    time_before(jiffies,
					READ_ONCE(peer->last_used) + idle))
				continue;
			/* Fails if a lock-free homa_peer_get() just took a
			 * reference; the peer stays then.
			 */
			if (refcount_dec_if_one(&peer->refs))
				homa_peer_free(homa, peer);
		}
		b = (b + 1) & (HOMA_PEERTAB_BUCKETS - 1);
	}
	homa->peer_gc_bucket = b;
	spin_unlock_bh(&homa->peer_lock);
}

/**
 * homa_peer_rexmit_charge() - may @bytes more be retransmitted to @peer in
 * this tick? Retransmissions answer small packets (a 30-byte RESEND or
 * UNKNOWN can ask for 64 KB), so each peer gets at most
 * net.homa.rexmit_peer_kb KiB per tick: whoever forges such packets in the
 * name of a host cannot turn this one into an amplifier against it. A
 * well-behaved receiver asks for no more (it asks for at most
 * resend_peer_limit RPCs per tick, 64 KB each, and the default budget is
 * that much); what is refused it asks for again. Any context.
 * @hnet:  Homa in the peer's namespace (its parameters).
 * @peer:  the destination.
 * @bytes: message bytes of the packet about to be retransmitted.
 *
 * Return: true if the bytes were within the budget (and are now counted).
 */
bool homa_peer_rexmit_charge(struct homa_net *hnet, struct homa_peer *peer,
			     int bytes)
{
	u32 budget = (u32)READ_ONCE(hnet->rexmit_peer_kb) * 1024;
	u32 now = homa_ticks_now();
	bool ok;

	spin_lock_bh(&peer->rexmit_lock);
	if (peer->rexmit_tick != now) {
		peer->rexmit_tick = now;
		peer->rexmit_bytes = 0;
	}
	ok = bytes <= budget - peer->rexmit_bytes;
	if (ok)
		peer->rexmit_bytes += bytes;
	spin_unlock_bh(&peer->rexmit_lock);
	return ok;
}

/**
 * homa_peer_heard_within() - has a packet from @peer matched one of our
 * RPCs in the last @ticks ticks (counted back from the timer's current
 * run)? Timer thread only.
 * @homa:  the protocol state.
 * @peer:  the peer.
 * @ticks: how far back to look.
 *
 * Return: true if it has.
 */
bool homa_peer_heard_within(struct homa *homa, struct homa_peer *peer,
			    u32 ticks)
{
	return (s32)(homa->timer_ticks - READ_ONCE(peer->heard_tick)) <
	       (s32)ticks;
}

/**
 * homa_peer_net_exit() - free the peers of a network namespace that is
 * going away (pernet exit). Its sockets, and so its RPCs, are gone
 * already, so nothing but the table refers to them; a peer that is still
 * referenced (a bug) is left in the table and warned about rather than
 * freed under its user.
 * @homa: the protocol state.
 * @net:  the namespace.
 */
void homa_peer_net_exit(struct homa *homa, struct net *net)
{
	struct homa_peer *peer;
	struct hlist_node *tmp;
	int i;

	spin_lock_bh(&homa->peer_lock);
	for (i = 0; i < HOMA_PEERTAB_BUCKETS; i++) {
		hlist_for_each_entry_safe(peer, tmp, &homa->peer_buckets[i],
					  links) {
			if (!net_eq(peer->net, net))
				continue;
			if (WARN_ON_ONCE(!refcount_dec_if_one(&peer->refs)))
				continue;
			homa_peer_free(homa, peer);
		}
	}
	spin_unlock_bh(&homa->peer_lock);
}

/**
 * homa_peertab_destroy() - free any peer left (module unload, after every
 * namespace's exit freed its peers: none should be left).
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
			/* Each namespace's exit freed its own (and its
			 * counters are gone): none should be left.
			 */
			WARN_ON_ONCE(1);
			homa_peer_unlink(homa, peer);
		}
	}
	spin_unlock_bh(&homa->peer_lock);
	/* kfree_rcu() callbacks do not call into the module, but wait for
	 * them so that kmemleak and the slab see the memory back at unload.
	 */
	rcu_barrier();
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
