// SPDX-License-Identifier: BSD-2-Clause
/* scen_parse.c - read a scenario file into steps, checking its syntax. */
#include "scen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_field.h"
#include "hp_spec.h"
#include "hp_util.h"

static const struct {
	const char *name;
	enum step_kind kind;
} commands[] = {
	{ "send", STEP_SEND }, { "expect", STEP_EXPECT },
	{ "expect-none", STEP_EXPECT_NONE }, { "expect-msg", STEP_EXPECT_MSG },
	{ "rpc", STEP_RPC }, { "metric", STEP_METRIC }, { "mark", STEP_MARK },
	{ "wait", STEP_WAIT },
	{ "guest", STEP_GUEST }, { "sleep", STEP_SLEEP }, { "set", STEP_SET },
	{ "fuzz", STEP_FUZZ }, { "flush", STEP_FLUSH },
	{ "sysctl", STEP_SYSCTL },
};

/* Keys an expect-type step accepts besides fields. */
static int match_key_ok(enum step_kind k, const char *key)
{
	if (strcmp(key, "within") == 0 || strcmp(key, "icmp") == 0)
		return 1;
	if (k == STEP_EXPECT && strcmp(key, "count") == 0)
		return 1;
	if (k == STEP_EXPECT_NONE && strcmp(key, "until") == 0)
		return 1;
	if (k == STEP_EXPECT_MSG &&
	    (strcmp(key, "msg-size") == 0 || strcmp(key, "msg-seed") == 0 ||
	     strcmp(key, "msg-data") == 0))
		return 1;
	return hp_field_known(key);
}

static int fuzz_key_ok(const char *key)
{
	return strcmp(key, "count") == 0 || strcmp(key, "seed") == 0 ||
	       strcmp(key, "time") == 0 || strcmp(key, "pps") == 0 ||
	       strcmp(key, "dport") == 0 || strcmp(key, "report") == 0 ||
	       strcmp(key, "min") == 0;
}

static int rpc_key_ok(const char *key)
{
	return strcmp(key, "within") == 0 || strcmp(key, "ack") == 0 ||
	       hp_spec_key_known(key);
}

/* Tokenize @line in place: words, "quoted strings", # starts a comment. */
static int tokenize(char *line, char ***out, size_t *n)
{
	char **v = NULL;
	size_t cnt = 0;
	char *p = line;

	for (;;) {
		char *start, *w;

		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p || *p == '#')
			break;
		start = w = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
			if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && p[1])
						p++;
					*w++ = *p++;
				}
				if (*p != '"') {
					while (cnt)
						free(v[--cnt]);
					free(v);
					return -1;
				}
				p++;
			} else {
				*w++ = *p++;
			}
		}
		if (*p)
			p++;
		*w = 0;
		char **nv = realloc(v, (cnt + 1) * sizeof(*v));

		if (!nv) {
			free(v);
			return -1;
		}
		v = nv;
		v[cnt++] = strdup(start);
	}
	*out = v;
	*n = cnt;
	return 0;
}

int scen_parse_duration(const char *s, uint64_t *ms, uint64_t *ticks)
{
	size_t len = strlen(s);
	char num[32];

	*ms = 0;
	*ticks = 0;
	if (len > 5 && strcmp(s + len - 5, "ticks") == 0) {
		if (len - 5 >= sizeof(num))
			return -1;
		memcpy(num, s, len - 5);
		num[len - 5] = 0;
		if (strspn(num, "0123456789") != len - 5 ||
		    hp_parse_u64(num, 1000000, ticks) || *ticks == 0)
			return -1;
		return 0;
	}
	return hp_parse_ms(s, ms);
}

char *scen_split_kv(char *tok)
{
	char *eq = strchr(tok, '=');

	if (!eq || eq == tok)
		return NULL;
	*eq = 0;
	return eq + 1;
}

/* Check every token of @st is KEY=VALUE with a key @ok accepts. */
static const char *check_kvs(const struct step *st, size_t from,
			     int (*ok)(enum step_kind, const char *),
			     char *why, size_t n)
{
	for (size_t i = from; i < st->ntok; i++) {
		const char *eq = strchr(st->tok[i], '=');
		char key[64];

		if (!eq || eq == st->tok[i] ||
		    (size_t)(eq - st->tok[i]) >= sizeof(key)) {
			snprintf(why, n, "'%s' is not KEY=VALUE", st->tok[i]);
			return why;
		}
		memcpy(key, st->tok[i], (size_t)(eq - st->tok[i]));
		key[eq - st->tok[i]] = 0;
		if (!ok(st->kind, key)) {
			snprintf(why, n, "unknown key '%s'", key);
			return why;
		}
	}
	return NULL;
}

