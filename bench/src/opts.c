// SPDX-License-Identifier: GPL-2.0
/* opts.c - see opts.h. */
#include "opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

void opts_usage(FILE *out)
{
	fprintf(out,
		"usage:\n"
		"  homa_bench server [--port P] [--family 4|6] [--homa-threads N]\n"
		"  homa_bench client --server IP --proto homa|tcp --workload NAME\n"
		"                    --flow CLASS:SIZE:OUTSTANDING [--flow ...]\n"
		"                    [--port P] [--run N] [--duration S] [--warmup S] [--stall S]\n"
		"  homa_bench wait --server IP [--port P] [--timeout S]\n");
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "homa_bench: bad %s '%s'\n", what, arg);
	return -1;
}

static int parse_ul(const char *s, unsigned long min, unsigned long max,
		    unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || end == s || *end || *v < min || *v > max ? -1 : 0;
}

static int parse_secs(const char *s, double min, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !(*v >= min) || *v > 3600 ? -1 : 0;
}

static int parse_port(const char *s, uint16_t *port)
{
	unsigned long v;

	if (parse_ul(s, 1, 65535, &v))
		return bad("port", s);
	*port = (uint16_t)v;
	return 0;
}

/* CLASS:SIZE:OUTSTANDING */
static int parse_flow(const char *s, struct flow_spec *f)
{
	const char *c1 = strchr(s, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char num[32];
	unsigned long v;
	size_t n;

	if (!c1 || !c2 || c1 == s || (size_t)(c1 - s) >= FLOW_NAME_MAX)
		return bad("--flow (CLASS:SIZE:OUTSTANDING)", s);
	memset(f, 0, sizeof(*f));
	memcpy(f->name, s, c1 - s);
	n = c2 - c1 - 1;
	if (n == 0 || n >= sizeof(num))
		return bad("--flow size", s);
	memcpy(num, c1 + 1, n);
	num[n] = 0;
	if (parse_ul(num, 1, BENCH_MAX_SIZE, &v))
		return bad("--flow size (1..1000000)", s);
	f->size = v;
	if (parse_ul(c2 + 1, 1, 64, &v))
		return bad("--flow outstanding (1..64)", s);
	f->outstanding = (unsigned int)v;
	return 0;
}

enum { O_SERVER = 1, O_PORT, O_PROTO, O_WORKLOAD, O_RUN, O_DURATION,
       O_WARMUP, O_STALL, O_FLOW, O_FAMILY, O_THREADS, O_TIMEOUT };

static const struct option LONG_OPTS[] = {
	{ "server", required_argument, NULL, O_SERVER },
	{ "port", required_argument, NULL, O_PORT },
	{ "proto", required_argument, NULL, O_PROTO },
	{ "workload", required_argument, NULL, O_WORKLOAD },
	{ "run", required_argument, NULL, O_RUN },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "stall", required_argument, NULL, O_STALL },
	{ "flow", required_argument, NULL, O_FLOW },
	{ "family", required_argument, NULL, O_FAMILY },
	{ "homa-threads", required_argument, NULL, O_THREADS },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ NULL, 0, NULL, 0 },
};

/* Runs getopt over argv; @allowed lists the options this mode takes. */
static int next_opt(int argc, char **argv, const int *allowed)
{
	int c = getopt_long(argc, argv, "", LONG_OPTS, NULL);
	int i;

	if (c <= 0)
		return c;
	for (i = 0; allowed[i]; i++)
		if (allowed[i] == c)
			return c;
	fprintf(stderr, "homa_bench: option not valid here: %s\n",
		argv[optind - 1]);
	return '?';
}

