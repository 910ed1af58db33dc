/* SPDX-License-Identifier: BSD-2-Clause */

/* Homa sockets and the table that finds them by port. */

#ifndef _HOMA_SOCK_H
#define _HOMA_SOCK_H

#include "homa_impl.h"
#include "homa_pool.h"

#define HOMA_RPC_BUCKETS	1024

/* Buckets of homa_sock.peer_loads. */
#define HOMA_PEER_LOAD_BITS	6
#define HOMA_PEER_LOAD_BUCKETS	BIT(HOMA_PEER_LOAD_BITS)

/**
 * struct homa_peer_load - how many live server RPCs of one socket belong
 * to one client host. Exists only while that count is above zero, so a
 * socket has at most max_server_rpcs of them; each of those RPCs holds
 * the peer.
 */
struct homa_peer_load {
	/** @links: in homa_sock.peer_loads. */
	struct hlist_node links;

	/** @peer: the client host. */
	struct homa_peer *peer;

	/** @count: live server RPCs of the socket from @peer. */
	int count;
};

struct homa_rpc;

/**
 * define HOMA_DEFAULT_SNDBUF - send budget (sk_sndbuf) of a new Homa socket.
 *
 * Outgoing messages (and client RPCs) are charged to sk_wmem_alloc; sendmsg
 * waits (or fails with EAGAIN) while the charge is at or above sk_sndbuf.
 * The generic default (net.core.wmem_default, 208 KiB) would hold fewer than
 * one 1 MB message, so Homa sockets start with 32 MiB: 1,000 outstanding
 * RPCs of up to 32 KB, or 32 messages of 1 MB, before the sender waits.
 * SO_SNDBUF (capped by net.core.wmem_max) and SO_SNDBUFFORCE change it.
 */
#define HOMA_DEFAULT_SNDBUF	(32 << 20)

/**
 * define HOMA_DEFAULT_RCVBUF - receive budget (sk_rcvbuf) of a new Homa
 * socket.
 *
 * Every DATA skb an incoming message keeps is charged (truesize) to
 * sk_rmem_alloc until recvmsg has copied the message out (or the RPC is
 * freed); a packet that would take the charge over sk_rcvbuf is dropped
 * (drop_rcvbuf). Homa keeps all the skbs of a message until it is
 * complete and received, and honest traffic costs up to 2 bytes of
 * truesize per message byte (measured in the lab for 1 MB messages: 2.0
 * over virtio-net, 2.8 KB skbs for 1424-byte segments; 1.7 over
 * loopback), so the generic default (net.core.rmem_default, 208 KiB)
 * would not hold one 1 MB message. Homa sockets start with 64 MiB: twice
 * the send budget, so everything one peer may have outstanding towards
 * us (HOMA_DEFAULT_SNDBUF, e.g. 32 messages of 1 MB) fits, and it is
 * also the most receive memory a remote host can pin in one socket.
 * SO_RCVBUF (capped by net.core.rmem_max) and SO_RCVBUFFORCE change it; a
 * budget below about twice the largest message makes that message
 * impossible to receive (its packets are dropped and the RPC times out).
 */
#define HOMA_DEFAULT_RCVBUF	(64 << 20)

/**
 * struct homa_sock - a Homa socket. IPv6 sockets are a struct homa_v6_sock.
 */
struct homa_sock {
	/** @inet: generic socket state; must be first. */
	struct inet_sock inet;

	/** @lock: see the locking comment in homa_impl.h. */
	spinlock_t lock;

	/** @homa: the protocol state. */
	struct homa *homa;

	/**
	 * @hnet: Homa in the socket's namespace (its parameters and
	 * counters); valid as long as the socket, which holds the namespace.
	 */
	struct homa_net *hnet;

	/** @port: the socket's port (bound or automatic). */
	u16 port;

	/** @in_table: the socket is in the port table. */
	bool in_table;

	/** @shutdown: no more RPCs; blocked calls return ESHUTDOWN. */
	bool shutdown;

	/** @destroyed: homa_sock_destroy() has run. */
	bool destroyed;

	/**
	 * @next_client_id: id of the socket's next client RPC (even, never
	 * 0). It starts at a random value (homa_sock_init()) and advances by
	 * 2, so ids tell an off-path host nothing about other sockets and are
	 * not guessable from the socket's age. Socket lock.
	 */
	u64 next_client_id;

	/** @ip_header_length: bytes of IP header on this socket's packets. */
	int ip_header_length;

	/** @port_links: in homa->port_buckets. */
	struct hlist_node port_links;

	/** @active_rpcs: every RPC that is not dead. */
	struct list_head active_rpcs;

	/**
	 * @timer_wheel: the RPCs that are not dead, by the tick at which the
	 * timer checks them next (&homa_rpc.due_tick modulo the size).
	 */
	struct list_head timer_wheel[HOMA_TIMER_SLOTS];

