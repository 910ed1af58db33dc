/* SPDX-License-Identifier: GPL-2.0 */
/* expect.h - one KTAP case from a "0 or -errno" result. */
#ifndef HOMA_SELFTEST_EXPECT_H
#define HOMA_SELFTEST_EXPECT_H

#include <stdbool.h>

#include "ktap.h"

/*
 * Reports one case that passes when @got (0 or a negative errno, as the
 * helpers return) equals -@want (@want 0 = success). On a mismatch a
 * diagnostic line names both.
 */
bool expect_errno(struct ktap *k, int got, int want, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "EINVAL" for 22, "success" for 0. */
const char *errno_name(int err);

#endif /* HOMA_SELFTEST_EXPECT_H */
