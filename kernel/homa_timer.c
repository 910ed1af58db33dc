// SPDX-License-Identifier: BSD-2-Clause

/* The timer thread: every tick (1 ms) it looks at every RPC
 * for silence (RESEND, timeouts), asks clients for acks (NEED_ACK) and
 * reaps dead RPCs.
 */

#include <linux/hrtimer.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "homa_impl.h"
#include "homa_peer.h"
#include "homa_rpc.h"
#include "homa_sock.h"

/* RPCs the timer checks between two releases of their socket's lock. */
#define HOMA_TIMER_BATCH 64

/* Longest wait, in ticks, between two NEED_ACKs for one RPC. */
#define HOMA_NEED_ACK_MAX_INTERVAL 32

/* A server RPC whose response is fully sent waits for the client's ACK.
 * It asks with NEED_ACK request_ack_ticks after the last byte went out,
 * then again after intervals that double up to HOMA_NEED_ACK_MAX_INTERVAL,
 * and it is freed once the client has been silent for timeout_ticks: a
 * client that is alive answers NEED_ACK (with ACK) or asks for missing
 * bytes (RESEND, which resets silent_ticks), so silence that long means
 * the client is gone, or never existed (a spoofed request). Without this
 * bound the RPC, its buffers and a NEED_ACK every tick would live forever.
 */
static void homa_check_done_server(struct homa_rpc *rpc)
{
	struct homa *homa = rpc->hsk->homa;
	u32 now = homa->timer_ticks;
	struct homa_need_ack_hdr h = {};

	if (rpc->done_timer_ticks == 0) {
		rpc->done_timer_ticks = now;
		rpc->silent_ticks = 0;
		rpc->need_ack_tick = now + homa->request_ack_ticks;
		rpc->need_ack_interval = max(homa->request_ack_ticks, 1);
		return;
	}
	rpc->silent_ticks++;
	if (rpc->silent_ticks >= homa->timeout_ticks) {
		HOMA_INC(timeouts);
		HOMA_INC(ack_timeouts);
		homa_rpc_end(rpc);
		return;
	}
	if ((s32)(now - rpc->need_ack_tick) < 0)
		return;
	homa_xmit_control(rpc, NEED_ACK, &h, sizeof(h));
	rpc->need_ack_tick = now + rpc->need_ack_interval;
	rpc->need_ack_interval = min_t(u32, 2 * rpc->need_ack_interval,
				       HOMA_NEED_ACK_MAX_INTERVAL);
}

/*
 * An incoming message that waits for buffer space, one tick. The v4 seed
 * holds silent_ticks at 0 while a message waits: the wait is the
 * receiver's doing, so it must not count as the sender's silence. But a
 * server RPC is made by any host with one DATA packet that claims more
 * than the pool can give, and under that rule it (and the pool space it
 * blocks, see homa_pool_check_waiting()) lives forever. So server RPCs
 * count silence while they wait. A live client needs no help from us to
 * be heard: while it has no response its own timer sends a RESEND every
 * resend_interval ticks, and each resets silent_ticks here
 * (homa_resend_pkt() answers BUSY, which keeps the client from timing out
 * in turn). Its DATA does not: a packet dropped while the message waits
 * is not progress (homa_data_pkt()). Only a client that is
 * gone, or never existed, is silent for timeout_ticks. Nothing is asked
 * of the sender meanwhile: what it sent now would be dropped.
 * Client RPCs keep the seed's rule: the local application made them, and
 * it holds the bpages they wait for.
 */
static void homa_check_waiting_rpc(struct homa_rpc *rpc)
{
	if (homa_is_client(rpc->id)) {
		rpc->silent_ticks = 0;
		return;
	}
	rpc->silent_ticks++;
	if (rpc->silent_ticks >= rpc->hsk->homa->timeout_ticks) {
		HOMA_INC(timeouts);
		HOMA_INC(buf_timeouts);
		homa_rpc_end(rpc);
	}
}

