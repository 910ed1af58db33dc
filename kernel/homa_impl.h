/* SPDX-License-Identifier: BSD-2-Clause */

/* Definitions shared by all of the Homa module's files.
 *
 * Locking. Locks are always acquired in this order (a lock may be taken
 * while holding one above it, never one below):
 *
 *   1. hsk->lock       (struct homa_sock) protects everything that belongs
 *                      to one socket: its RPCs (state, messages, lists,
 *                      hash tables), its receive buffer pool and its
 *                      shutdown flag. Taken with spin_lock_bh.
 *   2. homa->throttle_lock protects the pacer's list of throttled RPCs.
 *   3. peer->ack_lock  protects one peer's list of pending acks;
 *      peer->rexmit_lock protects its retransmission budget
 *                      (homa_peer_rexmit_charge()).
 *   4. homa->port_lock protects the socket table; homa->peer_lock protects
 *                      changes to the peer table (insertion, removal by
 *                      the idle-peer collector and the pernet exit hook).
 *
 * Every lock but hsk->lock is a leaf: nothing else is acquired while
 * holding one of them. Each may be taken with hsk->lock held (port_lock
 * in homa_sock_bind(), peer_lock when a server RPC is created) or without
 * it (the pacer takes throttle_lock alone and, once it is released, the
 * RPC's hsk->lock).
 *
 * Waking receivers: hsk->recv_wait's own lock (and the woken task's
 * scheduler locks) are taken inside hsk->lock when a ready RPC wakes the
 * thread that takes it (homa_sock_wake_receiver()); the wake function
 * takes nothing of Homa's.
 *
 * The peer table is read without any lock, under RCU (homa_peer_lookup():
 * hlist_*_rcu, peers freed with kfree_rcu()). A peer is kept alive by a
 * reference count (one per RPC, one for the table) rather than a lock;
 * see struct homa_peer.
 *
 * Functions whose comment says a lock is held (the socket lock,
 * homa->port_lock, homa->peer_lock) assert it (lockdep_assert_held(),
 * checked on the lab's debug kernel).
 *
 * Never two socket locks at once: work that concerns another socket
 * (acks carried in a packet) is done after the first lock is released.
 * Nothing sleeps while holding any of these locks: user memory is copied
 * with no lock held, under a reference on the RPC (homa_rpc_hold()), and
 * RPC memory is reclaimed only by homa_rpc_reap(), outside the lock, for
 * RPCs that are dead and have no references.
 *
 * Control packets and retransmissions are handed to IP with hsk->lock
 * held (BHs off); IP never calls back into Homa synchronously (loopback
 * delivery goes through the backlog softirq). First transmissions of DATA
 * drop the lock around each packet (homa_xmit_data()).
 *
 * Sockets are found through the socket table and kept alive with
 * sock_hold() while a packet or a kernel thread works on them.
 */

#ifndef _HOMA_IMPL_H
#define _HOMA_IMPL_H

#include <linux/atomic.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/siphash.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <linux/homa.h>

#include "homa_wire.h"
#include "homa_metrics.h"

struct homa_peer;
struct homa_rpc;
struct homa_sock;

#define HOMA_SOCKTAB_BUCKETS	1024
#define HOMA_PEERTAB_BUCKETS	1024

/* Most bytes retransmitted for one RESEND (whole packets, at least one). */
#define HOMA_MAX_RESEND_BYTES	65536

/*
 * Most doublings of an RPC's RESEND interval after BUSY answers (the
 * interval is also capped at a third of timeout_ticks; homa_resend_gap()).
 */
#define HOMA_BUSY_BACKOFF_MAX	6

/*
 * Timer ticks. The timer thread starts a run at each boundary of
 * 2^HOMA_TICK_SHIFT ns (about 1.05 ms) of the monotonic clock, and each
 * run is one tick (homa_ticks_now()). When runs take longer than that
 * (the debug kernel under emulation), ticks stretch rather than pass
 * several at once: a timer that falls behind must not count as silence
 * the time it had no chance to hear the peer. Each socket keeps the RPCs
 * that wait for something the timer does (a RESEND, a timeout, a
 * NEED_ACK) on a wheel of HOMA_TIMER_SLOTS lists, one per tick, and the
 * timer looks only at the RPCs due in the tick (homa_timer_sock()); an
 * RPC on the wheel is due at least once every HOMA_TIMER_SLOTS - 1 ticks.
 */
#define HOMA_TICK_SHIFT		20
#define HOMA_TIMER_SLOTS	64

