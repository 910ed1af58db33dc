// SPDX-License-Identifier: BSD-2-Clause

/* Creating, finding, ending and reclaiming RPCs. */

#include <linux/hash.h>
#include <linux/siphash.h>
#include <linux/slab.h>

#include "homa_impl.h"
#include "homa_pacer.h"
#include "homa_peer.h"
#include "homa_pool.h"
#include "homa_rpc.h"
#include "homa_sock.h"
#include "homa_timer.h"

/* Keyed with a per-boot random key: server RPC ids are chosen by the
 * remote host, which must not be able to put them all in one chain.
 */
static inline u32 homa_rpc_hash(u64 id)
{
	return siphash_1u64(id, &homa_global.rpc_hash_key) &
	       (HOMA_RPC_BUCKETS - 1);
}

static struct homa_rpc *homa_rpc_alloc(struct homa_sock *hsk,
				       struct homa_peer *peer, u16 dport,
				       gfp_t gfp)
{
	struct homa_rpc *rpc;

	rpc = kzalloc(sizeof(*rpc), gfp);
	if (!rpc)
		return NULL;
	rpc->hsk = hsk;
	/* Dropped by homa_rpc_free_mem(); the caller holds one already. */
	homa_peer_hold(peer);
	rpc->peer = peer;
	rpc->dport = dport;
	atomic_set(&rpc->refs, 0);
	INIT_HLIST_NODE(&rpc->hash_links);
	INIT_LIST_HEAD(&rpc->active_links);
	INIT_LIST_HEAD(&rpc->ready_links);
	INIT_LIST_HEAD(&rpc->throttled_links);
	INIT_LIST_HEAD(&rpc->buf_links);
	INIT_LIST_HEAD(&rpc->timer_links);
	rpc->live_tick = homa_ticks_now();
	rpc->resend_tick = rpc->live_tick;
	rpc->timer_tick = rpc->live_tick;
	rpc->msgout.length = -1;
	rpc->msgin.length = -1;
	__skb_queue_head_init(&rpc->msgin.packets);
	INIT_LIST_HEAD(&rpc->msgin.gaps);
	HOMA_INC(hsk->hnet, rpcs_created);
	return rpc;
}

/**
 * homa_rpc_new_client() - create a client RPC (state RPC_OUTGOING, no
 * message yet).
 * @hsk:   the socket; its lock is held and it is not shut down.
 * @peer:  the server.
 * @dport: the server's port.
 *
 * Return: the RPC, or NULL if memory ran out.
 */
struct homa_rpc *homa_rpc_new_client(struct homa_sock *hsk,
				     struct homa_peer *peer, u16 dport)
{
	/* sendmsg's process context: charged to the sender's memory cgroup. */
	struct homa_rpc *rpc = homa_rpc_alloc(hsk, peer, dport,
					      GFP_ATOMIC | __GFP_ACCOUNT);

	lockdep_assert_held(&hsk->lock);
	if (!rpc)
		return NULL;
	rpc->id = hsk->next_client_id;
	/* 0 means "no RPC" in acks: skipped when the counter wraps. */
	hsk->next_client_id += 2;
	if (!hsk->next_client_id)
		hsk->next_client_id = 2;
	rpc->state = RPC_OUTGOING;
	hlist_add_head(&rpc->hash_links,
		       &hsk->client_buckets[homa_rpc_hash(rpc->id)]);
	list_add_tail(&rpc->active_links, &hsk->active_rpcs);
	homa_rpc_timer_arm(rpc, rpc->live_tick + 1);
	HOMA_INC(hsk->hnet, client_rpcs_live);
	return rpc;
}

/* The load entry of @peer in @hsk, or NULL; socket lock held. */
static struct homa_peer_load *homa_peer_load_find(struct homa_sock *hsk,
						  struct homa_peer *peer)
{
	struct homa_peer_load *load;

	lockdep_assert_held(&hsk->lock);
	hlist_for_each_entry(load,
			     &hsk->peer_loads[hash_ptr(peer,
						       HOMA_PEER_LOAD_BITS)],
			     links) {
		if (load->peer == peer)
			return load;
	}
	return NULL;
}

/*
 * A server RPC of @hsk from @peer ended: count it off; the entry goes
 * when its count reaches zero. Socket lock held.
 */
static void homa_peer_load_put(struct homa_sock *hsk, struct homa_peer *peer)
{
	struct homa_peer_load *load = homa_peer_load_find(hsk, peer);

	lockdep_assert_held(&hsk->lock);
	hsk->server_rpcs--;
	if (WARN_ON_ONCE(!load))
		return;
	if (--load->count == 0) {
		hlist_del(&load->links);
		kfree(load);
	}
}

