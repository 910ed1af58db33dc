// SPDX-License-Identifier: BSD-2-Clause

/* Receiving: packets from IP (validated, then dispatched
 * by type), ICMP errors, message assembly and recvmsg.
 */

#include <linux/filter.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/icmp.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/xfrm.h>

#include "homa_impl.h"
#include "homa_pacer.h"
#include "homa_peer.h"
#include "homa_pool.h"
#include "homa_rpc.h"
#include "homa_sock.h"
#include "homa_timer.h"

/*
 * Receive memory (issue 10, item 7). Every DATA skb an incoming message
 * keeps is charged, by its truesize, to the socket's sk_rmem_alloc from
 * the moment it is queued until it is freed (homa_rfree(), whoever frees
 * it: recvmsg after the copy-out, or homa_rpc_reap()). The socket's
 * budget is sk_rcvbuf (HOMA_DEFAULT_RCVBUF unless SO_RCVBUF changed it).
 * The gauge rcvmem_bytes (metrics) is the sum over all sockets.
 */
static void homa_rfree(struct sk_buff *skb)
{
	struct sock *sk = skb->sk;

	atomic_sub(skb->truesize, &sk->sk_rmem_alloc);
	atomic_long_sub(skb->truesize, &homa_sk(sk)->homa->rcvmem);
	HOMA_GLOBAL_ADD(rcvmem_bytes, -(s64)skb->truesize);
}

/* Charge @skb to @sk (as skb_set_owner_r(), with our own destructor). */
static void homa_skb_set_owner_r(struct sk_buff *skb, struct sock *sk)
{
	skb_orphan(skb);
	skb->sk = sk;
	skb->destructor = homa_rfree;
	atomic_add(skb->truesize, &sk->sk_rmem_alloc);
	atomic_long_add(skb->truesize, &homa_sk(sk)->homa->rcvmem);
	HOMA_GLOBAL_ADD(rcvmem_bytes, skb->truesize);
}

/*
 * A copy of @len bytes of the payload of @skb, from byte @skip of it, in
 * an skb of its own size,
 * for small payloads that arrived in a much larger buffer (a NIC's
 * receive buffer is 1.5 KB or more whatever the frame): this keeps the
 * skb memory of honest small segments (paths with a small MTU) within
 * the per-message bound. NULL if memory ran out.
 */
static struct sk_buff *homa_rx_copy_small(struct sk_buff *skb, int skip,
					  int len)
{
	struct sk_buff *nskb = alloc_skb(len, GFP_ATOMIC);

	if (!nskb)
		return NULL;
	if (skb_copy_bits(skb, sizeof(struct homa_data_hdr) + skip,
			  skb_put(nskb, len), len)) {
		kfree_skb(nskb);
		return NULL;
	}
	return nskb;
}

/**
 * homa_add_packet() - put a DATA packet's bytes into an incoming message.
 * @rpc:    the RPC; the socket lock is held; buffers are allocated.
 * @skb:    the packet, its payload at skb->data + sizeof(homa_data_hdr).
 * @offset: offset of the payload in the message (already validated).
 * @len:    payload bytes (already validated).
 *
 * Only new bytes are kept: the first range of them that the packet
 * brings, the part of it in the first gap it overlaps or past everything
 * received so far. Its other new bytes, if it spans two gaps, are asked
 * for again (RESEND). Segments need not match the ones received before:
 * a sender whose path MTU dropped in the middle of a message cuts the
 * rest, retransmissions included, at new boundaries. What a message keeps
 * is bounded by bytes, not
 * by packets: its skbs' truesize by homa_msg_mem_limit() and its gap
 * records by HOMA_MAX_GAPS_PER_MSG (both drop_msg_mem), and the socket's
 * receive memory by sk_rcvbuf (drop_rcvbuf). A packet dropped at a limit
 * is lost as far as the sender knows: it sends the bytes again when we
 * ask for them (RESEND) once memory is free again.
 *
 * Return: true if @skb was consumed (kept, or copied and freed), false
 * if it is a duplicate or cannot be used (the caller frees it).
 */
static bool homa_add_packet(struct homa_rpc *rpc, struct sk_buff *skb,
			    int offset, int len)
{
	struct homa_message_in *msgin = &rpc->msgin;
	struct sock *sk = &rpc->hsk->inet.sk;
	struct homa_gap *gap, *new_gap = NULL;
	int skip, end = offset + len;
	struct sk_buff *keep = skb;
	struct homa_skb_info *info;
	bool need_gap;

	lockdep_assert_held(&rpc->hsk->lock);
	/* Where do the new bytes go? Nothing changes before the limits pass.
	 * Gaps are in message order, all before recv_end, so a segment at or
	 * past recv_end (the usual case) needs no walk, and an earlier one
	 * looks only at the gaps before its end: not at up to
	 * HOMA_MAX_GAPS_PER_MSG gaps for every packet.
	 */
	if (offset < msgin->recv_end) {
		list_for_each_entry(gap, &msgin->gaps, links) {
			if (gap->start >= end)
				break;
			if (gap->end > offset)
				goto found;
		}
		if (end <= msgin->recv_end) {
			HOMA_INC(rpc->hsk->hnet, drop_duplicate);
			return false;
		}
	}
	gap = NULL;
found:
	skip = max(offset, gap ? gap->start : msgin->recv_end) - offset;
	offset += skip;
	if (gap) {
		end = min(end, gap->end);
		need_gap = offset != gap->start && end != gap->end;
	} else {
		need_gap = offset > msgin->recv_end;
	}
	len = end - offset;
	if (need_gap && msgin->num_gaps >= HOMA_MAX_GAPS_PER_MSG) {
		HOMA_INC(rpc->hsk->hnet, drop_msg_mem);
		return false;
	}
	if (len <= HOMA_RX_COPY_MAX && skb->truesize > HOMA_RX_COPY_TRUESIZE) {
		keep = homa_rx_copy_small(skb, skip, len);
		if (!keep)
			return false;
	}
	if (msgin->mem + (int)keep->truesize >
	    homa_msg_mem_limit(msgin->length)) {
		HOMA_INC(rpc->hsk->hnet, drop_msg_mem);
		goto refuse;
	}
	if (atomic_read(&sk->sk_rmem_alloc) + (int)keep->truesize >
	    READ_ONCE(sk->sk_rcvbuf) ||
	    atomic_long_read(&rpc->hsk->homa->rcvmem) + keep->truesize >
	    (long)READ_ONCE(rpc->hsk->homa->rcvmem_max_kb) * 1024) {
		HOMA_INC(rpc->hsk->hnet, drop_rcvbuf);
		goto refuse;
	}
	if (need_gap) {
		new_gap = kmalloc(sizeof(*new_gap), GFP_ATOMIC);
		if (!new_gap)
			goto refuse;
		msgin->num_gaps++;
	}

	if (!gap) {
		if (new_gap) {
			new_gap->start = msgin->recv_end;
			new_gap->end = offset;
			list_add_tail(&new_gap->links, &msgin->gaps);
		}
		msgin->recv_end = end;
	} else if (offset == gap->start && end == gap->end) {
		list_del(&gap->links);
		kfree(gap);
		msgin->num_gaps--;
	} else if (offset == gap->start) {
		gap->start = end;
	} else if (end == gap->end) {
		gap->end = offset;
	} else {
		new_gap->start = end;
		new_gap->end = gap->end;
		gap->end = offset;
		list_add(&new_gap->links, &gap->links);
	}

	info = homa_skb_info(keep);
	info->offset = offset;
	info->length = len;
	if (keep == skb) {
		skb_dst_drop(skb);
		info->data_offset = sizeof(struct homa_data_hdr) + skip;
	} else {
		info->data_offset = 0;
		consume_skb(skb);
	}
	homa_skb_set_owner_r(keep, sk);
	msgin->mem += keep->truesize;
	__skb_queue_tail(&msgin->packets, keep);
	msgin->bytes_remaining -= len;
	HOMA_ADD(rpc->hsk->hnet, bytes_rcvd, len);
	return true;

refuse:
	if (keep != skb)
		kfree_skb(keep);
	return false;
}

