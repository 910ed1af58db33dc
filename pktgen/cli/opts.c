// SPDX-License-Identifier: BSD-2-Clause
/* opts.c - parse homa-pktgen's command line, tcpreplay/tcpdump style. */
#include "opts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hp_field.h"
#include "hp_util.h"

enum {
	OPT_PPS = 0x100, OPT_TOPSPEED, OPT_LIST, OPT_SMAC, OPT_DMAC,
	OPT_TIMEOUT, OPT_ID_STEP, OPT_BYPASS, OPT_KEY = 0x1000,
};

static const struct option fixed[] = {
	{ "write", required_argument, NULL, 'w' },
	{ "interface", required_argument, NULL, 'i' },
	{ "read", required_argument, NULL, 'r' },
	{ "count", required_argument, NULL, 'c' },
	{ "loop", required_argument, NULL, 'l' },
	{ "id-step", required_argument, NULL, OPT_ID_STEP },
	{ "pps", required_argument, NULL, OPT_PPS },
	{ "topspeed", no_argument, NULL, OPT_TOPSPEED },
	{ "qdisc-bypass", no_argument, NULL, OPT_BYPASS },
	{ "filter", required_argument, NULL, 'f' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "capture-count", required_argument, NULL, 'C' },
	{ "capture-write", required_argument, NULL, 'W' },
	{ "smac", required_argument, NULL, OPT_SMAC },
	{ "dmac", required_argument, NULL, OPT_DMAC },
	{ "list-fields", no_argument, NULL, OPT_LIST },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
};
#define NFIXED (sizeof(fixed) / sizeof(fixed[0]))

void cli_usage(void)
{
	printf(
"usage: homa-pktgen [options] [--FIELD VALUE]... [BPF expression]\n"
"Build Homa frames (or read them with -r), then print them, write them to a\n"
"pcap (-w) and/or inject them on an interface (-i), and capture the answers.\n"
"  -w, --write FILE        write the frames to a pcap file\n"
"  -i, --interface IFACE   inject on IFACE (e.g. the lab's tap0)\n"
"  -r, --read FILE         replay the frames of a pcap file\n"
"  -c, --count N           send N frames in total (cycling through them)\n"
"  -l, --loop N            send the whole set N times (default 1)\n"
"      --id-step N         each pass through the set after the first adds N\n"
"                          to every Homa id (and non-zero acked ids): -c/-l\n"
"                          make distinct RPCs\n"
"      --pps RATE          at most RATE frames per second (default: top speed)\n"
"      --topspeed          as fast as possible (default)\n"
"      --qdisc-bypass      hand frames straight to the driver, offering again\n"
"                          what a full device refuses (no drops, a lower\n"
"                          rate); captures on IFACE do not see them\n"
"  -f, --filter EXPR       capture answers matching the BPF EXPR (also: a\n"
"                          trailing expression, as with tcpdump)\n"
"      --timeout MS        capture for MS ms after sending (default 1000;\n"
"                          units ms, s, us accepted)\n"
"  -C, --capture-count N   stop after N captured frames; exit 1 if fewer\n"
"  -W, --capture-write F   write captured frames to the pcap F\n"
"  -4, -6                  IPv4 (default) or IPv6\n"
"      --smac MAC, --dmac MAC   Ethernet addresses (= --eth.src, --eth.dst)\n"
"  -v, --verbose           print every frame sent; -q, --quiet: no summary\n"
"      --list-fields       list every --FIELD\n"
"Packet keys: --type T --sport P --dport P --id N --msg-size N --msg-seed S\n"
"  --msg-data TEXT --seg-size N --order SPEC --truncate N --truncate-frame N\n"
"  --payload-len N --poke OFF:VAL --reply 1 --gso 1 --icmp port-unreachable\n"
"  and every field of --list-fields.\n"
"Defaults: DATA, 100-byte message, %d > %d, id %d, from the lab peer to\n"
"guest 0 (HOMALAB_* variables override the addresses).\n"
"Exit status: 0 ok, 1 failure at run time (cannot write, inject or capture;\n"
"  fewer answers than -C), 2 bad usage (a flag, a value or an -r file).\n",
	HP_DEFAULT_SPORT, HP_DEFAULT_DPORT, HP_DEFAULT_ID);
}

void cli_list_fields(void)
{
	printf("%-16s %s\n", "KEY", "MEANING");
	for (size_t i = 0; i < hp_field_count(); i++) {
		const struct hp_field_def *d = hp_field_at(i);

		if (d->help)
			printf("%-16s %s\n", d->name, d->help);
	}
	printf("%-16s %s\n", "family", "4 or 6");
	printf("%-16s %s\n", "msg-size", "DATA: message length (pattern bytes)");
	printf("%-16s %s\n", "msg-seed", "DATA: seed of the pattern");
	printf("%-16s %s\n", "msg-data", "DATA: message text");
	printf("%-16s %s\n", "seg-size", "DATA: payload bytes per segment");
	printf("%-16s %s\n", "order", "segments: I,J,.. reverse shuffle:S drop:I dup:I");
	printf("%-16s %s\n", "payload-len", "zero bytes after a control header");
	printf("%-16s %s\n", "truncate", "cut the Homa part to N bytes");
	printf("%-16s %s\n", "truncate-frame", "cut the frame to N bytes");
	printf("%-16s %s\n", "poke", "OFF:VAL set a Homa header byte");
	printf("%-16s %s\n", "reply", "1: from the guest to the peer (addresses swapped)");
	printf("%-16s %s\n", "gso", "1: DATA segments packed in one GSO frame");
	printf("%-16s %s\n", "icmp", "port-unreachable: the ICMP error quoting the frame");
}

