// SPDX-License-Identifier: GPL-2.0
/*
 * addr_test.c - lib/homa_addr's lab addresses on the host: a block's k-th
 * address is its base plus k for both families; k out of 1..254, a base
 * that is not a block's (last byte set), an unparsable base and a lab
 * variable that is not set give NULL. Prints TAP.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "homa_addr.h"
#include "tap.h"

/* The k-th address of @host's block for @family is @want (NULL: none). */
static void nth(struct tap *t, const char *host, int family, int k,
		const char *want)
{
	char buf[INET6_ADDRSTRLEN];
	const char *got = homa_lab_nth_addr(host, family, k, buf, sizeof(buf));

	tap_check(t, want ? got && !strcmp(got, want) : !got,
		  "%s block, IPv%d, k = %d: %s (got %s)", host,
		  family == AF_INET6 ? 6 : 4, k, want ? want : "none",
		  got ? got : "none");
}

int main(void)
{
	struct tap t = { 0 };

	setenv("HOMALAB_LOCAL_IP4", "198.18.2.0", 1);
	setenv("HOMALAB_LOCAL_IP6", "2001:db8:2::", 1);
	setenv("HOMALAB_SPOOF_IP4", "198.18.1.7", 1);
	setenv("HOMALAB_SPOOF_IP6", "not an address", 1);
	unsetenv("HOMALAB_NONE_IP4");
	nth(&t, "LOCAL", AF_INET, 1, "198.18.2.1");
	nth(&t, "LOCAL", AF_INET, 254, "198.18.2.254");
	nth(&t, "LOCAL", AF_INET6, 31, "2001:db8:2::1f");
	nth(&t, "LOCAL", AF_INET, 0, NULL);
	nth(&t, "LOCAL", AF_INET6, 255, NULL);
	nth(&t, "SPOOF", AF_INET, 1, NULL);
	nth(&t, "SPOOF", AF_INET6, 1, NULL);
	nth(&t, "NONE", AF_INET, 1, NULL);
	tap_check(&t, homa_lab_addr("LOCAL", AF_INET6) &&
		  !strcmp(homa_lab_addr("LOCAL", AF_INET6), "2001:db8:2::"),
		  "homa_lab_addr reads HOMALAB_LOCAL_IP6");
	return tap_done(&t);
}
