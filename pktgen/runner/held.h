/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * held.h - frames an expect-none step with until=end forbids until the
 * scenario's end.
 */
#ifndef HP_HELD_H
#define HP_HELD_H

#include <stddef.h>

struct hp_frame;
struct run_ctx;

/*
 * If @f is a frame a held expect-none step (until=end) forbids: 1 with
 * @why set, else 0.
 */
int run_held_check(const struct run_ctx *c, const struct hp_frame *f,
		   char *why, size_t n);

#endif /* HP_HELD_H */
