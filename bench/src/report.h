/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - one JSON object per flow and run, on one line that starts
 * with "BENCH-JSON " so the host can pick it out of the guest's output.
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stdio.h>

#include "flow.h"

#define REPORT_MARK "BENCH-JSON "

struct run_info {
	const char *workload;	/* e.g. "echo_100B" */
	unsigned int run;	/* run number within the suite */
	double duration_s;	/* measurement window */
	double warmup_s;
};

/* Errors of a finished flow: failed, wrong and unanswered RPCs. */
unsigned long long report_errors(const struct flow *f);

/* Writes the flow's line; sorts its samples. */
void report_flow(FILE *out, const struct run_info *ri, struct flow *f);

#endif /* BENCH_REPORT_H */
