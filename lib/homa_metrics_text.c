// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* homa_metrics_text.c - see homa_metrics_text.h. */
#include "homa_metrics_text.h"

#include <stdbool.h>
#include <string.h>

/* Longest line looked at; longer ones are ignored. */
#define LINE_MAX_LEN	255

/* Adds the line [@line, @line + @len) to @m if it is "name value". */
static void add_line(struct homa_metrics *m, const char *line, size_t len)
{
	char buf[LINE_MAX_LEN + 1], name[LINE_MAX_LEN + 1];
	long long v;

	if (m->n >= HOMA_METRICS_MAX || len > LINE_MAX_LEN)
		return;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (sscanf(buf, "%255s %lld", name, &v) != 2 ||
	    strlen(name) >= HOMA_METRIC_NAME_MAX)
		return;
	strcpy(m->name[m->n], name);
	m->val[m->n++] = v;
}

void homa_metrics_parse(const char *text, struct homa_metrics *m)
{
	const char *p = text;
	size_t len;

	m->n = 0;
	while (*p) {
		len = strcspn(p, "\n");
		add_line(m, p, len);
		p += len;
		if (*p == '\n')
			p++;
	}
}

int homa_metrics_parse_file(FILE *f, struct homa_metrics *m)
{
	char line[LINE_MAX_LEN + 2];
	bool starts = true, ends;
	size_t len;

	m->n = 0;
	while (fgets(line, sizeof(line), f)) {
		len = strcspn(line, "\n");
		ends = line[len] == '\n' || feof(f);
		/* A piece of a line too long for @line is not a whole line. */
		if (starts && ends)
			add_line(m, line, len);
		starts = ends;
	}
	return ferror(f) ? -1 : 0;
}

int homa_metrics_get(const struct homa_metrics *m, const char *name,
		     int64_t *v)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (strcmp(m->name[i], name) == 0) {
			*v = m->val[i];
			return 0;
		}
	}
	return -1;
}

int homa_metrics_sum(const struct homa_metrics *m, const char *expr,
		     int64_t *v)
{
	const char *p = expr;
	size_t len, cmp, i;
	bool prefix, found;

	*v = 0;
	while (*p) {
		len = strcspn(p, "+");
		prefix = len && p[len - 1] == '*';
		cmp = prefix ? len - 1 : len;
		found = false;
		for (i = 0; i < m->n; i++) {
			if (strncmp(m->name[i], p, cmp) ||
			    (!prefix && m->name[i][cmp]))
				continue;
			*v += m->val[i];
			found = true;
		}
		if (!found)
			return -1;
		p += len;
		if (*p == '+')
			p++;
	}
	return 0;
}
