// SPDX-License-Identifier: BSD-2-Clause
/* send.c - print, write or inject frames, and capture the answers. */
#include "send.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "homa_wire.h"

#include "hp_field.h"
#include "hp_parse.h"
#include "hp_pcap.h"
#include "hp_util.h"

/* Timestamps of written pcaps: fixed, so crafted pcaps are reproducible. */
#define PCAP_TS_BASE_US	1734307200000000ull	/* 2024-12-16 00:00 UTC */
#define PCAP_TS_STEP_US	1000ull

uint64_t cli_total(const struct cli_opts *o, size_t n)
{
	return o->count_set ? o->count : (uint64_t)n * o->loop;
}

/* Add @add to field @name of @f when it is there (and, if @nonzero, not 0). */
static void shift(struct hp_frame *f, const char *name, uint64_t add,
		  int nonzero)
{
	const struct hp_field_def *d = hp_field_lookup(f, name, NULL);
	uint64_t v;

	if (d && hp_field_get(f, name, &v) == 0 && (v || !nonzero))
		hp_field_put(f, d, v + add);
}

/*
 * Frame @i of the output: frame i % n of @l; with --id-step, its Homa ids
 * moved on by the number of passes made. @tmp holds the copy.
 */
static const struct hp_frame *frame_at(const struct cli_opts *o,
				       const struct hp_list *l, uint64_t i,
				       struct hp_frame *tmp)
{
	const struct hp_frame *f = l->v[i % l->n];
	uint64_t add = (i / l->n) * o->id_step;
	char name[16];

	if (!add || !tmp)
		return f;
	memcpy(tmp, f, offsetof(struct hp_frame, buf) + f->len);
	shift(tmp, "id", add, 0);
	shift(tmp, "ack.id", add, 1);
	for (int k = 0; k < HOMA_MAX_ACKS_PER_PKT; k++) {
		snprintf(name, sizeof(name), "acks[%d].id", k);
		shift(tmp, name, add, 1);
	}
	return tmp;
}

void cli_print(const struct cli_opts *o, const struct hp_list *l)
{
	char line[512];
	uint64_t total = cli_total(o, l->n);
	struct hp_frame *tmp = malloc(sizeof(*tmp));

	for (uint64_t i = 0; i < total; i++) {
		const struct hp_frame *f = frame_at(o, l, i, tmp);

		hp_frame_describe(f, line, sizeof(line));
		printf("%llu %s (%zu bytes)\n", (unsigned long long)i + 1, line,
		       f->len);
	}
	free(tmp);
}

int cli_write(const struct cli_opts *o, const struct hp_list *l)
{
	struct hp_pcap_writer w;
	char err[512];
	uint64_t total = cli_total(o, l->n);
	struct hp_frame *tmp = malloc(sizeof(*tmp));

	if (!tmp || hp_pcap_write_open(&w, o->wfile, err, sizeof(err))) {
		fprintf(stderr, "homa-pktgen: %s\n", tmp ? err : "out of memory");
		free(tmp);
		return 1;
	}
	for (uint64_t i = 0; i < total; i++)
		hp_pcap_write(&w, frame_at(o, l, i, tmp),
			      PCAP_TS_BASE_US + i * PCAP_TS_STEP_US);
	hp_pcap_write_close(&w);
	free(tmp);
	if (!o->quiet)
		fprintf(stderr, "homa-pktgen: wrote %llu frames to %s\n",
			(unsigned long long)total, o->wfile);
	return 0;
}

/* Capture until the timeout or -C frames; print each one. */
static int capture(const struct cli_opts *o, struct hp_live *lv)
{
	struct hp_pcap_writer w = { 0 };
	struct hp_frame *f = malloc(sizeof(*f));
	uint64_t deadline = hp_now_ns() + o->timeout_ms * 1000000ull, got = 0;
	char line[512], err[512];
	int r;

	if (!f)
		return 1;
	if (o->capfile && hp_pcap_write_open(&w, o->capfile, err, sizeof(err))) {
		fprintf(stderr, "homa-pktgen: %s\n", err);
		free(f);
		return 1;
	}
	while ((!o->capture_count_set || got < o->capture_count) &&
	       (r = hp_live_recv(lv, f, deadline)) == 1) {
		got++;
		hp_frame_describe(f, line, sizeof(line));
		printf("< %s (%zu bytes)\n", line, f->len);
		if (o->capfile)
			hp_pcap_write(&w, f, (uint64_t)time(NULL) * 1000000ull);
	}
	fflush(stdout);
	hp_pcap_write_close(&w);
	free(f);
	if (!o->quiet)
		fprintf(stderr, "homa-pktgen: captured %llu frames\n",
			(unsigned long long)got);
	if (o->capture_count_set && got < o->capture_count) {
		fprintf(stderr, "homa-pktgen: captured %llu of %llu frames "
			"before the timeout\n", (unsigned long long)got,
			(unsigned long long)o->capture_count);
		return 1;
	}
	return 0;
}

int cli_inject(const struct cli_opts *o, const struct hp_list *l)
{
	struct hp_live lv;
	char err[512], line[512];
	uint64_t total = cli_total(o, l->n), start, end;
	struct hp_frame *tmp = o->id_step ? malloc(sizeof(*tmp)) : NULL;
	int ret = 0;

	if (hp_live_open(&lv, o->iface, o->filter,
			 (o->capture ? HP_LIVE_CAPTURE : 0) |
			 (o->bypass ? HP_LIVE_BYPASS : 0), err, sizeof(err))) {
		fprintf(stderr, "homa-pktgen: %s\n", err);
		free(tmp);
		return 1;
	}
	start = hp_now_ns();
	for (uint64_t i = 0; i < total && !ret; i++) {
		const struct hp_frame *f = frame_at(o, l, i, tmp);

		if (o->pps)
			hp_sleep_until_ns(start + i * 1000000000ull / o->pps);
		/* Paced frames leave one by one; the others fill the ring. */
		ret = hp_live_queue(&lv, f, i + 1, err, sizeof(err)) ||
		      (o->pps && hp_live_flush(&lv, err, sizeof(err)));
		if (!ret && o->verbose) {
			hp_frame_describe(f, line, sizeof(line));
			printf("> %s\n", line);
		}
	}
	if (ret || hp_live_flush(&lv, err, sizeof(err))) {
		fprintf(stderr, "homa-pktgen: %s\n", err);
		hp_live_close(&lv);
		free(tmp);
		return 1;
	}
	end = hp_now_ns();
	if (!o->quiet) {
		double s = (double)(end - start) / 1e9;

		fprintf(stderr, "homa-pktgen: sent %llu frames in %.6f s: "
			"%.0f pps\n", (unsigned long long)total, s,
			s > 0 ? (double)total / s : 0.0);
	}
	free(tmp);
	if (o->capture)
		ret = capture(o, &lv);
	hp_live_close(&lv);
	return ret;
}
