// SPDX-License-Identifier: GPL-2.0
/* payload.c - see payload.h. */
#define _DEFAULT_SOURCE
#include "payload.h"

#include <endian.h>
#include <string.h>

/* The step between words: odd, so no two words of a message are equal. */
#define PAYLOAD_STEP 0x9e3779b97f4a7c15ULL

/* splitmix64 finaliser: distinct seeds give unrelated sequences. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Byte @offset of the message whose word 0 is @w0. */
static uint8_t byte_at(uint64_t w0, size_t offset)
{
	uint64_t w = w0 + (uint64_t)(offset >> 3) * PAYLOAD_STEP;

	return (uint8_t)(w >> (8 * (offset & 7)));
}

uint8_t payload_byte(uint64_t seed, size_t offset)
{
	return byte_at(mix(seed), offset);
}

void payload_fill(void *buf, size_t len, uint64_t seed, size_t offset)
{
	uint64_t w0 = mix(seed), w, le;
	uint8_t *p = buf;
	size_t i = 0;

	for (; i < len && ((offset + i) & 7); i++)
		p[i] = byte_at(w0, offset + i);
	w = w0 + (uint64_t)((offset + i) >> 3) * PAYLOAD_STEP;
	for (; len - i >= 8; i += 8, w += PAYLOAD_STEP) {
		le = htole64(w);
		memcpy(p + i, &le, 8);
	}
	for (; i < len; i++)
		p[i] = byte_at(w0, offset + i);
}

long payload_check(const void *buf, size_t len, uint64_t seed,
		   size_t offset)
{
	uint64_t w0 = mix(seed), w, got;
	const uint8_t *p = buf;
	size_t i = 0;

	for (; i < len && ((offset + i) & 7); i++)
		if (p[i] != byte_at(w0, offset + i))
			return (long)(offset + i);
	w = w0 + (uint64_t)((offset + i) >> 3) * PAYLOAD_STEP;
	for (; len - i >= 8; i += 8, w += PAYLOAD_STEP) {
		memcpy(&got, p + i, 8);
		if (got != htole64(w))
			break;	/* the byte loop below finds which byte */
	}
	for (; i < len; i++)
		if (p[i] != byte_at(w0, offset + i))
			return (long)(offset + i);
	return -1;
}

long payload_check_iov(const struct iovec *iov, int iovcnt, uint64_t seed)
{
	size_t offset = 0;
	long bad;
	int i;

	for (i = 0; i < iovcnt; i++) {
		bad = payload_check(iov[i].iov_base, iov[i].iov_len, seed,
				    offset);
		if (bad >= 0)
			return bad;
		offset += iov[i].iov_len;
	}
	return -1;
}
