// SPDX-License-Identifier: GPL-2.0
/*
 * homa_pcap_client - a guest program that makes Homa traffic worth
 * recording for the dissector: a fixed list of echo RPCs of chosen sizes
 * against homa_echo_server (kernel/selftests), each checked byte for byte.
 *
 * Usage: homa_pcap_client --server ADDR --port P --sizes N[,N...]
 *                         [--repeat R] [--wait SECONDS]
 * Prints one "ok"/"not ok" line per RPC (KTAP-like) and exits 1 on a
 * failure.  The first RPC is retried until the server answers or --wait
 * seconds pass (the server may still be starting).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "rpc_client.h"

#define MAX_SIZES 32

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s --server ADDR --port P --sizes N[,N...] "
		"[--repeat R] [--wait SECONDS]\n", prog);
	exit(2);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "wait", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	const char *server = NULL;
	size_t sizes[MAX_SIZES], nsizes = 0, max = 1, i;
	int port = -1, repeat = 1, wait_s = 20, c, r, n = 0, failed = 0;
	union homa_addr addr;
	struct homa_ep ep;
	struct homa_rx rx;
	uint8_t *buf;
	char *tok, *save;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': server = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'r': repeat = atoi(optarg); break;
		case 'w': wait_s = atoi(optarg); break;
		case 'z':
			for (tok = strtok_r(optarg, ",", &save); tok && nsizes < MAX_SIZES;
			     tok = strtok_r(NULL, ",", &save)) {
				sizes[nsizes] = strtoul(tok, NULL, 10);
				if (sizes[nsizes] > max)
					max = sizes[nsizes];
				nsizes++;
			}
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!server || port <= 0 || port > 65535 || nsizes == 0 || repeat < 1)
		usage(argv[0]);
	if (homa_addr_parse(&addr, server, (uint16_t)port) < 0)
		usage(argv[0]);
	if (homa_ep_open(&ep, addr.sa.sa_family, 0, 64) < 0) {
		perror("homa_ep_open");
		return 1;
	}
	homa_rx_init(&rx);
	buf = malloc(max);
	if (!buf)
		return 1;

	printf("TAP version 13\n1..%zu\n", nsizes * (size_t)repeat);
	for (r = 0; r < repeat; r++) {
		for (i = 0; i < nsizes; i++) {
			long long deadline = now_ms() + wait_s * 1000LL;
			struct rpc_result res;
			bool ok;

			do {
				ok = rpc_echo_checked(&ep, &rx, &addr, buf, sizes[i],
						      (uint64_t)(n + 1), 1, &res);
				if (ok || res.err == 0 || n > 0)
					break;
				usleep(200 * 1000);	/* server not up yet */
			} while (now_ms() < deadline);
			n++;
			if (!ok) {
				failed = 1;
				printf("# %s: %s %s (id %llu)\n", res.stage,
				       res.err ? strerror(-res.err) : "", res.detail,
				       (unsigned long long)res.id);
			}
			printf("%sok %d - echo_%zu id %llu\n", ok ? "" : "not ",
			       n, sizes[i], (unsigned long long)res.id);
		}
	}
	free(buf);
	homa_ep_close(&ep);
	return failed;
}
