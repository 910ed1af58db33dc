// SPDX-License-Identifier: GPL-2.0
/*
 * homa_bench - echo RPCs over Homa and TCP, for the lab benchmark.
 * Modes: server (echo both transports), client (run a workload and
 * print JSON), wait (until the server answers). See bench/README.md.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "opts.h"
#include "server.h"
#include "wait.h"

int main(int argc, char **argv)
{
	struct client_opts c;
	struct server_opts s;
	struct wait_opts w;

	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		opts_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "server"))
		return opts_server(argc - 1, argv + 1, &s) ? 2 : server_main(&s);
	if (!strcmp(argv[1], "client"))
		return opts_client(argc - 1, argv + 1, &c) ? 2 : client_main(&c);
	if (!strcmp(argv[1], "wait"))
		return opts_wait(argc - 1, argv + 1, &w) ? 2 : wait_main(&w);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		opts_usage(stdout);
		return 0;
	}
	opts_usage(stderr);
	return 2;
}
