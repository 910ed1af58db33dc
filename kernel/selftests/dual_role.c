// SPDX-License-Identifier: GPL-2.0
/* dual_role.c - see dual_role.h. */
#define _GNU_SOURCE
#include "dual_role.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "expect.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "payload.h"

#define DUAL_REQUESTS 100
#define DUAL_PORT0 2101

/* One socket in both roles. */
struct dual {
	struct homa_ep ep;
	union homa_addr peer;	/* where its requests go */
	uint64_t tag;		/* distinguishes its cookies and seeds */
	int expect_requests;	/* requests it must answer */
	uint64_t ids[DUAL_REQUESTS];
	/* results */
	int responses, responses_bad, requests, requests_bad_id;
	int err;
	int partner_fd;		/* shut down on failure, or -1 */
	pthread_t thread;
	uint8_t buf[3 * HOMA_BPAGE_SIZE];
};

static size_t dual_size(int i)
{
	return i % 10 == 9 ? 3 * HOMA_BPAGE_SIZE - (size_t)i
			   : 1 + ((size_t)i * 97) % 5000;
}

static int find_id(const struct dual *d, uint64_t id)
{
	int i;

	for (i = 0; i < DUAL_REQUESTS; i++)
		if (d->ids[i] == id)
			return i;
	return -1;
}

static bool dual_response_ok(struct dual *d, const struct homa_rx *rx,
			     int i)
{
	struct iovec iov[HOMA_MAX_BPAGES];
	int n;

	if (rx->ctl.completion_cookie != (d->tag << 32 | (uint64_t)i) ||
	    (size_t)rx->length != dual_size(i))
		return false;
	n = homa_rx_iov(&d->ep.region, rx, iov);
	return n >= 0 && payload_check_iov(iov, n, d->tag << 32 | i) < 0;
}

static void *dual_fail(struct dual *d, int err)
{
	d->err = err;
	/* The partner waits for our requests and answers: wake it. */
	if (d->partner_fd >= 0)
		shutdown(d->partner_fd, SHUT_RDWR);
	return NULL;
}

static void *dual_main(void *arg)
{
	struct iovec iov[HOMA_MAX_BPAGES];
	struct dual *d = arg;
	struct homa_rx rx;
	int i, n, err;
	ssize_t len;

	for (i = 0; i < DUAL_REQUESTS; i++) {
		payload_fill(d->buf, dual_size(i), d->tag << 32 | i, 0);
		err = homa_send_request_buf(d->ep.fd, &d->peer, d->buf,
					    dual_size(i),
					    d->tag << 32 | (uint64_t)i,
					    &d->ids[i]);
		if (err)
			return dual_fail(d, err);
	}
	homa_rx_init(&rx);
	while (d->responses < DUAL_REQUESTS ||
	       d->requests < d->expect_requests) {
		len = homa_receive(d->ep.fd, &rx,
				   HOMA_RECVMSG_REQUEST | HOMA_RECVMSG_RESPONSE,
				   0, 0);
		if (len < 0)
			return dual_fail(d, (int)len);
		i = find_id(d, rx.ctl.id);
		if (i >= 0) {
			d->responses++;
			if (!dual_response_ok(d, &rx, i))
				d->responses_bad++;
			continue;
		}
		/* A request: the server side's id is the client's id ^ 1. */
		d->requests++;
		if (!(rx.ctl.id & 1))
			d->requests_bad_id++;
		n = homa_rx_iov(&d->ep.region, &rx, iov);
		err = n < 0 ? n : homa_send_response(d->ep.fd, &rx.src,
						     rx.ctl.id, iov, n);
		if (err)
			return dual_fail(d, err);
	}
	return NULL;
}

static void dual_report(struct ktap *k, const struct dual *d,
			const char *who)
{
	ktap_diag(k, "%s: %d responses (%d bad), %d requests (%d with even ids), error %s",
		  who, d->responses, d->responses_bad, d->requests,
		  d->requests_bad_id, errno_name(d->err));
}

static bool dual_good(const struct dual *d)
{
	return d->err == 0 && d->responses == DUAL_REQUESTS &&
	       d->responses_bad == 0 && d->requests == d->expect_requests &&
	       d->requests_bad_id == 0;
}

/* One socket sends requests to itself and answers them. */
static void test_self(struct ktap *k, int family, struct dual *d)
{
	int err;

	memset(d, 0, sizeof(*d));
	err = homa_ep_open(&d->ep, family, DUAL_PORT0, 128);
	if (!expect_errno(k, err, 0, "dual_role_self_socket")) {
		ktap_result(k, false, "dual_role_self_requests_and_responses");
		return;
	}
	homa_addr_loopback(&d->peer, family, DUAL_PORT0);
	d->partner_fd = -1;
	d->tag = 0x5e1f;
	d->expect_requests = DUAL_REQUESTS;
	dual_main(d);
	if (!dual_good(d))
		dual_report(k, d, "self");
	ktap_result(k, dual_good(d), "dual_role_self_requests_and_responses");
	homa_ep_close(&d->ep);
}

/* Two sockets, each a client of the other and its server. */
static void test_pair(struct ktap *k, int family, struct dual *a,
		      struct dual *b)
{
	int err;
	bool ok;

	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	err = homa_ep_open(&a->ep, family, DUAL_PORT0 + 1, 128);
	if (!err) {
		err = homa_ep_open(&b->ep, family, DUAL_PORT0 + 2, 128);
		if (err)
			homa_ep_close(&a->ep);
	}
	if (!expect_errno(k, err, 0, "dual_role_pair_sockets")) {
		ktap_result(k, false, "dual_role_pair_a");
		ktap_result(k, false, "dual_role_pair_b");
		return;
	}
	homa_addr_loopback(&a->peer, family, DUAL_PORT0 + 2);
	homa_addr_loopback(&b->peer, family, DUAL_PORT0 + 1);
	a->partner_fd = b->ep.fd;
	b->partner_fd = a->ep.fd;
	a->tag = 0xa;
	b->tag = 0xb;
	a->expect_requests = DUAL_REQUESTS;
	b->expect_requests = DUAL_REQUESTS;
	err = pthread_create(&a->thread, NULL, dual_main, a);
	if (err) {
		a->err = -err;
	} else {
		dual_main(b);
		pthread_join(a->thread, NULL);
	}
	ok = dual_good(a);
	if (!ok)
		dual_report(k, a, "a");
	ktap_result(k, ok, "dual_role_pair_a");
	ok = dual_good(b);
	if (!ok)
		dual_report(k, b, "b");
	ktap_result(k, ok, "dual_role_pair_b");
	homa_ep_close(&a->ep);
	homa_ep_close(&b->ep);
}

void dual_role_tests(struct ktap *k, int family)
{
	struct dual *d = calloc(2, sizeof(*d));

	if (!d) {
		ktap_diag(k, "out of memory");
		return;
	}
	test_self(k, family, &d[0]);
	test_pair(k, family, &d[0], &d[1]);
	free(d);
}
