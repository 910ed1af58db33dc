/* SPDX-License-Identifier: BSD-2-Clause */
/* hp_parse.h - frames from raw bytes, and one-line descriptions. */
#ifndef HP_PARSE_H
#define HP_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "hp_frame.h"

/* Result of hp_frame_from_bytes(). */
enum hp_parse_result {
	HP_PARSE_HOMA = 0,	/* Homa over IPv4/IPv6, l3/l4 set */
	HP_PARSE_OTHER = 1,	/* a frame, but not Homa (l3/l4 may be 0) */
	HP_PARSE_TOOBIG = -1,	/* longer than HP_FRAME_MAX */
};

/* Copy @len bytes into @f and locate its layers. */
enum hp_parse_result hp_frame_from_bytes(struct hp_frame *f,
					 const uint8_t *data, size_t len);

/* Homa type byte of @f, or -1 if the frame is cut before it. */
int hp_frame_type(const struct hp_frame *f);

/* Payload bytes after the type's natural header (DATA: message bytes). */
size_t hp_frame_payload(const struct hp_frame *f, const uint8_t **p);

/*
 * A tcpdump-like line: "IPv4 198.18.0.100 > 198.18.0.11: DATA 4000 > 5000
 * id 100 msglen 3000 offset 0 len 1000 rtx".
 */
void hp_frame_describe(const struct hp_frame *f, char *out, size_t n);

#endif /* HP_PARSE_H */