/* DATA. Return true if the skb was kept. */
static bool homa_data_pkt(struct homa_sock *hsk, struct homa_rpc *rpc,
			  const struct in6_addr *saddr, u16 sport, u64 id,
			  struct sk_buff *skb, struct homa_ack *acks,
			  int *num_acks)
{
	struct homa_data_hdr *h = (struct homa_data_hdr *)skb->data;
	u32 length = ntohl(h->message_length);
	u32 offset = ntohl(h->seg.offset);
	u32 len = skb->len - sizeof(*h);

	if (offset == HOMA_SEG_OFFSET_USE_SEQ)
		offset = ntohl(h->common.sequence);
	if (length == 0 || length > HOMA_MAX_MESSAGE_LENGTH || len == 0 ||
	    offset >= length || len > length - offset) {
		HOMA_INC(hsk->hnet, drop_malformed);
		return false;
	}
	if (h->ack.client_id)
		acks[(*num_acks)++] = h->ack;

	if (!rpc) {
		if (homa_is_client(id)) {
			HOMA_INC(hsk->hnet, drop_unknown_rpc);
			return false;
		}
		rpc = homa_rpc_new_server(hsk, saddr, sport, id, length);
		/* At an RPC limit the packet is dropped without an answer:
		 * answering each with BUSY turned a flood of spoofed DATA
		 * into as many BUSYs and starved the host
		 * (server_rpc_limits_flood: 27% of the flood received
		 * instead of 75%, Slab +14 MB).
		 */
		if (!rpc)
			return false;
	} else if (homa_is_client(id) && rpc->state == RPC_OUTGOING) {
		if (rpc->error)
			return false;
		/* The server has the whole request: the response begins. */
		homa_remove_from_throttled(rpc);
		rpc->state = RPC_INCOMING;
		rpc->msgin.length = length;
		rpc->msgin.bytes_remaining = length;
	} else if (rpc->state != RPC_INCOMING) {
		HOMA_INC(hsk->hnet, drop_duplicate);
		return false;
	}
	if (rpc->msgin.length != length) {
		HOMA_INC(hsk->hnet, drop_malformed);
		return false;
	}

	if (rpc->msgin.num_bpages == 0) {
		if (rpc->msgin.waiting_for_bufs ||
		    homa_pool_allocate(&hsk->pool, length,
				       rpc->msgin.bpage_offsets,
				       &rpc->msgin.num_bpages)) {
			if (!rpc->msgin.waiting_for_bufs) {
				rpc->msgin.waiting_for_bufs = true;
				list_add_tail(&rpc->buf_links,
					      &hsk->waiting_for_bufs);
			}
			HOMA_INC(hsk->hnet, drop_no_buffer);
			return false;
		}
	}
	if (!homa_add_packet(rpc, skb, offset, len))
		return false;
	/*
	 * Only a packet that brought new bytes we kept is progress, and only
	 * it resets the silence count (issue 10, item 10). A packet refused
	 * at a memory limit, or dropped while the message waits for buffer
	 * space, must not: otherwise a sender (or anyone replaying its
	 * packets) keeps a message that can never complete alive forever,
	 * RESEND, retransmit, drop, and it neither completes nor times out.
	 * Duplicates do not count either: a duplicate shows that someone
	 * sent the packet once, not that the message can progress, and a
	 * replayed packet would keep a bogus RPC (its bpages and skbs)
	 * alive. An honest sender is not hurt: it answers each of our
	 * RESENDs with bytes we are missing, which are new and accepted when
	 * memory allows, and it keeps its own RPC alive through our RESENDs
	 * meanwhile; if memory stays short for timeout_ticks the RPC times
	 * out, as for a lost path.
	 */
	rpc->live_tick = homa_ticks_now();
	rpc->busy_backoff = 0;
	rpc->resend_tick = rpc->live_tick;
	if (rpc->msgin.bytes_remaining == 0)
		homa_rpc_ready(rpc);
	return true;
}

/*
 * BUSY: the peer is alive but has nothing for us yet (a server still
 * working on our request). Not silence; and the next RESEND waits longer
 * (homa_resend_gap()).
 */
