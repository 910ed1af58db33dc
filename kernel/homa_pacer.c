// SPDX-License-Identifier: BSD-2-Clause

/* The pacer: keeps the NIC queue short. A packet is sent at once only if
 * the link is idle within max_nic_queue_ns (link_idle_time, advanced by
 * each packet's time on a link of link_mbps); otherwise its RPC waits on
 * homa->throttled_rpcs, in SRPT order, and the pacer thread sends from the
 * head of the list as the queue drains.
 */

#include <linux/delay.h>
#include <linux/kthread.h>

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

/* Send throttled packets until the list is empty, in SRPT order. */
static void homa_pacer_xmit(struct homa *homa)
{
	struct homa_sock *hsk;
	struct homa_rpc *rpc;
	u64 now, idle, limit;

	while (!kthread_should_stop()) {
		now = ktime_get_ns();
		idle = atomic64_read(&homa->link_idle_time);
		limit = READ_ONCE(homa->max_nic_queue_ns);
		if (idle > now + limit) {
			u64 wait_us = (idle - now - limit) / 1000;

			if (wait_us > 1000)
				wait_us = 1000;
			if (wait_us < 5)
				cond_resched();
			else
				usleep_range(wait_us, wait_us + 5);
			continue;
		}
		spin_lock_bh(&homa->throttle_lock);
		if (list_empty(&homa->throttled_rpcs)) {
			spin_unlock_bh(&homa->throttle_lock);
			break;
		}
		rpc = list_first_entry(&homa->throttled_rpcs, struct homa_rpc,
				       throttled_links);
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
