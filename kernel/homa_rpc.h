/* SPDX-License-Identifier: BSD-2-Clause */

/* Remote procedure calls: a request and its response. */

#ifndef _HOMA_RPC_H
#define _HOMA_RPC_H

#include "homa_impl.h"
#include "homa_peer.h"

/**
 * enum homa_rpc_state - where an RPC is in its life.
 * @RPC_OUTGOING:   the local end is sending its message (client: the
 *                  request; server: the response).
 * @RPC_INCOMING:   the local end is receiving (client: the response;
 *                  server: the request).
 * @RPC_IN_SERVICE: server only: the request went to the application,
 *                  which has not sent the response yet.
 * @RPC_DEAD:       ended; waits for homa_rpc_reap() to free it.
 */
enum homa_rpc_state {
	RPC_OUTGOING	= 5,
	RPC_INCOMING	= 6,
	RPC_IN_SERVICE	= 8,
	RPC_DEAD	= 9,
};

/**
 * struct homa_gap - a range of a message that has not arrived yet, below
 * the highest byte that has.
 */
struct homa_gap {
	/** @start: first missing byte. */
	int start;

	/** @end: byte after the last missing one. */
	int end;

	/** @links: in &homa_message_in.gaps, in increasing order. */
	struct list_head links;
};

/**
 * struct homa_message_out - a message being sent.
 */
struct homa_message_out {
	/** @length: bytes in the message; -1 while there is none. */
	int length;

	/**
	 * @data: the whole message (kvmalloc). It never changes once the
	 * message exists, so packets are built from it without the lock.
	 */
	u8 *data;

	/** @next_xmit: offset of the first byte never transmitted. */
	int next_xmit;

	/**
	 * @seg_size: message bytes per DATA packet; lowered (under the socket
	 * lock) when ICMP reports a smaller path MTU, in mid-message too.
	 */
	int seg_size;

	/** @gso_segs: most packets (segments) per transmitted skb. */
	int gso_segs;

	/** @throttled: true while the RPC is on homa->throttled_rpcs. */
	bool throttled;

	/**
	 * @birth: homa->messages_out when the message was given to the RPC:
	 * the pacer's FIFO share goes to the oldest throttled message.
	 */
	u64 birth;
};

/**
 * struct homa_message_in - a message being received.
 */
struct homa_message_in {
	/** @length: bytes in the message; -1 until the first DATA. */
	int length;

	/** @packets: received DATA skbs, in arrival order. */
	struct sk_buff_head packets;

	/** @recv_end: one past the highest byte received so far. */
	int recv_end;

	/** @gaps: missing ranges below @recv_end (struct homa_gap). */
	struct list_head gaps;

	/** @num_gaps: entries in @gaps, at most HOMA_MAX_GAPS_PER_MSG. */
	int num_gaps;

	/**
	 * @mem: truesize of the skbs in @packets (each charged to the
	 * socket's sk_rmem_alloc), at most homa_msg_mem_limit(@length).
	 */
	int mem;

	/** @bytes_remaining: bytes not received yet. */
	int bytes_remaining;

	/** @num_bpages: entries of @bpage_offsets in use; 0: none yet. */
	int num_bpages;

	/** @bpage_offsets: where the message goes in the buffer region. */
	u32 bpage_offsets[HOMA_MAX_BPAGES];

	/** @waiting_for_bufs: true while on hsk->waiting_for_bufs. */
	bool waiting_for_bufs;
};

/**
 * struct homa_rpc - one RPC, on the client or the server side.
 */
struct homa_rpc {
	/** @hsk: the socket that owns the RPC. */
	struct homa_sock *hsk;

	/** @state: see &enum homa_rpc_state. */
	enum homa_rpc_state state;

	/** @id: the local id (even for clients, odd for servers). */
	u64 id;

	/** @completion_cookie: client only: from the request's sendmsg. */
	u64 completion_cookie;

	/** @peer: the other end. */
	struct homa_peer *peer;

	/** @dport: the other end's port. */
	u16 dport;

	/** @error: client only: non-zero (negative errno) if aborted. */
	int error;

	/**
	 * @soft_error: negative errno of the last ICMP soft error about this
	 * RPC (host or network unreachable), or 0: a client RPC that times
	 * out fails with it instead of -ETIMEDOUT, as TCP reports sk_err_soft.
	 */
	int soft_error;

	/** @refs: references that keep the memory from being reclaimed. */
	atomic_t refs;

	/** @hash_links: in the socket's client or server hash table. */
	struct hlist_node hash_links;

