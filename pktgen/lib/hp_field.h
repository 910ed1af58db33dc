/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hp_field.h - every header field by name, read and written in place.
 *
 * The table takes offsets and sizes from the wire structs (offsetof), so
 * homa_wire.h stays the one definition of the bytes. The same names are
 * used by the CLI (--NAME VALUE), by scenarios (NAME=VALUE) and in matches.
 * A name may exist for several Homa types (e.g. "offset" in DATA, GRANT and
 * RESEND); the frame's type byte selects the entry.
 */
#ifndef HP_FIELD_H
#define HP_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "hp_frame.h"

enum hp_layer { HP_L_ETH, HP_L_IP4, HP_L_IP6, HP_L_HOMA };
enum hp_kind { HP_K_UINT, HP_K_MAC, HP_K_IP4, HP_K_IP6, HP_K_TYPE };

/**
 * struct hp_field_def - one field.
 * @name: what users type.
 * @layer: where @off counts from.
 * @off/@size: position in the layer, bytes (big-endian numbers).
 * @types: bit (type - HOMA_TYPE_MIN) for each Homa type that has it;
 *         0 = every type.
 * @kind: how values are written and printed.
 * @lock: HP_LOCK_* bits to set when a user writes this field.
 * @help: one line for --list-fields.
 */
struct hp_field_def {
	const char *name;
	enum hp_layer layer;
	uint16_t off, size;
	uint16_t types;
	enum hp_kind kind;
	unsigned int lock;
	const char *help;
};

/* Number of entries in the table, and entry @i. */
size_t hp_field_count(void);
const struct hp_field_def *hp_field_at(size_t i);

/* Whether @name is a field of any type/layer (for option parsing). */
int hp_field_known(const char *name);

/*
 * The entry for @name in frame @f (family and Homa type pick among
 * entries; "src"/"dst" mean ip.* or ip6.* by family). NULL if @f has no
 * such field; then @why says why.
 */
const struct hp_field_def *hp_field_lookup(const struct hp_frame *f,
					   const char *name, const char **why);

/*
 * Parse @value for field @name of frame @f and write it. Returns 0, or -1
 * with a one-line reason in @err.
 */
int hp_field_set(struct hp_frame *f, const char *name, const char *value,
		 char *err, size_t errlen);

/* Write a number into a numeric field (no range check beyond truncation). */
int hp_field_put(struct hp_frame *f, const struct hp_field_def *d,
		 uint64_t v);

/*
 * Whether field @name of @f equals @value. 1 yes, 0 no (including: the
 * frame is too short or lacks the field), -1 bad name/value (@err set).
 * @value may be "*" (present), "A..B" (numeric range) or "A|B|C".
 */
int hp_field_match(const struct hp_frame *f, const char *name,
		   const char *value, char *err, size_t errlen);

/* Read a numeric field; -1 if absent or cut off. */
int hp_field_get(const struct hp_frame *f, const char *name, uint64_t *v);

#endif /* HP_FIELD_H */
