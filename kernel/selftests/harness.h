/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - what every guest test program is built on: the kernel's own
 * kselftest_harness.h (TEST, FIXTURE, TEST_F, FIXTURE_VARIANT; a fork and
 * a timeout per test, the plan counted, KTAP out) plus the few things the
 * Homa programs share on top of it.
 *
 * The harness header is not ours: CMake extracts it from Debian's
 * linux-source-6.12 (vm/linux-source-files) and adds its folder to the
 * include path.
 *
 * Case names are fixed strings (fixture.variant.test); a measured value
 * goes on a "#" line (TH_LOG, or ksft_print_msg for a line without the
 * file and line).
 */
#ifndef HOMA_SELFTEST_HARNESS_H
#define HOMA_SELFTEST_HARNESS_H

/* strerrorname_np(): the program defines _GNU_SOURCE before any header. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kselftest_harness.h"

/* "EINVAL" for 22 or -22, "success" for 0. */
static inline const char *errno_name(int err)
{
	const char *name;

	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	name = strerrorname_np(err);
	return name ? name : "unknown errno";
}

/* 0 or -errno from a system call's "-1 and errno" result. */
static inline int sys_err(int ret)
{
	return ret < 0 ? -errno : 0;
}

/*
 * EXPECT_ERRNO(want, got) and ASSERT_ERRNO(want, got): @got is what the
 * lib/ helpers return (a count or descriptor >= 0 for success, else
 * -errno); @want is 0 for success or a positive errno constant. A
 * mismatch names both errnos.
 */
#define __HOMA_ERRNO(want, got, is_assert) do { \
	int __homa_want = (want); \
	int __homa_got = (got); \
	if (__homa_got > 0) \
		__homa_got = 0; \
	if (__homa_got != -__homa_want) { \
		__TH_LOG("%s: expected %s, got %s", #got, \
			 errno_name(__homa_want), errno_name(__homa_got)); \
		_metadata->exit_code = KSFT_FAIL; \
		_metadata->trigger = 1; \
	} \
} while (0); OPTIONAL_HANDLER(is_assert)

#define EXPECT_ERRNO(want, got) __HOMA_ERRNO(want, got, 0)
#define ASSERT_ERRNO(want, got) __HOMA_ERRNO(want, got, 1)

/*
 * HOMA_FAMILY_VARIANTS(fixture): the fixture's tests run once over IPv4
 * and once over IPv6. The fixture declares
 * FIXTURE_VARIANT(fixture) { int family; };
 */
#define HOMA_FAMILY_VARIANTS(fixture) \
	FIXTURE_VARIANT_ADD(fixture, ipv4) { .family = AF_INET }; \
	FIXTURE_VARIANT_ADD(fixture, ipv6) { .family = AF_INET6 }

/*
 * homa_harness_run() - run the selected tests. A program with options of
 * its own parses them first (getopt_long stops at "--"); @first is the
 * index of the first argument after them, and what follows goes to the
 * harness (-t/-T test, -v/-V variant, -f/-F fixture, -l to list).
 * Returns the exit status.
 */
static inline int homa_harness_run(int argc, char **argv, int first)
{
	if (first < 1 || first > argc)
		first = argc;
	argv[first - 1] = argv[0];
	optind = 0;	/* glibc: start getopt afresh */
	return test_harness_run(argc - first + 1, argv + first - 1);
}

/*
 * homa_harness_run_ports() - main() of a program whose only options are
 * --port4 P and --port6 P (the other guest's echo servers, IPv4 and
 * IPv6): parses them into *@port4 and *@port6, then runs the harness on
 * what follows "--". A bad option or port is a usage message and 2.
 */
static inline int homa_harness_run_ports(int argc, char **argv,
					 uint16_t *port4, uint16_t *port6)
{
	static const struct option opts[] = {
		{ "port4", required_argument, NULL, '4' },
		{ "port6", required_argument, NULL, '6' },
		{ NULL, 0, NULL, 0 },
	};
	char *end = NULL;
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		v = c == '4' || c == '6' ? strtol(optarg, &end, 10) : 0;
		if (v < 1 || v > 0xffff || !end || *end) {
			fprintf(stderr, "usage: %s [--port4 P] [--port6 P] [-- HARNESS-OPTIONS]\n",
				argv[0]);
			return 2;
		}
		*(c == '4' ? port4 : port6) = (uint16_t)v;
	}
	return homa_harness_run(argc, argv, optind);
}

#endif /* HOMA_SELFTEST_HARNESS_H */