/* One RPC, one tick; the socket lock is held. May end the RPC. */
static void homa_check_rpc(struct homa_rpc *rpc)
{
	struct homa *homa = rpc->hsk->homa;

	if (rpc->error || rpc->handed_off)
		return;
	if (rpc->state == RPC_OUTGOING) {
		if (rpc->msgout.next_xmit < rpc->msgout.length) {
			rpc->silent_ticks = 0;
			return;
		}
		if (!homa_is_client(rpc->id)) {
			homa_check_done_server(rpc);
			return;
		}
	} else if (rpc->state == RPC_INCOMING) {
		if (rpc->msgin.waiting_for_bufs) {
			homa_check_waiting_rpc(rpc);
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
	if (rpc->resend_wait > 0)
		rpc->resend_wait--;
	if (rpc->silent_ticks >= homa->timeout_ticks) {
		HOMA_INC(timeouts);
		homa_rpc_abort(rpc, rpc->soft_error ?: -ETIMEDOUT);
		return;
	}
	if (rpc->silent_ticks < homa->resend_ticks || rpc->resend_wait > 0)
		return;
	if (!homa_peer_resend_ok(homa, rpc->peer)) {
		/* Deferred by the per-peer bound: a wait of our own making is
		 * not the peer's silence while it is plainly alive (heard in
		 * the last half timeout). A dead peer is not heard, and its
		 * RPCs time out as usual, at most half a timeout late.
		 */
		HOMA_INC(resends_deferred);
		if (homa_peer_heard_within(homa, rpc->peer,
					   homa->timeout_ticks / 2))
			rpc->silent_ticks--;
		return;
	}
	homa_request_retrans(rpc);
	rpc->resend_wait = homa_resend_gap(homa, rpc->busy_backoff);
}

/**
 * homa_resend_gap() - ticks until an RPC's next RESEND.
 * @homa:    the protocol state.
 * @backoff: BUSY answers since the RPC last made progress.
 *
 * Without BUSYs it is resend_interval, as the spec has it: RESENDs then
 * recover lost packets. A BUSY says the peer is alive but not ready (a
 * server still working on the request), and asking again every
 * resend_interval only adds to its load: each BUSY doubles
 * the interval, up to a third of timeout_ticks (so the peer is still
 * asked about three times before the RPC could time out), less up to
 * half of it at random, so that RPCs that went quiet together do not ask
 * together.
 *
 * Return: the number of ticks.
 */
u32 homa_resend_gap(struct homa *homa, int backoff)
{
	u32 gap = READ_ONCE(homa->resend_interval);
	u32 cap = max_t(u32, READ_ONCE(homa->timeout_ticks) / 3, gap);

	if (backoff <= 0)
		return gap;
	gap = min_t(u32, gap << min(backoff, HOMA_BUSY_BACKOFF_MAX), cap);
	return gap - get_random_u32_below(gap / 2 + 1);
}

/*
 * One tick for every RPC of @hsk. The socket lock (taken with bottom
 * halves off) is dropped every HOMA_TIMER_BATCH RPCs, so that a socket
 * with thousands of RPCs neither holds off its own packets for the whole
 * walk nor keeps the CPU from others. No pointer survives the unlock: the
 * walk takes the first RPC of the list each time and moves it to the
 * tail, stamped with the tick; it is done when the first RPC already has
 * this tick's stamp. RPCs that die meanwhile have left the list, and
 * those created meanwhile are checked with the rest.
 */
static void homa_timer_sock(struct homa_sock *hsk)
{
	u32 now = hsk->homa->timer_ticks;
	struct homa_rpc *rpc;
	int n = 0;

	if (list_empty(&hsk->active_rpcs))
		return;	/* Racy peek: an RPC created now waits a tick. */
	spin_lock_bh(&hsk->lock);
	while (!hsk->shutdown && !list_empty(&hsk->active_rpcs)) {
		rpc = list_first_entry(&hsk->active_rpcs, struct homa_rpc,
				       active_links);
		if (rpc->timer_tick == now)
			break;
		rpc->timer_tick = now;
		list_move_tail(&rpc->active_links, &hsk->active_rpcs);
		homa_check_rpc(rpc);
		if (++n % HOMA_TIMER_BATCH == 0) {
			spin_unlock_bh(&hsk->lock);
			cond_resched();
			spin_lock_bh(&hsk->lock);
		}
	}
	spin_unlock_bh(&hsk->lock);
}

/*
 * Reap the dead RPCs of @hsk (those that were dead when the tick began),
 * reap_limit at a time with the lock dropped in between, so that the
 * bpages and skbs of RPCs that died (timed out, acked, aborted) come back
 * within a tick even while the application sleeps in recvmsg and makes
 * no system call that would reap them. RPCs that are still referenced
 * are retried next tick.
 */
static void homa_timer_reap(struct homa *homa, struct homa_sock *hsk)
{
	int limit = max(READ_ONCE(homa->reap_limit), 1);
	int todo = READ_ONCE(hsk->dead_count);
	int n;

	while (todo > 0) {
		n = homa_rpc_reap(hsk, min(limit, todo));
		if (n < min(limit, todo))
			break;
		todo -= n;
		cond_resched();
	}
}

/**
 * homa_timer() - one tick of the timer: check every RPC of every socket
 * and reap dead RPCs; free idle peers.
 * @homa: the protocol state.
 */
void homa_timer(struct homa *homa)
{
	u64 start = ktime_get_ns();
	struct homa_sock **socks;
	int i, n;

	homa->timer_ticks++;
	if (homa->timer_ticks == 0)
		homa->timer_ticks = 1;
	n = homa_sock_collect(homa, &socks);
	for (i = 0; i < n; i++) {
		homa_timer_sock(socks[i]);
		homa_timer_reap(homa, socks[i]);
		sock_put(&socks[i]->inet.sk);
	}
	kfree(socks);
	/* Idle peers (bounded work per tick). */
	homa_peer_gc(homa);
	HOMA_INC(timer_runs);
	HOMA_ADD(timer_ns, ktime_get_ns() - start);
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