static void homa_busy_pkt(struct homa_rpc *rpc)
{
	rpc->live_tick = homa_ticks_now();
	if (rpc->busy_backoff < HOMA_BUSY_BACKOFF_MAX)
		rpc->busy_backoff++;
	rpc->resend_tick = rpc->live_tick +
			   homa_resend_gap(rpc->hsk->hnet, rpc->busy_backoff);
}

/* RESEND. */
static void homa_resend_pkt(struct homa_sock *hsk, struct homa_rpc *rpc,
			    const struct in6_addr *saddr, u16 sport, u64 id,
			    struct sk_buff *skb)
{
	struct homa_resend_hdr *h = (struct homa_resend_hdr *)skb->data;
	u64 offset = ntohl(h->offset);
	u64 end = offset + ntohl(h->length);
	struct homa_busy_hdr busy = {};

	if (!rpc) {
		/* Answered from the source address: no peer is made. */
		homa_xmit_unknown(hsk, saddr, sport, id);
		return;
	}
	rpc->live_tick = homa_ticks_now();
	if (rpc->error)
		return;
	if (rpc->msgout.length < 0 || end == offset ||
	    offset >= rpc->msgout.next_xmit) {
		/* Nothing to resend (yet): say we are alive. */
		homa_xmit_control(rpc, BUSY, &busy, sizeof(busy));
		return;
	}
	if (end > rpc->msgout.next_xmit)
		end = rpc->msgout.next_xmit;
	/* Bytes asked for may still be on their way (the receiver cannot
	 * tell): resend a bounded amount; it asks again for what is still
	 * missing. This also bounds what one RESEND can make us send.
	 */
	if (end - offset > HOMA_MAX_RESEND_BYTES)
		end = offset + HOMA_MAX_RESEND_BYTES;
	homa_resend_data(rpc, offset, end);
}

/* RPC_UNKNOWN. */
static void homa_unknown_pkt(struct homa_rpc *rpc)
{
	if (homa_is_client(rpc->id)) {
		/* The server lost the request: send (the start of) it again;
		 * the server asks for the rest with RESENDs.
		 */
		if (rpc->state == RPC_OUTGOING && !rpc->error)
			homa_resend_data(rpc, 0, min(rpc->msgout.next_xmit,
						     HOMA_MAX_RESEND_BYTES));
		return;
	}
	homa_rpc_end(rpc);
}

/* NEED_ACK (we are the client). */
static void homa_need_ack_pkt(struct homa_sock *hsk, struct homa_rpc *rpc,
			      const struct in6_addr *saddr, u16 sport, u64 id)
{
	struct homa_ack acks[HOMA_MAX_ACKS_PER_PKT];
	struct homa_peer *peer;
	int n = 0;

	/* The RPC still exists and its response is incomplete: the peer
	 * must keep its state, so no ACK. NEED_ACK is not progress either:
	 * the server sends it only once it has transmitted the whole
	 * response, so bytes are missing here. Silence keeps counting
	 * and the timer asks for them with RESENDs (counting it as life would
	 * stall the RPC for as long as the server keeps asking).
	 */
	if (rpc && (rpc->state != RPC_INCOMING ||
		    rpc->msgin.bytes_remaining > 0))
		return;
	/* Pending acks ride along if we have a peer; none is created: the
	 * ACK for @id itself goes to the source address.
	 */
	rcu_read_lock();
	peer = homa_peer_lookup(hsk->homa, sock_net(&hsk->inet.sk), saddr);
	if (peer)
		n = homa_peer_get_acks(peer, acks);
	rcu_read_unlock();
	homa_send_acks_addr(hsk, saddr, sport, id, acks, n);
}

/* ACK (we are the server). Return false if malformed. */
static bool homa_ack_pkt(struct homa_net *hnet, struct homa_rpc *rpc,
			 struct sk_buff *skb, struct homa_ack *acks,
			 int *num_acks)
{
	struct homa_ack_hdr *h = (struct homa_ack_hdr *)skb->data;
	int i, count = ntohs(h->num_acks);

	if (count > HOMA_MAX_ACKS_PER_PKT) {
		HOMA_INC(hnet, drop_malformed);
		return false;
	}
	if (rpc && !homa_is_client(rpc->id)) {
		HOMA_INC(hnet, acks_rcvd);
		homa_rpc_end(rpc);
	}
	for (i = 0; i < count; i++)
		acks[(*num_acks)++] = h->acks[i];
	return true;
}

/* A client acknowledged the response of one of our server RPCs. */
static void homa_rpc_acked(struct homa *homa, struct net *net,
			   const struct in6_addr *saddr,
			   const struct homa_ack *ack)
{
	u64 id = homa_local_id(be64_to_cpu(ack->client_id));
	struct homa_sock *hsk;
	struct homa_rpc *rpc;

	if (homa_is_client(id))
		return;
	hsk = homa_sock_find(homa, net, ntohs(ack->server_port));
	if (!hsk)
		return;
	spin_lock_bh(&hsk->lock);
	rpc = homa_find_server_rpc(hsk, saddr, 0, id);
	if (rpc) {
		HOMA_INC(hsk->hnet, acks_rcvd);
		homa_rpc_end(rpc);
	}
	spin_unlock_bh(&hsk->lock);
	sock_put(&hsk->inet.sk);
}

