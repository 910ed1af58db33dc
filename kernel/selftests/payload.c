// SPDX-License-Identifier: GPL-2.0
/* payload.c - see payload.h. */
#include "payload.h"

/* splitmix64: a cheap, well-mixed 64-bit function. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint8_t payload_byte(uint64_t seed, size_t offset)
{
	uint64_t word = mix(seed * 0x100000001b3ULL + (offset >> 3));

	return (uint8_t)(word >> (8 * (offset & 7)));
}

void payload_fill(void *buf, size_t len, uint64_t seed, size_t offset)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = payload_byte(seed, offset + i);
}

long payload_check(const void *buf, size_t len, uint64_t seed,
		   size_t offset)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != payload_byte(seed, offset + i))
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