/*
 * Receive memory of one incoming message (see homa_add_packet()). The
 * socket as a whole is bounded by sk_rcvbuf (HOMA_DEFAULT_RCVBUF); in
 * addition one message may keep at most homa_msg_mem_limit() bytes of skb
 * truesize and HOMA_MAX_GAPS_PER_MSG gap records, so that a sender of tiny
 * segments cannot make a small message pin much more memory than its
 * length (a 4096-byte message of 1-byte segments held 4095 skbs, several
 * MB, before). Honest traffic measured in the lab keeps 1.0-2.0 bytes of
 * truesize per message byte (1 MB messages: 1424-byte segments over
 * virtio-net 2.0, 2.8 KB per skb; loopback 1.7 with 10 KB skbs, 1.0 with
 * max_gso_size 65000) and about 6 with the smallest segments a path may
 * have (IPv4 MTU 296: 220-byte segments arrive in 1.8 KB skbs and are
 * copied into 1.3 KB ones, HOMA_RX_COPY_MAX), so a factor of 8 never
 * refuses it; the slack covers a small message's single skb (1 KB for a
 * 1-byte message, 16.6 KB for a 10 KB one over loopback).
 */
#define HOMA_MSG_MEM_FACTOR	8
#define HOMA_MSG_MEM_SLACK	(32 << 10)
#define HOMA_MAX_GAPS_PER_MSG	1024

/**
 * homa_msg_mem_limit() - most skb truesize one incoming message may keep.
 * @length: the message's length (at most HOMA_MAX_MESSAGE_LENGTH).
 *
 * Return: bytes.
 */
static inline int homa_msg_mem_limit(int length)
{
	return HOMA_MSG_MEM_FACTOR * length + HOMA_MSG_MEM_SLACK;
}

/*
 * A payload of at most HOMA_RX_COPY_MAX bytes that arrives in an skb with
 * a truesize above HOMA_RX_COPY_TRUESIZE (a NIC buffer of 1.5 KB or more)
 * is copied into an skb of its own size (~1.3 KB truesize) before it is
 * kept.
 */
#define HOMA_RX_COPY_MAX	512
#define HOMA_RX_COPY_TRUESIZE	1536

/* Most RESENDs for gaps in one message per resend interval. */
#define HOMA_MAX_GAP_RESENDS	64

/**
 * struct homa - state of the Homa protocol that is shared by all sockets.
 * There is a single instance, homa_global.
 */
struct homa {
	/** @port_lock: protects @port_buckets and @next_client_port. */
	spinlock_t port_lock;

	/** @port_buckets: sockets hashed by port. */
	struct hlist_head port_buckets[HOMA_SOCKTAB_BUCKETS];

	/** @next_client_port: where the search for a free auto port starts. */
	u32 next_client_port;

	/**
	 * @peer_lock: serialises changes to @peer_buckets and
	 * @peer_gc_bucket; readers use RCU.
	 */
	spinlock_t peer_lock;

	/**
	 * @peer_buckets: peers hashed by (netns, address) with
	 * @peer_hash_key (RCU hlists).
	 */
	struct hlist_head peer_buckets[HOMA_PEERTAB_BUCKETS];

	/** @peer_hash_key: siphash key of the peer table, random per boot. */
	siphash_key_t peer_hash_key;

	/**
	 * @rpc_hash_key: siphash key of the sockets' RPC hash tables, random
	 * per boot (server RPC ids are chosen by the remote host).
	 */
	siphash_key_t rpc_hash_key;

	/** @peer_gc_bucket: where homa_peer_gc() goes on next tick. */
	int peer_gc_bucket;

	/** @throttle_lock: protects @throttled_rpcs. */
	spinlock_t throttle_lock;

	/**
	 * @throttled_rpcs: RPCs with bytes to send that wait for the pacer,
	 * in SRPT order (fewest bytes left first).
	 */
	struct list_head throttled_rpcs;

	/** @link_idle_time: ktime (ns) at which the NIC queue is empty. */
	atomic64_t link_idle_time;

	/**
	 * @tx_queued: memory (skb truesize) of DATA that Homa handed to IP
	 * and the devices have not released yet (homa_tx_skb_done()): what
	 * is queued below Homa, in qdiscs and transmit rings.
	 */
	atomic_t tx_queued;

	/**
	 * @messages_out: outgoing messages so far, all sockets; each takes
	 * the next value (atomically, under its own socket's lock only) as
	 * its age, homa_message_out.birth, which the pacer compares under
	 * the throttle lock.
	 */
	atomic64_t messages_out;

