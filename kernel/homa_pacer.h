/* SPDX-License-Identifier: BSD-2-Clause */

/* The pacer's state (homa_pacer.c): NIC queue accounting and the list of
 * RPCs that wait for it; its thread is homa_pacer_main() (homa_outgoing.c).
 * homa->throttle_lock guards the list (lock order in homa_impl.h).
 */

#ifndef _HOMA_PACER_H
#define _HOMA_PACER_H

#include "homa_impl.h"

/**
 * homa_tx_room() - is the queue below Homa short enough for more DATA?
 * @homa: the protocol state.
 *
 * Return: true if homa->tx_queued is under max_tx_queue_kb.
 */
static inline bool homa_tx_room(struct homa *homa)
{
	return atomic_read(&homa->tx_queued) <
	       READ_ONCE(homa->max_tx_queue_kb) * 1024;
}

bool homa_check_nic_queue(struct homa *homa, int bytes, bool force);
void homa_tx_skb_done(struct sk_buff *skb);
void homa_tx_charge(struct sk_buff *skb);
void homa_tx_charge_segments(struct sk_buff *skb, struct sk_buff *segs);
void homa_add_to_throttled(struct homa_rpc *rpc);
void homa_remove_from_throttled(struct homa_rpc *rpc);

#endif /* _HOMA_PACER_H */
