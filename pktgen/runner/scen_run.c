// SPDX-License-Identifier: BSD-2-Clause
/* scen_run.c - run one scenario for one IP family. */
#include "steps.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "homa_wire.h"
#include "linux/homa.h"
#include "hp_field.h"
#include "hp_parse.h"
#include "hp_spec.h"
#include "hp_util.h"
#include "held.h"
#include "send.h"

#define EXPECT_MS	3000	/* default time limit of expect/expect-msg */
#define NONE_MS		500	/* default window of expect-none */
#define WAIT_MS		10000	/* default time limit of wait */
#define SETTLE_MS	300	/* after each scenario (run_settle) */

static int expand(struct run_ctx *c, const struct step *st, struct args *a,
		  char *why, size_t n)
{
	char err[256];

	if (st->ntok > TOK_MAX) {
		snprintf(why, n, "line %d: too many tokens", st->line);
		return -1;
	}
	a->n = st->ntok;
	for (size_t i = 0; i < st->ntok; i++) {
		char *v;

		if (vars_expand(&c->vars, st->tok[i], a->tok[i], TOK_LEN, err,
				sizeof(err))) {
			snprintf(why, n, "line %d: %s", st->line, err);
			return -1;
		}
		/*
		 * Only KEY=VALUE steps are split; metric operators ("==")
		 * and a guest command (its last token) stay whole.
		 */
		v = st->kind == STEP_METRIC || st->kind == STEP_SET ||
		    st->kind == STEP_WAIT ||
		    st->kind == STEP_SLEEP ||
		    (st->kind == STEP_GUEST && i + 1 == st->ntok) ? NULL
			: strchr(a->tok[i], '=');
		a->kv[i].key = a->tok[i];
		a->kv[i].val = v ? v + 1 : NULL;
		if (v)
			*v = 0;
	}
	return 0;
}

static uint64_t arg_ms(const struct args *a, const char *key, uint64_t def,
		       int *bad)
{
	const char *v = arg(a, key);
	uint64_t ms;

	if (!v)
		return def;
	if (hp_parse_ms(v, &ms)) {
		*bad = 1;
		return def;
	}
	return ms;
}

/* Build frames: defaults for this run first, the step's keys after. */
static int build(struct run_ctx *c, const struct hp_kv *kv, size_t nkv,
		 const char *type, struct hp_list *out, char *why, size_t n)
{
	struct hp_kv all[TOK_MAX + 8];
	char fam[2] = { (char)('0' + c->family), 0 }, err[256];
	size_t k = 0;

	all[k++] = (struct hp_kv){ "family", fam };
	for (size_t i = 0; i < c->vars.n; i++) {
		if (strcmp(c->vars.name[i], "PORT") == 0)
			all[k++] = (struct hp_kv){ "dport", c->vars.val[i] };
		if (strcmp(c->vars.name[i], "CPORT") == 0)
			all[k++] = (struct hp_kv){ "sport", c->vars.val[i] };
		if (strcmp(c->vars.name[i], "ID") == 0)
			all[k++] = (struct hp_kv){ "id", c->vars.val[i] };
	}
	if (type)
		all[k++] = (struct hp_kv){ "type", type };
	for (size_t i = 0; i < nkv; i++)
		all[k++] = kv[i];
	if (hp_spec_build(&c->addrs, all, k, out, err, sizeof(err))) {
		snprintf(why, n, "%s", err);
		return -1;
	}
	return 0;
}

static int step_send(struct run_ctx *c, const struct args *a, char *why,
		     size_t n)
{
	struct hp_list l;
	int r;

	hp_list_init(&l);
	r = build(c, a->kv, a->n, NULL, &l, why, n);
	if (r == 0)
		r = run_send_list(c, &l, why, n);
	hp_list_free(&l);
	return r;
}