/**
 * homa_rpc_new_server() - create a server RPC for a request whose first
 * DATA packet just arrived (state RPC_INCOMING).
 * @hsk:    the socket; its lock is held and it is not shut down.
 * @saddr:  the client's address (IPv4 as v4-mapped IPv6).
 * @dport:  the client's port.
 * @id:     the local (odd) id.
 * @length: length of the request (already validated).
 *
 * Any host can create server RPCs with one packet each, so their number
 * is bounded: per socket by max_server_rpcs and per client host by
 * max_server_rpcs_per_peer. At a limit the packet is dropped and counted
 * (drop_rpc_limit); the client finds out through its own timer, as for
 * any lost packet: its RESENDs get UNKNOWN, it sends the request again,
 * and it sees ETIMEDOUT only if the server stays at the limit for
 * timeout_ticks. The client gets a peer only here, once there is state
 * to keep, and not at all when the socket is at its limit.
 *
 * Return: the RPC, or NULL at a limit or if memory ran out.
 */
struct homa_rpc *homa_rpc_new_server(struct homa_sock *hsk,
				     const struct in6_addr *saddr, u16 dport,
				     u64 id, int length)
{
	struct homa_peer_load *load;
	struct homa_peer *peer;
	struct homa_rpc *rpc = NULL;

	lockdep_assert_held(&hsk->lock);
	if (hsk->server_rpcs >= READ_ONCE(hsk->hnet->max_server_rpcs)) {
		HOMA_INC(hsk->hnet, drop_rpc_limit);
		return NULL;
	}
	peer = homa_peer_get(hsk->homa, sock_net(&hsk->inet.sk), saddr,
			     GFP_ATOMIC);
	if (!peer)
		return NULL;
	load = homa_peer_load_find(hsk, peer);
	if (load && load->count >=
	    READ_ONCE(hsk->hnet->max_server_rpcs_per_peer)) {
		HOMA_INC(hsk->hnet, drop_rpc_limit);
		goto done;
	}
	if (!load) {
		load = kmalloc(sizeof(*load), GFP_ATOMIC);
		if (!load)
			goto done;
		load->peer = peer;
		load->count = 0;
		hlist_add_head(&load->links,
			       &hsk->peer_loads[hash_ptr(peer,
							 HOMA_PEER_LOAD_BITS)]);
	}
	rpc = homa_rpc_alloc(hsk, peer, dport, GFP_ATOMIC);
	if (!rpc) {
		if (load->count == 0) {
			hlist_del(&load->links);
			kfree(load);
		}
		goto done;
	}
	load->count++;
	hsk->server_rpcs++;
	rpc->id = id;
	rpc->state = RPC_INCOMING;
	rpc->msgin.length = length;
	rpc->msgin.bytes_remaining = length;
	hlist_add_head(&rpc->hash_links,
		       &hsk->server_buckets[homa_rpc_hash(id)]);
	list_add_tail(&rpc->active_links, &hsk->active_rpcs);
	homa_rpc_timer_arm(rpc, rpc->live_tick + 1);
	HOMA_INC(hsk->hnet, server_rpcs_live);
done:
	homa_peer_put(peer);	/* The RPC holds its own. */
	return rpc;
}

/**
 * homa_find_client_rpc() - look up a client RPC.
 * @hsk: the socket; its lock is held.
 * @id:  local id.
 *
 * Return: the RPC or NULL; dead RPCs are not found.
 */
struct homa_rpc *homa_find_client_rpc(struct homa_sock *hsk, u64 id)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	hlist_for_each_entry(rpc, &hsk->client_buckets[homa_rpc_hash(id)],
			     hash_links) {
		if (rpc->id == id)
			return rpc;
	}
	return NULL;
}

/**
 * homa_find_server_rpc() - look up a server RPC.
 * @hsk:  the socket; its lock is held.
 * @addr: the client's address.
 * @port: the client's port, or 0 for any port (acks do not carry it).
 * @id:   local id. Ids are unique per client socket, so two client ports
 *        of one host may use the same id for different RPCs.
 *
 * Return: the RPC or NULL; dead RPCs are not found.
 */
struct homa_rpc *homa_find_server_rpc(struct homa_sock *hsk,
				      const struct in6_addr *addr, u16 port,
				      u64 id)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	hlist_for_each_entry(rpc, &hsk->server_buckets[homa_rpc_hash(id)],
			     hash_links) {
		if (rpc->id == id && (port == 0 || rpc->dport == port) &&
		    ipv6_addr_equal(&rpc->peer->addr, addr))
			return rpc;
	}
	return NULL;
}

/**
 * homa_find_rpc() - the RPC of @hsk with local id @id that talks to
 * @addr, port @port: a client RPC whose server is there, or a server RPC
 * of that client. A packet (or an ICMP error quoting one) that names our
 * client id but comes from elsewhere is not about that RPC.
 * @hsk:  the socket; its lock is held.
 * @addr: the other end's address.
 * @port: the other end's port.
 * @id:   local id.
 *
 * Return: the RPC or NULL; dead RPCs are not found.
 */
