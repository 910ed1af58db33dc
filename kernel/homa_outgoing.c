// SPDX-License-Identifier: BSD-2-Clause

/* Sending: DATA and control packets, routes and path MTU, and the pacer
 * thread (the pacer's state is in homa_pacer.c, software GSO in
 * homa_offload.c, sendmsg in homa_plumbing.c).
 *
 * A message is copied once into kernel memory (msgout.data). Every packet,
 * first transmission or retransmission, is a fresh skb built from it and
 * handed to IP, which owns it from then on: no skb is ever both queued for
 * transmission and retained by Homa.
 */

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/ip.h>
#include <net/protocol.h>
#include <net/ip6_route.h>
#include <net/route.h>

#include "homa_impl.h"
#include "homa_pacer.h"
#include "homa_peer.h"
#include "homa_pool.h"
#include "homa_rpc.h"
#include "homa_sock.h"
#include "homa_timer.h"

/* Room for IP and link headers in front of a Homa header. */
#define HOMA_SKB_HEADROOM	(MAX_HEADER + sizeof(struct ipv6hdr) + 16)

/* May @peer's route cache serve @hsk? Its routes were looked up with no
 * socket-specific key, so not for a socket bound to a device or with its
 * own IPsec policy, nor where policy routing (rules on marks, uids...)
 * could pick another route for another socket; and the family must match
 * the address (a v4-mapped peer may also be seen by an IPv6 socket).
 */
static bool homa_route_cacheable(struct homa_sock *hsk,
				 const struct homa_peer *peer)
{
	struct sock *sk = &hsk->inet.sk;
	bool v6 = homa_sock_is_v6(hsk);

	if (!peer || sk->sk_bound_dev_if ||
	    v6 == ipv6_addr_v4mapped(&peer->addr))
		return false;
#ifdef CONFIG_XFRM
	if (rcu_access_pointer(sk->sk_policy[XFRM_POLICY_OUT]))
		return false;
#endif
#ifdef CONFIG_IP_MULTIPLE_TABLES
	if (!v6 && READ_ONCE(sock_net(sk)->ipv4.fib_has_custom_rules))
		return false;
#endif
#ifdef CONFIG_IPV6_MULTIPLE_TABLES
	if (v6 && READ_ONCE(sock_net(sk)->ipv6.fib6_has_custom_rules))
		return false;
#endif
	return true;
}

/* The IPv4 route from @hsk to @daddr (@fl4 filled in for ip_queue_xmit()),
 * from @peer's cache when it may serve (@peer may be NULL).
 */
static struct rtable *homa_route4(struct homa_sock *hsk,
				  struct homa_peer *peer, __be32 daddr,
				  struct flowi4 *fl4)
{
	bool cache = homa_route_cacheable(hsk, peer);
	struct sock *sk = &hsk->inet.sk;
	struct rtable *rt;

	flowi4_init_output(fl4, sk->sk_bound_dev_if, sk->sk_mark, 0,
			   RT_SCOPE_UNIVERSE, IPPROTO_HOMA, 0, daddr, 0, 0, 0,
			   sk->sk_uid);
	if (cache) {
		local_bh_disable();
		rt = dst_cache_get_ip4(&peer->dst_cache, &fl4->saddr);
		local_bh_enable();
		if (rt)
			return rt;
	}
	HOMA_INC(hsk->hnet, route_lookups);
	rt = ip_route_output_flow(sock_net(sk), fl4, sk);
	if (cache && !IS_ERR(rt)) {
		local_bh_disable();
		dst_cache_set_ip4(&peer->dst_cache, &rt->dst, fl4->saddr);
		local_bh_enable();
	}
	return rt;
}

/* As homa_route4(), for IPv6. */
static struct dst_entry *homa_route6(struct homa_sock *hsk,
				     struct homa_peer *peer,
				     const struct in6_addr *daddr,
				     struct flowi6 *fl6)
{
	bool cache = homa_route_cacheable(hsk, peer);
	struct sock *sk = &hsk->inet.sk;
	struct dst_entry *dst;

