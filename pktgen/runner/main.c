// SPDX-License-Identifier: BSD-2-Clause
/*
 * homa-scenario - run Homa scenarios (files NAME.scn; the kernel's are in
 * kernel/selftests/scenarios/<feature>/) against a lab guest and print
 * KTAP, or write their packets to pcap files.
 *
 * Inside a `vm/lab run --host` step it takes the tap, addresses and agent
 * socket from the HOMALAB_* environment. See pktgen/README.md.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hp_util.h"
#include "run.h"
#include "scen.h"

#define SCEN_EXT	".scn"
#define PCAP_TS_BASE_US	1734307200000000ull	/* 2024-12-16 00:00 UTC */

/* struct opts - the command line. */
struct opts {
	const char *iface, *agent, *pcap_dir, *only;
	unsigned int port4, port6;
	int families, verbose, check;
	char **paths;
	int npaths;
};

static void usage(void)
{
	printf(
"usage: homa-scenario [options] PATH...\n"
"Run every scenario file (PATH, or each *.scn under the folder PATH, in\n"
"file-name order) for each IP family it names and print KTAP.\n"
"  -i, --interface IFACE  tap to the guest (default $HOMALAB_TAP0)\n"
"      --agent SOCK       guest agent socket (default $HOMALAB_AGENT0)\n"
"      --port4 N          guest server port for IPv4 (default 5000)\n"
"      --port6 N          guest server port for IPv6 (default 5001)\n"
"  -4, -6                 only this family\n"
"      --only NAME        only scenario files whose name contains NAME\n"
"      --write-pcaps DIR  no guest: write each scenario's packets to\n"
"                         DIR/<scenario>-v4.pcap and -v6.pcap\n"
"      --check            only parse the files\n"
"  -v, --verbose          print every frame sent and received\n");
}

static int die(const char *fmt, const char *a)
{
	fprintf(stderr, "homa-scenario: ");
	fprintf(stderr, fmt, a);
	fputc('\n', stderr);
	return 2;
}

static int parse_port(const char *s, unsigned int *p)
{
	uint64_t v;

	if (hp_parse_u64(s, 65535, &v) || v == 0)
		return -1;
	*p = (unsigned int)v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "interface", required_argument, NULL, 'i' },
		{ "agent", required_argument, NULL, 'a' },
		{ "port4", required_argument, NULL, 'P' },
		{ "port6", required_argument, NULL, 'Q' },
		{ "only", required_argument, NULL, 'o' },
		{ "write-pcaps", required_argument, NULL, 'w' },
		{ "check", no_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->iface = getenv("HOMALAB_TAP0");
	o->agent = getenv("HOMALAB_AGENT0");
	o->port4 = 5000;
	o->port6 = 5001;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:46vh", lo, NULL)) != -1) {
		switch (c) {
		case 'i': o->iface = optarg; break;
		case 'a': o->agent = optarg; break;
		case 'o': o->only = optarg; break;
		case 'w': o->pcap_dir = optarg; break;
		case 'c': o->check = 1; break;
		case 'v': o->verbose = 1; break;
		case '4': o->families |= FAM_BIT(4); break;
		case '6': o->families |= FAM_BIT(6); break;
		case 'h': usage(); exit(0);
		case 'P':
			if (parse_port(optarg, &o->port4))
				return die("bad value '%s' for --port4: want 1..65535",
					   optarg);
			break;
		case 'Q':
			if (parse_port(optarg, &o->port6))
				return die("bad value '%s' for --port6: want 1..65535",
					   optarg);
			break;
		case ':':
			return die("option '%s' needs a value", argv[optind - 1]);
		default:
			return die("unknown option '%s' (see --help)",
				   argv[optind - 1]);
		}
	}
	if (!o->families)
		o->families = FAM_BIT(4) | FAM_BIT(6);
	o->paths = argv + optind;
	o->npaths = argc - optind;
	if (!o->npaths)
		return die("no scenario file or directory given%s", "");
	return 0;
}

/* Scenario files sort by name, wherever they sit under the path given. */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static int cmp_base(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int r = strcmp(base_name(x), base_name(y));

	return r ? r : strcmp(x, y);
}

struct file_list {
	char **v;
	size_t n, cap;
};

static int list_add(struct file_list *l, char *path)
{
	char **v;

	if (!path)
		return die("%s", "out of memory");
	if (l->n == l->cap) {
		v = realloc(l->v, (l->cap * 2 + 16) * sizeof(*v));
		if (!v) {
			free(path);
			return die("%s", "out of memory");
		}
		l->v = v;
		l->cap = l->cap * 2 + 16;
	}
	l->v[l->n++] = path;
	return 0;
}

/* Adds the *.scn files under directory @dir (and its subdirectories,
 * one folder per feature) whose names contain @only (if set).
 */
static int collect_dir(struct file_list *l, const char *dir,
		       const char *only, int depth)
{
	struct dirent *de;
	int err = 0;
	DIR *d;

	if (depth > 8)
		return die("'%s': folders nested too deep", dir);
	d = opendir(dir);
	if (!d)
		return die("cannot read folder '%s'", dir);
	while (!err && (de = readdir(d))) {
		size_t len = strlen(de->d_name), ext = strlen(SCEN_EXT);
		struct stat sb;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
			p = NULL;
		if (p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			err = collect_dir(l, p, only, depth + 1);
			free(p);
			continue;
		}
		if (p && (len <= ext || strcmp(de->d_name + len - ext, SCEN_EXT) ||
			  (only && !strstr(de->d_name, only)))) {
			free(p);
			continue;
		}
		err = list_add(l, p);
	}
	closedir(d);
	return err;
}

