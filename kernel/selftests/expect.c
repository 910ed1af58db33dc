// SPDX-License-Identifier: GPL-2.0
/* expect.c - see expect.h. */
#define _GNU_SOURCE
#include "expect.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *errno_name(int err)
{
	const char *name;

	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	name = strerrorname_np(err);
	return name ? name : "unknown errno";
}

bool expect_errno(struct ktap *k, int got, int want, const char *fmt, ...)
{
	char name[160];
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (got > 0)
		got = 0;	/* a count or a descriptor: success */
	pass = got == -want;
	if (!pass)
		ktap_diag(k, "%s: expected %s, got %s", name, errno_name(want),
			  errno_name(got));
	return ktap_result(k, pass, "%s", name);
}
