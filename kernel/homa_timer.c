// SPDX-License-Identifier: BSD-2-Clause

/* The timer thread: every tick (about 1 ms) it looks at the RPCs that
 * are due for a look (silence: RESEND, timeouts; NEED_ACK to clients) and
 * reaps dead RPCs.
 */

#include <linux/hrtimer.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "homa_impl.h"
#include "homa_peer.h"
#include "homa_rpc.h"
#include "homa_sock.h"
#include "homa_timer.h"

/* RPCs the timer checks between two releases of their socket's lock. */
#define HOMA_TIMER_BATCH 64

/*
 * RPCs per peer with an unanswered RESEND that the peer has not said BUSY
 * to, as a multiple of resend_peer_limit (homa_resend_wait()).
 */
#define HOMA_RESEND_LOSS_FACTOR 4

/* Longest wait, in ticks, between two NEED_ACKs for one RPC. */
#define HOMA_NEED_ACK_MAX_INTERVAL 32

/*
 * Ticks of silence of @rpc at @now. live_tick is set from the timer's own
 * tick count and so is never ahead of @now; the clamp keeps a mistake
 * there from reading as a huge silence (an instant timeout).
 */
static u32 homa_silence(const struct homa_rpc *rpc, u32 now)
{
	s32 silence = now - rpc->live_tick;

	return silence > 0 ? silence : 0;
}

/*
 * The checks below each act on one RPC that is due and return the tick at
 * which it is due next (homa_timer_place() bounds it). Silence is the
 * time since rpc->live_tick. The socket lock is held; a check may end the
 * RPC, and then its return value is not used.
 */

/*
 * A server RPC whose response is fully sent waits for the client's ACK.
 * It asks with NEED_ACK request_ack_ticks after the last byte went out,
 * then again after intervals that double up to HOMA_NEED_ACK_MAX_INTERVAL,
 * and it is freed once the client has been silent for timeout_ticks: a
 * client that is alive answers NEED_ACK (with ACK) or asks for missing
 * bytes (RESEND, which counts as life), so silence that long means the
 * client is gone, or never existed (a spoofed request). Without this
 * bound the RPC, its buffers and a NEED_ACK every tick would live forever.
 */
static u32 homa_check_done_server(struct homa_rpc *rpc, u32 now)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	u32 timeout = READ_ONCE(hnet->timeout_ticks);
	struct homa_need_ack_hdr h = {};
	u32 req = READ_ONCE(hnet->request_ack_ticks);

	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->need_ack_interval == 0) {
		/* live_tick: when homa_xmit_data() sent the last byte. */
		rpc->need_ack_tick = rpc->live_tick + req;
		rpc->need_ack_interval = max(req, 1U);
	}
	if (homa_silence(rpc, now) >= timeout) {
		HOMA_INC(hnet, timeouts);
		HOMA_INC(hnet, ack_timeouts);
		homa_rpc_end(rpc);
		return now;
	}
	if ((s32)(now - rpc->need_ack_tick) >= 0) {
		homa_xmit_control(rpc, NEED_ACK, &h, sizeof(h));
		rpc->need_ack_tick = now + rpc->need_ack_interval;
		rpc->need_ack_interval = min_t(u32, 2 * rpc->need_ack_interval,
					       HOMA_NEED_ACK_MAX_INTERVAL);
	}
	return homa_tick_min(rpc->need_ack_tick, rpc->live_tick + timeout);
}