/* Expand directories into their *.scn files (searched through their
 * subfolders), each path's files sorted by file name: the order, and so
 * each scenario's ids and ports, does not depend on the folders.
 */
static int collect(const struct opts *o, char ***files, size_t *n)
{
	struct file_list l = { 0 };

	*files = NULL;
	*n = 0;
	for (int i = 0; i < o->npaths; i++) {
		size_t first = l.n;
		struct stat sb;
		int err;

		if (stat(o->paths[i], &sb))
			return die("cannot read '%s'", o->paths[i]);
		if (S_ISDIR(sb.st_mode))
			err = collect_dir(&l, o->paths[i], o->only, 0);
		else
			err = list_add(&l, strdup(o->paths[i]));
		if (err)
			return err;
		qsort(l.v + first, l.n - first, sizeof(*l.v), cmp_base);
	}
	*files = l.v;
	*n = l.n;
	return *n ? 0 : die("no %s files found", SCEN_EXT);
}

static int open_pcap(struct run_ctx *c, const struct opts *o,
		     const struct scenario *s, int family)
{
	const char *base = strrchr(s->path, '/');
	char path[4096], err[512];
	size_t len;

	base = base ? base + 1 : s->path;
	len = strlen(base) - strlen(SCEN_EXT);
	snprintf(path, sizeof(path), "%s/%.*s-v%d.pcap", o->pcap_dir, (int)len,
		 base, family);
	c->pcap_ts_us = PCAP_TS_BASE_US;
	if (hp_pcap_write_open(&c->pcap, path, err, sizeof(err))) {
		fprintf(stderr, "homa-scenario: %s\n", err);
		return -1;
	}
	return 0;
}

static int run_all(struct run_ctx *c, const struct opts *o,
		   struct scenario *sc, size_t n)
{
	int total = 0, k = 0, failed = 0;
	char why[1024];

	for (size_t i = 0; i < n; i++)
		for (int f = 4; f <= 6; f += 2)
			total += (sc[i].families & o->families & FAM_BIT(f)) != 0;
	printf("TAP version 13\n1..%d\n", total);
	fflush(stdout);
	for (size_t i = 0; i < n; i++) {
		for (int f = 4; f <= 6; f += 2) {
			enum run_result r;

			if (!(sc[i].families & o->families & FAM_BIT(f)))
				continue;
			k++;
			why[0] = 0;
			if (c->offline && open_pcap(c, o, &sc[i], f))
				return 1;
			/*
			 * Offline, ids and ports depend only on the file and
			 * family, so adding a scenario changes no other pcap.
			 */
			if (c->offline)
				c->run_index = f == 6;
			r = scen_run(c, &sc[i], f, why, sizeof(why));
			if (c->offline)
				hp_pcap_write_close(&c->pcap);
			c->run_index++;
			if (r == RUN_PASS)
				printf("ok %d %s (IPv%d)\n", k, sc[i].name, f);
			else
				printf("not ok %d %s (IPv%d)\n# %s: %s\n", k,
				       sc[i].name, f, sc[i].path, why);
			failed += r == RUN_FAIL;
			fflush(stdout);
		}
	}
	printf("# %d passed, %d failed of %d\n", total - failed, failed, total);
	return failed ? 1 : 0;
}

static void free_all(struct scenario *sc, char **files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (sc)
			scen_free(&sc[i]);
		free(files[i]);
	}
	free(files);
	free(sc);
}

/* Open the tap (live mode) and run everything. */
static int run(struct run_ctx *c, const struct opts *o, struct scenario *sc,
	       size_t n)
{
	char err[512], filter[64];
	char bad[64] = "";
	int ret;

	hp_addrs_default(&c->addrs);
	if (hp_addrs_from_env(&c->addrs, 0, bad, sizeof(bad)))
		return die("bad address in $%s", bad);
	c->port4 = o->port4;
	c->port6 = o->port6;
	c->verbose = o->verbose;
	c->agent = o->agent && *o->agent ? o->agent : NULL;
	if (o->pcap_dir) {
		c->offline = 1;
	} else {
		if (!o->iface)
			return die("no interface: give -i or set HOMALAB_TAP0%s", "");
		snprintf(filter, sizeof(filter),
			 "ether src %02x:%02x:%02x:%02x:%02x:%02x",
			 c->addrs.dmac[0], c->addrs.dmac[1], c->addrs.dmac[2],
			 c->addrs.dmac[3], c->addrs.dmac[4], c->addrs.dmac[5]);
		if (hp_live_open(&c->live, o->iface, filter, HP_LIVE_CAPTURE,
				 err, sizeof(err))) {
			fprintf(stderr, "homa-scenario: %s\n", err);
			return 1;
		}
	}
	ret = run_all(c, o, sc, n);
	if (!c->offline)
		hp_live_close(&c->live);
	hp_list_free(&c->backlog);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct run_ctx *c;
	struct scenario *sc;
	char **files = NULL;
	size_t n = 0;
	int ret;

	ret = parse_opts(argc, argv, &o);
	if (ret || (ret = collect(&o, &files, &n))) {
		free_all(NULL, files, n);
		return ret;
	}
	sc = calloc(n, sizeof(*sc));
	c = calloc(1, sizeof(*c));
	if (!sc || !c) {
		ret = 1;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (scen_parse(files[i], &sc[i])) {
			ret = 2;
			goto out;
		}
	}
	if (o.check)
		printf("homa-scenario: %zu scenario files parse\n", n);
	else
		ret = run(c, &o, sc, n);
out:
	free_all(sc, files, n);
	free(c);
	return ret;
}
