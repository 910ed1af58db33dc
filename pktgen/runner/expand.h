/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * expand.h - scenario variables: $NAME, $NAME+N, $NAME-N, $NAME^N, $NAME*N.
 */
#ifndef HP_EXPAND_H
#define HP_EXPAND_H

#include <stddef.h>

#define VARS_MAX	64

/* struct vars - the variables of one scenario run. */
struct vars {
	size_t n;
	char name[VARS_MAX][32];
	char val[VARS_MAX][128];
};

/* Set (or replace) @name. -1 if the table is full or a string too long. */
int vars_set(struct vars *v, const char *name, const char *val);

/* Set @name to a number. */
int vars_set_num(struct vars *v, const char *name, unsigned long long n);

/*
 * Copy @in to @out replacing every $NAME, with optional arithmetic right
 * after it (+N, -N, ^N, *N on a numeric variable). 0, or -1 with @err.
 */
int vars_expand(const struct vars *v, const char *in, char *out, size_t n,
		char *err, size_t errlen);

#endif /* HP_EXPAND_H */
