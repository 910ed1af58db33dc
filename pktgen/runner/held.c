// SPDX-License-Identifier: BSD-2-Clause
/*
 * held.c - frames an expect-none step with until=end forbids until the
 * scenario's end: is a captured or arriving frame one of them?
 */
#include "held.h"

#include <stdio.h>
#include <string.h>

#include "hp_parse.h"
#include "steps.h"

int run_held_check(const struct run_ctx *c, const struct hp_frame *f,
		   char *why, size_t n)
{
	char want[400], line[512], err[256];

	for (size_t i = 0; i < c->nheld; i++) {
		if (frame_match(f, c->held[i], err, sizeof(err)) != 1)
			continue;
		describe_want(c->held[i], want, sizeof(want));
		hp_frame_describe(f, line, sizeof(line));
		if (snprintf(why, n, "line %d: expected no frame [%s] until the "
			     "scenario's end, a late one came: %s",
			     c->held_line[i], want, line) >= (int)n && n > 4)
			memcpy(why + n - 4, "...", 4);
		return 1;
	}
	return 0;
}
