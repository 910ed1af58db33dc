// SPDX-License-Identifier: BSD-2-Clause
/* send.c - send a step's frames: inject them, or write them offline. */
#include "send.h"

#include <stdio.h>

#include "hp_parse.h"
#include "run.h"

int run_send_list(struct run_ctx *c, const struct hp_list *l, char *why,
		  size_t n)
{
	char line[512];

	for (size_t i = 0; i < l->n; i++) {
		if (c->offline) {
			hp_pcap_write(&c->pcap, l->v[i], c->pcap_ts_us);
			c->pcap_ts_us += 1000;
			continue;
		}
		if (hp_live_queue(&c->live, l->v[i], i + 1, why, n))
			return -1;
		if (c->verbose) {
			hp_frame_describe(l->v[i], line, sizeof(line));
			printf("# > %s\n", line);
		}
	}
	/* The step's frames leave together, in order, before any wait. */
	return c->offline ? 0 : hp_live_flush(&c->live, why, n);
}
