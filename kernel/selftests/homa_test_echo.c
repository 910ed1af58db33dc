// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_echo - echo RPCs of many sizes to a homa_echo_server, every
 * response checked byte for byte; sizes 0 and max+1 must give EINVAL.
 *
 * Usage: homa_test_echo [--server ADDR] [--port P] [--family 4|6]
 *                       [--wait SECONDS]
 * The family follows ADDR; without ADDR the server is the loopback
 * address of --family (default 4).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "expect.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "ktap.h"
#include "rpc_client.h"
#include "watchdog.h"

static const size_t echo_sizes[] = {
	1, 100, 1399, 1400, 1401, 10000, 65535, 65536, 65537, 100000,
	500000, 1000000,
};
#define NUM_SIZES (sizeof(echo_sizes) / sizeof(echo_sizes[0]))

struct echo_opts {
	union homa_addr server;
	int wait_s;
};

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--server ADDR] [--port P] [--family 4|6] "
		"[--wait SECONDS]\n", prog);
	exit(2);
}

static void parse(int argc, char **argv, struct echo_opts *o)
{
	static const struct option opts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "family", required_argument, NULL, 'f' },
		{ "wait", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	const char *server = NULL;
	int family = AF_INET, port = 500, c;

	o->wait_s = 15;
	while ((c = getopt_long(argc, argv, "s:p:f:w:", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			server = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'f':
			family = homa_family_parse(optarg);
			if (family < 0)
				usage(argv[0]);
			break;
		case 'w':
			o->wait_s = atoi(optarg);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (port <= 0 || port > 0xffff)
		usage(argv[0]);
	if (!server)
		homa_addr_loopback(&o->server, family, (uint16_t)port);
	else if (homa_addr_parse(&o->server, server, (uint16_t)port) < 0)
		usage(argv[0]);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void report_failure(struct ktap *k, const struct rpc_result *res)
{
	if (res->err)
		ktap_diag(k, "%s failed: %s (id %llu)", res->stage,
			  errno_name(res->err), (unsigned long long)res->id);
	else
		ktap_diag(k, "%s (id %llu)", res->detail,
			  (unsigned long long)res->id);
}

/* Retries a 1-byte echo until the server answers or time runs out. */
static void test_reachable(struct ktap *k, struct homa_ep *ep,
			   struct homa_rx *rx, const struct echo_opts *o,
			   uint8_t *buf)
{
	long long deadline = now_ms() + o->wait_s * 1000LL;
	struct rpc_result res;
	int tries = 0;
	bool ok;

	do {
		tries++;
		ok = rpc_echo_checked(ep, rx, &o->server, buf, 1, 7, 1, &res);
		if (!ok && res.err == 0)
			break;	/* an answer, but a wrong one */
		if (!ok)
			usleep(200 * 1000);
	} while (!ok && now_ms() < deadline);
	if (!ok)
		report_failure(k, &res);
	else if (tries > 1)
		ktap_diag(k, "server answered after %d tries", tries);
	ktap_result(k, ok, "server_reachable");
}

static int send_size(struct homa_ep *ep, const union homa_addr *server,
		     uint8_t *buf, size_t len)
{
	uint64_t id = 0;

	return homa_send_request_buf(ep->fd, server, buf, len, 1, &id);
}

int main(int argc, char **argv)
{
	struct echo_opts o;
	struct watchdog wd;
	struct homa_ep ep;
	struct homa_rx rx;
	struct ktap k;
	char name[64], addr[64];
	uint8_t *buf;
	size_t i;
	int err;

	parse(argc, argv, &o);
	ktap_start(&k, (int)NUM_SIZES + 5);
	ktap_diag(&k, "server %s", homa_addr_str(&o.server, addr,
						sizeof(addr)));
	buf = malloc(HOMA_MAX_MESSAGE_LENGTH + 1);
	err = buf ? homa_ep_open(&ep, o.server.sa.sa_family, 0, 64) : -ENOMEM;
	if (!expect_errno(&k, err, 0, "client_socket_with_buffer_region"))
		return ktap_finish(&k);
	watchdog_start(&wd, &k);
	homa_rx_init(&rx);

	watchdog_arm(&wd, o.wait_s + 30, "server_reachable");
	test_reachable(&k, &ep, &rx, &o, buf);

	watchdog_arm(&wd, 30, "echo_size_0_einval");
	expect_errno(&k, send_size(&ep, &o.server, buf, 0), EINVAL,
		     "echo_size_0_einval");

	for (i = 0; i < NUM_SIZES; i++) {
		struct rpc_result res;
		long long t0 = now_ms();
		bool ok;

		snprintf(name, sizeof(name), "echo_size_%zu", echo_sizes[i]);
		watchdog_arm(&wd, 60, name);
		ok = rpc_echo_checked(&ep, &rx, &o.server, buf, echo_sizes[i],
				      1000 + i, 3, &res);
		if (!ok)
			report_failure(&k, &res);
		else
			ktap_diag(&k, "%zu bytes: %lld ms", echo_sizes[i],
				  now_ms() - t0);
		ktap_result(&k, ok, "%s", name);
	}

	{
		struct rpc_result res;
		bool ok;

		watchdog_arm(&wd, 60, "echo_100000_from_1000_iovecs");
		ok = rpc_echo_checked(&ep, &rx, &o.server, buf, 100000, 77,
				      RPC_MAX_PIECES, &res);
		if (!ok)
			report_failure(&k, &res);
		ktap_result(&k, ok, "echo_100000_from_1000_iovecs");
	}

	watchdog_arm(&wd, 30, "echo_size_max_plus_1_einval");
	expect_errno(&k, send_size(&ep, &o.server, buf,
				   HOMA_MAX_MESSAGE_LENGTH + 1),
		     EINVAL, "echo_size_max_plus_1_einval");
	watchdog_stop(&wd);
	homa_ep_close(&ep);
	free(buf);
	return ktap_finish(&k);
}