static int step_expect(struct run_ctx *c, const struct args *a, char *why,
		       size_t n)
{
	int bad = 0;
	uint64_t ms = arg_ms(a, "within", EXPECT_MS, &bad), count = 1;
	uint64_t deadline = hp_now_ns() + ms * 1000000ull;
	struct hp_frame *got;
	char want[400];
	int r = 1;

	if (bad || (arg(a, "count") && hp_parse_u64(arg(a, "count"), 100000,
						     &count))) {
		snprintf(why, n, "bad within= or count= value");
		return -1;
	}
	got = malloc(sizeof(*got));
	for (uint64_t i = 0; got && i < count && r == 1; i++)
		r = take(c, a, deadline, got, why, n);
	free(got);
	if (r == 1)
		return 0;
	if (r == 0) {
		describe_want(a, want, sizeof(want));
		snprintf(why, n, "expected %llu frame(s) [%s] within %llu ms: "
			 "not seen", (unsigned long long)count, want,
			 (unsigned long long)ms);
		dump_backlog(c);
	}
	return -1;
}

/* Keep a copy of @a: its frames stay forbidden until the scenario ends. */
static int hold(struct run_ctx *c, const struct args *a, int line, char *why,
		size_t n)
{
	struct args *h;

	if (c->nheld == HELD_MAX) {
		snprintf(why, n, "more than %d expect-none steps with until=end",
			 HELD_MAX);
		return -1;
	}
	h = malloc(sizeof(*h));
	if (!h)
		return -1;
	memcpy(h, a, sizeof(*h));
	/* kv[] points into tok[] of the copy. */
	for (size_t i = 0; i < h->n; i++) {
		h->kv[i].key = h->tok[i];
		h->kv[i].val = a->kv[i].val ? h->tok[i] + (a->kv[i].val - a->tok[i])
					    : NULL;
	}
	c->held[c->nheld] = h;
	c->held_line[c->nheld++] = line;
	return 0;
}

static int step_expect_none(struct run_ctx *c, const struct args *a,
			    int line_no, char *why, size_t n)
{
	struct deadline d;
	struct hp_frame *got;
	char want[400], line[512], win[96];
	int r, passed = 0;

	if (deadline_start(c, arg(a, "within"), NONE_MS, &d, why, n))
		return -1;
	got = malloc(sizeof(*got));
	if (!got)
		return -1;
	if (!d.ticks) {
		r = take(c, a, d.end_ns, got, why, n);
	} else {
		/*
		 * Capture until the guest's timer has run d.ticks times: a
		 * frame a timer would send has had its chance, however slowly
		 * the guest runs.
		 */
		for (;;) {
			uint64_t runs;

			r = take(c, a, hp_now_ns() + POLL_MS * 1000000ull, got,
				 why, n);
			if (r != 0)
				break;
			if (guest_read(c, NULL, &runs, why, n)) {
				r = -1;
				break;
			}
			passed = deadline_check(&d, runs, why, n);
			if (passed)
				break;
		}
		/* What arrived while the timer was read. */
		if (passed == 1)
			r = take(c, a, hp_now_ns(), got, why, n);
		else if (passed < 0)
			r = -1;
	}
	if (r == 1) {
		describe_want(a, want, sizeof(want));
		deadline_describe(&d, win, sizeof(win));
		hp_frame_describe(got, line, sizeof(line));
		/* A long frame description is cut; mark the cut. */
		if (snprintf(why, n, "expected no frame [%s] within %s, got: %s",
			     want, win, line) >= (int)n && n > 4)
			memcpy(why + n - 4, "...", 4);
	}
	free(got);
	if (r == 0 && arg(a, "until"))
		return hold(c, a, line_no, why, n);
	return r == 0 ? 0 : -1;
}

/* The message a DATA spec describes (msg-data, or msg-size + msg-seed). */
static uint8_t *expected_msg(const struct args *a, uint32_t *len, char *why,
			     size_t n)
{
	const char *data = arg(a, "msg-data");
	uint64_t size = HP_DEFAULT_MSG_SIZE, seed = 1;
	uint8_t *m;

	if ((arg(a, "msg-size") && hp_parse_u64(arg(a, "msg-size"), 100000000,
						 &size)) ||
	    (arg(a, "msg-seed") && hp_parse_u64(arg(a, "msg-seed"), UINT64_MAX,
						 &seed))) {
		snprintf(why, n, "bad msg-size= or msg-seed=");
		return NULL;
	}
	if (data)
		size = strlen(data);
	m = malloc(size ? size : 1);
	if (!m)
		return NULL;
	if (data)
		memcpy(m, data, size);
	else
		hp_msg_pattern(m, size, seed);
	*len = (uint32_t)size;
	return m;
}