struct homa_rpc *homa_find_rpc(struct homa_sock *hsk,
			       const struct in6_addr *addr, u16 port, u64 id)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	if (!homa_is_client(id))
		return homa_find_server_rpc(hsk, addr, port, id);
	rpc = homa_find_client_rpc(hsk, id);
	if (rpc && (!ipv6_addr_equal(&rpc->peer->addr, addr) ||
		    rpc->dport != port))
		return NULL;
	return rpc;
}

/**
 * homa_rpc_ready() - a message is complete (or a client RPC failed): queue
 * the RPC for recvmsg and wake the threads that can take it: one waiting
 * for any message of its kind, and any waiting for its id.
 * @rpc: the RPC; the socket lock is held.
 */
void homa_rpc_ready(struct homa_rpc *rpc)
{
	struct homa_sock *hsk = rpc->hsk;

	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->handed_off || !list_empty(&rpc->ready_links) ||
	    rpc->state == RPC_DEAD)
		return;
	if (homa_is_client(rpc->id))
		list_add_tail(&rpc->ready_links, &hsk->ready_responses);
	else
		list_add_tail(&rpc->ready_links, &hsk->ready_requests);
	homa_sock_wake_receiver(hsk, rpc);
	/* For poll(), select() and epoll: they wait on the socket's queue. */
	hsk->inet.sk.sk_data_ready(&hsk->inet.sk);
}

/**
 * homa_rpc_resend_answered() - something came for @rpc from its peer
 * (or the RPC ends): a RESEND it sent no longer waits for an answer, and
 * its place in the peer's bound (homa_resend_wait()) is free.
 * @rpc: the RPC; the socket lock is held.
 */
void homa_rpc_resend_answered(struct homa_rpc *rpc)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->resend_pending) {
		rpc->resend_pending = false;
		atomic_dec(&rpc->peer->resends_pending);
	}
}

/**
 * homa_rpc_end() - end an RPC: it leaves every list and table and waits
 * on hsk->dead_rpcs for homa_rpc_reap(). Safe to call twice.
 * @rpc: the RPC; the socket lock is held.
 */
void homa_rpc_end(struct homa_rpc *rpc)
{
	struct homa_sock *hsk = rpc->hsk;

	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->state == RPC_DEAD)
		return;
	if (homa_is_client(rpc->id)) {
		HOMA_ADD(hsk->hnet, client_rpcs_live, -1);
	} else {
		HOMA_ADD(hsk->hnet, server_rpcs_live, -1);
		homa_peer_load_put(hsk, rpc->peer);
	}
	homa_rpc_resend_answered(rpc);
	rpc->state = RPC_DEAD;
	hlist_del_init(&rpc->hash_links);
	list_del_init(&rpc->ready_links);
	if (rpc->msgin.waiting_for_bufs) {
		list_del_init(&rpc->buf_links);
		rpc->msgin.waiting_for_bufs = false;
	}
	homa_remove_from_throttled(rpc);
	list_del_init(&rpc->timer_links);
	list_move_tail(&rpc->active_links, &hsk->dead_rpcs);
	hsk->dead_count++;
}

/**
 * homa_rpc_abort() - a client RPC failed: recvmsg reports @error with its
 * id. Server RPCs are simply ended.
 * @rpc:   the RPC; the socket lock is held.
 * @error: negative errno.
 */
void homa_rpc_abort(struct homa_rpc *rpc, int error)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->state == RPC_DEAD)
		return;
	if (!homa_is_client(rpc->id)) {
		homa_rpc_end(rpc);
		return;
	}
	if (rpc->error)
		return;
	rpc->error = error;
	homa_rpc_resend_answered(rpc);
	homa_remove_from_throttled(rpc);
	homa_rpc_ready(rpc);
}

/* What an RPC with an outgoing message is charged to its socket's send
 * budget: the message, plus the RPC itself for a client RPC (sendmsg
 * creates those; server RPCs come from the network).
 */
static int homa_rpc_wmem(const struct homa_rpc *rpc)
{
	return rpc->msgout.length +
	       (homa_is_client(rpc->id) ? (int)sizeof(*rpc) : 0);
}

/**
 * homa_rpc_wmem_charge() - charge @rpc's outgoing message to its socket's
 * send budget (sk_wmem_alloc); homa_rpc_free_mem() gives it back.
 * @rpc: the RPC; msgout.data and msgout.length are set.
 */
void homa_rpc_wmem_charge(struct homa_rpc *rpc)
{
	refcount_add(homa_rpc_wmem(rpc), &rpc->hsk->inet.sk.sk_wmem_alloc);
}

