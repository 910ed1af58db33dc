// SPDX-License-Identifier: BSD-2-Clause

/* The pacer's state: keeps the NIC queue short. A packet is sent at once
 * only if the link is idle within max_nic_queue_ns (link_idle_time,
 * advanced by each packet's time on a link of link_mbps); otherwise its
 * RPC waits on homa->throttled_rpcs, in SRPT order, and the pacer thread
 * (homa_pacer_main() in homa_outgoing.c: it transmits) sends from the head
 * of the list as the queue drains. This file transmits nothing.
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