/* Collect DATA frames matching @a until they cover the expected message. */
static int collect_msg(struct run_ctx *c, const struct args *a, char *why,
		       size_t n)
{
	int bad = 0;
	uint64_t ms = arg_ms(a, "within", EXPECT_MS, &bad);
	uint64_t deadline = hp_now_ns() + ms * 1000000ull;
	uint32_t len = 0, covered = 0;
	uint8_t *want = expected_msg(a, &len, why, n), *have;
	struct hp_frame *got = malloc(sizeof(*got));
	char line[512], desc[400];
	int r = -1;

	have = calloc(1, len ? len : 1);
	if (bad || !want || !have || !got)
		goto out;
	while (covered < len || len == 0) {
		const uint8_t *p;
		uint64_t mlen = 0, off = 0;
		size_t plen;

		r = take(c, a, deadline, got, why, n);
		if (r <= 0)
			break;
		r = -1;
		hp_frame_describe(got, line, sizeof(line));
		if (hp_frame_type(got) != DATA ||
		    hp_field_get(got, "msglen", &mlen) || mlen != len ||
		    hp_field_get(got, "offset", &off)) {
			snprintf(why, n, "message of %u bytes expected, got: %s",
				 len, line);
			goto out;
		}
		/* Full Homa: the offset is in the sequence field. */
		if (off == HOMA_SEG_OFFSET_USE_SEQ && hp_field_get(got, "seq", &off))
			off = HOMA_SEG_OFFSET_USE_SEQ;
		plen = hp_frame_payload(got, &p);
		if (off + plen > len || memcmp(want + off, p, plen)) {
			snprintf(why, n, "wrong message bytes in: %s", line);
			goto out;
		}
		for (size_t i = 0; i < plen; i++)
			if (!have[off + i]++)
				covered++;
		r = 1;
		if (len == 0)
			break;
	}
	if (r == 0) {
		describe_want(a, desc, sizeof(desc));
		snprintf(why, n, "message [%s] incomplete after %llu ms: %u of %u "
			 "bytes", desc, (unsigned long long)ms, covered, len);
		dump_backlog(c);
		r = -1;
	} else if (r > 0) {
		r = 0;
	}
out:
	free(want);
	free(have);
	free(got);
	return r;
}

static int step_expect_msg(struct run_ctx *c, const struct args *a,
			   char *why, size_t n)
{
	struct args *b = malloc(sizeof(*b));
	int r;

	if (!b)
		return -1;
	memcpy(b, a, sizeof(*b));
	/* Only DATA frames make up a message. */
	snprintf(b->tok[b->n], TOK_LEN, "type");
	b->kv[b->n] = (struct hp_kv){ b->tok[b->n], "DATA" };
	b->n++;
	r = collect_msg(c, b, why, n);
	free(b);
	return r;
}

/* rpc: send a request, expect its echo, acknowledge it. */
static int step_rpc(struct run_ctx *c, const struct args *a, char *why,
		    size_t n)
{
	struct args *m = calloc(1, sizeof(*m));
	struct hp_list l;
	struct hp_kv kv[TOK_MAX];
	uint64_t id = 0, sp = 0, dp = 0;
	size_t nkv = 0;
	int r = -1;

	hp_list_init(&l);
	if (!m)
		return -1;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->kv[i].key, "within") && strcmp(a->kv[i].key, "ack"))
			kv[nkv++] = a->kv[i];
	if (build(c, kv, nkv, "DATA", &l, why, n))
		goto out;
	hp_field_get(l.v[0], "id", &id);
	hp_field_get(l.v[0], "sport", &sp);
	hp_field_get(l.v[0], "dport", &dp);
	if (run_send_list(c, &l, why, n) || c->offline) {
		r = c->offline ? 0 : -1;
		goto ack;
	}
	/* The response: the server's id is ours ^ 1, ports swapped. */
	snprintf(m->tok[0], TOK_LEN, "id=%llu", (unsigned long long)(id ^ 1));
	snprintf(m->tok[1], TOK_LEN, "sport=%llu", (unsigned long long)dp);
	snprintf(m->tok[2], TOK_LEN, "dport=%llu", (unsigned long long)sp);
	m->n = 3;
	for (size_t i = 0; i < a->n && m->n < TOK_MAX; i++) {
		const char *k = a->kv[i].key;

		if (strcmp(k, "within") && strcmp(k, "msg-size") &&
		    strcmp(k, "msg-seed") && strcmp(k, "msg-data"))
			continue;
		snprintf(m->tok[m->n++], TOK_LEN, "%s=%s", k, a->kv[i].val);
	}
	for (size_t i = 0; i < m->n; i++) {
		char *v = strchr(m->tok[i], '=');

		*v = 0;
		m->kv[i] = (struct hp_kv){ m->tok[i], v + 1 };
	}
	if (step_expect_msg(c, m, why, n))
		goto out;
	r = 0;
