/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hp_msg.h - lists of frames and the message operations a tester needs:
 * cut a message into DATA segments, reorder, duplicate, drop, truncate,
 * corrupt a field, mark retransmit.
 */
#ifndef HP_MSG_H
#define HP_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "hp_frame.h"

/*
 * struct hp_list - an ordered list of frames (owned copies, each stored at
 * its length: a frame in a list may be edited within its length or
 * shortened, never lengthened; build it full-size, then push it).
 */
struct hp_list {
	struct hp_frame **v;
	size_t n, cap;
};

void hp_list_init(struct hp_list *l);
void hp_list_free(struct hp_list *l);
/* Append a copy of @f; -1 on allocation failure. */
int hp_list_push(struct hp_list *l, const struct hp_frame *f);

/*
 * Append the DATA segments of a message: a copy of @tmpl (a DATA frame
 * with ports, id and other fields already set) per segment, with msglen,
 * offset and seq set and @seg_size bytes of @msg (the last one shorter).
 * @msg_len 0 gives one empty segment. Returns segments added or -1.
 */
int hp_msg_segments(struct hp_list *l, const struct hp_frame *tmpl,
		    const uint8_t *msg, uint32_t msg_len, uint32_t seg_size);

/* Fill @buf with the deterministic test pattern for message @seed. */
void hp_msg_pattern(uint8_t *buf, size_t len, uint64_t seed);

/*
 * Rearrange @l by a list of indices: the new list is l[idx[0]], l[idx[1]]...
 * An index may repeat (duplicate) or be absent (drop). -1 if out of range.
 */
int hp_list_select(struct hp_list *l, const size_t *idx, size_t n);

/*
 * Parse an order spec for a list of @count frames into indices:
 * "2,0,1,1" (explicit), "reverse", "shuffle:SEED", "all" (identity),
 * "drop:I", "dup:I". Returns the number of indices or -1.
 */
int hp_order_parse(const char *spec, size_t count, size_t *idx, size_t max);

/* Duplicate frame @i in place (the copy follows it); -1 if out of range. */
int hp_list_duplicate(struct hp_list *l, size_t i);

/* Remove frame @i; -1 if out of range. */
int hp_list_drop(struct hp_list *l, size_t i);

/* Set retransmit = 1 on a DATA frame; -1 if not DATA. */
int hp_frame_mark_retransmit(struct hp_frame *f);

#endif /* HP_MSG_H */
