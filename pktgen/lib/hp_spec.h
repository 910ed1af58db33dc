/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hp_spec.h - frames from a list of KEY=VALUE pairs.
 *
 * The CLI (--KEY VALUE) and scenarios (KEY=VALUE) describe packets the
 * same way: any field of hp_field.h, plus the keys below. Defaults give a
 * well-formed packet from the lab's peer to guest 0.
 *
 *   family=4|6      IP family (default: from the addresses, 4)
 *   type=T          Homa type (default DATA)
 *   msg-size=N      DATA: message length (default 100), pattern bytes
 *   msg-seed=S      DATA: pattern seed (default 1)
 *   msg-data=TEXT   DATA: the message is TEXT
 *   seg-size=N      DATA: payload bytes per segment (default 1400)
 *   order=SPEC      segments to send: "2,0,1,1", reverse, shuffle:SEED,
 *                   drop:I, dup:I, all (default all)
 *   payload-len=N   append N zero bytes after the header (non-DATA)
 *   truncate=N      cut the Homa part to N bytes (IP length follows)
 *   truncate-frame=N  cut the frame to N bytes, no fix-ups
 *   poke=OFF:VAL    set byte OFF of the Homa header to VAL
 *   reply=1         from the guest to the peer (MACs and addresses
 *                   swapped; ports and id are the keys' as always)
 *   gso=1           DATA: the segments (after order) in one frame, as a
 *                   GSO sender hands them to the NIC: one 56-byte header,
 *                   then seg.offset and payload of each further segment
 *   icmp=port-unreachable  instead of each frame, the ICMP(v6) port
 *                   unreachable its destination answers it with, quoting
 *                   the whole packet
 * Field values apply to every segment after segmentation, so e.g.
 * offset=5000 or msglen=2000000 corrupt what segmentation computed.
 */
#ifndef HP_SPEC_H
#define HP_SPEC_H

#include <stddef.h>

#include "hp_frame.h"
#include "hp_msg.h"

/* struct hp_kv - one KEY=VALUE. */
struct hp_kv {
	const char *key;
	const char *val;
};

/* Default ports and id of built packets. */
#define HP_DEFAULT_SPORT	40000
#define HP_DEFAULT_DPORT	5000
#define HP_DEFAULT_ID		2
#define HP_DEFAULT_SEG_SIZE	1400
#define HP_DEFAULT_MSG_SIZE	100

/* Whether @key is a field or one of the special keys above. */
int hp_spec_key_known(const char *key);

/* The special keys, NULL-terminated (for option tables). */
extern const char *const hp_spec_keys[];

/*
 * Append the frames @kv describes to @out. 0, or -1 with a one-line
 * reason in @err.
 */
int hp_spec_build(const struct hp_addrs *a, const struct hp_kv *kv, size_t n,
		  struct hp_list *out, char *err, size_t errlen);

#endif /* HP_SPEC_H */