	memset(fl6, 0, sizeof(*fl6));
	fl6->daddr = *daddr;
	fl6->flowi6_proto = IPPROTO_HOMA;
	fl6->flowi6_oif = sk->sk_bound_dev_if;
	fl6->flowi6_mark = sk->sk_mark;
	fl6->flowi6_uid = sk->sk_uid;
	if (cache) {
		local_bh_disable();
		dst = dst_cache_get_ip6(&peer->dst_cache, &fl6->saddr);
		local_bh_enable();
		if (dst)
			return dst;
	}
	HOMA_INC(hsk->hnet, route_lookups);
	dst = ip6_dst_lookup_flow(sock_net(sk), sk, fl6, NULL);
	if (cache && !IS_ERR(dst)) {
		local_bh_disable();
		dst_cache_set_ip6(&peer->dst_cache, dst, &fl6->saddr);
		local_bh_enable();
	}
	return dst;
}

/* Hand @skb (transport header set) to IP for @daddr (IPv4 as v4-mapped
 * IPv6), routed through @peer's cache where it may be used (@peer is NULL
 * for control packets that answer a packet for which no state exists:
 * they go to its source address and need no peer); consumes @skb.
 *
 * Every packet belongs to its socket until the device is done with it
 * (skb_set_owner_w()): cgroup egress BPF, netfilter's owner match and the
 * qdiscs see whose it is, and its memory counts in sk_wmem_alloc.
 */
static int homa_ip_xmit(struct homa_sock *hsk, struct homa_peer *peer,
			const struct in6_addr *daddr, struct sk_buff *skb)
{
	struct homa_common_hdr *h = (struct homa_common_hdr *)skb->data;
	struct sock *sk = &hsk->inet.sk;
	int type = h->type;
	int err;

	skb_reset_transport_header(skb);
	skb_set_owner_w(skb, sk);
	/* Retransmissions count against the queue too. */
	if (type == DATA)
		homa_tx_charge(skb);
	skb->protocol = homa_sock_is_v6(hsk) ? htons(ETH_P_IPV6) :
					       htons(ETH_P_IP);
	if (homa_sock_is_v6(hsk)) {
		struct dst_entry *dst;
		struct flowi6 fl6;

		dst = homa_route6(hsk, peer, daddr, &fl6);
		if (IS_ERR(dst)) {
			kfree_skb(skb);
			return PTR_ERR(dst);
		}
		skb_dst_set(skb, dst);
		rcu_read_lock();
		err = ip6_xmit(sk, skb, &fl6, sk->sk_mark, NULL, 0,
			       READ_ONCE(sk->sk_priority));
		rcu_read_unlock();
	} else {
		struct flowi4 fl4;
		struct rtable *rt;

		rt = homa_route4(hsk, peer, daddr->s6_addr32[3], &fl4);
		if (IS_ERR(rt)) {
			kfree_skb(skb);
			return PTR_ERR(rt);
		}
		skb_dst_set(skb, &rt->dst);
		err = ip_queue_xmit(sk, skb, flowi4_to_flowi(&fl4));
	}
	HOMA_INC(hsk->hnet, pkts_sent[type - DATA]);
	return net_xmit_eval(err);
}

/**
 * homa_rpc_mtu_seg() - message bytes per DATA packet toward a peer, from
 * the route's MTU (the path MTU once ICMP has reported one).
 * @hsk:  the sending socket.
 * @peer: the destination.
 *
 * Return: the segment size, a negative errno if there is no route, or
 * -EACCES for an IPv4 broadcast destination unless the socket has
 * SO_BROADCAST (as UDP).
 */
int homa_rpc_mtu_seg(struct homa_sock *hsk, struct homa_peer *peer)
{
	struct sock *sk = &hsk->inet.sk;
	int mtu, seg, max;

	if (homa_sock_is_v6(hsk)) {
		struct dst_entry *dst;
		struct flowi6 fl6;

		dst = homa_route6(hsk, peer, &peer->addr, &fl6);
		if (IS_ERR(dst))
			return PTR_ERR(dst);
		mtu = dst_mtu(dst);
		dst_release(dst);
	} else {
		struct flowi4 fl4;
		struct rtable *rt;

		rt = homa_route4(hsk, peer, peer->addr.s6_addr32[3], &fl4);
		if (IS_ERR(rt))
			return PTR_ERR(rt);
		if ((rt->rt_flags & RTCF_BROADCAST) &&
		    !sock_flag(sk, SOCK_BROADCAST)) {
			ip_rt_put(rt);
			return -EACCES;
		}
		mtu = dst_mtu(&rt->dst);
		ip_rt_put(rt);
	}
	seg = mtu - hsk->ip_header_length - sizeof(struct homa_data_hdr);
	max = READ_ONCE(hsk->hnet->max_gso_size) - hsk->ip_header_length -
	      sizeof(struct homa_data_hdr);
	if (seg > max)
		seg = max;
	if (seg < 64)
		seg = 64;
	return seg;
}

