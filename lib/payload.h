/* SPDX-License-Identifier: GPL-2.0 */
/*
 * payload.h - patterned message contents, checked byte for byte: the one
 * pattern of the guest tests, the benchmark and the dissector's recorder.
 *
 * Word i (bytes 8i .. 8i+7, little end first) of message @seed is
 * mix(seed) + i * K (K odd), so a message that is truncated, shifted, has
 * a bpage in the wrong place or carries another message's bytes does not
 * match. Filling and checking go a word at a time (one add per 8 bytes):
 * verifying 1 MB costs little next to moving it.
 */
#ifndef HOMA_USER_PAYLOAD_H
#define HOMA_USER_PAYLOAD_H

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

#endif /* HOMA_USER_PAYLOAD_H */
