// SPDX-License-Identifier: GPL-2.0
/*
 * payload_test.c - lib/payload on the host: fills at any offset and in
 * pieces agree, every byte agrees with payload_byte(), and a flipped,
 * shifted, foreign or swapped byte is found at its offset. Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "payload.h"

#define LEN 200000		/* over three 64 KiB bpages */
#define BPAGE 65536

int main(void)
{
	struct tap t = { 0 };
	uint8_t *a = malloc(LEN), *b = malloc(LEN);
	struct iovec iov[4];
	size_t off, len, i;
	long bad;
	int ok;

	if (!a || !b)
		return 1;
	payload_fill(a, LEN, 42, 0);

	ok = 1;
	for (i = 0; i < LEN; i += 7)
		ok &= a[i] == payload_byte(42, i);
	tap_check(&t, ok, "payload_byte agrees with payload_fill");

	ok = 1;
	for (off = 0; off < 20; off++)
		for (len = 0; len < 40; len++) {
			memset(b, 0, len);
			payload_fill(b, len, 42, off);
			ok &= !memcmp(b, a + off, len) &&
			      payload_check(b, len, 42, off) == -1;
		}
	tap_check(&t, ok, "fill and check at any offset and length");

	for (off = 0; off < LEN; off += 12345)
		payload_fill(b + off, (LEN - off < 12345 ? LEN - off : 12345),
			     42, off);
	tap_check(&t, !memcmp(a, b, LEN), "a message filled in pieces is the same");

	ok = 1;
	for (i = 0; i < 64 && ok; i++) {
		size_t at = (i * 3119) % LEN;

		b[at] ^= 0x10;
		ok = payload_check(b, LEN, 42, 0) == (long)at &&
		     payload_check(b + 3, LEN - 3, 42, 3) ==
			     (at < 3 ? -1 : (long)at);
		b[at] ^= 0x10;
	}
	tap_check(&t, ok, "a flipped byte is reported at its offset");

	tap_check(&t, payload_check(a + 1, LEN - 1, 42, 0) >= 0 &&
	      payload_check(a, LEN - 8, 42, 8) >= 0,
	      "a shifted message does not match");
	tap_check(&t, payload_check(a, LEN, 43, 0) >= 0 &&
	      payload_check(a, 1, 43, 0) == 0,
	      "another message's bytes do not match");
	tap_check(&t, payload_check(a, LEN - 5, 42, 0) == -1,
	      "a prefix matches (lengths are checked by the caller)");

	iov[0] = (struct iovec){ a, BPAGE };
	iov[1] = (struct iovec){ a + 2 * BPAGE, BPAGE };
	iov[2] = (struct iovec){ a + BPAGE, BPAGE };
	iov[3] = (struct iovec){ a + 3 * BPAGE, LEN - 3 * BPAGE };
	bad = payload_check_iov(iov, 4, 42);
	tap_check(&t, bad >= BPAGE && bad < BPAGE + 8,
	      "bpages in the wrong order are found in the first wrong word");
	iov[1] = (struct iovec){ a + BPAGE, 1001 };
	iov[2] = (struct iovec){ a + BPAGE + 1001, 2 * BPAGE - 1001 };
	tap_check(&t, payload_check_iov(iov, 4, 42) == -1,
	      "pieces of uneven lengths check as one message");

	free(a);
	free(b);
	return tap_done(&t);
}