/* How many segments of @seg bytes one (GSO) skb may carry. */
static int homa_gso_segs(struct homa_sock *hsk, int seg)
{
	int room = READ_ONCE(hsk->hnet->max_gso_size) - hsk->ip_header_length -
		   HOMA_DATA_PREFIX_LEN;
	int n = room / (seg + (int)sizeof(struct homa_seg_hdr));

	return clamp(n, 1, 64);
}

static void homa_fill_common(struct homa_common_hdr *h, u16 sport, u16 dport,
			     u64 sender_id, u8 type)
{
	h->sport = htons(sport);
	h->dport = htons(dport);
	h->type = type;
	h->doff = homa_type_doff(type);
	h->sender_id = cpu_to_be64(sender_id);
}

/* Send a control packet whose header (common part included) is @hdr to
 * @daddr (@peer's address, or any address when @peer is NULL).
 */
static int __homa_xmit_control(struct homa_sock *hsk, struct homa_peer *peer,
			       const struct in6_addr *daddr, void *hdr, int len)
{
	int size = max_t(int, len, HOMA_MIN_PKT_LENGTH);
	struct sk_buff *skb;

	skb = alloc_skb(HOMA_SKB_HEADROOM + size, GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, HOMA_SKB_HEADROOM);
	skb_put_zero(skb, size);
	memcpy(skb->data, hdr, len);
	return homa_ip_xmit(hsk, peer, daddr, skb);
}

/**
 * homa_xmit_control() - send a control packet for an RPC.
 * @rpc:  the RPC; the socket lock is held.
 * @type: packet type.
 * @hdr:  the packet's header; the common part is filled in here.
 * @len:  bytes in @hdr.
 *
 * Return: 0 or a negative errno.
 */
int homa_xmit_control(struct homa_rpc *rpc, u8 type, void *hdr, int len)
{
	lockdep_assert_held(&rpc->hsk->lock);
	homa_fill_common(hdr, rpc->hsk->port, rpc->dport, rpc->id, type);
	return __homa_xmit_control(rpc->hsk, rpc->peer, &rpc->peer->addr, hdr,
				   len);
}

/**
 * homa_xmit_unknown() - tell a host that we have no RPC @local_id. No
 * peer is needed (nor created): the answer goes to the packet's source.
 * @hsk:      the socket the packet came to.
 * @daddr:    the sender of that packet.
 * @dport:    the sender's port.
 * @local_id: our id for the RPC it named.
 *
 * Return: 0 or a negative errno.
 */
int homa_xmit_unknown(struct homa_sock *hsk, const struct in6_addr *daddr,
		      u16 dport, u64 local_id)
{
	struct homa_rpc_unknown_hdr h = {};

	homa_fill_common(&h.common, hsk->port, dport, local_id, RPC_UNKNOWN);
	return __homa_xmit_control(hsk, NULL, daddr, &h, sizeof(h));
}

/* Send an ACK to @daddr (@peer's address, or any when @peer is NULL). */
static void __homa_send_acks(struct homa_sock *hsk, struct homa_peer *peer,
			     const struct in6_addr *daddr, u16 dport,
			     u64 sender_id, struct homa_ack *acks,
			     int num_acks)
{
	struct homa_ack_hdr h = {};

	homa_fill_common(&h.common, hsk->port, dport, sender_id, ACK);
	h.num_acks = htons(num_acks);
	memcpy(h.acks, acks, num_acks * sizeof(*acks));
	__homa_xmit_control(hsk, peer, daddr, &h, sizeof(h));
}

/**
 * homa_send_acks_addr() - send an ACK packet to an address (no peer
 * needed: a NEED_ACK for an RPC that no longer exists is answered so).
 * @hsk:       the sending (client) socket.
 * @daddr:     the server host.
 * @dport:     the server port.
 * @sender_id: a client RPC id that this packet acknowledges itself.
 * @acks:      further acknowledgements.
 * @num_acks:  entries in @acks (at most HOMA_MAX_ACKS_PER_PKT).
 */
void homa_send_acks_addr(struct homa_sock *hsk, const struct in6_addr *daddr,
			 u16 dport, u64 sender_id, struct homa_ack *acks,
			 int num_acks)
{
	__homa_send_acks(hsk, NULL, daddr, dport, sender_id, acks, num_acks);
}

