/* SPDX-License-Identifier: GPL-2.0 */
/* homa_sysctl.h - read and write net.homa.* sysctls of the guest. */
#ifndef HOMA_SELFTEST_SYSCTL_H
#define HOMA_SELFTEST_SYSCTL_H

/* The value of net.homa.@name, or -1 if it cannot be read. */
long homa_sysctl_read(const char *name);

/*
 * Writes @text to net.homa.@name in one write(2), as the kernel wants.
 * Returns 0 or -errno (EINVAL for a value outside the parameter's range).
 */
int homa_sysctl_write(const char *name, const char *text);

/* homa_sysctl_write() of a number. */
int homa_sysctl_set(const char *name, long value);

#endif /* HOMA_SELFTEST_SYSCTL_H */
