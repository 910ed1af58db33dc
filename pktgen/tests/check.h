/* SPDX-License-Identifier: BSD-2-Clause */
/* check.h - a tiny TAP check macro for the unit tests. */
#ifndef HP_CHECK_H
#define HP_CHECK_H

#include <stdio.h>

/* struct check_state - counts of one test program. */
struct check_state {
	int n, failed;
};

#define CHECK(st, cond, ...) do {					\
	(st)->n++;							\
	if (cond) {							\
		printf("ok %d - ", (st)->n);				\
	} else {							\
		(st)->failed++;						\
		printf("not ok %d - %s:%d: ", (st)->n, __FILE__, __LINE__); \
	}								\
	printf(__VA_ARGS__);						\
	printf("\n");							\
} while (0)

#endif /* HP_CHECK_H */