/**
 * homa_send_acks() - send an ACK packet to a peer.
 * @hsk:       the sending (client) socket.
 * @peer:      the server host.
 * @dport:     the server port.
 * @sender_id: a client RPC id that this packet acknowledges itself.
 * @acks:      further acknowledgements.
 * @num_acks:  entries in @acks (at most HOMA_MAX_ACKS_PER_PKT).
 */
void homa_send_acks(struct homa_sock *hsk, struct homa_peer *peer,
		    u16 dport, u64 sender_id, struct homa_ack *acks,
		    int num_acks)
{
	__homa_send_acks(hsk, peer, &peer->addr, dport, sender_id, acks,
			 num_acks);
}

/* Build the DATA skb for [offset, offset + len) of rpc's message. If the
 * range spans several segments (msgout.seg_size bytes each), the skb is a
 * GSO skb: the 52-byte prefix of the DATA header once, then for each
 * segment a struct homa_seg_hdr and its bytes, gso_size covering both.
 * The message data never changes, so no lock is needed; the segment size
 * may (a smaller path MTU, homa_icmp_pmtu()), and is read once.
 */
static struct sk_buff *homa_data_skb(struct homa_rpc *rpc, int offset,
				     int len, bool retransmit)
{
	int seg = READ_ONCE(rpc->msgout.seg_size);
	int nsegs = DIV_ROUND_UP(len, seg);
	struct homa_seg_hdr *sh;
	struct homa_data_hdr *h;
	struct sk_buff *skb;
	int i, pos, n;

	skb = alloc_skb(HOMA_SKB_HEADROOM + HOMA_DATA_PREFIX_LEN +
			nsegs * sizeof(*sh) + len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, HOMA_SKB_HEADROOM);
	h = skb_put_zero(skb, sizeof(*h));
	homa_fill_common(&h->common, rpc->hsk->port, rpc->dport, rpc->id,
			 DATA);
	h->common.sequence = htonl(offset);
	h->message_length = htonl(rpc->msgout.length);
	h->incoming = htonl(rpc->msgout.length);
	homa_peer_get_ack(rpc->peer, &h->ack);
	h->retransmit = retransmit ? 1 : 0;
	h->seg.offset = htonl(offset);
	for (i = 0, pos = offset; i < nsegs; i++, pos += n) {
		n = min(seg, offset + len - pos);
		if (i > 0) {
			sh = skb_put(skb, sizeof(*sh));
			sh->offset = htonl(pos);
		}
		skb_put_data(skb, rpc->msgout.data + pos, n);
	}
	if (nsegs > 1) {
		skb_shinfo(skb)->gso_size = seg + sizeof(*sh);
		skb_shinfo(skb)->gso_segs = nsegs;
		skb_shinfo(skb)->gso_type = homa_sock_is_v6(rpc->hsk) ?
					    SKB_GSO_TCPV6 : SKB_GSO_TCPV4;
		/* Devices (and the stack on their behalf) take TSO skbs only
		 * with a checksum to complete, at TCP's offset: Homa's
		 * checksum field, which receivers ignore. A device without
		 * TSO gets the segments of homa_gso_segment(): with no
		 * checksum offload either, they go out with the field 0.
		 */
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_headroom(skb);	/* data: Homa header */
		skb->csum_offset = offsetof(struct homa_common_hdr, checksum);
	}
	return skb;
}

/**
 * homa_xmit_data() - transmit the untransmitted part of an outgoing
 * message, as far as the NIC queue allows; the rest waits for the pacer.
 * @rpc:   the RPC; the socket lock is held. It is released around each
 *         transmission (the RPC is held meanwhile) and held on return.
 * @force: send at least one packet whatever the NIC queue (the pacer).
 */
