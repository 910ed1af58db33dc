/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hp_wrap.h - frames made from other frames: the segments of a message
 * packed into one GSO frame, and an ICMP error quoting a packet.
 */
#ifndef HP_WRAP_H
#define HP_WRAP_H

#include <stddef.h>

#include "hp_frame.h"
#include "hp_msg.h"

/*
 * Replace the DATA frames of @l (segments of one message, in list order)
 * by one multi-segment frame as a GSO sender hands it to the NIC: the
 * first frame whole (its 56-byte header and payload), then the segment
 * header (seg.offset) and payload of each further frame. 0, or -1 with
 * @err (not DATA, too big for a frame, out of memory).
 */
int hp_gso_pack(struct hp_list *l, char *err, size_t errlen);

/*
 * Build in @out the ICMP (IPv4) or ICMPv6 "port unreachable" that the
 * destination of @in sends back: addresses swapped, the whole IP packet of
 * @in quoted, checksums computed. @out->l4 is the ICMP header. 0, or -1
 * with @err when @in is no IP packet or the result is too big.
 */
int hp_icmp_port_unreachable(const struct hp_frame *in, struct hp_frame *out,
			     char *err, size_t errlen);

#endif /* HP_WRAP_H */
