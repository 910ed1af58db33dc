// SPDX-License-Identifier: BSD-2-Clause
/* expand.c - scenario variables and their expansion. */
#include "expand.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_util.h"

int vars_set(struct vars *v, const char *name, const char *val)
{
	size_t i;

	if (strlen(name) >= sizeof(v->name[0]) ||
	    strlen(val) >= sizeof(v->val[0]))
		return -1;
	for (i = 0; i < v->n; i++)
		if (strcmp(v->name[i], name) == 0)
			break;
	if (i == v->n) {
		if (v->n == VARS_MAX)
			return -1;
		v->n++;
	}
	strcpy(v->name[i], name);
	strcpy(v->val[i], val);
	return 0;
}

int vars_set_num(struct vars *v, const char *name, unsigned long long n)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", n);
	return vars_set(v, name, buf);
}

static const char *lookup(const struct vars *v, const char *name, size_t len)
{
	for (size_t i = 0; i < v->n; i++)
		if (strlen(v->name[i]) == len && memcmp(v->name[i], name, len) == 0)
			return v->val[i];
	return NULL;
}

int vars_expand(const struct vars *v, const char *in, char *out, size_t n,
		char *err, size_t errlen)
{
	size_t o = 0;

	while (*in) {
		char piece[160];
		const char *val;
		size_t len = 0;

		if (*in != '$') {
			if (o + 1 >= n)
				goto too_long;
			out[o++] = *in++;
			continue;
		}
		in++;
		while (isalnum((unsigned char)in[len]) || in[len] == '_')
			len++;
		val = lookup(v, in, len);
		if (!len || !val) {
			snprintf(err, errlen, "unknown variable '$%.*s'", (int)len,
				 in);
			return -1;
		}
		in += len;
		snprintf(piece, sizeof(piece), "%s", val);
		if ((*in == '+' || *in == '-' || *in == '^' || *in == '*') &&
		    isdigit((unsigned char)in[1])) {
			char op = *in++, num[24];
			size_t nl = strspn(in, "0123456789abcdefxABCDEFX");
			uint64_t a, b;

			if (nl >= sizeof(num))
				goto bad_num;
			memcpy(num, in, nl);
			num[nl] = 0;
			in += nl;
			if (hp_parse_u64(val, UINT64_MAX, &a) ||
			    hp_parse_u64(num, UINT64_MAX, &b))
				goto bad_num;
			a = op == '+' ? a + b : op == '-' ? a - b :
			    op == '*' ? a * b : a ^ b;
			snprintf(piece, sizeof(piece), "%llu", (unsigned long long)a);
		}
		if (o + strlen(piece) >= n)
			goto too_long;
		memcpy(out + o, piece, strlen(piece));
		o += strlen(piece);
	}
	out[o] = 0;
	return 0;
bad_num:
	snprintf(err, errlen, "arithmetic on a non-number near '%s'", in);
	return -1;
too_long:
	snprintf(err, errlen, "expanded value too long");
	return -1;
}