/* Give back what homa_rpc_wmem_charge() charged, and wake a sender that
 * waits for budget, if any, as sock_wfree() does for transmitted skbs
 * (through sk_write_space: homa_sock_write_space()). No lock held.
 */
static void homa_rpc_wmem_uncharge(struct homa_rpc *rpc)
{
	struct sock *sk = &rpc->hsk->inet.sk;

	/* The socket's own unit of sk_wmem_alloc lasts until sk_free(),
	 * after homa_sock_destroy() freed every RPC: never 0 here.
	 */
	if (WARN_ON_ONCE(refcount_sub_and_test(homa_rpc_wmem(rpc),
					       &sk->sk_wmem_alloc)))
		return;
	sk->sk_write_space(sk);
}

static void homa_rpc_free_mem(struct homa_rpc *rpc)
{
	struct homa_gap *gap, *tmp;

	/* Each skb gives its receive memory back as it goes (homa_rfree()). */
	__skb_queue_purge(&rpc->msgin.packets);
	list_for_each_entry_safe(gap, tmp, &rpc->msgin.gaps, links) {
		list_del(&gap->links);
		kfree(gap);
	}
	if (rpc->msgout.data)
		homa_rpc_wmem_uncharge(rpc);
	kvfree(rpc->msgout.data);
	homa_peer_put(rpc->peer);
	HOMA_INC(rpc->hsk->hnet, rpcs_freed);
	kfree(rpc);
}

/**
 * homa_rpc_check_waiting() - give pool space to incoming messages that
 * wait for it, after bpages came back or a region was set. Each message
 * that gets space is asked to resend what was dropped meanwhile.
 * @hsk: the socket; its lock is held.
 */
void homa_rpc_check_waiting(struct homa_sock *hsk)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	while (!list_empty(&hsk->waiting_for_bufs)) {
		rpc = list_first_entry(&hsk->waiting_for_bufs, struct homa_rpc,
				       buf_links);
		if (homa_pool_allocate(&hsk->pool, rpc->msgin.length,
				       rpc->msgin.bpage_offsets,
				       &rpc->msgin.num_bpages))
			break;
		list_del_init(&rpc->buf_links);
		rpc->msgin.waiting_for_bufs = false;
		rpc->live_tick = homa_ticks_now();
		homa_request_retrans(rpc);
		/* Now a message that waits for bytes: RESENDs if they stay
		 * away (homa_check_rpc()).
		 */
		homa_rpc_timer_arm(rpc, rpc->live_tick +
				   READ_ONCE(hsk->hnet->resend_ticks));
	}
}

/**
 * homa_rpc_reap() - free the memory of dead RPCs that nobody references,
 * and give their bpages to messages that wait for space.
 * @hsk:   the socket; its lock is NOT held (freeing may sleep).
 * @limit: most RPCs to free.
 *
 * Return: the number of RPCs freed.
 */
int homa_rpc_reap(struct homa_sock *hsk, int limit)
{
	struct homa_rpc *rpc, *tmp;
	bool released = false;
	LIST_HEAD(victims);
	int n = 0;

	spin_lock_bh(&hsk->lock);
	list_for_each_entry_safe(rpc, tmp, &hsk->dead_rpcs, active_links) {
		if (n >= limit)
			break;
		if (atomic_read(&rpc->refs) != 0)
			continue;
		if (rpc->msgin.num_bpages > 0) {
			homa_pool_release(&hsk->pool, rpc->msgin.num_bpages,
					  rpc->msgin.bpage_offsets);
			rpc->msgin.num_bpages = 0;
			released = true;
		}
		list_move_tail(&rpc->active_links, &victims);
		hsk->dead_count--;
		n++;
	}
	/* Bpages came back: messages waiting for space may go on now (no
	 * recvmsg may come: the application can be asleep in one).
	 */
	if (released && !hsk->shutdown)
		homa_rpc_check_waiting(hsk);
	spin_unlock_bh(&hsk->lock);

	list_for_each_entry_safe(rpc, tmp, &victims, active_links) {
		list_del(&rpc->active_links);
		homa_rpc_free_mem(rpc);
	}
	return n;
}

/**
 * homa_rpc_reap_some() - reclaim dead RPCs from a system call: a few at a
 * time normally, all of them once more than dead_buffs_limit wait.
 * @hsk: the socket; its lock is NOT held.
 */
void homa_rpc_reap_some(struct homa_sock *hsk)
{
	int dead = READ_ONCE(hsk->dead_count);

	if (dead == 0)
		return;
	homa_rpc_reap(hsk, dead > READ_ONCE(hsk->homa->dead_buffs_limit) ?
			   INT_MAX : READ_ONCE(hsk->homa->reap_limit));
}