ack:
	if (r == 0 && !(arg(a, "ack") && strcmp(arg(a, "ack"), "0") == 0)) {
		char ids[24], ports[8];
		struct hp_kv ack[] = {
			{ "id", ids }, { "sport", NULL }, { "dport", ports },
			{ "num_acks", "1" }, { "acks[0].id", ids },
			{ "acks[0].port", ports },
		};
		char sps[8];

		snprintf(ids, sizeof(ids), "%llu", (unsigned long long)id);
		snprintf(ports, sizeof(ports), "%llu", (unsigned long long)dp);
		snprintf(sps, sizeof(sps), "%llu", (unsigned long long)sp);
		ack[1].val = sps;
		hp_list_free(&l);
		r = build(c, ack, 6, "ACK", &l, why, n) ||
		    run_send_list(c, &l, why, n) ? -1 : 0;
	}
out:
	hp_list_free(&l);
	free(m);
	return r;
}

/*
 * Evaluate "[delta] NAME OP VALUE" (@tok) on @now. 1 holds, 0 does not
 * (@why says what it is), -1 error (@why set).
 */
static int metric_eval(const struct run_ctx *c, const char (*tok)[TOK_LEN],
		       const struct homa_metrics *now, char *why, size_t n)
{
	int delta = strcmp(tok[0], "delta") == 0;
	const char *name = tok[delta], *op = tok[delta + 1];
	const char *vs = tok[delta + 2];
	int64_t have, base = 0, want;
	char *end;
	int ok;

	want = strtoll(vs, &end, 0);
	if (!*vs || *end) {
		snprintf(why, n, "bad metric value '%s'", vs);
		return -1;
	}
	if (homa_metrics_sum(now, name, &have) ||
	    (delta && homa_metrics_sum(&c->base, name, &base))) {
		snprintf(why, n, "metric '%s' not in /proc/net/homa_metrics", name);
		return -1;
	}
	have -= base;
	ok = strcmp(op, "==") == 0 ? have == want :
	     strcmp(op, "!=") == 0 ? have != want :
	     strcmp(op, ">=") == 0 ? have >= want :
	     strcmp(op, "<=") == 0 ? have <= want :
	     strcmp(op, ">") == 0 ? have > want : have < want;
	if (!ok)
		snprintf(why, n, "metric %s%s is %lld, want %s %lld",
			 delta ? "delta " : "", name, (long long)have, op,
			 (long long)want);
	return ok;
}

static int step_metric(struct run_ctx *c, const struct args *a, char *why,
		       size_t n)
{
	struct homa_metrics *now = malloc(sizeof(*now));
	int r = -1;

	if (!now)
		return -1;
	if (metrics_read(c->agent, now, why, n) == 0)
		r = metric_eval(c, a->tok, now, why, n) == 1
			? 0 : -1;
	free(now);
	return r;
}

/*
 * wait [within=D] metric [delta] NAME OP VALUE: read the guest's metrics
 * every POLL_MS until the condition holds (pass) or the deadline passed
 * at the last read (fail with the last value). D in ticks counts the
 * guest's timer runs, read in the same agent call as the metrics.
 */
