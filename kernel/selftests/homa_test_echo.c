// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_echo - echo RPCs of many sizes to a homa_echo_server, every
 * response checked byte for byte; sizes 0 and max+1 must give EINVAL.
 *
 * Usage: homa_test_echo [--server ADDR] [--port P] [--family 4|6]
 *                       [--wait SECONDS] [-- HARNESS-OPTIONS]
 * The family follows ADDR; without ADDR the server is the loopback
 * address of --family (default 4). The server is a run parameter, not a
 * test of its own: the lab runs the same checks against a server in the
 * same guest and in the other one.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "rpc_client.h"

/* Longest --wait: server_reachable's timeout leaves it 60 s more. */
#define MAX_WAIT_S	240

/* The options, set by main() before the tests run. */
static struct {
	union homa_addr server;
	int wait_s;		/* how long server_reachable retries */
} cfg;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The client opens a socket of the server's family with 64 bpages. */
TEST(client_socket_with_buffer_region)
{
	struct homa_ep ep;
	char addr[64];

	TH_LOG("server %s", homa_addr_str(&cfg.server, addr, sizeof(addr)));
	ASSERT_ERRNO(0, homa_ep_open(&ep, cfg.server.sa.sa_family, 0, 64));
	homa_ep_close(&ep);
}

/*
 * A client socket with a buffer region, and room for the longest message
 * plus one byte.
 */
struct client {
	struct homa_ep ep;
	struct homa_rx rx;
	uint8_t *buf;
};

/* Echoes to the server, each from a client of its own. */
FIXTURE(echo) {
	struct client c;
};

FIXTURE_SETUP(echo)
{
	struct client *c = &self->c;

	c->buf = malloc(HOMA_MAX_MESSAGE_LENGTH + 1);
	ASSERT_NE(NULL, c->buf);
	ASSERT_ERRNO(0, homa_ep_open(&c->ep, cfg.server.sa.sa_family, 0, 64));
	homa_rx_init(&c->rx);
}

FIXTURE_TEARDOWN(echo)
{
	homa_ep_close(&self->c.ep);
	free(self->c.buf);
}

static void log_failure(struct __test_metadata *_metadata,
			const struct rpc_result *res)
{
	if (res->err)
		TH_LOG("%s failed: %s (id %llu)", res->stage,
		       errno_name(res->err), (unsigned long long)res->id);
	else
		TH_LOG("%s (id %llu)", res->detail,
		       (unsigned long long)res->id);
}

/*
 * One echo of @len bytes (pattern @seed) from @pieces iovecs, checked
 * byte for byte; how long it took on a "#" line.
 */
static void echo_len(struct __test_metadata *_metadata, struct client *c,
		     size_t len, uint64_t seed, int pieces)
{
	long long t0 = now_ms();
	struct rpc_result res;
	bool ok;

	ok = rpc_echo_checked(&c->ep, &c->rx, &cfg.server, c->buf, len, seed,
			      pieces, &res);
	if (!ok)
		log_failure(_metadata, &res);
	else
		TH_LOG("%zu bytes: %lld ms", len, now_ms() - t0);
	EXPECT_TRUE(ok);
}

/* Sends a request of @len bytes: 0 or -errno. */
static int send_len(struct client *c, size_t len)
{
	uint64_t id = 0;

	return homa_send_request_buf(c->ep.fd, &cfg.server, c->buf, len, 1,
				     &id);
}

/*
 * The server answers a 1-byte echo within --wait seconds (it may still
 * be starting): retried every 200 ms, but a wrong answer fails at once.
 */
TEST_F_TIMEOUT(echo, server_reachable, MAX_WAIT_S + 60)
{
	long long deadline = now_ms() + cfg.wait_s * 1000LL;
	struct rpc_result res;
	int tries = 0;
	bool ok;

	do {
		tries++;
		ok = rpc_echo_checked(&self->c.ep, &self->c.rx, &cfg.server,
				      self->c.buf, 1, 7, 1, &res);
		if (!ok && res.err == 0)
			break;	/* an answer, but a wrong one */
		if (!ok)
			usleep(200 * 1000);
	} while (!ok && now_ms() < deadline);
	if (!ok)
		log_failure(_metadata, &res);
	else if (tries > 1)
		TH_LOG("server answered after %d tries", tries);
	EXPECT_TRUE(ok);
}

/* An empty request is refused before anything is sent. */
TEST_F_TIMEOUT(echo, size_0_einval, 30)
{
	EXPECT_ERRNO(EINVAL, send_len(&self->c, 0));
}

/*
 * Every size, around 1400 bytes and 64 KiB and up to 1 MB, comes back
 * byte for byte (the request from 3 iovecs).
 */
TEST_F_TIMEOUT(echo, size_1, 60)
{
	echo_len(_metadata, &self->c, 1, 1000, 3);
}

TEST_F_TIMEOUT(echo, size_100, 60)
{
	echo_len(_metadata, &self->c, 100, 1001, 3);
}

TEST_F_TIMEOUT(echo, size_1399, 60)
{
	echo_len(_metadata, &self->c, 1399, 1002, 3);
}

TEST_F_TIMEOUT(echo, size_1400, 60)
{
	echo_len(_metadata, &self->c, 1400, 1003, 3);
}

TEST_F_TIMEOUT(echo, size_1401, 60)
{
	echo_len(_metadata, &self->c, 1401, 1004, 3);
}

TEST_F_TIMEOUT(echo, size_10000, 60)
{
	echo_len(_metadata, &self->c, 10000, 1005, 3);
}

TEST_F_TIMEOUT(echo, size_65535, 60)
{
	echo_len(_metadata, &self->c, 65535, 1006, 3);
}

TEST_F_TIMEOUT(echo, size_65536, 60)
{
	echo_len(_metadata, &self->c, 65536, 1007, 3);
}

TEST_F_TIMEOUT(echo, size_65537, 60)
{
	echo_len(_metadata, &self->c, 65537, 1008, 3);
}

TEST_F_TIMEOUT(echo, size_100000, 60)
{
	echo_len(_metadata, &self->c, 100000, 1009, 3);
}

TEST_F_TIMEOUT(echo, size_500000, 60)
{
	echo_len(_metadata, &self->c, 500000, 1010, 3);
}

TEST_F_TIMEOUT(echo, size_1000000, 60)
{
	echo_len(_metadata, &self->c, 1000000, 1011, 3);
}

/* A request gathered from RPC_MAX_PIECES (1000) iovecs of uneven sizes. */
TEST_F_TIMEOUT(echo, size_100000_from_1000_iovecs, 60)
{
	echo_len(_metadata, &self->c, 100000, 77, RPC_MAX_PIECES);
}

/* One byte more than the longest message is refused. */
TEST_F_TIMEOUT(echo, size_max_plus_1_einval, 30)
{
	EXPECT_ERRNO(EINVAL, send_len(&self->c, HOMA_MAX_MESSAGE_LENGTH + 1));
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--server ADDR] [--port P] [--family 4|6]\n"
		"          [--wait SECONDS] [-- HARNESS-OPTIONS]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
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

	cfg.wait_s = 15;
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
			cfg.wait_s = atoi(optarg);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (port <= 0 || port > 0xffff || cfg.wait_s < 0 ||
	    cfg.wait_s > MAX_WAIT_S)
		usage(argv[0]);
	if (!server)
		homa_addr_loopback(&cfg.server, family, (uint16_t)port);
	else if (homa_addr_parse(&cfg.server, server, (uint16_t)port) < 0)
		usage(argv[0]);
	return homa_harness_run(argc, argv, optind);
}
