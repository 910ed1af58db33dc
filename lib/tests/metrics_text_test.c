// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metrics_text_test.c - lib/homa_metrics_text on the host: "name value"
 * lines from a string and from a FILE give the same snapshot; other
 * lines, names too long and lines too long are left out; lookups, prefix
 * sums and "a+b" sums. Prints TAP.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "homa_metrics_text.h"
#include "tap.h"

static struct homa_metrics m, mf;

int main(void)
{
	struct tap t = { 0 };
	char text[1024], longline[400];
	int64_t v;
	FILE *f;

	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	snprintf(text, sizeof(text),
		 "pkts_sent_DATA 10\n\npkts_sent_ACK 3\n"
		 "garbage\n"
		 "a_name_that_is_much_too_long_for_the_snapshot_to_keep 5\n"
		 "%s 9\n"
		 "pkts_rcvd_DATA -4 trailing words\n"
		 "  timeouts\t7\n"
		 "last 1", longline);
	homa_metrics_parse(text, &m);
	tap_check(&t, m.n == 5, "five metrics kept");
	tap_check(&t, !homa_metrics_get(&m, "pkts_sent_ACK", &v) && v == 3,
	      "a value by name");
	tap_check(&t, !homa_metrics_get(&m, "timeouts", &v) && v == 7 &&
	      !homa_metrics_get(&m, "last", &v) && v == 1,
	      "leading blanks, tabs and a last line without newline");
	tap_check(&t, !homa_metrics_get(&m, "pkts_rcvd_DATA", &v) && v == -4,
	      "negative values, trailing words ignored");
	tap_check(&t, homa_metrics_get(&m, "garbage", &v) == -1 &&
	      homa_metrics_get(&m, "pkts_sent", &v) == -1,
	      "no value, no metric; names match whole");
	tap_check(&t, !homa_metrics_sum(&m, "pkts_sent_*", &v) && v == 13 &&
	      !homa_metrics_sum(&m, "pkts_*+timeouts", &v) && v == 16,
	      "prefix and plus sums");
	tap_check(&t, homa_metrics_sum(&m, "pkts_sent_DATA+nothing", &v) == -1,
	      "a sum with a missing term fails");

	f = fmemopen(text, strlen(text), "r");
	tap_check(&t, f && homa_metrics_parse_file(f, &mf) == 0 &&
	      mf.n == m.n && !memcmp(mf.name, m.name, sizeof(m.name)) &&
	      !memcmp(mf.val, m.val, sizeof(m.val)),
	      "a FILE parses as the same text");
	if (f)
		fclose(f);

	return tap_done(&t);
}