static int step_wait(struct run_ctx *c, const struct args *a, char *why,
		     size_t n)
{
	const char *within = NULL;
	size_t from = 0, end = a->n;
	struct homa_metrics *now = malloc(sizeof(*now));
	const char (*tok)[TOK_LEN];
	char last[400] = "", win[96];
	struct deadline d;
	unsigned int polls = 0;
	int r = -1;

	if (!now)
		return -1;
	if (strncmp(a->tok[0], "within=", 7) == 0)
		within = a->tok[from++] + 7;
	else if (strncmp(a->tok[end - 1], "within=", 7) == 0)
		within = a->tok[--end] + 7;
	tok = &a->tok[from + 1];	/* after "metric" */
	if (deadline_start(c, within, WAIT_MS, &d, why, n))
		goto out;
	for (;;) {
		uint64_t runs = 0;
		int ok, past;

		if (guest_read(c, now, d.ticks ? &runs : NULL, why, n))
			goto out;
		polls++;
		ok = metric_eval(c, tok, now, last, sizeof(last));
		if (ok < 0) {
			snprintf(why, n, "%s", last);
			goto out;
		}
		if (ok) {
			r = 0;
			goto out;
		}
		past = deadline_check(&d, runs, why, n);
		if (past < 0)
			goto out;
		if (past)
			break;
		pump(c, hp_now_ns() + POLL_MS * 1000000ull);
	}
	deadline_describe(&d, win, sizeof(win));
	snprintf(why, n, "%s after waiting %s (%u reads)", last, win, polls);
out:
	free(now);
	return r;
}

static int step_guest(struct run_ctx *c, const struct args *a, char *why,
		      size_t n)
{
	const char *cmd = a->tok[a->n - 1], *contains = NULL, *lacks = NULL;
	char *out = NULL;
	int status, want = 0, r = -1, echo = 0;

	for (size_t i = 0; i + 1 < a->n; i++) {
		if (strcmp(a->kv[i].key, "status") == 0)
			want = atoi(a->kv[i].val);
		else if (strcmp(a->kv[i].key, "contains") == 0)
			contains = a->kv[i].val;
		else if (strcmp(a->kv[i].key, "lacks") == 0)
			lacks = a->kv[i].val;
		else if (strcmp(a->kv[i].key, "echo") == 0)
			echo = atoi(a->kv[i].val);
	}
	if (agent_run(c->agent, cmd, 30000, &out, &status, why, n))
		return -1;
	if (echo) {
		for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n"))
			printf("# [guest] %s\n", l);
		free(out);
		return status == want ? 0 : (snprintf(why, n, "guest '%s': "
			"status %d, want %d", cmd, status, want), -1);
	}
	if (status != want)
		snprintf(why, n, "guest '%s': status %d, want %d: %.200s", cmd,
			 status, want, out);
	else if (contains && !strstr(out, contains))
		snprintf(why, n, "guest '%s': output lacks '%s': %.200s", cmd,
			 contains, out);
	else if (lacks && strstr(out, lacks))
		snprintf(why, n, "guest '%s': output has '%s'", cmd, lacks);
	else
		r = 0;
	free(out);
	return r;
}

/*
 * sysctl NAME VALUE: net.homa.NAME = VALUE in the guest for the rest of
 * the scenario; the old value is written back after it, pass or fail
 * (sysctl_restore()).
 */
static int step_sysctl(struct run_ctx *c, const struct args *a, char *why,
		       size_t n)
{
	const char *name = a->tok[0], *val = a->tok[1];
	char cmd[1700], *out = NULL;
	size_t i = c->nsysctl;
	int status = 0;

	if (i >= HELD_MAX || strlen(name) >= sizeof(c->sysctl_name[0]) ||
	    strlen(val) >= sizeof(c->sysctl_old[0])) {
		snprintf(why, n, "too many sysctl steps, or too long");
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "cat /proc/sys/net/homa/%s && "
		 "echo '%s' > /proc/sys/net/homa/%s", name, val, name);
	if (agent_run(c->agent, cmd, 30000, &out, &status, why, n))
		return -1;
	if (status != 0 || strspn(out, "0123456789-") == 0) {
		snprintf(why, n, "sysctl net.homa.%s = %s: status %d: %.100s",
			 name, val, status, out);
		free(out);
		return -1;
	}
	out[strspn(out, "0123456789-")] = 0;
	snprintf(c->sysctl_old[i], sizeof(c->sysctl_old[i]), "%s", out);
	memcpy(c->sysctl_name[i], name, strlen(name) + 1);
	c->nsysctl++;
	free(out);
	return 0;
}