/*
 * An incoming message that waits for buffer space. The v4 seed does not
 * count silence while a message waits: the wait is the receiver's doing,
 * so it must not count as the sender's silence. But a server RPC is made
 * by any host with one DATA packet that claims more than the pool can
 * give, and under that rule it (and the pool space it blocks, see
 * homa_rpc_check_waiting()) lives forever. So server RPCs count silence
 * while they wait. A live client needs no help from us to be heard: while
 * it has no response its own timer sends a RESEND every resend_interval
 * ticks, and each counts as life (homa_resend_pkt() answers BUSY, which
 * keeps the client from timing out in turn). Its DATA does not: a packet
 * dropped while the message waits is not progress (homa_data_pkt()). Only
 * a client that is gone, or never existed, is silent for timeout_ticks.
 * Nothing is asked of the sender meanwhile: what it sent now would be
 * dropped. Client RPCs keep the seed's rule (homa_check_rpc() leaves
 * them alone until homa_rpc_check_waiting() arms them): the local
 * application made them, and it holds the bpages they wait for.
 */
static u32 homa_check_waiting_rpc(struct homa_rpc *rpc, u32 now)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	u32 timeout = READ_ONCE(hnet->timeout_ticks);

	lockdep_assert_held(&rpc->hsk->lock);
	if (homa_silence(rpc, now) >= timeout) {
		HOMA_INC(hnet, timeouts);
		HOMA_INC(hnet, buf_timeouts);
		homa_rpc_end(rpc);
		return now;
	}
	return rpc->live_tick + timeout;
}

/*
 * May @rpc ask its peer for retransmission now?
 * A host with many RPCs outstanding to one slow peer must not flood it
 * with RESENDs (each answered by a BUSY) while it should be serving them.
 * Two bounds apply per peer: RPCs that ask in one tick (resend_peer_limit),
 * and RPCs whose RESEND is not answered yet. The second clocks RESENDs by
 * the answers, as acknowledgements clock TCP: when the answers come late
 * (the peer, or the path, is behind), fewer RESENDs go out, instead of a
 * fixed rate that builds a queue of RESENDs and BUSYs in front of the
 * answers that would end the wait. It is resend_peer_limit for RPCs the
 * peer said BUSY to, and HOMA_RESEND_LOSS_FACTOR times that for the
 * others, whose RESENDs recover lost packets: with the small bound on
 * every RESEND, the debug kernel's stress test under random loss had RPCs
 * time out (2 of 2 runs), and with no bound on those, the first wave of
 * 2,000 RPCs to a slow server did (8 timed out, a fifth of the RESENDs
 * still unanswered at the end). An RPC that already waits for its answer
 * asks again (its RESEND may be lost) within the first bound only; its
 * place in the second is free once anything comes for it, or it ends
 * (homa_rpc_resend_answered()), so a lost RESEND holds a place at most
 * until its RPC times out.
 * The others are told how long to wait, in the order they asked (the
 * k-th one past the limit in a tick waits 1 + k / limit ticks, at most
 * timeout_ticks), so that the timer looks at each again about when its
 * turn comes rather than at every one in every tick. @hnet: Homa in the
 * peer's namespace. Socket lock held. Return 0 if the RPC may send its
 * RESENDs now (it is counted, and marked as waiting for an answer), else
 * the ticks to wait.
 */
static u32 homa_resend_wait(struct homa_net *hnet, struct homa_rpc *rpc)
{
	u32 limit = max(READ_ONCE(hnet->resend_peer_limit), 1);
	struct homa_peer *peer = rpc->peer;
	u32 now = homa_ticks_now();
	u32 excess;

	lockdep_assert_held(&rpc->hsk->lock);
	if (peer->resend_tick != now) {
		peer->resend_tick = now;
		peer->resends = 0;
	}
	excess = peer->resends++;
	if (excess < limit) {
		if (rpc->resend_pending)
			return 0;
		/* Only this thread raises the count: no race to the bound. */
		if (atomic_read(&peer->resends_pending) <
		    (rpc->busy_backoff ? limit :
					 HOMA_RESEND_LOSS_FACTOR * limit)) {
			atomic_inc(&peer->resends_pending);
			rpc->resend_pending = true;
			return 0;
		}
		HOMA_INC(hnet, resends_unanswered_wait);
		return 1;
	}
	excess -= limit;
	return min(1 + excess / limit, max(READ_ONCE(hnet->timeout_ticks), 1));
}