/* Handle one validated packet for socket @hsk; consumes @skb. */
static void homa_dispatch(struct homa_sock *hsk, struct sk_buff *skb,
			  const struct in6_addr *saddr)
{
	struct homa_common_hdr *h = (struct homa_common_hdr *)skb->data;
	struct homa_ack acks[HOMA_MAX_ACKS_PER_PKT + 1];
	u64 id = homa_local_id(be64_to_cpu(h->sender_id));
	struct net *net = sock_net(&hsk->inet.sk);
	u16 sport = ntohs(h->sport);
	struct homa_rpc *rpc = NULL;
	bool kept = false;
	int num_acks = 0;
	int i;

	/* No peer here: packets that create no state must not make one
	 * (only a new server RPC does, in homa_data_pkt()).
	 */
	spin_lock_bh(&hsk->lock);
	if (hsk->shutdown) {
		spin_unlock_bh(&hsk->lock);
		goto drop;
	}
	rpc = homa_find_rpc(hsk, saddr, sport, id);
	if (rpc) {
		WRITE_ONCE(rpc->peer->heard_tick, homa_ticks_now());
		homa_rpc_resend_answered(rpc);
	}

	switch (h->type) {
	case DATA:
		kept = homa_data_pkt(hsk, rpc, saddr, sport, id, skb, acks,
				     &num_acks);
		break;
	case RESEND:
		homa_resend_pkt(hsk, rpc, saddr, sport, id, skb);
		break;
	case RPC_UNKNOWN:
		if (rpc)
			homa_unknown_pkt(rpc);
		else
			HOMA_INC(hsk->hnet, drop_unknown_rpc);
		break;
	case BUSY:
		if (rpc)
			homa_busy_pkt(rpc);
		else
			HOMA_INC(hsk->hnet, drop_unknown_rpc);
		break;
	case NEED_ACK:
		homa_need_ack_pkt(hsk, rpc, saddr, sport, id);
		break;
	case ACK:
		homa_ack_pkt(hsk->hnet, rpc, skb, acks, &num_acks);
		break;
	}
	spin_unlock_bh(&hsk->lock);

	for (i = 0; i < num_acks; i++)
		homa_rpc_acked(hsk->homa, net, saddr, &acks[i]);
drop:
	if (!kept)
		kfree_skb(skb);
}

/* A GSO skb that reached us whole (loopback or a device that passes GSO
 * through): split it into one DATA packet per segment (layout as built by
 * homa_data_skb()) and handle each; consumes @skb.
 */
static void homa_split_gso(struct homa_sock *hsk, struct sk_buff *skb,
			   const struct in6_addr *saddr)
{
	int seg_len = skb_shinfo(skb)->gso_size;
	struct sk_buff *nskb;
	int pos, n;

	if (seg_len <= (int)sizeof(struct homa_seg_hdr)) {
		HOMA_INC(hsk->hnet, drop_malformed);
		goto done;
	}
	HOMA_INC(hsk->hnet, gso_rx_split);
	for (pos = HOMA_DATA_PREFIX_LEN; pos < skb->len; pos += seg_len) {
		n = min_t(int, seg_len, skb->len - pos);
		if (n <= (int)sizeof(struct homa_seg_hdr)) {
			HOMA_INC(hsk->hnet, drop_malformed);
			break;
		}
		nskb = alloc_skb(HOMA_DATA_PREFIX_LEN + n, GFP_ATOMIC);
		if (!nskb)
			break;
		if (skb_copy_bits(skb, 0, skb_put(nskb, HOMA_DATA_PREFIX_LEN),
				  HOMA_DATA_PREFIX_LEN) ||
		    skb_copy_bits(skb, pos, skb_put(nskb, n), n)) {
			kfree_skb(nskb);
			HOMA_INC(hsk->hnet, drop_malformed);
			break;
		}
		nskb->protocol = skb->protocol;
		homa_dispatch(hsk, nskb, saddr);
	}
done:
	kfree_skb(skb);
}

/*
 * Packets addressed to one host only: Homa is unicast. A link-layer
 * broadcast or multicast frame, an IPv4 broadcast (limited or directed)
 * or multicast destination, or an IPv6 multicast one would reach every
 * Homa host on the segment, each of which would make an RPC and answer
 * the (spoofable) source: one packet, many answers.
 */
static bool homa_pkt_for_this_host(struct sk_buff *skb)
{
	struct rtable *rt;

	if (skb->pkt_type != PACKET_HOST)
		return false;
	if (skb->protocol == htons(ETH_P_IPV6))
		return !ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
	if (ipv4_is_multicast(ip_hdr(skb)->daddr) ||
	    ipv4_is_lbcast(ip_hdr(skb)->daddr))
		return false;
	rt = skb_rtable(skb);
	return !rt || !(rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST));
}

/*
 * The IPsec policy check IP left to us (the protocol is registered with
 * no_policy / INET6_PROTO_NOPOLICY, as UDP is): a packet that an inbound
 * policy says must arrive protected is refused when it came in clear.
 * @sk is the receiving socket (its per-socket policy applies), or NULL.
 */
static bool homa_xfrm_ok(struct sock *sk, struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IPV6))
		return xfrm6_policy_check(sk, XFRM_POLICY_IN, skb);
	return xfrm4_policy_check(sk, XFRM_POLICY_IN, skb);
}

/*
 * Does @hsk take @skb, whose Homa header is @h? A socket takes packets of
 * its own IP version only (the families share one port space, not their
 * traffic): an IPv4 socket cannot name an IPv6 peer (recvmsg would
 * report the low 32 bits of its address, and the response to that address
 * would find no RPC, leaving the server RPC in service for good), and an
 * IPv6 socket routes with IPv6, which reaches no v4-mapped peer. And only
 * a server socket (bound to a port below HOMA_MIN_DEFAULT_PORT) takes
 * packets of server RPCs: any host could otherwise fill a client's buffer
 * pool with requests that the application, reading only responses, never
 * takes, and its own responses would then wait for buffer space for good.
 * A packet refused here is answered as one for a port with no socket
 * (ICMP port unreachable), and counted by why (drop_wrong_family,
 * drop_not_server) instead of drop_unknown_socket.
 */
static bool homa_sock_takes(struct homa_sock *hsk, struct sk_buff *skb,
			    const struct homa_common_hdr *h)
{
	u64 id = homa_local_id(be64_to_cpu(h->sender_id));
	bool v6 = skb->protocol == htons(ETH_P_IPV6);

	if (homa_sock_is_v6(hsk) != v6) {
		HOMA_INC(hsk->hnet, drop_wrong_family);
		return false;
	}
	/* The socket was found by this port: it is the socket's. */
	if (!homa_is_client(id) && ntohs(h->dport) >= HOMA_MIN_DEFAULT_PORT) {
		HOMA_INC(hsk->hnet, drop_not_server);
		return false;
	}
	return true;
}

