// SPDX-License-Identifier: BSD-2-Clause

/* The timer thread: every tick (1 ms) it looks at every RPC
 * for silence (RESEND, timeouts), asks clients for acks (NEED_ACK) and
 * reaps dead RPCs.
 */

#include <linux/hrtimer.h>
#include <linux/slab.h>

#include "homa_impl.h"
#include "homa_rpc.h"
#include "homa_sock.h"

/* One RPC, one tick; the socket lock is held. May end the RPC. */
static void homa_check_rpc(struct homa_rpc *rpc)
{
	struct homa *homa = rpc->hsk->homa;
	struct homa_need_ack_hdr h = {};

	if (rpc->error || rpc->handed_off)
		return;
	if (rpc->state == RPC_OUTGOING) {
		if (rpc->msgout.next_xmit < rpc->msgout.length) {
			rpc->silent_ticks = 0;
			return;
		}
		if (!homa_is_client(rpc->id)) {
			/* Response sent: wait a little, then ask for an ack
			 * every tick until one comes.
			 */
			if (rpc->done_timer_ticks == 0) {
				rpc->done_timer_ticks = homa->timer_ticks;
				return;
			}
			if (homa->timer_ticks - rpc->done_timer_ticks >=
			    homa->request_ack_ticks)
				homa_xmit_control(rpc, NEED_ACK, &h, sizeof(h));
			return;
		}
	} else if (rpc->state == RPC_INCOMING) {
		if (rpc->msgin.waiting_for_bufs) {
			rpc->silent_ticks = 0;
			return;
		}
		if (rpc->msgin.length >= 0 && rpc->msgin.bytes_remaining == 0)
			return;
	} else {
		/* Server RPC being served. */
		rpc->silent_ticks = 0;
		return;
	}

	rpc->silent_ticks++;
	if (rpc->silent_ticks >= homa->timeout_ticks) {
		HOMA_INC(timeouts);
		homa_rpc_abort(rpc, -ETIMEDOUT);
		return;
	}
	if (rpc->silent_ticks >= homa->resend_ticks &&
	    (rpc->silent_ticks - homa->resend_ticks) %
	    homa->resend_interval == 0)
		homa_request_retrans(rpc);
}

static void homa_timer_sock(struct homa_sock *hsk)
{
	struct homa_rpc *rpc, *tmp;

	if (list_empty(&hsk->active_rpcs))
		return;	/* Racy peek: an RPC created now waits a tick. */
	spin_lock_bh(&hsk->lock);
	if (!hsk->shutdown) {
		list_for_each_entry_safe(rpc, tmp, &hsk->active_rpcs,
					 active_links)
			homa_check_rpc(rpc);
	}
	spin_unlock_bh(&hsk->lock);
}

/**
 * homa_timer() - one tick of the timer: check every RPC of every socket
 * and reap dead RPCs.
 * @homa: the protocol state.
 */
void homa_timer(struct homa *homa)
{
	struct homa_sock **socks;
	int i, n;

	homa->timer_ticks++;
	if (homa->timer_ticks == 0)
		homa->timer_ticks = 1;
	n = homa_sock_collect(homa, &socks);
	for (i = 0; i < n; i++) {
		homa_timer_sock(socks[i]);
		if (READ_ONCE(socks[i]->dead_count) > 0)
			homa_rpc_reap(socks[i], homa->reap_limit);
		sock_put(&socks[i]->inet.sk);
	}
	kfree(socks);
}

/**
 * homa_timer_main() - the timer thread; runs homa_timer() every 1 ms.
 * @arg: the struct homa.
 *
 * Return: 0 when stopped.
 */
int homa_timer_main(void *arg)
{
	struct homa *homa = arg;
	ktime_t tick;

	while (!kthread_should_stop()) {
		tick = ms_to_ktime(1);
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule_hrtimeout(&tick, HRTIMER_MODE_REL);
		__set_current_state(TASK_RUNNING);
		if (kthread_should_stop())
			break;
		homa_timer(homa);
	}
	return 0;
}