	/** @pacer_picks: RPCs the pacer took from the list (FIFO share). */
	u32 pacer_picks;

	/** @pacer_wait: the pacer thread sleeps here. */
	wait_queue_head_t pacer_wait;

	/** @pacer_kthread: the pacer thread. */
	struct task_struct *pacer_kthread;

	/** @timer_kthread: the thread that runs homa_timer() every tick. */
	struct task_struct *timer_kthread;

	/**
	 * @timer_ticks: the current tick: runs of homa_timer() so far
	 * (written by the timer thread only; read with homa_ticks_now()).
	 */
	u32 timer_ticks;

	/* Module-wide parameters (net.homa.* in the initial namespace). */

	/** @reap_limit: most RPCs freed by one call of homa_rpc_reap(). */
	int reap_limit;

	/** @dead_buffs_limit: dead RPCs a socket may hold before reaping. */
	int dead_buffs_limit;

	/**
	 * @peer_idle_secs: a peer that no RPC refers to is freed once it has
	 * not been used for this many seconds.
	 */
	int peer_idle_secs;

	/**
	 * @rcvmem_max_kb: most receive memory (skb truesize, in KiB) all
	 * Homa sockets together may hold, as udp_mem bounds UDP; a packet
	 * that would go over it is dropped (drop_rcvbuf). Default: a quarter
	 * of the memory the kernel considers free for buffers at load time.
	 */
	int rcvmem_max_kb;

	/** @rcvmem: receive memory (bytes) all Homa sockets hold now. */
	atomic_long_t rcvmem;

	/** @link_mbps: speed of the uplink, for the pacer. */
	int link_mbps;

	/** @max_nic_queue_ns: most queued transmit time before throttling. */
	int max_nic_queue_ns;

	/**
	 * @max_tx_queue_kb: most DATA memory (KiB of skb truesize) queued
	 * below Homa (@tx_queued) before messages wait for the pacer, which
	 * the devices' transmit completions then clock.
	 */
	int max_tx_queue_kb;

	/**
	 * @pacer_fifo_every: one pick of the pacer in this many takes the
	 * oldest throttled message instead of the shortest, so that long
	 * messages progress under a stream of short ones (0: SRPT only).
	 */
	int pacer_fifo_every;

	/** @throttle_min_bytes: messages with fewer bytes left never wait. */
	int throttle_min_bytes;

	/** @sysctl_header: the module-wide net.homa table (initial namespace). */
	struct ctl_table_header *sysctl_header;
};

extern struct homa homa_global;

/**
 * struct homa_net - Homa in one network namespace: the parameters that
 * govern its sockets (net.homa.* in that namespace, each starting at its
 * default) and its counters (/proc/net/homa_metrics there). Allocated by
 * the pernet core (net_generic()); lives as long as the namespace, and so
 * as long as any of its sockets.
 */
struct homa_net {
	/** @net: the namespace. */
	struct net *net;

	/** @resend_ticks: silent ticks before the first RESEND. */
	int resend_ticks;

	/** @resend_interval: ticks between RESENDs. */
	int resend_interval;

	/** @timeout_ticks: silent ticks before an RPC is aborted. */
	int timeout_ticks;

	/**
	 * @resend_peer_limit: most RPCs that may ask one peer for
	 * retransmission (RESEND) in one tick, and most RPCs that the peer
	 * said BUSY to whose RESEND is not answered yet (four times as many
	 * of the others); the others wait for a later tick (resends_deferred,
	 * homa_resend_wait()).
	 */
	int resend_peer_limit;

	/**
	 * @rexmit_peer_kb: most KiB of message data retransmitted to one
	 * peer per tick in answer to its RESEND and UNKNOWN packets; packets
	 * over it are not sent (rexmit_limited) and the peer asks again.
	 */
	int rexmit_peer_kb;

	/** @request_ack_ticks: ticks after a response before NEED_ACK. */
	int request_ack_ticks;

	/**
	 * @max_server_rpcs: most live server RPCs one socket may have; DATA
	 * that would create another is dropped (drop_rpc_limit).
	 */
	int max_server_rpcs;

	/**
	 * @max_server_rpcs_per_peer: most live server RPCs one socket may
	 * have for one client host (address); DATA over it is dropped too.
	 */
	int max_server_rpcs_per_peer;

	/** @max_gso_size: largest skb payload+headers the module builds. */
	int max_gso_size;