	/**
	 * @wheel_tick: the last tick whose slot of @timer_wheel the timer
	 * has taken; RPCs are armed only for later ticks.
	 */
	u32 wheel_tick;

	/** @dead_rpcs: ended RPCs waiting for homa_rpc_reap(). */
	struct list_head dead_rpcs;

	/** @dead_count: entries in @dead_rpcs. */
	int dead_count;

	/**
	 * @wmem_wanted: a sender waits for send budget, or poll() found the
	 * socket not writable. Freed send memory wakes the socket's wait
	 * queue only then: recvmsg sleeps on the same queue, and waking it
	 * for every freed RPC would wake every receiving thread each time.
	 */
	bool wmem_wanted;

	/**
	 * @recv_wait: threads blocked in recvmsg, each an entry of its own
	 * (struct homa_interest, homa_incoming.c) that says which messages
	 * it takes. A ready RPC wakes the threads waiting for its id and the
	 * first of those waiting for any message of its kind, not every
	 * receiver (homa_sock_wake_receiver()). poll() and send-budget
	 * waiters stay on the socket's own queue (sk_sleep()).
	 */
	wait_queue_head_t recv_wait;

	/** @ready_requests: server RPCs with a complete request. */
	struct list_head ready_requests;

	/** @ready_responses: client RPCs with a response or an error. */
	struct list_head ready_responses;

	/** @waiting_for_bufs: incoming messages waiting for pool space. */
	struct list_head waiting_for_bufs;

	/**
	 * @server_rpcs: live (not dead) server RPCs, at most
	 * homa.max_server_rpcs.
	 */
	int server_rpcs;

	/**
	 * @peer_loads: struct homa_peer_load by peer, for
	 * homa.max_server_rpcs_per_peer.
	 */
	struct hlist_head peer_loads[HOMA_PEER_LOAD_BUCKETS];

	/** @client_buckets: client RPCs by id. */
	struct hlist_head client_buckets[HOMA_RPC_BUCKETS];

	/** @server_buckets: server RPCs by id. */
	struct hlist_head server_buckets[HOMA_RPC_BUCKETS];

	/** @pool: the receive buffer pool. */
	struct homa_pool pool;
};

/**
 * struct homa_v6_sock - an IPv6 Homa socket.
 */
struct homa_v6_sock {
	/** @homa: the Homa part; must be first. */
	struct homa_sock homa;

	/** @inet6: IPv6 socket state. */
	struct ipv6_pinfo inet6;
};

static inline struct homa_sock *homa_sk(const struct sock *sk)
{
	return (struct homa_sock *)sk;
}

static inline bool homa_sock_is_v6(const struct homa_sock *hsk)
{
	return hsk->inet.sk.sk_family == AF_INET6;
}

int homa_sock_init(struct homa_sock *hsk, struct homa *homa);
void homa_sock_shutdown(struct homa_sock *hsk);
void homa_sock_destroy(struct homa_sock *hsk);
int homa_sock_bind(struct homa_sock *hsk, u16 port);
struct homa_sock *homa_sock_find(struct homa *homa, struct net *net, u16 port);
int homa_sock_collect(struct homa *homa, struct homa_sock ***out);
int homa_sock_wait_wmem(struct homa_sock *hsk, bool nonblocking);

/**
 * homa_sock_wmem_ok() - may the socket start another outgoing message?
 * @hsk: the socket.
 *
 * As for UDP, a message is admitted while the charge is below the budget,
 * so one message of any length always fits.
 *
 * Return: true when sk_wmem_alloc is below sk_sndbuf.
 */
static inline bool homa_sock_wmem_ok(struct homa_sock *hsk)
{
	struct sock *sk = &hsk->inet.sk;

	return sk_wmem_alloc_get(sk) < READ_ONCE(sk->sk_sndbuf);
}

/**
 * homa_sock_wake_receiver() - wake the recvmsg callers that can take
 * @rpc, which has just been queued as ready: every thread waiting for its
 * id, and one waiting for any message of its kind.
 * @hsk: the socket; its lock is held.
 * @rpc: the ready RPC (only the wait entries' wake function, in
 *       homa_incoming.c, looks at it).
 */
static inline void homa_sock_wake_receiver(struct homa_sock *hsk,
					   struct homa_rpc *rpc)
{
	lockdep_assert_held(&hsk->lock);
	__wake_up(&hsk->recv_wait, TASK_INTERRUPTIBLE, 1, rpc);
}

/**
 * homa_sock_wake_all_receivers() - wake every thread blocked in recvmsg
 * on @hsk, to look again: the socket shuts down, or RPCs that threads may
 * wait for by id ended.
 * @hsk: the socket.
 */
static inline void homa_sock_wake_all_receivers(struct homa_sock *hsk)
{
	wake_up_all(&hsk->recv_wait);
}

#endif /* _HOMA_SOCK_H */