/* Long options: the fixed ones, then one per distinct field/special key. */
static struct option *build_table(const char ***names)
{
	size_t nf = hp_field_count(), nk = 0, n = 0;
	struct option *t;
	const char **nm;

	while (hp_spec_keys[nk])
		nk++;
	t = calloc(NFIXED + nf + nk + 1, sizeof(*t));
	nm = calloc(nf + nk + 1, sizeof(*nm));
	if (!t || !nm) {
		free(t);
		free(nm);
		return NULL;
	}
	memcpy(t, fixed, sizeof(fixed));
	for (size_t i = 0; i < nf + nk; i++) {
		const char *name = i < nf ? hp_field_at(i)->name
					  : hp_spec_keys[i - nf];
		int dup = 0;

		for (size_t j = 0; j < n; j++)
			dup |= strcmp(nm[j], name) == 0;
		if (dup)
			continue;
		nm[n] = name;
		t[NFIXED + n] = (struct option){ name, required_argument, NULL,
						 OPT_KEY + (int)n };
		n++;
	}
	*names = nm;
	return t;
}

static int bad(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "homa-pktgen: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return -1;
}

static int add_kv(struct cli_opts *o, const char *k, const char *v)
{
	if (o->nkv >= CLI_MAX_KV)
		return bad("too many packet options (most %s)%s", "256", "");
	o->kv[o->nkv++] = (struct hp_kv){ k, v };
	return 0;
}

static int number(const char *opt, const char *v, uint64_t max, uint64_t *out)
{
	if (hp_parse_u64(v, max, out))
		return bad("bad value '%s' for %s: want a whole number", v, opt);
	return 0;
}

static int one(struct cli_opts *o, int c, const char **names)
{
	const char *a = optarg;
	uint64_t x;

	switch (c) {
	case 'w': o->wfile = a; return 0;
	case 'i': o->iface = a; return 0;
	case 'r': o->rfile = a; return 0;
	case 'W': o->capfile = a; o->capture = 1; return 0;
	case 'v': o->verbose = 1; return 0;
	case 'q': o->quiet = 1; return 0;
	case 'h': o->help = 1; return 0;
	case OPT_LIST: o->list_fields = 1; return 0;
	case OPT_TOPSPEED: o->pps = 0; return 0;
	case OPT_BYPASS: o->bypass = 1; return 0;
	case '4': return add_kv(o, "family", "4");
	case '6': return add_kv(o, "family", "6");
	case OPT_SMAC: return add_kv(o, "eth.src", a);
	case OPT_DMAC: return add_kv(o, "eth.dst", a);
	case 'c':
		if (number("-c", a, UINT32_MAX, &o->count))
			return -1;
		if (!o->count)
			return bad("bad value '%s' for -c: want at least 1%s", a, "");
		o->count_set = 1;
		return 0;
	case 'l':
		if (number("-l", a, UINT32_MAX, &o->loop))
			return -1;
		if (!o->loop)
			return bad("bad value '%s' for -l: want at least 1%s", a, "");
		return 0;
	case OPT_ID_STEP:
		return number("--id-step", a, UINT32_MAX, &o->id_step);
	case OPT_PPS:
		if (number("--pps", a, 100000000, &o->pps))
			return -1;
		if (!o->pps)
			return bad("bad value '%s' for --pps: want at least 1%s", a, "");
		return 0;
	case 'f':
		if (strlen(a) >= sizeof(o->filter))
			return bad("filter too long%s%s", "", "");
		strcpy(o->filter, a);
		o->capture = 1;
		return 0;
	case OPT_TIMEOUT:
		if (hp_parse_ms(a, &o->timeout_ms))
			return bad("bad value '%s' for --timeout: want a duration "
				   "such as 500, 500ms or 2s%s", a, "");
		o->timeout_set = o->capture = 1;
		return 0;
	case 'C':
		if (number("-C", a, UINT32_MAX, &x))
			return -1;
		o->capture_count = x;
		o->capture_count_set = o->capture = 1;
		return 0;
	default:
		if (c >= OPT_KEY)
			return add_kv(o, names[c - OPT_KEY], a);
		return bad("internal: unhandled option %s%s", "", "");
	}
}

int cli_parse(int argc, char **argv, struct cli_opts *o)
{
	const char **names = NULL;
	struct option *table = build_table(&names);
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->loop = 1;
	o->timeout_ms = 1000;
	hp_addrs_default(&o->addrs);
	if (!table)
		return bad("out of memory%s%s", "", "");
	opterr = 0;
	optind = 1;
	while (ret == 0 &&
	       (c = getopt_long(argc, argv, ":w:i:r:c:l:f:C:W:46vqh", table,
				NULL)) != -1) {
		if (c == '?') {
			if (optopt) {
				fprintf(stderr, "homa-pktgen: unknown option "
					"'-%c' (see --help)\n", optopt);
				ret = -1;
			} else
				ret = bad("unknown option '%s' (see --help)%s",
					  argv[optind - 1], "");
		} else if (c == ':') {
			ret = bad("option '%s' needs a value%s", argv[optind - 1],
				  "");
		} else {
			ret = one(o, c, names);
		}
	}
	/* A trailing BPF expression, as with tcpdump. */
	for (int i = optind; ret == 0 && i < argc; i++) {
		size_t len = strlen(o->filter);

		if (len + strlen(argv[i]) + 2 > sizeof(o->filter)) {
			ret = bad("filter too long%s%s", "", "");
			break;
		}
		snprintf(o->filter + len, sizeof(o->filter) - len, "%s%s",
			 len ? " " : "", argv[i]);
		o->capture = 1;
	}
	free(table);
	free(names);
	return ret;
}
