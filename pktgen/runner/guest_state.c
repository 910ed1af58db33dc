// SPDX-License-Identifier: BSD-2-Clause
/*
 * guest_state.c - what the runner observes in the guest to time its
 * steps: metrics, the protocol's tick parameters, and how often the
 * guest's Homa timer thread has run (one run per tick).
 *
 * The timer thread (kernel/homa_timer.c, homa_timer_main) sleeps once per
 * tick, so its voluntary context switches in /proc/PID/status count its
 * runs. A wait written in ticks ends after that many runs, whatever the
 * wall time: on a slow guest it lasts longer, never fewer ticks.
 */
#include "steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_util.h"

/* Safety cap of a wait in ticks: a timer that stalls fails the step. */
#define TICK_CAP_BASE_MS	10000
#define TICK_CAP_PER_TICK_MS	200

#define RUNS_NAME	"homalab_timer_runs"
#define PID_NAME	"homalab_timer_pid"

static int find_timer(struct run_ctx *c, char *why, size_t n)
{
	static const char cmd[] =
		"for d in /proc/[0-9]*; do read -r n < $d/comm && "
		"[ \"$n\" = homa_timer ] && echo " PID_NAME " ${d#/proc/}; "
		"done 2>/dev/null; true";
	struct homa_metrics *m = malloc(sizeof(*m));
	char *out = NULL;
	int status, r = -1;
	int64_t pid;

	if (!m || agent_run(c->agent, cmd, 30000, &out, &status, why, n))
		goto out;
	homa_metrics_parse(out, m);
	if (homa_metrics_get(m, PID_NAME, &pid) || pid <= 0) {
		snprintf(why, n, "no homa_timer thread in the guest (is the "
			 "module loaded?)");
		goto out;
	}
	c->timer_pid = (int)pid;
	r = 0;
out:
	free(out);
	free(m);
	return r;
}

static int read_once(struct run_ctx *c, struct homa_metrics *m, uint64_t *runs,
		     char *why, size_t n)
{
	char cmd[256], *out = NULL;
	struct homa_metrics *tmp = m ? m : malloc(sizeof(*tmp));
	int status, r = -1;
	int64_t v;

	if (!tmp)
		return -1;
	snprintf(cmd, sizeof(cmd), "cat /proc/net/homa_metrics");
	if (runs)
		snprintf(cmd, sizeof(cmd), "%ssed -n 's/^voluntary_ctxt_switches:"
			 "[^0-9]*/" RUNS_NAME " /p' /proc/%d/status",
			 m ? "cat /proc/net/homa_metrics && " : "", c->timer_pid);
	if (agent_run(c->agent, cmd, 10000, &out, &status, why, n))
		goto out;
	if (status != 0) {
		snprintf(why, n, "reading the guest's metrics: status %d: %.200s",
			 status, out);
		goto out;
	}
	homa_metrics_parse(out, tmp);
	if (runs) {
		if (homa_metrics_get(tmp, RUNS_NAME, &v) || v < 0) {
			snprintf(why, n, "no run count for homa_timer (pid %d)",
				 c->timer_pid);
			goto out;
		}
		*runs = (uint64_t)v;
	}
	r = 0;
out:
	free(out);
	if (tmp != m)
		free(tmp);
	return r;
}

int guest_read(struct run_ctx *c, struct homa_metrics *m, uint64_t *runs,
	       char *why, size_t n)
{
	if (runs && !c->timer_pid && find_timer(c, why, n))
		return -1;
	if (read_once(c, m, runs, why, n) == 0)
		return 0;
	if (!runs)
		return -1;
	/* The module may have been reloaded: look for the thread again. */
	c->timer_pid = 0;
	if (find_timer(c, why, n))
		return -1;
	return read_once(c, m, runs, why, n);
}

int guest_tick_vars(struct run_ctx *c, char *why, size_t n)
{
	static const char *const names[][2] = {
		{ "resend_ticks", "RESEND_TICKS" },
		{ "resend_interval", "RESEND_INTERVAL" },
		{ "timeout_ticks", "TIMEOUT_TICKS" },
		{ "request_ack_ticks", "REQUEST_ACK_TICKS" },
	};
	static const char cmd[] =
		"cd /proc/sys/net/homa && for f in resend_ticks resend_interval "
		"timeout_ticks request_ack_ticks; do echo $f $(cat $f); done";
	struct homa_metrics *m = malloc(sizeof(*m));
	char *out = NULL;
	int status, r = -1;

	if (!m || agent_run(c->agent, cmd, 10000, &out, &status, why, n))
		goto out;
	if (status != 0) {
		snprintf(why, n, "reading net.homa sysctls: status %d: %.200s",
			 status, out);
		goto out;
	}
	homa_metrics_parse(out, m);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int64_t v;

		if (homa_metrics_get(m, names[i][0], &v) || v <= 0) {
			snprintf(why, n, "no net.homa.%s in the guest", names[i][0]);
			goto out;
		}
		vars_set_num(&c->vars, names[i][1], (unsigned long long)v);
	}
	r = 0;
out:
	free(out);
	free(m);
	return r;
}

int deadline_start(struct run_ctx *c, const char *spec, uint64_t def_ms,
		   struct deadline *d, char *why, size_t n)
{
	uint64_t ms = def_ms, ticks = 0;

	memset(d, 0, sizeof(*d));
	if (spec && scen_parse_duration(spec, &ms, &ticks)) {
		snprintf(why, n, "bad duration '%s' (want e.g. 500ms, 10s, "
			 "20ticks)", spec);
		return -1;
	}
	d->start_ns = hp_now_ns();
	d->ticks = ticks;
	if (ticks) {
		if (guest_read(c, NULL, &d->tick0, why, n))
			return -1;
		d->runs = d->tick0;
		ms = TICK_CAP_BASE_MS + ticks * TICK_CAP_PER_TICK_MS;
	}
	d->end_ns = d->start_ns + ms * 1000000ull;
	return 0;
}

int deadline_check(struct deadline *d, uint64_t runs, char *why, size_t n)
{
	uint64_t now = hp_now_ns();

	if (!d->ticks)
		return now >= d->end_ns;
	d->runs = runs;
	if (runs - d->tick0 >= d->ticks)
		return 1;
	if (now < d->end_ns)
		return 0;
	snprintf(why, n, "the guest's Homa timer ran only %llu of %llu ticks "
		 "in %llu ms: the guest is stalled",
		 (unsigned long long)(runs - d->tick0),
		 (unsigned long long)d->ticks,
		 (unsigned long long)((now - d->start_ns) / 1000000));
	return -1;
}

void deadline_describe(const struct deadline *d, char *out, size_t n)
{
	uint64_t ms = (hp_now_ns() - d->start_ns) / 1000000;

	if (d->ticks)
		snprintf(out, n, "%llu ticks (%llu ran, %llu ms)",
			 (unsigned long long)d->ticks,
			 (unsigned long long)(d->runs - d->tick0),
			 (unsigned long long)ms);
	else
		snprintf(out, n, "%llu ms",
			 (unsigned long long)((d->end_ns - d->start_ns) / 1000000));
}
