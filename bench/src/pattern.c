// SPDX-License-Identifier: GPL-2.0
/* pattern.c - see pattern.h. */
#include "pattern.h"

#include <string.h>

#define PATTERN_STEP 0x9e3779b97f4a7c15ull

/* splitmix64 finaliser: distinct seeds give unrelated sequences. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void word_bytes(uint64_t w, uint8_t out[8])
{
	int i;

	for (i = 0; i < 8; i++)
		out[i] = (uint8_t)(w >> (8 * i));
}

void pattern_fill(void *buf, size_t len, uint64_t seed)
{
	uint64_t w = mix(seed);
	uint8_t *p = buf, bytes[8];
	size_t i, words = len / 8;

	for (i = 0; i < words; i++, w += PATTERN_STEP) {
		word_bytes(w, bytes);
		memcpy(p + 8 * i, bytes, 8);
	}
	word_bytes(w, bytes);
	memcpy(p + 8 * words, bytes, len % 8);
}

int pattern_check(const void *buf, size_t len, uint64_t seed, size_t offset)
{
	uint64_t w = mix(seed) + (offset / 8) * PATTERN_STEP;
	const uint8_t *p = buf;
	uint8_t bytes[8];
	size_t i, words = len / 8;

	if (offset % 8)
		return -1;
	for (i = 0; i < words; i++, w += PATTERN_STEP) {
		word_bytes(w, bytes);
		if (memcmp(p + 8 * i, bytes, 8))
			return -1;
	}
	word_bytes(w, bytes);
	return memcmp(p + 8 * words, bytes, len % 8) ? -1 : 0;
}
