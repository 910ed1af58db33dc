/* SPDX-License-Identifier: BSD-2-Clause */

/* The timer (homa_timer.c). Each socket has a wheel of HOMA_TIMER_SLOTS
 * lists, one per tick, under its lock; an RPC sits on the slot of the tick
 * when the timer should next look at it (silence, RESEND, timeout). Arming
 * is inline: the receive and transmit paths, below the timer in the file
 * layering (kernel/README.md), arm RPCs too.
 */

#ifndef _HOMA_TIMER_H
#define _HOMA_TIMER_H

#include "homa_impl.h"
#include "homa_rpc.h"
#include "homa_sock.h"

/*
 * Put @rpc on the slot of @hsk's wheel for @due, bounded to the ticks the
 * wheel covers: after the last slot taken, and less than a turn ahead (so
 * every RPC on a slot the timer takes is due). Socket lock held.
 */
static inline void homa_timer_place(struct homa_sock *hsk,
				    struct homa_rpc *rpc, u32 due)
{
	u32 first = hsk->wheel_tick + 1;

	lockdep_assert_held(&hsk->lock);
	if ((s32)(due - first) < 0)
		due = first;
	else if (due - first >= HOMA_TIMER_SLOTS - 1)
		due = first + HOMA_TIMER_SLOTS - 2;
	rpc->due_tick = due;
	list_move_tail(&rpc->timer_links,
		       &hsk->timer_wheel[due % HOMA_TIMER_SLOTS]);
}

/**
 * homa_rpc_timer_arm() - have the timer check @rpc no later than @due
 * (something happened that gives it work: a message fully sent, buffer
 * space found). An RPC already due earlier keeps its tick.
 * @rpc: the RPC; the socket lock is held.
 * @due: the tick.
 */
static inline void homa_rpc_timer_arm(struct homa_rpc *rpc, u32 due)
{
	lockdep_assert_held(&rpc->hsk->lock);
	if (rpc->state == RPC_DEAD)
		return;
	if (!list_empty(&rpc->timer_links) &&
	    (s32)(rpc->due_tick - due) <= 0)
		return;
	homa_timer_place(rpc->hsk, rpc, due);
}

u32 homa_resend_gap(struct homa_net *hnet, int backoff);
int homa_timer_main(void *arg);
void homa_timer(struct homa *homa);

#endif /* _HOMA_TIMER_H */
