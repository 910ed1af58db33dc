/* SPDX-License-Identifier: BSD-2-Clause */
/* hp_util.h - strict parsing of numbers and addresses. */
#ifndef HP_UTIL_H
#define HP_UTIL_H

#include <stdint.h>
#include <stddef.h>

/* Decimal or 0x hex, whole string, at most @max. 0 ok, -1 bad. */
int hp_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Like hp_parse_u64 with an optional unit: "ms" (default), "s", "us". */
int hp_parse_ms(const char *s, uint64_t *ms);

/* "aa:bb:cc:dd:ee:ff" -> 6 bytes. 0 ok, -1 bad. */
int hp_parse_mac(const char *s, uint8_t mac[6]);

/* Monotonic clock in nanoseconds. */
uint64_t hp_now_ns(void);

/* Sleep until the monotonic time @ns. */
void hp_sleep_until_ns(uint64_t ns);

/* xorshift64* pseudo-random generator with an explicit state. */
uint64_t hp_rand(uint64_t *state);

#endif /* HP_UTIL_H */