/**
 * homa_softirq() - IP hands every incoming Homa packet (IPv4 and IPv6)
 * to this function. Everything taken from the wire is checked against the
 * packet's own length before it is used.
 * @skb: the packet, skb->data at the Homa header.
 *
 * What every transport does before a packet reaches its socket is done
 * here, in the order UDP does it: packets not for this host alone are
 * dropped (drop_not_host), then, once the socket is known, the IPsec
 * policy is checked (drop_policy), conntrack's reference is dropped and
 * the socket's filter runs (sk_filter_trim_cap(): SO_ATTACH_FILTER,
 * cgroup ingress BPF and the LSM hook; drop_filter).
 *
 * Return: 0 (the packet is always consumed).
 */
int homa_softirq(struct sk_buff *skb)
{
	struct homa_net *hnet = homa_net(dev_net(skb->dev));
	struct homa *homa = &homa_global;
	struct homa_common_hdr *h;
	struct homa_sock *hsk;
	struct in6_addr saddr;
	unsigned int min_len;
	int type;

	if (!homa_pkt_for_this_host(skb)) {
		HOMA_INC(hnet, drop_not_host);
		goto drop;
	}
	if (!pskb_may_pull(skb, sizeof(struct homa_common_hdr))) {
		HOMA_INC(hnet, drop_short);
		goto drop;
	}
	h = (struct homa_common_hdr *)skb->data;
	type = h->type;
	if (!homa_type_valid(type)) {
		HOMA_INC(hnet, drop_bad_type);
		goto drop;
	}
	min_len = homa_type_min_len(type);
	if (skb->len < min_len || !pskb_may_pull(skb, min_len)) {
		HOMA_INC(hnet, drop_short);
		goto drop;
	}
	h = (struct homa_common_hdr *)skb->data;
	HOMA_INC(hnet, pkts_rcvd[type - DATA]);
	/* DATA's doff covers at least the common header and no more than
	 * the packet (senders use 52 or 56). In control packets doff means
	 * nothing: v4 senders leave it uninitialised, and an uninitialised
	 * field must never cost a packet, so it is not looked at.
	 */
	if (type == DATA &&
	    (homa_doff_bytes(h->doff) > skb->len ||
	     homa_doff_bytes(h->doff) < sizeof(struct homa_common_hdr))) {
		HOMA_INC(hnet, drop_malformed);
		goto drop;
	}
	if (type == GRANT || type == CUTOFFS || type == FREEZE) {
		HOMA_INC(hnet, drop_unsupported);
		goto drop;
	}
	if (skb->protocol == htons(ETH_P_IPV6))
		saddr = ipv6_hdr(skb)->saddr;
	else
		saddr = homa_ipv4_to_ipv6(ip_hdr(skb)->saddr);

	hsk = homa_sock_find(homa, hnet->net, ntohs(h->dport));
	if (!hsk || !homa_sock_takes(hsk, skb, h)) {
		if (hsk)
			sock_put(&hsk->inet.sk);
		if (!homa_xfrm_ok(NULL, skb)) {
			HOMA_INC(hnet, drop_policy);
			goto drop;
		}
		if (!hsk)
			HOMA_INC(hnet, drop_unknown_socket);
		if (skb->protocol == htons(ETH_P_IPV6))
			icmpv6_send(skb, ICMPV6_DEST_UNREACH,
				    ICMPV6_PORT_UNREACH, 0);
		else
			icmp_send(skb, ICMP_DEST_UNREACH, ICMP_PORT_UNREACH,
				  0);
		goto drop;
	}
	if (!homa_xfrm_ok(&hsk->inet.sk, skb)) {
		HOMA_INC(hnet, drop_policy);
		goto put;
	}
	nf_reset_ct(skb);
	/* The filter may trim the packet, never below its Homa header. */
	if (sk_filter_trim_cap(&hsk->inet.sk, skb, min_len)) {
		HOMA_INC(hnet, drop_filter);
		goto put;
	}
	if (type == DATA && skb_is_gso(skb))
		homa_split_gso(hsk, skb, &saddr);
	else
		homa_dispatch(hsk, skb, &saddr);
	sock_put(&hsk->inet.sk);
	return 0;

put:
	sock_put(&hsk->inet.sk);
drop:
	kfree_skb(skb);
	return 0;
}

/*
 * An ICMP error about a packet we sent (RFC 1122, 4.2.3.9, as TCP reads
 * it). It is believed only if the Homa header it quotes names a live RPC
 * of the quoting socket toward that host and port: ids start at a random
 * value per socket, so a host off the path cannot forge one that matches.
 * Port unreachable (no socket at the peer's port) and protocol
 * unreachable (no Homa at the peer) are hard errors: every RPC of the
 * socket toward that port (toward that host, for the protocol) ends with
 * @error. Any other error may be a routing transient: it is counted
 * (icmp_soft_errors) and kept in the RPC, which goes on; should the RPC
 * then time out, it fails with this error instead of ETIMEDOUT.
 */
static void homa_icmp_error(struct net *net, const struct in6_addr *daddr,
			    const struct homa_common_hdr *h, int error,
			    bool hard)
{
	u64 id = be64_to_cpu(h->sender_id);	/* Our own id, as we sent it. */
	struct homa_net *hnet = homa_net(net);
	u16 dport = ntohs(h->dport);
	struct homa_rpc *rpc, *tmp;
	struct homa_sock *hsk;

	hsk = homa_sock_find(&homa_global, net, ntohs(h->sport));
	if (!hsk) {
		HOMA_INC(hnet, icmp_ignored);
		return;
	}
	spin_lock_bh(&hsk->lock);
	rpc = homa_find_rpc(hsk, daddr, dport, id);
	if (!rpc) {
		HOMA_INC(hnet, icmp_ignored);
	} else if (!hard) {
		rpc->soft_error = error;
		HOMA_INC(hnet, icmp_soft_errors);
	} else {
		list_for_each_entry_safe(rpc, tmp, &hsk->active_rpcs,
					 active_links) {
			if (!ipv6_addr_equal(&rpc->peer->addr, daddr))
				continue;
			if (error == -ENOTCONN && rpc->dport != dport)
				continue;
			/* Already ended by an earlier error: count it once. */
			if (homa_is_client(rpc->id) && rpc->error)
				continue;
			/* Clients see @error; server RPCs are freed. */
			HOMA_INC(hnet, icmp_errors);
			homa_rpc_abort(rpc, error);
		}
	}
	spin_unlock_bh(&hsk->lock);
	sock_put(&hsk->inet.sk);
}