/*
 * An RPC that waits for the peer: ask for what is missing (RESEND) once
 * silence reaches resend_ticks and then every homa_resend_gap() ticks,
 * within the peer's bounds (homa_resend_wait()); abort it after
 * timeout_ticks of silence. @deferred: the last check wanted a RESEND
 * and the per-peer bound made it wait, @since ticks ago. That wait was of
 * our own making: it is not the peer's silence while the peer is plainly
 * alive (heard in the last half timeout). A dead peer is not heard, and
 * its RPCs time out as usual, at most half a timeout late.
 */
static u32 homa_check_silent_rpc(struct homa_rpc *rpc, u32 now,
				 bool deferred, u32 since)
{
	struct homa_net *hnet = rpc->hsk->hnet;
	u32 timeout = READ_ONCE(hnet->timeout_ticks);
	u32 first = READ_ONCE(hnet->resend_ticks);
	u32 wait, timeout_at;

	lockdep_assert_held(&rpc->hsk->lock);
	if (deferred && homa_peer_heard_within(rpc->hsk->homa, rpc->peer,
					       timeout / 2)) {
		rpc->live_tick += since;
		if ((s32)(rpc->live_tick - now) > 0)
			rpc->live_tick = now;
	}
	if (homa_silence(rpc, now) >= timeout) {
		HOMA_INC(hnet, timeouts);
		homa_rpc_abort(rpc, rpc->soft_error ?: -ETIMEDOUT);
		return now;
	}
	timeout_at = rpc->live_tick + timeout;
	if (homa_silence(rpc, now) < first)
		return homa_tick_min(rpc->live_tick + first, timeout_at);
	if ((s32)(now - rpc->resend_tick) < 0)
		return homa_tick_min(rpc->resend_tick, timeout_at);
	wait = homa_resend_wait(hnet, rpc);
	if (wait) {
		HOMA_INC(hnet, resends_deferred);
		rpc->resend_deferred = true;
		return homa_tick_min(now + wait, timeout_at);
	}
	homa_request_retrans(rpc);
	rpc->resend_tick = now + homa_resend_gap(hnet, rpc->busy_backoff);
	return homa_tick_min(rpc->resend_tick, timeout_at);
}

/*
 * One due RPC: act on it. Return true and the tick at which it is due next
 * in @next, or false if it has nothing for the timer to do until an event
 * arms it again (homa_rpc_timer_arm()): the application has it (in
 * service, complete, failed, handed off), or it is still sending, and
 * homa_xmit_data() arms it when the last byte leaves. Socket lock held.
 */
static bool homa_check_rpc(struct homa_rpc *rpc, u32 now, u32 *next)
{
	bool deferred = rpc->resend_deferred;
	u32 since = now - rpc->timer_tick;

	lockdep_assert_held(&rpc->hsk->lock);
	rpc->timer_tick = now;
	rpc->resend_deferred = false;
	if (rpc->error || rpc->handed_off)
		return false;
	if (rpc->state == RPC_OUTGOING) {
		if (rpc->msgout.next_xmit < rpc->msgout.length)
			return false;
		if (!homa_is_client(rpc->id)) {
			*next = homa_check_done_server(rpc, now);
			return true;
		}
	} else if (rpc->state == RPC_INCOMING) {
		if (rpc->msgin.waiting_for_bufs) {
			if (homa_is_client(rpc->id))
				return false;
			*next = homa_check_waiting_rpc(rpc, now);
			return true;
		}
		if (rpc->msgin.length >= 0 && rpc->msgin.bytes_remaining == 0)
			return false;
	} else {
		return false;
	}
	*next = homa_check_silent_rpc(rpc, now, deferred, since);
	return true;
}

