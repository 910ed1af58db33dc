/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pattern.h - message contents the client can verify cheaply.
 *
 * Word i (8 bytes, little end first) of message @seed is
 * mix(seed) + i * K: a message that is truncated, shifted, or carries
 * bytes of another message does not match. Words are cheap to make and
 * check, so verifying 1 MB costs little next to moving it.
 */
#ifndef BENCH_PATTERN_H
#define BENCH_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/* Fills @buf with bytes [0, @len) of message @seed. */
void pattern_fill(void *buf, size_t len, uint64_t seed);

/*
 * Checks @buf against bytes [@offset, @offset + @len) of message @seed;
 * @offset must be a multiple of 8. Returns 0 when all match, else -1.
 */
int pattern_check(const void *buf, size_t len, uint64_t seed, size_t offset);

#endif /* BENCH_PATTERN_H */