/* ICMP says that a packet to @daddr, whose Homa header @h it quotes, was
 * too big for the path (@mtu fits). Believed only if the quoted id names a
 * live RPC of the socket toward that host and port, as for other errors;
 * then the route's path MTU is lowered (the stack keeps it as a route
 * exception, which also invalidates the peer's cached route) and the
 * socket's messages to that host get segments that fit, those under way
 * included: what they send from now on, retransmissions too, is cut at
 * the new size, and the receiver keeps the new bytes of segments that
 * overlap what it has (homa_add_packet()).
 */
static void homa_icmp_pmtu(struct sk_buff *skb, const struct in6_addr *daddr,
			   const struct homa_common_hdr *h, u32 mtu)
{
	struct homa_net *hnet = homa_net(dev_net(skb->dev));
	u64 id = be64_to_cpu(h->sender_id);
	u16 dport = ntohs(h->dport);
	struct homa_rpc *rpc;
	struct homa_sock *hsk;
	bool live;
	int seg;

	hsk = homa_sock_find(&homa_global, hnet->net, ntohs(h->sport));
	if (!hsk) {
		HOMA_INC(hnet, icmp_ignored);
		return;
	}
	spin_lock_bh(&hsk->lock);
	live = homa_find_rpc(hsk, daddr, dport, id);
	spin_unlock_bh(&hsk->lock);
	if (!live) {
		HOMA_INC(hnet, icmp_ignored);
		goto out;
	}
	HOMA_INC(hnet, icmp_pmtu);
	if (homa_sock_is_v6(hsk))
		ip6_sk_update_pmtu(skb, &hsk->inet.sk, htonl(mtu));
	else
		ipv4_sk_update_pmtu(skb, &hsk->inet.sk, mtu);
	spin_lock_bh(&hsk->lock);
	list_for_each_entry(rpc, &hsk->active_rpcs, active_links) {
		if (!ipv6_addr_equal(&rpc->peer->addr, daddr) ||
		    rpc->msgout.length < 0)
			continue;
		seg = homa_rpc_mtu_seg(hsk, rpc->peer);
		/* homa_data_skb() reads it without the lock. */
		if (seg > 0 && seg < rpc->msgout.seg_size)
			WRITE_ONCE(rpc->msgout.seg_size, seg);
	}
	spin_unlock_bh(&hsk->lock);
out:
	sock_put(&hsk->inet.sk);
}

/**
 * homa_err_handler_v4() - ICMP (IPv4) reports a problem with a packet we
 * sent: see homa_icmp_error().
 * @skb:  the ICMP message; skb->data at the IP header of our packet.
 * @info: ICMP info field.
 *
 * Return: 0.
 */
int homa_err_handler_v4(struct sk_buff *skb, u32 info)
{
	struct homa_net *hnet = homa_net(dev_net(skb->dev));
	const struct iphdr *iph = (const struct iphdr *)skb->data;
	int type = icmp_hdr(skb)->type;
	int code = icmp_hdr(skb)->code;
	struct in6_addr addr;

	if (type != ICMP_DEST_UNREACH)
		return 0;
	/* The whole common header must be quoted: its id is the proof. */
	if (!pskb_may_pull(skb, iph->ihl * 4 +
			   sizeof(struct homa_common_hdr))) {
		HOMA_INC(hnet, icmp_ignored);
		return 0;
	}
	iph = (const struct iphdr *)skb->data;
	addr = homa_ipv4_to_ipv6(iph->daddr);
	if (code == ICMP_FRAG_NEEDED) {
		homa_icmp_pmtu(skb, &addr,
			       (const struct homa_common_hdr *)(skb->data +
								iph->ihl * 4),
			       info);
		return 0;
	}
	homa_icmp_error(hnet->net, &addr,
			(const struct homa_common_hdr *)(skb->data +
							 iph->ihl * 4),
			code == ICMP_PORT_UNREACH ? -ENOTCONN :
			code == ICMP_PROT_UNREACH ? -EPROTONOSUPPORT :
			-EHOSTUNREACH,
			code == ICMP_PORT_UNREACH || code == ICMP_PROT_UNREACH);
	return 0;
}

/**
 * homa_err_handler_v6() - ICMPv6 reports a problem with a packet we sent:
 * see homa_icmp_error().
 * @skb:    the ICMP message; skb->data at the IPv6 header of our packet.
 * @opt:    unused.
 * @type:   ICMPv6 type.
 * @code:   ICMPv6 code.
 * @offset: offset of our Homa header from skb->data.
 * @info:   ICMPv6 info field.
 *
 * Return: 0.
 */
int homa_err_handler_v6(struct sk_buff *skb, struct inet6_skb_parm *opt,
			u8 type, u8 code, int offset, __be32 info)
{
	struct homa_net *hnet = homa_net(dev_net(skb->dev));
	struct in6_addr addr;
	bool hard = false;
	int error = 0;

	if (type == ICMPV6_DEST_UNREACH) {
		hard = code == ICMPV6_PORT_UNREACH;
		error = hard ? -ENOTCONN : -EHOSTUNREACH;
	} else if (type == ICMPV6_PARAMPROB && code == ICMPV6_UNK_NEXTHDR) {
		hard = true;
		error = -EPROTONOSUPPORT;
	} else if (type != ICMPV6_PKT_TOOBIG) {
		return 0;
	}
	if (!pskb_may_pull(skb, offset + sizeof(struct homa_common_hdr))) {
		HOMA_INC(hnet, icmp_ignored);
		return 0;
	}
	addr = ((const struct ipv6hdr *)skb->data)->daddr;
	if (type == ICMPV6_PKT_TOOBIG) {
		homa_icmp_pmtu(skb, &addr,
			       (const struct homa_common_hdr *)(skb->data +
								offset),
			       ntohl(info));
		return 0;
	}
	homa_icmp_error(hnet->net, &addr,
			(const struct homa_common_hdr *)(skb->data + offset),
			error, hard);
	return 0;
}