/**
 * homa_resend_gap() - ticks until an RPC's next RESEND.
 * @hnet:    Homa in the RPC's namespace (its parameters).
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
u32 homa_resend_gap(struct homa_net *hnet, int backoff)
{
	u32 gap = READ_ONCE(hnet->resend_interval);
	u32 cap = max_t(u32, READ_ONCE(hnet->timeout_ticks) / 3, gap);

	if (backoff <= 0)
		return gap;
	gap = min_t(u32, gap << min(backoff, HOMA_BUSY_BACKOFF_MAX), cap);
	return gap - get_random_u32_below(gap / 2 + 1);
}

/*
 * One run for @hsk: check the RPCs due in the ticks since the last run
 * (all of them if a whole turn of the wheel passed). Each check places the
 * RPC on its next slot, so the cost follows the RPCs that need a look,
 * not the RPCs that exist. The socket lock (taken with bottom halves off)
 * is dropped every HOMA_TIMER_BATCH RPCs, so that a socket with thousands
 * of due RPCs neither holds off its own packets for the whole walk nor
 * keeps the CPU from others. The due RPCs wait on a list of ours
 * meanwhile: an RPC that ends leaves it (homa_rpc_end()), and one armed
 * for later moves to the wheel.
 */
static void homa_timer_sock(struct homa_sock *hsk, u32 now)
{
	struct homa_rpc *rpc;
	u32 slots, i, next;
	LIST_HEAD(due);
	s32 behind;
	int n = 0;

	spin_lock_bh(&hsk->lock);
	behind = now - hsk->wheel_tick;
	slots = behind > 0 ? min_t(u32, behind, HOMA_TIMER_SLOTS) : 0;
	for (i = 1; i <= slots; i++)
		list_splice_tail_init(&hsk->timer_wheel[(hsk->wheel_tick + i) %
							HOMA_TIMER_SLOTS],
				      &due);
	if (slots)
		hsk->wheel_tick = now;
	while (!list_empty(&due)) {
		rpc = list_first_entry(&due, struct homa_rpc, timer_links);
		list_del_init(&rpc->timer_links);
		if (hsk->shutdown)
			continue;
		HOMA_INC(hsk->hnet, timer_checks);
		if (homa_check_rpc(rpc, now, &next) && rpc->state != RPC_DEAD)
			homa_timer_place(hsk, rpc, next);
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
 * homa_timer() - one run of the timer: check the RPCs that are due on
 * every socket and reap dead RPCs; free idle peers.
 * @homa: the protocol state.
 */
void homa_timer(struct homa *homa)
{
	u64 start = ktime_get_ns();
	struct homa_sock **socks;
	u32 now;
	int i, n;

	now = homa->timer_ticks + 1;
	WRITE_ONCE(homa->timer_ticks, now);
	n = homa_sock_collect(homa, &socks);
	for (i = 0; i < n; i++) {
		homa_timer_sock(socks[i], now);
		homa_timer_reap(homa, socks[i]);
		sock_put(&socks[i]->inet.sk);
	}
	kfree(socks);
	/* Idle peers (bounded work per tick). */
	homa_peer_gc(homa);
	HOMA_GLOBAL_ADD(timer_runs, 1);
	HOMA_GLOBAL_ADD(timer_ns, ktime_get_ns() - start);
}

/**
 * homa_timer_main() - the timer thread; runs homa_timer() at the start of
 * every tick.
 * @arg: the struct homa.
 *
 * Return: 0 when stopped.
 */
int homa_timer_main(void *arg)
{
	struct homa *homa = arg;
	ktime_t next;

	while (!kthread_should_stop()) {
		next = ns_to_ktime(((ktime_get_ns() >> HOMA_TICK_SHIFT) + 1) <<
				   HOMA_TICK_SHIFT);
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule_hrtimeout(&next, HRTIMER_MODE_ABS);
		__set_current_state(TASK_RUNNING);
		if (kthread_should_stop())
			break;
		homa_timer(homa);
	}
	return 0;
}