	/** @active_links: in hsk->active_rpcs, or hsk->dead_rpcs once dead. */
	struct list_head active_links;

	/** @ready_links: in hsk->ready_requests or ready_responses. */
	struct list_head ready_links;

	/** @throttled_links: in homa->throttled_rpcs. */
	struct list_head throttled_links;

	/** @buf_links: in hsk->waiting_for_bufs. */
	struct list_head buf_links;

	/** @handed_off: a recvmsg call has taken the RPC. */
	bool handed_off;

	/** @msgout: the message this end sends. */
	struct homa_message_out msgout;

	/** @msgin: the message this end receives. */
	struct homa_message_in msgin;

	/**
	 * @live_tick: the tick at which the RPC last made progress: the peer
	 * showed it is alive (new bytes, BUSY, RESEND) or we sent the last
	 * byte of our message. Silence is homa_ticks_now() - @live_tick.
	 */
	u32 live_tick;

	/**
	 * @resend_tick: the earliest tick for this RPC's next RESEND (set
	 * from homa_resend_gap()).
	 */
	u32 resend_tick;

	/** @timer_tick: the tick at which the timer last checked this RPC. */
	u32 timer_tick;

	/**
	 * @due_tick: the tick at which the timer checks the RPC next; it is
	 * on hsk->timer_wheel[@due_tick % HOMA_TIMER_SLOTS].
	 */
	u32 due_tick;

	/**
	 * @timer_links: in a slot of hsk->timer_wheel (or, while the timer
	 * checks it, on the timer's list of due RPCs); empty once dead.
	 */
	struct list_head timer_links;

	/**
	 * @resend_deferred: the last check wanted a RESEND and the per-peer
	 * bound deferred it (homa_resend_wait()).
	 */
	bool resend_deferred;

	/**
	 * @resend_pending: the RPC asked its peer to retransmit and nothing
	 * for it has come back since; counted in peer->resends_pending.
	 */
	bool resend_pending;

	/**
	 * @busy_backoff: BUSY answers since the peer last sent us new bytes,
	 * at most HOMA_BUSY_BACKOFF_MAX; each doubles the RESEND interval.
	 */
	int busy_backoff;

	/**
	 * @need_ack_tick: server, response sent: the tick at which the next
	 * NEED_ACK goes out.
	 */
	u32 need_ack_tick;

	/**
	 * @need_ack_interval: server, response sent: ticks until the NEED_ACK
	 * after the next one; doubles after each, up to
	 * HOMA_NEED_ACK_MAX_INTERVAL. 0 until the timer first sees the
	 * response sent.
	 */
	u32 need_ack_interval;
};

struct homa_rpc *homa_rpc_new_client(struct homa_sock *hsk,
				     struct homa_peer *peer, u16 dport);
struct homa_rpc *homa_rpc_new_server(struct homa_sock *hsk,
				     const struct in6_addr *saddr, u16 dport,
				     u64 id, int length);
struct homa_rpc *homa_find_client_rpc(struct homa_sock *hsk, u64 id);
struct homa_rpc *homa_find_rpc(struct homa_sock *hsk,
			       const struct in6_addr *addr, u16 port, u64 id);
struct homa_rpc *homa_find_server_rpc(struct homa_sock *hsk,
				      const struct in6_addr *addr, u16 port,
				      u64 id);
void homa_rpc_end(struct homa_rpc *rpc);
void homa_rpc_abort(struct homa_rpc *rpc, int error);
int homa_rpc_reap(struct homa_sock *hsk, int limit);
void homa_rpc_wmem_charge(struct homa_rpc *rpc);
void homa_rpc_check_waiting(struct homa_sock *hsk);
void homa_rpc_reap_some(struct homa_sock *hsk);
void homa_rpc_ready(struct homa_rpc *rpc);
void homa_rpc_resend_answered(struct homa_rpc *rpc);

/**
 * homa_rpc_hold() - keep @rpc's memory from being reclaimed.
 * @rpc: the RPC; the socket lock must be held, or homa->throttle_lock
 *       while @rpc is on the pacer's list (homa_pacer_xmit(): an RPC
 *       leaves that list before it can be reaped).
 */
static inline void homa_rpc_hold(struct homa_rpc *rpc)
{
	atomic_inc(&rpc->refs);
}

/**
 * homa_rpc_put() - drop a reference taken by homa_rpc_hold().
 * @rpc: the RPC.
 */
static inline void homa_rpc_put(struct homa_rpc *rpc)
{
	atomic_dec(&rpc->refs);
}

#endif /* _HOMA_RPC_H */
