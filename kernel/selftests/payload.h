/* SPDX-License-Identifier: GPL-2.0 */
/*
 * payload.h - patterned message contents, checked byte for byte.
 *
 * Byte i of a message with seed s depends on s and on i, so a message
 * that is truncated, shifted, has a bpage in the wrong place or carries
 * another message's bytes does not match.
 */
#ifndef HOMA_SELFTEST_PAYLOAD_H
#define HOMA_SELFTEST_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Fills @buf with bytes [@offset, @offset + @len) of message @seed. */
void payload_fill(void *buf, size_t len, uint64_t seed, size_t offset);

/*
 * Checks @buf against bytes [@offset, @offset + @len) of message @seed.
 * Returns -1 when all match, else the message offset of the first
 * wrong byte.
 */
long payload_check(const void *buf, size_t len, uint64_t seed,
		   size_t offset);

/* payload_check over a message described by @iovcnt iovecs. */
long payload_check_iov(const struct iovec *iov, int iovcnt, uint64_t seed);

/* The expected byte at @offset of message @seed. */
uint8_t payload_byte(uint64_t seed, size_t offset);

#endif /* HOMA_SELFTEST_PAYLOAD_H */
