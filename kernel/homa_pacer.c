// SPDX-License-Identifier: BSD-2-Clause

/* The pacer's state: keeps the queue below Homa short, so that a short
 * message never waits behind much of a long one. Two bounds, both needed
 * before a packet goes out at once:
 *   - what the devices say: DATA skbs carry homa_tx_skb_done() as their
 *     destructor, which runs when the device (or the qdisc that drops it)
 *     releases them, so homa->tx_queued is what waits below Homa now, in
 *     qdiscs and transmit rings; it must stay under max_tx_queue_kb. This
 *     is TCP Small Queues' signal, for all of Homa instead of per socket,
 *     since SRPT orders all messages of the host. It needs no knowledge
 *     of the link's speed: a slow link (the lab's emulated NIC moves about
 *     0.3 Gbit/s) completes slowly, a fast one quickly.
 *   - an estimate from the configured speed: link_idle_time, advanced by
 *     each packet's time on a link of link_mbps, must be within
 *     max_nic_queue_ns. It only bounds the rate (a device that completes
 *     at once, as loopback does, would otherwise never pace).
 * Otherwise the RPC waits on homa->throttled_rpcs, in SRPT order, and the
 * pacer thread (homa_pacer_main() in homa_outgoing.c: it transmits) sends
 * from the head of the list as completions make room, and from the oldest
 * message every pacer_fifo_every picks. The upstream module later moved
 * this into a queueing discipline of its own, which sees every packet of
 * the device; a destructor needs no qdisc configured on each device and
 * sees Homa's own packets, which is what the pacer orders. This file
 * transmits nothing.
 */

#include "homa_impl.h"
#include "homa_pacer.h"
#include "homa_rpc.h"
#include "homa_sock.h"

/**
 * homa_check_nic_queue() - account for @bytes on the wire, unless the NIC
 * queue is already longer than max_nic_queue_ns.
 * @homa:  the protocol state.
 * @bytes: bytes about to be transmitted (headers included).
 * @force: account even if the queue is long (the pacer always sends one).
 *
 * Return: true if the bytes were accounted (send them now).
 */
bool homa_check_nic_queue(struct homa *homa, int bytes, bool force)
{
	u64 now = ktime_get_ns();
	u64 cost = (u64)bytes * 8000 / max(READ_ONCE(homa->link_mbps), 1);
	u64 idle, new_idle;

	if (!force && !homa_tx_room(homa))
		return false;
	do {
		idle = atomic64_read(&homa->link_idle_time);
		if (!force && idle > now + READ_ONCE(homa->max_nic_queue_ns))
			return false;
		new_idle = max(idle, now) + cost;
	} while (atomic64_cmpxchg(&homa->link_idle_time, idle, new_idle) !=
		 idle);
	return true;
}

/**
 * homa_tx_skb_done() - destructor of Homa's DATA skbs: the device (or
 * whatever dropped the skb) is done with it. Its memory leaves
 * homa->tx_queued, the pacer is woken if that made room, and the socket's
 * write memory is released as for any skb (sock_wfree()).
 * @skb: the skb.
 */
void homa_tx_skb_done(struct sk_buff *skb)
{
	struct homa *homa = &homa_global;
	int left = atomic_sub_return(skb->truesize, &homa->tx_queued);

	HOMA_GLOBAL_ADD(tx_queued_bytes, -(s64)skb->truesize);
	/* Only once half the queue has gone, and only if a message waits:
	 * waking the pacer for each packet the device sends costs a context
	 * switch per packet (the lab's 100 B echo: Homa/TCP median 1.12
	 * instead of 0.86), and the pacer sends as much as there is room
	 * for when it runs. The barrier of wq_has_sleeper() pairs with the
	 * pacer's prepare_to_wait().
	 */
	if (left < READ_ONCE(homa->max_tx_queue_kb) * 512 &&
	    !list_empty(&homa->throttled_rpcs) &&
	    wq_has_sleeper(&homa->pacer_wait))
		wake_up(&homa->pacer_wait);
	sock_wfree(skb);
}

/**
 * homa_tx_charge() - count @skb, owned by its socket (skb_set_owner_w()),
 * in homa->tx_queued until the device releases it.
 * @skb: a DATA skb about to be handed to IP.
 */
void homa_tx_charge(struct sk_buff *skb)
{
	atomic_add(skb->truesize, &homa_global.tx_queued);
	HOMA_GLOBAL_ADD(tx_queued_bytes, skb->truesize);
	skb->destructor = homa_tx_skb_done;
}

/**
 * homa_tx_charge_segments() - software GSO cut @skb, a charged DATA skb,
 * into @segs: each segment is owned and charged as an skb of its own, so
 * that the queue below Homa counts the segments until the device sends
 * them, not only until the cut (as tcp_gso_segment() keeps TCP Small
 * Queues' count). @skb keeps its own charge until it is freed, just after.
 * @skb:  the GSO skb.
 * @segs: its segments.
 */
void homa_tx_charge_segments(struct sk_buff *skb, struct sk_buff *segs)
{
	struct sock *sk = skb->sk;
	struct sk_buff *seg;

	for (seg = segs; seg; seg = seg->next) {
		seg->sk = sk;
		/* @skb's own charge keeps the count above 0: @sk lives. */
		refcount_add(seg->truesize, &sk->sk_wmem_alloc);
		homa_tx_charge(seg);
	}
}

/**
 * homa_add_to_throttled() - put an RPC whose next packet must wait on the
 * pacer's list, in SRPT order (fewest bytes left first), and wake the
 * pacer.
 * @rpc: the RPC; the socket lock is held.
 */
void homa_add_to_throttled(struct homa_rpc *rpc)
{
	struct homa *homa = rpc->hsk->homa;
	struct homa_rpc *cand;
	int left;

	lockdep_assert_held(&rpc->hsk->lock);
	left = rpc->msgout.length - rpc->msgout.next_xmit;
	spin_lock_bh(&homa->throttle_lock);
	if (rpc->msgout.throttled) {
		spin_unlock_bh(&homa->throttle_lock);
		return;
	}
	list_for_each_entry(cand, &homa->throttled_rpcs, throttled_links) {
		if (READ_ONCE(cand->msgout.length) -
		    READ_ONCE(cand->msgout.next_xmit) > left) {
			list_add_tail(&rpc->throttled_links,
				      &cand->throttled_links);
			goto added;
		}
	}
	list_add_tail(&rpc->throttled_links, &homa->throttled_rpcs);
added:
	rpc->msgout.throttled = true;
	spin_unlock_bh(&homa->throttle_lock);
	HOMA_INC(rpc->hsk->hnet, throttled_rpcs_added);
	wake_up(&homa->pacer_wait);
}

/**
 * homa_remove_from_throttled() - take an RPC off the pacer's list.
 * @rpc: the RPC; the socket lock is held.
 */
void homa_remove_from_throttled(struct homa_rpc *rpc)
{
	struct homa *homa = rpc->hsk->homa;

	lockdep_assert_held(&rpc->hsk->lock);
	spin_lock_bh(&homa->throttle_lock);
	if (rpc->msgout.throttled) {
		list_del_init(&rpc->throttled_links);
		rpc->msgout.throttled = false;
	}
	spin_unlock_bh(&homa->throttle_lock);
}
