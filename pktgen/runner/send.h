/* SPDX-License-Identifier: BSD-2-Clause */
/* send.h - send a step's frames: inject them, or write them offline. */
#ifndef HP_SEND_H
#define HP_SEND_H

#include <stddef.h>

struct hp_list;
struct run_ctx;

/* Send the frames of @l (inject, or write in offline mode). 0 or -1. */
int run_send_list(struct run_ctx *c, const struct hp_list *l, char *why,
		  size_t n);

#endif /* HP_SEND_H */
