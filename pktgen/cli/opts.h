/* SPDX-License-Identifier: BSD-2-Clause */
/* opts.h - command line of homa-pktgen. */
#ifndef HP_CLI_OPTS_H
#define HP_CLI_OPTS_H

#include <stdint.h>

#include "hp_frame.h"
#include "hp_spec.h"

#define CLI_MAX_KV	256

/* struct cli_opts - everything the command line says. */
struct cli_opts {
	const char *wfile, *iface, *rfile, *capfile;
	char filter[2048];
	uint64_t count, loop, pps, timeout_ms, capture_count, id_step;
	int count_set, timeout_set, capture_count_set, capture;
	int verbose, quiet, list_fields, help, bypass;
	struct hp_addrs addrs;
	struct hp_kv kv[CLI_MAX_KV];
	size_t nkv;
};

/*
 * Parse argv into @o. 0 ok; -1 after printing one error line (the caller
 * exits with status 2).
 */
int cli_parse(int argc, char **argv, struct cli_opts *o);

void cli_usage(void);
void cli_list_fields(void);

#endif /* HP_CLI_OPTS_H */