/* Writes back, last first, what the scenario's sysctl steps changed. */
static int sysctl_restore(struct run_ctx *c, char *why, size_t n)
{
	char cmd[256], *out = NULL;
	int status = 0, r = 0;

	while (c->nsysctl) {
		size_t i = --c->nsysctl;

		snprintf(cmd, sizeof(cmd), "echo %s > /proc/sys/net/homa/%s",
			 c->sysctl_old[i], c->sysctl_name[i]);
		if (agent_run(c->agent, cmd, 30000, &out, &status, why, n) ||
		    status != 0) {
			if (!r && status != 0)
				snprintf(why, n, "restoring net.homa.%s to %s "
					 "failed", c->sysctl_name[i],
					 c->sysctl_old[i]);
			r = -1;
		}
		free(out);
		out = NULL;
	}
	return r;
}

static void init_vars(struct run_ctx *c, int family)
{
	char ip[INET6_ADDRSTRLEN];
	unsigned int k = c->run_index;

	memset(&c->vars, 0, sizeof(c->vars));
	vars_set_num(&c->vars, "FAMILY", (unsigned int)family);
	vars_set_num(&c->vars, "PORT", family == 6 ? c->port6 : c->port4);
	/* Unique per run: client ids are even, servers answer with id ^ 1. */
	vars_set_num(&c->vars, "ID", 100000ull * (k + 1));
	/* Below the fuzzer's source ports (40000..40999). */
	vars_set_num(&c->vars, "CPORT", 20000 + k);
	vars_set_num(&c->vars, "NOPORT", 9999);
	inet_ntop(family == 6 ? AF_INET6 : AF_INET,
		  family == 6 ? (void *)c->addrs.dip6 : (void *)c->addrs.dip4,
		  ip, sizeof(ip));
	vars_set(&c->vars, "GUEST_IP", ip);
	inet_ntop(family == 6 ? AF_INET6 : AF_INET,
		  family == 6 ? (void *)c->addrs.sip6 : (void *)c->addrs.sip4,
		  ip, sizeof(ip));
	vars_set(&c->vars, "PEER_IP", ip);
}

/* Offline (--write-pcaps), only the steps that send run. */
static int offline_step(enum step_kind k)
{
	return k == STEP_SEND || k == STEP_RPC || k == STEP_SET ||
	       k == STEP_FUZZ;
}

static int run_step(struct run_ctx *c, const struct step *st, struct args *a,
		    char *why, size_t n)
{
	uint64_t ms;

	if (c->offline && !offline_step(st->kind))
		return 0;
	switch (st->kind) {
	case STEP_SEND:		return step_send(c, a, why, n);
	case STEP_EXPECT:	return step_expect(c, a, why, n);
	case STEP_EXPECT_NONE:	return step_expect_none(c, a, st->line, why, n);
	case STEP_WAIT:		return step_wait(c, a, why, n);
	case STEP_EXPECT_MSG:	return step_expect_msg(c, a, why, n);
	case STEP_RPC:		return step_rpc(c, a, why, n);
	case STEP_METRIC:	return step_metric(c, a, why, n);
	case STEP_GUEST:	return step_guest(c, a, why, n);
	case STEP_SYSCTL:	return step_sysctl(c, a, why, n);
	case STEP_FUZZ:		return fuzz_run(c, a->kv, a->n, why, n);
	case STEP_SET:
		if (vars_set(&c->vars, a->tok[0], a->tok[1])) {
			snprintf(why, n, "too many variables");
			return -1;
		}
		return 0;
	case STEP_MARK:
		if (metrics_read(c->agent, &c->base, why, n))
			return -1;
		return 0;
	case STEP_FLUSH:
		pump(c, hp_now_ns());
		/* Forgetting frames must not hide a late forbidden one. */
		for (size_t i = 0; i < c->backlog.n; i++)
			if (run_held_check(c, c->backlog.v[i], why, n))
				return -1;
		hp_list_free(&c->backlog);
		return 0;
	case STEP_SLEEP:
		hp_parse_ms(a->tok[0], &ms);
		pump(c, hp_now_ns() + ms * 1000000ull);
		return 0;
	}
	return -1;
}