int opts_client(int argc, char **argv, struct client_opts *o)
{
	static const int allowed[] = { O_SERVER, O_PORT, O_PROTO, O_WORKLOAD,
		O_RUN, O_DURATION, O_WARMUP, O_STALL, O_FLOW, 0 };
	unsigned long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->port = BENCH_DEFAULT_PORT;
	o->proto = -1;
	o->duration_s = 3;
	o->warmup_s = 0.5;
	o->stall_s = 15;
	optind = 1;
	while ((c = next_opt(argc, argv, allowed)) != -1) {
		switch (c) {
		case O_SERVER: o->server = optarg; break;
		case O_PORT:
			if (parse_port(optarg, &o->port))
				return -1;
			break;
		case O_PROTO:
			if (!strcmp(optarg, "homa"))
				o->proto = PROTO_HOMA;
			else if (!strcmp(optarg, "tcp"))
				o->proto = PROTO_TCP;
			else
				return bad("--proto (homa or tcp)", optarg);
			break;
		case O_WORKLOAD: o->workload = optarg; break;
		case O_RUN:
			if (parse_ul(optarg, 0, 1000000, &v))
				return bad("--run", optarg);
			o->run = (unsigned int)v;
			break;
		case O_DURATION:
			if (parse_secs(optarg, 0.1, &o->duration_s))
				return bad("--duration", optarg);
			break;
		case O_WARMUP:
			if (parse_secs(optarg, 0, &o->warmup_s))
				return bad("--warmup", optarg);
			break;
		case O_STALL:
			if (parse_secs(optarg, 1, &o->stall_s))
				return bad("--stall", optarg);
			break;
		case O_FLOW:
			if (o->nflows == BENCH_MAX_FLOWS)
				return bad("--flow (too many)", optarg);
			if (parse_flow(optarg, &o->flows[o->nflows]))
				return -1;
			o->nflows++;
			break;
		default:
			return -1;
		}
	}
	if (optind != argc)
		return bad("argument", argv[optind]);
	if (!o->server || (int)o->proto < 0 || !o->workload || !o->nflows) {
		fprintf(stderr, "homa_bench client: --server, --proto, --workload and --flow are required\n");
		return -1;
	}
	return 0;
}

int opts_server(int argc, char **argv, struct server_opts *o)
{
	static const int allowed[] = { O_PORT, O_FAMILY, O_THREADS, 0 };
	unsigned long v;
	int c;

	o->port = BENCH_DEFAULT_PORT;
	o->family = AF_INET;
	o->homa_threads = 2;
	optind = 1;
	while ((c = next_opt(argc, argv, allowed)) != -1) {
		switch (c) {
		case O_PORT:
			if (parse_port(optarg, &o->port))
				return -1;
			break;
		case O_FAMILY:
			if (!strcmp(optarg, "4"))
				o->family = AF_INET;
			else if (!strcmp(optarg, "6"))
				o->family = AF_INET6;
			else
				return bad("--family (4 or 6)", optarg);
			break;
		case O_THREADS:
			if (parse_ul(optarg, 1, 64, &v))
				return bad("--homa-threads", optarg);
			o->homa_threads = (unsigned int)v;
			break;
		default:
			return -1;
		}
	}
	if (optind != argc)
		return bad("argument", argv[optind]);
	if (o->port >= 0x8000) {
		fprintf(stderr, "homa_bench server: Homa server ports are below 32768\n");
		return -1;
	}
	return 0;
}

int opts_wait(int argc, char **argv, struct wait_opts *o)
{
	static const int allowed[] = { O_SERVER, O_PORT, O_TIMEOUT, 0 };
	int c;

	o->server = NULL;
	o->port = BENCH_DEFAULT_PORT;
	o->timeout_s = 30;
	optind = 1;
	while ((c = next_opt(argc, argv, allowed)) != -1) {
		switch (c) {
		case O_SERVER: o->server = optarg; break;
		case O_PORT:
			if (parse_port(optarg, &o->port))
				return -1;
			break;
		case O_TIMEOUT:
			if (parse_secs(optarg, 1, &o->timeout_s))
				return bad("--timeout", optarg);
			break;
		default:
			return -1;
		}
	}
	if (optind != argc)
		return bad("argument", argv[optind]);
	if (!o->server) {
		fprintf(stderr, "homa_bench wait: --server is required\n");
		return -1;
	}
	return 0;
}