static int send_ok(enum step_kind k, const char *key)
{
	(void)k;
	return hp_spec_key_known(key);
}

static int fuzz_ok(enum step_kind k, const char *key)
{
	(void)k;
	return fuzz_key_ok(key);
}

static int rpc_ok(enum step_kind k, const char *key)
{
	(void)k;
	return rpc_key_ok(key);
}

static int guest_ok(enum step_kind k, const char *key)
{
	(void)k;
	return strcmp(key, "status") == 0 || strcmp(key, "contains") == 0 ||
	       strcmp(key, "lacks") == 0 || strcmp(key, "echo") == 0;
}

/* "metric [delta] NAME OP VALUE" in @tok[@i..@end). */
static const char *check_metric(char **tok, size_t i, size_t end)
{
	static const char *const ops[] = { "==", "!=", ">=", "<=", ">", "<", NULL };

	if (i < end && strcmp(tok[i], "delta") == 0)
		i++;
	if (end != i + 3)
		return "want: metric [delta] NAME OP VALUE";
	for (const char *const *o = ops; *o; o++)
		if (strcmp(*o, tok[i + 1]) == 0)
			return NULL;
	return "metric OP must be one of == != >= <= > <";
}

/*
 * wait [within=DURATION] metric [delta] NAME OP VALUE: "within=" comes
 * first or last; a literal DURATION must parse.
 */
static const char *check_wait(struct step *st)
{
	static const char want[] = "want: wait [within=DURATION] metric [delta] "
		"NAME OP VALUE [within=DURATION]";
	size_t from = 0, end = st->ntok;

	if (end && strncmp(st->tok[0], "within=", 7) == 0)
		from = 1;
	else if (end && strncmp(st->tok[end - 1], "within=", 7) == 0)
		end--;
	if (from < end && strncmp(st->tok[end - 1], "within=", 7) == 0)
		return want;
	for (size_t i = 0; i < st->ntok; i++) {
		const char *w = st->tok[i];
		uint64_t ms, ticks;

		if (strncmp(w, "within=", 7) || strchr(w, '$'))
			continue;
		if (scen_parse_duration(w + 7, &ms, &ticks))
			return "want: within=DURATION (e.g. 500ms, 10s, 20ticks)";
	}
	if (from >= end || strcmp(st->tok[from], "metric"))
		return want;
	return check_metric(st->tok, from + 1, end);
}

static const char *check_step(struct step *st, char *why, size_t n)
{
	size_t i = 0;
	uint64_t v;
	const char *u;

	switch (st->kind) {
	case STEP_SEND:
		return check_kvs(st, 0, send_ok, why, n);
	case STEP_EXPECT_NONE:
		for (i = 0; i < st->ntok; i++) {
			if (strncmp(st->tok[i], "until=", 6))
				continue;
			u = st->tok[i] + 6;
			if (strcmp(u, "end"))
				return "want: until=end";
		}
		return check_kvs(st, 0, match_key_ok, why, n);
	case STEP_EXPECT:
	case STEP_EXPECT_MSG:
		return check_kvs(st, 0, match_key_ok, why, n);
	case STEP_WAIT:
		return check_wait(st);
	case STEP_RPC:
		return check_kvs(st, 0, rpc_ok, why, n);
	case STEP_FUZZ:
		return check_kvs(st, 0, fuzz_ok, why, n);
	case STEP_MARK:
	case STEP_FLUSH:
		return st->ntok ? "mark and flush take no arguments" : NULL;
	case STEP_SLEEP:
		if (st->ntok != 1 || hp_parse_ms(st->tok[0], &v))
			return "want: sleep DURATION (e.g. 50ms, 2s)";
		return NULL;
	case STEP_SET:
		return st->ntok == 2 ? NULL : "want: set NAME VALUE";
	case STEP_SYSCTL:
		if (st->ntok != 2 || !st->tok[0][0] ||
		    strspn(st->tok[0], "abcdefghijklmnopqrstuvwxyz_") !=
		    strlen(st->tok[0]) || !st->tok[1][0] ||
		    strspn(st->tok[1], "0123456789-") != strlen(st->tok[1]))
			return "want: sysctl NAME NUMBER (NAME of net.homa.*)";
		return NULL;
	case STEP_METRIC:
		return check_metric(st->tok, 0, st->ntok);
	case STEP_GUEST:
		for (; i < st->ntok; i++) {
			char key[64];
			size_t kl = strcspn(st->tok[i], "=");

			if (!st->tok[i][kl] || kl >= sizeof(key))
				break;
			memcpy(key, st->tok[i], kl);
			key[kl] = 0;
			if (!guest_ok(st->kind, key))
				break;
		}
		return i + 1 == st->ntok ? NULL : "want: guest [status=N] "
			"[contains=TEXT] [lacks=TEXT] [echo=1] \"COMMAND\"";
	}
	return "unknown step";
}