	/** @sysctl_header: this namespace's net.homa table. */
	struct ctl_table_header *sysctl_header;

	/** @metrics: this namespace's counters (per CPU). */
	struct homa_metrics __percpu *metrics;
};

extern unsigned int homa_net_id;

/**
 * homa_net() - Homa's state in a network namespace.
 * @net: the namespace (Homa's pernet init has run for it).
 * Return: its struct homa_net.
 */
static inline struct homa_net *homa_net(const struct net *net)
{
	return net_generic(net, homa_net_id);
}

/**
 * homa_is_client() - is @id the id of a client RPC (as known locally)?
 * @id: a local RPC id.
 * Return: true for client RPCs (even ids).
 */
static inline bool homa_is_client(u64 id)
{
	return (id & 1) == 0;
}

/**
 * homa_ticks_now() - the current timer tick (see HOMA_TICK_SHIFT).
 * Return: the tick; compare two with (s32)(a - b).
 */
static inline u32 homa_ticks_now(void)
{
	return READ_ONCE(homa_global.timer_ticks);
}

/**
 * homa_tick_min() - the earlier of two ticks.
 * @a: a tick.
 * @b: another tick, within 2^31 of @a.
 * Return: @a or @b, whichever comes first.
 */
static inline u32 homa_tick_min(u32 a, u32 b)
{
	return (s32)(a - b) < 0 ? a : b;
}

/**
 * homa_local_id() - the local id of an RPC from the id in a packet.
 * @sender_id: &homa_common_hdr.sender_id, already in host order.
 * Return: the id under which this host knows the RPC.
 */
static inline u64 homa_local_id(u64 sender_id)
{
	return sender_id ^ 1;
}

/**
 * homa_ipv4_to_ipv6() - IPv4 addresses are held as v4-mapped IPv6.
 * @ip4: an IPv4 address.
 * Return: the v4-mapped IPv6 form of @ip4.
 */
static inline struct in6_addr homa_ipv4_to_ipv6(__be32 ip4)
{
	struct in6_addr ret = {};

	ipv6_addr_set_v4mapped(ip4, &ret);
	return ret;
}

/**
 * struct homa_skb_info - what Homa keeps in skb->cb of a received DATA skb.
 */
struct homa_skb_info {
	/** @offset: offset in the message of the first payload byte. */
	int offset;

	/** @data_offset: offset in the skb of the first payload byte. */
	int data_offset;

	/** @length: payload bytes. */
	int length;
};

static inline struct homa_skb_info *homa_skb_info(struct sk_buff *skb)
{
	return (struct homa_skb_info *)skb->cb;
}

/* homa_utils.c */
void homa_init(struct homa *homa);
int homa_sysctl_init(struct homa *homa);
void homa_sysctl_exit(struct homa *homa);
int homa_net_setup(struct homa_net *hnet, struct net *net);
void homa_net_teardown(struct homa_net *hnet);

/* homa_incoming.c */
int homa_softirq(struct sk_buff *skb);
int homa_err_handler_v4(struct sk_buff *skb, u32 info);
int homa_err_handler_v6(struct sk_buff *skb, struct inet6_skb_parm *opt,
			u8 type, u8 code, int offset, __be32 info);
int homa_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags,
		 int *addr_len);

/* homa_outgoing.c */
void homa_xmit_data(struct homa_rpc *rpc, bool force);
void homa_resend_data(struct homa_rpc *rpc, int start, int end);
void homa_request_retrans(struct homa_rpc *rpc);
int homa_xmit_control(struct homa_rpc *rpc, u8 type, void *hdr, int len);
int homa_xmit_unknown(struct homa_sock *hsk, const struct in6_addr *daddr,
		      u16 dport, u64 local_id);
void homa_send_acks_addr(struct homa_sock *hsk, const struct in6_addr *daddr,
			 u16 dport, u64 sender_id, struct homa_ack *acks,
			 int num_acks);
void homa_send_acks(struct homa_sock *hsk, struct homa_peer *peer,
		    u16 dport, u64 sender_id, struct homa_ack *acks,
		    int num_acks);
int homa_rpc_mtu_seg(struct homa_sock *hsk, struct homa_peer *peer);
void homa_message_out_init(struct homa_rpc *rpc, u8 *data, int length,
			   int seg);
int homa_pacer_main(void *arg);

/* homa_offload.c */
int homa_offload_init(void);
void homa_offload_exit(void);

#endif /* _HOMA_IMPL_H */
