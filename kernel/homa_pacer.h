/* SPDX-License-Identifier: BSD-2-Clause */

/* The pacer's state (homa_pacer.c): NIC queue accounting and the list of
 * RPCs that wait for it; its thread is homa_pacer_main() (homa_outgoing.c).
 * homa->throttle_lock guards the list (lock order in homa_impl.h).
 */

#ifndef _HOMA_PACER_H
#define _HOMA_PACER_H

#include "homa_impl.h"

bool homa_check_nic_queue(struct homa *homa, int bytes, bool force);
void homa_add_to_throttled(struct homa_rpc *rpc);
void homa_remove_from_throttled(struct homa_rpc *rpc);

#endif /* _HOMA_PACER_H */