/* Header lines: "name TEXT..." and "family 4 [6]". */
static int header(struct scenario *s, char **tok, size_t n, const char **why)
{
	if (strcmp(tok[0], "name") == 0) {
		size_t len = 0;

		for (size_t i = 1; i < n; i++)
			len += strlen(tok[i]) + 1;
		free(s->name);
		s->name = calloc(1, len + 1);
		for (size_t i = 1; i < n && s->name; i++) {
			strcat(s->name, tok[i]);
			if (i + 1 < n)
				strcat(s->name, " ");
		}
		return 1;
	}
	if (strcmp(tok[0], "family") == 0) {
		s->families = 0;
		for (size_t i = 1; i < n; i++) {
			if (strcmp(tok[i], "4") && strcmp(tok[i], "6")) {
				*why = "want: family 4 | 6 | 4 6";
				return -1;
			}
			s->families |= FAM_BIT(tok[i][0] - '0');
		}
		if (!s->families) {
			*why = "want: family 4 | 6 | 4 6";
			return -1;
		}
		return 1;
	}
	return 0;
}

static void free_tokens(char **tok, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(tok[i]);
	free(tok);
}

int scen_parse(const char *path, struct scenario *s)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL, why_buf[256];
	size_t cap = 0;
	int lineno = 0;
	const char *base = strrchr(path, '/');

	memset(s, 0, sizeof(*s));
	if (!fp) {
		fprintf(stderr, "homa-scenario: cannot read '%s'\n", path);
		return -1;
	}
	s->path = strdup(path);
	s->name = strdup(base ? base + 1 : path);
	s->families = FAM_BIT(4) | FAM_BIT(6);
	while (getline(&line, &cap, fp) > 0) {
		char **tok;
		size_t n, k;
		const char *why = NULL;
		int h;

		lineno++;
		if (tokenize(line, &tok, &n)) {
			why = "unterminated quote";
			goto bad;
		}
		if (!n) {
			free(tok);
			continue;
		}
		/* "for VAR FROM TO COMMAND..." */
		char *loop_var = NULL;
		long from = 0, to = -1;

		if (strcmp(tok[0], "for") == 0) {
			uint64_t a, b;

			if (n < 5 || hp_parse_u64(tok[2], 1000000, &a) ||
			    hp_parse_u64(tok[3], 1000000, &b) || a > b) {
				free_tokens(tok, n);
				why = "want: for VAR FROM TO COMMAND... "
				      "(FROM <= TO, numbers)";
				goto bad;
			}
			loop_var = tok[1];
			from = (long)a;
			to = (long)b;
			free(tok[0]);
			free(tok[2]);
			free(tok[3]);
			memmove(tok, tok + 4, (n - 4) * sizeof(*tok));
			n -= 4;
		}
		h = loop_var ? 0 : header(s, tok, n, &why);
		if (h) {
			free_tokens(tok, n);
			if (h < 0)
				goto bad;
			continue;
		}
		for (k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
			if (strcmp(commands[k].name, tok[0]) == 0)
				break;
		if (k == sizeof(commands) / sizeof(commands[0])) {
			snprintf(why_buf, sizeof(why_buf), "unknown command '%s'",
				 tok[0]);
			free_tokens(tok, n);
			free(loop_var);
			why = why_buf;
			goto bad;
		}
		struct step st = { commands[k].kind, lineno, NULL, n - 1,
				   loop_var, from, to };
		struct step *nv;

		free(tok[0]);
		memmove(tok, tok + 1, (n - 1) * sizeof(*tok));
		st.tok = tok;
		why = check_step(&st, why_buf, sizeof(why_buf));
		nv = why ? NULL : realloc(s->steps, (s->nsteps + 1) * sizeof(*nv));
		if (!nv) {
			free_tokens(tok, n - 1);
			free(loop_var);
			why = why ? why : "out of memory";
			goto bad;
		}
		s->steps = nv;
		s->steps[s->nsteps++] = st;
		continue;
bad:
		fprintf(stderr, "homa-scenario: %s:%d: %s\n", path, lineno, why);
		free(line);
		fclose(fp);
		scen_free(s);
		return -1;
	}
	free(line);
	fclose(fp);
	return 0;
}

void scen_free(struct scenario *s)
{
	for (size_t i = 0; i < s->nsteps; i++) {
		free_tokens(s->steps[i].tok, s->steps[i].ntok);
		free(s->steps[i].loop_var);
	}
	free(s->steps);
	free(s->path);
	free(s->name);
	memset(s, 0, sizeof(*s));
}
