// SPDX-License-Identifier: BSD-2-Clause
/*
 * homa-pktgen - craft Homa frames, write them to pcap, inject them and
 * capture the answers. See pktgen/README.md.
 */
#include <stdio.h>

#include "hp_pcap.h"
#include "hp_spec.h"
#include "opts.h"
#include "send.h"

static int load(struct cli_opts *o, struct hp_list *l)
{
	char err[512];
	char bad_env[64] = "";

	if (hp_addrs_from_env(&o->addrs, 0, bad_env, sizeof(bad_env))) {
		fprintf(stderr, "homa-pktgen: bad address in $%s\n", bad_env);
		return -1;
	}
	if (o->rfile) {
		if (o->nkv) {
			fprintf(stderr, "homa-pktgen: packet options cannot be "
				"combined with -r (it replays frames as they are)\n");
			return -1;
		}
		if (hp_pcap_read_all(o->rfile, l, err, sizeof(err)))
			goto fail;
		if (l->n == 0) {
			fprintf(stderr, "homa-pktgen: '%s' holds no frames\n",
				o->rfile);
			return -1;
		}
		return 0;
	}
	if (hp_spec_build(&o->addrs, o->kv, o->nkv, l, err, sizeof(err)) == 0)
		return 0;
fail:
	fprintf(stderr, "homa-pktgen: %s\n", err);
	return -1;
}

int main(int argc, char **argv)
{
	struct cli_opts o;
	struct hp_list l;
	int ret = 0;

	if (cli_parse(argc, argv, &o))
		return 2;
	if (o.help) {
		cli_usage();
		return 0;
	}
	if (o.list_fields) {
		cli_list_fields();
		return 0;
	}
	if (o.capture && !o.iface) {
		fprintf(stderr, "homa-pktgen: capturing (-f, --timeout, -C, -W or "
			"a filter expression) needs -i\n");
		return 2;
	}
	hp_list_init(&l);
	if (load(&o, &l)) {
		hp_list_free(&l);
		return 2;
	}
	if (o.wfile)
		ret |= cli_write(&o, &l);
	if (o.iface && !ret)
		ret |= cli_inject(&o, &l);
	if (!o.wfile && !o.iface)
		cli_print(&o, &l);
	hp_list_free(&l);
	return ret;
}
