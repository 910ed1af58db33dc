// SPDX-License-Identifier: BSD-2-Clause
/* hp_util.c - strict parsing of numbers and addresses, time, randomness. */
#include "hp_util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int hp_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int hp_parse_ms(const char *s, uint64_t *ms)
{
	char num[32];
	size_t n = strspn(s, "0123456789");
	const char *unit = s + n;
	uint64_t v;

	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = 0;
	if (hp_parse_u64(num, UINT32_MAX, &v))
		return -1;
	if (!*unit || strcmp(unit, "ms") == 0)
		*ms = v;
	else if (strcmp(unit, "s") == 0)
		*ms = v * 1000;
	else if (strcmp(unit, "us") == 0)
		*ms = (v + 999) / 1000;
	else
		return -1;
	return 0;
}

int hp_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (strlen(s) != 17 ||
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (!isxdigit((unsigned char)s[i * 3]) ||
		    !isxdigit((unsigned char)s[i * 3 + 1]))
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

uint64_t hp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void hp_sleep_until_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ull),
		.tv_nsec = (long)(ns % 1000000000ull),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

uint64_t hp_rand(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}