void homa_xmit_data(struct homa_rpc *rpc, bool force)
	__must_hold(&rpc->hsk->lock)
{
	struct homa_sock *hsk = rpc->hsk;
	struct homa *homa = hsk->homa;
	int offset, len, left, wire;
	struct sk_buff *skb;

	lockdep_assert_held(&rpc->hsk->lock);
	while (rpc->state == RPC_OUTGOING && !rpc->error &&
	       rpc->msgout.next_xmit < rpc->msgout.length) {
		offset = rpc->msgout.next_xmit;
		left = rpc->msgout.length - offset;
		len = min(left, rpc->msgout.seg_size * rpc->msgout.gso_segs);
		wire = len + DIV_ROUND_UP(len, rpc->msgout.seg_size) *
		       (sizeof(struct homa_data_hdr) + hsk->ip_header_length);
		if (!homa_check_nic_queue(homa, wire,
					  force ||
					  left <= homa->throttle_min_bytes)) {
			homa_add_to_throttled(rpc);
			break;
		}
		force = false;
		rpc->msgout.next_xmit += len;
		if (rpc->msgout.next_xmit >= rpc->msgout.length) {
			/* Silence counts from the last byte sent; a server
			 * starts asking for its ACK (homa_check_rpc()).
			 */
			rpc->live_tick = homa_ticks_now();
			homa_rpc_timer_arm(rpc, rpc->live_tick + 1);
		}
		homa_rpc_hold(rpc);
		spin_unlock_bh(&hsk->lock);
		skb = homa_data_skb(rpc, offset, len, false);
		if (skb) {
			HOMA_ADD(hsk->hnet, bytes_sent, len);
			homa_ip_xmit(hsk, rpc->peer, &rpc->peer->addr, skb);
		}
		spin_lock_bh(&hsk->lock);
		homa_rpc_put(rpc);
	}
}

/**
 * homa_resend_data() - retransmit the packets that cover [start, end),
 * as far as the peer's retransmission budget allows
 * (homa_peer_rexmit_charge()): the rest is asked for again.
 * @rpc:   the RPC; the socket lock is held.
 * @start: first byte wanted.
 * @end:   byte after the last one wanted (at most msgout.next_xmit).
 */
void homa_resend_data(struct homa_rpc *rpc, int start, int end)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	int seg = rpc->msgout.seg_size;
	struct sk_buff *skb;
	int offset, len;

	lockdep_assert_held(&rpc->hsk->lock);
	if (!rpc->msgout.data || seg <= 0)
		return;
	for (offset = (start / seg) * seg; offset < end; offset += seg) {
		len = min(seg, rpc->msgout.length - offset);
		if (len <= 0)
			break;
		if (!homa_peer_rexmit_charge(hnet, rpc->peer, len)) {
			HOMA_INC(hnet, rexmit_limited);
			break;
		}
		skb = homa_data_skb(rpc, offset, len, true);
		if (!skb)
			break;
		HOMA_INC(hnet, resent_packets);
		HOMA_ADD(hnet, bytes_sent, len);
		homa_ip_xmit(rpc->hsk, rpc->peer, &rpc->peer->addr, skb);
	}
}

/**
 * homa_request_retrans() - ask the sender of an incoming message for what
 * is missing: one RESEND per gap and one for the bytes after the highest
 * received, or (0, 100) if nothing has arrived yet.
 * @rpc: the RPC; the socket lock is held.
 */
void homa_request_retrans(struct homa_rpc *rpc)
{
	struct homa_resend_hdr h = {};
	struct homa_gap *gap;
	int n = 0;

	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->msgin.length < 0) {
		h.offset = 0;
		h.length = htonl(100);
		homa_xmit_control(rpc, RESEND, &h, sizeof(h));
		HOMA_INC(rpc->hsk->hnet, resend_requests_sent);
		return;
	}
	list_for_each_entry(gap, &rpc->msgin.gaps, links) {
		if (++n > HOMA_MAX_GAP_RESENDS)
			break;
		h.offset = htonl(gap->start);
		h.length = htonl(gap->end - gap->start);
		homa_xmit_control(rpc, RESEND, &h, sizeof(h));
		HOMA_INC(rpc->hsk->hnet, resend_requests_sent);
	}
	if (rpc->msgin.recv_end < rpc->msgin.length) {
		h.offset = htonl(rpc->msgin.recv_end);
		h.length = htonl(rpc->msgin.length - rpc->msgin.recv_end);
		homa_xmit_control(rpc, RESEND, &h, sizeof(h));
		HOMA_INC(rpc->hsk->hnet, resend_requests_sent);
	}
}

/**
 * homa_message_out_init() - give @rpc its outgoing message (homa_xmit_data()
 * sends it).
 * @rpc:    the RPC; the socket lock is held.
 * @data:   the message (kvmalloc'ed; the RPC owns it from now on).
 * @length: its bytes.
 * @seg:    payload bytes per packet (homa_rpc_mtu_seg()).
 */