/* Take a ready RPC that matches; socket lock held. */
static struct homa_rpc *homa_claim(struct homa_sock *hsk, u64 id, int flags,
				   int *err)
{
	struct homa_rpc *rpc;

	lockdep_assert_held(&hsk->lock);
	if (hsk->shutdown) {
		*err = -ESHUTDOWN;
		return NULL;
	}
	if (id) {
		rpc = homa_find_client_rpc(hsk, id);
		if (!rpc || rpc->handed_off) {
			*err = -EINVAL;
			return NULL;
		}
		if (list_empty(&rpc->ready_links))
			return NULL;
	} else if ((flags & HOMA_RECVMSG_RESPONSE) &&
		   !list_empty(&hsk->ready_responses)) {
		rpc = list_first_entry(&hsk->ready_responses, struct homa_rpc,
				       ready_links);
	} else if ((flags & HOMA_RECVMSG_REQUEST) &&
		   !list_empty(&hsk->ready_requests)) {
		rpc = list_first_entry(&hsk->ready_requests, struct homa_rpc,
				       ready_links);
	} else {
		return NULL;
	}
	list_del_init(&rpc->ready_links);
	rpc->handed_off = true;
	homa_rpc_hold(rpc);
	return rpc;
}

/*
 * One thread blocked in recvmsg, as an entry of hsk->recv_wait: @id set,
 * it waits for that client RPC; else for the next message of a kind in
 * @flags (HOMA_RECVMSG_REQUEST, HOMA_RECVMSG_RESPONSE).
 */
struct homa_interest {
	struct wait_queue_entry wait;
	u64 id;
	int flags;
};

/*
 * The wake function of a struct homa_interest. @key is the RPC that just
 * became ready (homa_sock_wake_receiver()), or NULL to wake every entry.
 * An entry that cannot take the RPC returns 0: it is not woken and does
 * not count as the one exclusive waiter the wake-up is for.
 */
static int homa_interest_wake(struct wait_queue_entry *wait,
			      unsigned int mode, int sync, void *key)
{
	const struct homa_interest *interest =
		container_of(wait, struct homa_interest, wait);
	const struct homa_rpc *rpc = key;

	if (rpc) {
		if (interest->id) {
			if (rpc->id != interest->id)
				return 0;
		} else if (!(interest->flags &
			     (homa_is_client(rpc->id) ? HOMA_RECVMSG_RESPONSE
						      : HOMA_RECVMSG_REQUEST))) {
			return 0;
		}
	}
	return autoremove_wake_function(wait, mode, sync, key);
}

/*
 * A waiter leaves without a message (a signal, its timeout): a wake-up
 * meant for it would be lost, so the first ready message of each kind
 * wakes another waiter.
 */
static void homa_pass_wakeup(struct homa_sock *hsk)
{
	spin_lock_bh(&hsk->lock);
	if (!list_empty(&hsk->ready_responses))
		homa_sock_wake_receiver(hsk,
					list_first_entry(&hsk->ready_responses,
							 struct homa_rpc,
							 ready_links));
	if (!list_empty(&hsk->ready_requests))
		homa_sock_wake_receiver(hsk,
					list_first_entry(&hsk->ready_requests,
							 struct homa_rpc,
							 ready_links));
	spin_unlock_bh(&hsk->lock);
}

/*
 * Wait for a message recvmsg may take: -EAGAIN at once when nonblocking,
 * or once SO_RCVTIMEO has passed (sock_rcvtimeo(), as UDP); -EINTR on a
 * signal. An RPC waited for by id that ends meanwhile (HOMAIOCABORT with
 * error 0, which wakes us) gives homa_claim()'s -EINVAL.
 *
 * A ready message wakes one thread, not all: a thread waiting
 * for any message is an exclusive entry at the tail of hsk->recv_wait, and
 * the wake-up stops at the first that takes the message's kind. Threads
 * waiting by id are non-exclusive entries at the head, each woken only by
 * its own RPC, so one that a thread waiting for any response took first
 * still wakes them (to find it handed off: -EINVAL, as before).
 */
static struct homa_rpc *homa_wait_for_message(struct homa_sock *hsk, u64 id,
					      int flags, bool nonblocking,
					      int *err)
{
	long timeo = sock_rcvtimeo(&hsk->inet.sk, nonblocking);
	struct homa_interest interest = { .id = id, .flags = flags };
	bool slept = false;
	struct homa_rpc *rpc;

	init_wait_entry(&interest.wait, 0);
	interest.wait.func = homa_interest_wake;
	*err = 0;
	for (;;) {
		if (id)
			prepare_to_wait(&hsk->recv_wait, &interest.wait,
					TASK_INTERRUPTIBLE);
		else
			prepare_to_wait_exclusive(&hsk->recv_wait,
						  &interest.wait,
						  TASK_INTERRUPTIBLE);
		spin_lock_bh(&hsk->lock);
		rpc = homa_claim(hsk, id, flags, err);
		spin_unlock_bh(&hsk->lock);
		if (rpc || *err)
			break;
		if (!timeo) {
			*err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			*err = -EINTR;
			break;
		}
		timeo = schedule_timeout(timeo);
		slept = true;
	}
	finish_wait(&hsk->recv_wait, &interest.wait);
	if (slept && !rpc && !id && (*err == -EAGAIN || *err == -EINTR))
		homa_pass_wakeup(hsk);
	return rpc;
}

/* Copy a complete incoming message into its bpages; no lock held. */
static int homa_copy_to_user(struct homa_rpc *rpc)
{
	unsigned long region = rpc->hsk->pool.region;
	struct homa_skb_info *info;
	struct iov_iter iter;
	struct sk_buff *skb;
	int off, pos, left, chunk, bp, in;
	void __user *dst;

	skb_queue_walk(&rpc->msgin.packets, skb) {
		info = homa_skb_info(skb);
		off = info->offset;
		pos = info->data_offset;
		left = info->length;
		while (left > 0) {
			bp = off >> HOMA_BPAGE_SHIFT;
			in = off & (HOMA_BPAGE_SIZE - 1);
			chunk = min(left, HOMA_BPAGE_SIZE - in);
			if (bp >= rpc->msgin.num_bpages)
				return -EINVAL;
			dst = (void __user *)(region +
					      rpc->msgin.bpage_offsets[bp] + in);
			if (import_ubuf(ITER_DEST, dst, chunk, &iter))
				return -EFAULT;
			if (skb_copy_datagram_iter(skb, pos, &iter, chunk))
				return -EFAULT;
			off += chunk;
			pos += chunk;
			left -= chunk;
		}
	}
	return 0;
}

