/* SPDX-License-Identifier: GPL-2.0 */
/*
 * homa_sysctl.h - read and write net.homa.* sysctls of the guest, and
 * read (and wait on) the module's counters in /proc/net/homa_metrics,
 * and read the guest's /proc/meminfo.
 */
#ifndef HOMA_USER_SYSCTL_H
#define HOMA_USER_SYSCTL_H

#include <stdbool.h>

/* The value of net.homa.@name, or -1 if it cannot be read. */
long homa_sysctl_read(const char *name);

/*
 * Writes @text to net.homa.@name in one write(2), as the kernel wants.
 * Returns 0 or -errno (EINVAL for a value outside the parameter's range).
 */
int homa_sysctl_write(const char *name, const char *text);

/* homa_sysctl_write() of a number. */
int homa_sysctl_set(const char *name, long value);

/*
 * The value of metric @name in /proc/net/homa_metrics (parsed by
 * homa_metrics_text.h), or -1. A @name ending in '*' is the sum of every
 * metric whose name starts with the rest ("pkts_rcvd_*"), "a+b" a sum.
 */
long long homa_metric(const char *name);

/* Whether metric @name is <= @want within @ms (polled). */
bool homa_metric_falls_to(const char *name, long long want, int ms);

/* Whether metric @name is >= @want within @ms (polled). */
bool homa_metric_rises_to(const char *name, long long want, int ms);

/* Field @name of /proc/meminfo ("Slab", "MemAvailable") in kB, or -1. */
long long homa_meminfo_kb(const char *name);

#endif /* HOMA_USER_SYSCTL_H */