/*
 * Does @tok need the guest: a duration in ticks, or a variable read from
 * the guest's sysctls?
 */
static int tok_needs_agent(const char *tok)
{
	static const char *const vars[] = {
		"$RESEND_TICKS", "$RESEND_INTERVAL", "$TIMEOUT_TICKS",
		"$REQUEST_ACK_TICKS",
	};
	size_t len = strlen(tok);

	if (len > 5 && strcmp(tok + len - 5, "ticks") == 0)
		return 1;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strstr(tok, vars[i]))
			return 1;
	return 0;
}

static int needs_agent(const struct scenario *s)
{
	for (size_t i = 0; i < s->nsteps; i++) {
		const struct step *st = &s->steps[i];

		if (st->kind == STEP_METRIC || st->kind == STEP_WAIT ||
		    st->kind == STEP_GUEST || st->kind == STEP_MARK ||
		    st->kind == STEP_SYSCTL)
			return 1;
		for (size_t k = 0; k < st->ntok; k++)
			if (tok_needs_agent(st->tok[k]))
				return 1;
	}
	return 0;
}

static void drop_held(struct run_ctx *c)
{
	while (c->nheld)
		free(c->held[--c->nheld]);
}

enum run_result scen_run(struct run_ctx *c, const struct scenario *s,
			 int family, char *why, size_t n)
{
	struct args *a = malloc(sizeof(*a));
	char err[768];
	enum run_result res = RUN_PASS;

	if (!a) {
		snprintf(why, n, "out of memory");
		return RUN_FAIL;
	}
	c->family = family;
	init_vars(c, family);
	if (!c->offline) {
		pump(c, hp_now_ns());
		hp_list_free(&c->backlog);
		if (needs_agent(s) && !c->agent) {
			/* Not a skip: a scenario that cannot check fails. */
			snprintf(why, n, "needs the guest agent (metric, wait, "
				 "mark or guest steps, or guest ticks), but HOMALAB_AGENT0 is "
				 "not set and no --agent was given (run it as a "
				 "vm/lab --host step)");
			free(a);
			return RUN_FAIL;
		}
		if (needs_agent(s) && (guest_tick_vars(c, err, sizeof(err)) ||
				       metrics_read(c->agent, &c->base, err,
						    sizeof(err)))) {
			snprintf(why, n, "baseline: %s", err);
			free(a);
			return RUN_FAIL;
		}
	}
	for (size_t i = 0; i < s->nsteps && res == RUN_PASS; i++) {
		const struct step *st = &s->steps[i];
		long from = st->loop_var ? st->loop_from : 0;
		long to = st->loop_var ? st->loop_to : 0;

		if (c->offline && !offline_step(st->kind))
			continue;
		for (long v = from; v <= to && res == RUN_PASS; v++) {
			if (st->loop_var)
				vars_set_num(&c->vars, st->loop_var,
					     (unsigned long long)v);
			if (expand(c, st, a, why, n)) {
				res = RUN_FAIL;
				break;
			}
			err[0] = 0;
			if (run_step(c, st, a, err, sizeof(err))) {
				if (st->loop_var)
					snprintf(why, n, "line %d ($%s=%ld): %s",
						 st->line, st->loop_var, v,
						 err[0] ? err : "failed");
				else
					snprintf(why, n, "line %d: %s", st->line,
						 err[0] ? err : "failed");
				res = RUN_FAIL;
			}
		}
	}
	if (!c->offline) {
		err[0] = 0;
		if (run_settle(c, SETTLE_MS, err, sizeof(err)) &&
		    res == RUN_PASS) {
			snprintf(why, n, "after the last step: %s", err);
			res = RUN_FAIL;
		}
		err[0] = 0;
		if (sysctl_restore(c, err, sizeof(err)) && res == RUN_PASS) {
			snprintf(why, n, "%s", err);
			res = RUN_FAIL;
		}
	}
	drop_held(c);
	free(a);
	return res;
}