static void homa_fill_addr(struct homa_sock *hsk, struct homa_rpc *rpc,
			   struct msghdr *msg, int *addr_len)
{
	if (!msg->msg_name)
		return;
	if (homa_sock_is_v6(hsk)) {
		DECLARE_SOCKADDR(struct sockaddr_in6 *, sin6, msg->msg_name);

		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(rpc->dport);
		sin6->sin6_addr = rpc->peer->addr;
		*addr_len = sizeof(*sin6);
	} else {
		DECLARE_SOCKADDR(struct sockaddr_in *, sin, msg->msg_name);

		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = htons(rpc->dport);
		sin->sin_addr.s_addr = rpc->peer->addr.s6_addr32[3];
		*addr_len = sizeof(*sin);
	}
}

/*
 * The copy-out of @control failed after recvmsg handed its bpages to the
 * user: give back each one the user has not returned meanwhile.
 */
static void homa_recvmsg_take_back(struct homa_sock *hsk,
				   const struct homa_recvmsg_args *control)
{
	u32 i;

	spin_lock_bh(&hsk->lock);
	for (i = 0; i < control->num_bpages; i++)
		homa_pool_release_user(&hsk->pool, 1,
				       &control->bpage_offsets[i]);
	homa_rpc_check_waiting(hsk);
	spin_unlock_bh(&hsk->lock);
}

/**
 * homa_recvmsg() - receive a message (see struct homa_recvmsg_args).
 * @sk:       the socket.
 * @msg:      msg_control holds struct homa_recvmsg_args (user memory,
 *            msg_controllen exactly its size); msg_name gets the peer.
 * @len:      unused: messages go to the buffer pool.
 * @flags:    MSG_DONTWAIT counts as HOMA_RECVMSG_NONBLOCKING.
 * @addr_len: set to the length of the address in msg_name.
 *
 * Return: the message length, or a negative errno (for a failed client
 * RPC the id is still written to msg_control).
 */
int homa_recvmsg(struct sock *sk, struct msghdr *msg, size_t len, int flags,
		 int *addr_len)
{
	struct homa_sock *hsk = homa_sk(sk);
	struct homa_ack full[HOMA_MAX_ACKS_PER_PKT];
	struct homa_recvmsg_args control;
	struct homa_rpc *rpc;
	bool nonblocking;
	int result, n;

	if (msg->msg_controllen != sizeof(control))
		return -EINVAL;
	if (copy_from_user(&control, msg->msg_control_user, sizeof(control)))
		return -EFAULT;
	if ((control.flags & ~HOMA_RECVMSG_VALID_FLAGS) ||
	    control.num_bpages > HOMA_MAX_BPAGES)
		return -EINVAL;

	spin_lock_bh(&hsk->lock);
	if (!hsk->pool.refs) {
		result = -EINVAL;
	} else {
		result = homa_pool_release_user(&hsk->pool,
						control.num_bpages,
						control.bpage_offsets);
		if (result == 0)
			homa_rpc_check_waiting(hsk);
	}
	spin_unlock_bh(&hsk->lock);
	if (result)
		return result;
	control.num_bpages = 0;

	if ((control.id && !homa_is_client(control.id)) ||
	    (!control.id && !(control.flags & (HOMA_RECVMSG_REQUEST |
					       HOMA_RECVMSG_RESPONSE)))) {
		result = -EINVAL;
		goto done;
	}
	nonblocking = (flags & MSG_DONTWAIT) ||
		      (control.flags & HOMA_RECVMSG_NONBLOCKING);
	rpc = homa_wait_for_message(hsk, control.id, control.flags,
				    nonblocking, &result);
	if (!rpc)
		goto done;

	control.id = rpc->id;
	control.completion_cookie = rpc->completion_cookie;
	if (rpc->error) {
		result = rpc->error;
	} else {
		result = homa_copy_to_user(rpc);
		if (result == 0) {
			result = rpc->msgin.length;
			control.num_bpages = rpc->msgin.num_bpages;
			memcpy(control.bpage_offsets, rpc->msgin.bpage_offsets,
			       sizeof(control.bpage_offsets));
			homa_fill_addr(hsk, rpc, msg, addr_len);
		}
	}

	n = 0;
	spin_lock_bh(&hsk->lock);
	if (result >= 0) {
		/* They belong to the user. */
		homa_pool_hand_off(&hsk->pool, rpc->msgin.num_bpages,
				   rpc->msgin.bpage_offsets);
		rpc->msgin.num_bpages = 0;
	}
	rpc->handed_off = false;
	if (homa_is_client(rpc->id)) {
		homa_rpc_end(rpc);
		/* Copied out: give the receive memory back now, not when
		 * the RPC is reaped.
		 */
		__skb_queue_purge(&rpc->msgin.packets);
		if (result >= 0)
			n = homa_peer_add_ack(rpc->peer, rpc->id, rpc->dport,
					      full);
		if (n > 0)
			homa_send_acks(hsk, rpc->peer, rpc->dport, rpc->id,
				       full, n);
	} else if (result < 0) {
		homa_rpc_end(rpc);
	} else if (rpc->state == RPC_INCOMING) {
		rpc->state = RPC_IN_SERVICE;
		__skb_queue_purge(&rpc->msgin.packets);
	}
	homa_rpc_put(rpc);
	spin_unlock_bh(&hsk->lock);
	homa_rpc_reap_some(hsk);

done:
	if (copy_to_user(msg->msg_control_user, &control, sizeof(control))) {
		result = -EFAULT;
		/* The user never learns of the bpages: take them back. */
		if (control.num_bpages > 0)
			homa_recvmsg_take_back(hsk, &control);
	}
	return result;
}
