// SPDX-License-Identifier: GPL-2.0
/*
 * faults_common.c - what the fault programs share (faults_common.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "faults_common.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "rpc_client.h"

long long faults_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

long long faults_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int faults_lab_peer(union homa_addr *a, const char *name, int family,
		    uint16_t port)
{
	const char *ip = homa_lab_addr(name, family);

	if (!ip)
		return -1;
	if (homa_addr_parse(a, ip, port)) {
		fprintf(stderr, "faults: '%s' is not an address\n", ip);
		return -1;
	}
	if (a->sa.sa_family != family) {
		fprintf(stderr, "faults: '%s' is not an IPv%d address\n", ip,
			family == AF_INET6 ? 6 : 4);
		return -1;
	}
	return 0;
}

void *faults_shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Size classes of the random and stress runs. */
static size_t pick_size(unsigned int *seed, bool allow_big)
{
	unsigned int r = rand_r(seed);

	switch (r % (allow_big ? 10 : 9)) {
	case 0: case 1: case 2:
		return 1 + rand_r(seed) % 100;		/* small */
	case 3: case 4:
		return 100 + rand_r(seed) % 900;	/* one packet */
	case 5: case 6: case 7:
		return 1000 + rand_r(seed) % 60000;	/* a few packets */
	case 8:
		return 60000 + rand_r(seed) % 200000;	/* many */
	default:
		return 900000 + rand_r(seed) % 100001;	/* ~1 MB */
	}
}

void *fault_client_main(void *arg)
{
	struct fault_client *t = arg;
	uint8_t *buf = malloc(HOMA_MAX_MESSAGE_LENGTH);
	struct rpc_result res;
	struct homa_ep ep;
	struct homa_rx rx;
	int err = buf ? homa_ep_open(&ep, t->family, 0, 128) : -ENOMEM;
	long i;

	if (err) {
		t->failed++;
		snprintf(t->first_error, sizeof(t->first_error),
			 "set-up: %s", strerror(-err));
		free(buf);
		return NULL;
	}
	homa_rx_init(&rx);
	/* Stress: the peer's server may come up a little later. */
	if (t->deadline_ms) {
		long long give_up = faults_now_ms() + 60000;

		while (!rpc_echo_checked(&ep, &rx, &t->srv, buf, 10, 1, 1,
					 &res) && faults_now_ms() < give_up)
			usleep(200000);
	}
	for (i = 0; t->deadline_ms ? faults_now_ms() < t->deadline_ms :
	     i < t->count; i++) {
		size_t len = pick_size(&t->seed, t->allow_big);
		uint64_t seed = ((uint64_t)t->seed << 20) ^ (uint64_t)i;

		if (rpc_echo_checked(&ep, &rx, &t->srv, buf, len, seed,
				     1 + (int)(i % 3), &res)) {
			t->done++;
			t->bytes += (long long)len;
			continue;
		}
		t->failed++;
		if (res.err == -ETIMEDOUT)
			t->timeouts++;
		if (!t->first_error[0])
			snprintf(t->first_error, sizeof(t->first_error),
				 "%zu B: %s %s %s", len, res.stage,
				 res.err ? strerror(-res.err) : "",
				 res.detail);
	}
	/* Exactly one response per request: nothing else may be waiting. */
	usleep(200000);
	while (homa_receive(ep.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
			    MSG_DONTWAIT) >= 0)
		t->extra++;
	homa_ep_close(&ep);
	free(buf);
	return NULL;
}

void fault_clients_sum(const struct fault_client *c, int n,
		       struct fault_client_totals *t)
{
	int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		t->done += c[i].done;
		t->failed += c[i].failed;
		t->timeouts += c[i].timeouts;
		t->extra += c[i].extra;
		t->bytes += c[i].bytes;
	}
}