void homa_message_out_init(struct homa_rpc *rpc, u8 *data, int length,
			   int seg)
{
	lockdep_assert_held(&rpc->hsk->lock);
	rpc->msgout.data = data;
	rpc->msgout.length = length;
	rpc->msgout.next_xmit = 0;
	rpc->msgout.seg_size = seg;
	rpc->msgout.gso_segs = homa_gso_segs(rpc->hsk, seg);
	rpc->msgout.birth = atomic64_inc_return(&rpc->hsk->homa->messages_out);
}

/* How long the pacer waits for a completion before it sends anyway: a
 * device that never completes (its queue stopped for good) must not stop
 * every Homa message of the host. Then the link estimate alone paces.
 */
#define HOMA_PACER_STALL (HZ / 100 ? HZ / 100 : 1)

/*
 * Is the link estimate (link_idle_time) within max_nic_queue_ns? If not,
 * wait part of the way and say no: waits shorter than a scheduler tick
 * spin (yielding the CPU to anything else that is ready), since a sleep
 * that short wakes late, by up to a tick, and leaves the link idle; longer
 * waits sleep.
 */
static bool homa_pacer_link_ready(struct homa *homa)
{
	u64 now = ktime_get_ns();
	u64 idle = atomic64_read(&homa->link_idle_time);
	u64 limit = READ_ONCE(homa->max_nic_queue_ns);
	u64 wait;

	if (idle <= now + limit)
		return true;
	wait = idle - now - limit;
	if (wait < TICK_NSEC) {
		cond_resched();
		cpu_relax();
	} else {
		wait = min_t(u64, wait, 10 * NSEC_PER_MSEC) / NSEC_PER_USEC;
		usleep_range(wait, wait + 100);
	}
	return false;
}

/*
 * The RPC the pacer serves next: the head of the list (fewest bytes left),
 * but every pacer_fifo_every picks the oldest message on it. Throttle lock
 * held.
 */
static struct homa_rpc *homa_pacer_pick(struct homa *homa)
{
	int every = READ_ONCE(homa->pacer_fifo_every);
	struct homa_rpc *first, *rpc, *oldest;

	lockdep_assert_held(&homa->throttle_lock);
	first = list_first_entry(&homa->throttled_rpcs, struct homa_rpc,
				 throttled_links);
	if (every <= 0 || ++homa->pacer_picks % every)
		return first;
	oldest = first;
	list_for_each_entry(rpc, &homa->throttled_rpcs, throttled_links)
		if (rpc->msgout.birth < oldest->msgout.birth)
			oldest = rpc;
	if (oldest != first)
		HOMA_INC(oldest->hsk->hnet, pacer_fifo_picks);
	return oldest;
}

/* Send throttled packets until the list is empty: SRPT order with a FIFO
 * share, as the devices' completions make room.
 */
static void homa_pacer_xmit(struct homa *homa)
{
	struct homa_sock *hsk;
	struct homa_rpc *rpc;

	while (!kthread_should_stop()) {
		if (!homa_tx_room(homa) &&
		    !wait_event_interruptible_timeout(homa->pacer_wait,
						      kthread_should_stop() ||
						      homa_tx_room(homa),
						      HOMA_PACER_STALL))
			HOMA_GLOBAL_ADD(pacer_stalls, 1);
		if (kthread_should_stop())
			break;
		if (!homa_pacer_link_ready(homa))
			continue;
		spin_lock_bh(&homa->throttle_lock);
		if (list_empty(&homa->throttled_rpcs)) {
			spin_unlock_bh(&homa->throttle_lock);
			break;
		}
		rpc = homa_pacer_pick(homa);
		list_del_init(&rpc->throttled_links);
		rpc->msgout.throttled = false;
		hsk = rpc->hsk;
		homa_rpc_hold(rpc);
		sock_hold(&hsk->inet.sk);
		spin_unlock_bh(&homa->throttle_lock);

		spin_lock_bh(&hsk->lock);
		homa_xmit_data(rpc, true);
		homa_rpc_put(rpc);
		spin_unlock_bh(&hsk->lock);
		sock_put(&hsk->inet.sk);
		cond_resched();
	}
}

/**
 * homa_pacer_main() - the pacer thread: transmits throttled messages.
 * @arg: the struct homa.
 *
 * Return: 0 when stopped.
 */
int homa_pacer_main(void *arg)
{
	struct homa *homa = arg;

	while (!kthread_should_stop()) {
		wait_event_interruptible(homa->pacer_wait,
					 kthread_should_stop() ||
					 !list_empty(&homa->throttled_rpcs));
		homa_pacer_xmit(homa);
	}
	return 0;
}
