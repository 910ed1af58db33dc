// SPDX-License-Identifier: GPL-2.0
/* report.c - see report.h. */
#include "report.h"

#include <ctype.h>

/* Percentiles listed in "cdf_us" (the plotted distribution). */
static const double CDF_TAIL[] = { 99.5, 99.9, 99.99 };

unsigned long long report_errors(const struct flow *f)
{
	unsigned long long n = f->res.rpc_errors + f->res.bad_payload +
			       f->res.stray + flow_unanswered(f);

	/* A flow that could not even start still counts as failed. */
	return n ? n : (f->res.error[0] ? 1 : 0);
}

static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (isprint((unsigned char)*s))
			fputc(*s, out);
		else
			fprintf(out, "\\u%04x", (unsigned char)*s);
	}
	fputc('"', out);
}

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

void report_flow(FILE *out, const struct run_info *ri, struct flow *f)
{
	const struct samples *s = &f->res.lat;
	double count = (double)s->n;
	size_t i;

	samples_sort(&f->res.lat);
	fprintf(out, REPORT_MARK "{\"run\": %u, \"workload\": ", ri->run);
	put_string(out, ri->workload);
	fprintf(out, ", \"class\": ");
	put_string(out, f->spec.name);
	fprintf(out, ", \"transport\": \"%s\", \"size\": %zu, \"outstanding\": %u",
		f->proto == PROTO_HOMA ? "homa" : "tcp", f->spec.size,
		f->spec.outstanding);
	fprintf(out, ", \"duration_s\": %.3f, \"warmup_s\": %.3f",
		ri->duration_s, ri->warmup_s);
	fprintf(out, ", \"count\": %zu, \"sent\": %llu, \"answered\": %llu"
		", \"verified\": %llu, \"rpc_errors\": %llu, \"bad_payload\": %llu"
		", \"stray\": %llu, \"unanswered\": %llu, \"errors\": %llu"
		", \"stalled\": %s",
		s->n, (unsigned long long)f->res.sent,
		(unsigned long long)f->res.answered,
		(unsigned long long)(f->res.answered - f->res.bad_payload),
		(unsigned long long)f->res.rpc_errors,
		(unsigned long long)f->res.bad_payload,
		(unsigned long long)f->res.stray,
		(unsigned long long)flow_unanswered(f), report_errors(f),
		atomic_load(&f->stalled) ? "true" : "false");
	fprintf(out, ", \"rpcs_per_s\": %.3f, \"goodput_Bps\": %.1f",
		count / ri->duration_s,
		2.0 * count * (double)f->spec.size / ri->duration_s);
	fprintf(out, ", \"p50_us\": %.3f, \"p90_us\": %.3f, \"p99_us\": %.3f"
		", \"p999_us\": %.3f, \"min_us\": %.3f, \"max_us\": %.3f"
		", \"mean_us\": %.3f",
		us(samples_pct(s, 50)), us(samples_pct(s, 90)),
		us(samples_pct(s, 99)), us(samples_pct(s, 99.9)),
		us(samples_pct(s, 0)), us(samples_pct(s, 100)),
		samples_mean(s) / 1000.0);
	fprintf(out, ", \"samples_lost\": %s, \"error\": ",
		s->oom ? "true" : "false");
	put_string(out, f->res.error);
	fprintf(out, ", \"cdf_us\": [");
	for (i = 0; i <= 99; i++)
		fprintf(out, "%s[%zu, %.3f]", i ? ", " : "", i,
			us(samples_pct(s, (double)i)));
	for (i = 0; i < sizeof(CDF_TAIL) / sizeof(CDF_TAIL[0]); i++)
		fprintf(out, ", [%g, %.3f]", CDF_TAIL[i],
			us(samples_pct(s, CDF_TAIL[i])));
	fprintf(out, ", [100, %.3f]", us(samples_pct(s, 100)));
	fprintf(out, "]}\n");
	fflush(out);
}
