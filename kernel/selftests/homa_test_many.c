// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_many - 1,000 outstanding requests from one socket to four
 * server sockets (threads of this program), every response matched by
 * id and completion cookie and checked byte for byte; then sockets that
 * act as client and server at once (one talking to itself, two talking
 * to each other). Client ids are even and step by 2. Last, which message
 * recvmsg picks by id and by flags. Every test runs over IPv4 and IPv6.
 *
 * Usage: homa_test_many [--count N] [-- HARNESS-OPTIONS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "echo.h"
#include "harness.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "payload.h"

#define NUM_SERVERS 4
#define SERVER_PORT0 2001
#define COOKIE_TAG 0xc0c0000000000000ULL

#define DUAL_REQUESTS 100
#define DUAL_PORT0 2101

#define SEL_SERVER_PORT 2201
#define SEL_DUAL_PORT 2202

/* The program's options, for the tests. */
static struct {
	int count;		/* --count: outstanding requests */
} cfg = { .count = 1000 };

/* ------------------------------------------------------------------ */
/*
 * One client socket sends cfg.count requests (sizes from 1 byte to more
 * than one bpage) spread over four echo server sockets before it reads
 * any response: ids are even and step by 2, every response comes back
 * once with its id, cookie and bytes, and each server served its share
 * and ended by shutdown.
 */
FIXTURE(many) {
	int family;
	int count;
	int started;		/* servers running */
	struct echo_thread servers[NUM_SERVERS];
	union homa_addr server_addr[NUM_SERVERS];
	struct homa_ep client;
	uint64_t *ids;
	size_t *sizes;
	char *seen;
	uint8_t *buf;
};

FIXTURE_VARIANT(many) {
	int family;
};

HOMA_FAMILY_VARIANTS(many);

static size_t request_size(int i)
{
	if (i % 97 == 0)
		return 70000 + (size_t)i;	/* more than one bpage */
	return 1 + ((size_t)i * 131) % 4000;
}

FIXTURE_SETUP(many)
{
	int i, err = 0;

	self->family = variant->family;
	self->count = cfg.count;
	self->client.fd = -1;
	self->ids = calloc(self->count, sizeof(*self->ids));
	self->sizes = calloc(self->count, sizeof(*self->sizes));
	self->seen = calloc(self->count, 1);
	self->buf = malloc(request_size(0) + 4 * HOMA_BPAGE_SIZE);
	ASSERT_TRUE(self->ids && self->sizes && self->seen && self->buf);
	for (i = 0; i < NUM_SERVERS && !err; i++) {
		err = echo_thread_start(&self->servers[i], self->family,
					SERVER_PORT0 + i, 64);
		if (!err)
			self->started++;
		homa_addr_loopback(&self->server_addr[i], self->family,
				   SERVER_PORT0 + i);
	}
	ASSERT_ERRNO(0, err) TH_LOG("server %d", i - 1);
	ASSERT_ERRNO(0, homa_ep_open(&self->client, self->family, 0, 1024));
}

static void stop_servers(FIXTURE_DATA(many) *self)
{
	while (self->started > 0)
		echo_thread_stop(&self->servers[--self->started]);
}

FIXTURE_TEARDOWN(many)
{
	stop_servers(self);
	homa_ep_close(&self->client);
	free(self->ids);
	free(self->sizes);
	free(self->seen);
	free(self->buf);
}

/*
 * Sends every request: 0 or the first error. @ids_ok: ids even and
 * increasing; @ids_exact: they step by exactly 2.
 */
static int send_all(struct __test_metadata *_metadata,
		    FIXTURE_DATA(many) *self, bool *ids_ok, bool *ids_exact)
{
	uint64_t *ids = self->ids;
	int i, err = 0;

	*ids_ok = true;
	*ids_exact = true;
	for (i = 0; i < self->count && !err; i++) {
		self->sizes[i] = request_size(i);
		payload_fill(self->buf, self->sizes[i], (uint64_t)i + 1, 0);
		err = homa_send_request_buf(self->client.fd,
					    &self->server_addr[i % NUM_SERVERS],
					    self->buf, self->sizes[i],
					    COOKIE_TAG | (uint64_t)i, &ids[i]);
		if (err)
			TH_LOG("request %d: %s", i, errno_name(err));
		else if (ids[i] == 0 || (ids[i] & 1) ||
			 (i > 0 && ids[i] <= ids[i - 1]))
			*ids_ok = false;
		/*
		 * Ids come from one counter for the whole module, so while
		 * no other socket sends they step by exactly 2.
		 */
		if (!err && ids[i] != ids[0] + 2 * (uint64_t)i)
			*ids_exact = false;
	}
	if (!*ids_ok || !*ids_exact)
		TH_LOG("first ids: %llu %llu %llu",
		       (unsigned long long)ids[0], (unsigned long long)ids[1],
		       (unsigned long long)ids[2]);
	return err;
}

/* Checks one response; returns NULL when good, else what is wrong. */
static const char *check_response(FIXTURE_DATA(many) *self,
				  const struct homa_rx *rx, int *index)
{
	uint64_t cookie = rx->ctl.completion_cookie;
	struct iovec iov[HOMA_MAX_BPAGES];
	int i, n;

	*index = -1;
	if ((cookie & ~0xffffffffULL) != COOKIE_TAG ||
	    (cookie & 0xffffffffULL) >= (uint64_t)self->count)
		return "unknown completion cookie";
	i = (int)(cookie & 0xffffffffULL);
	*index = i;
	if (rx->ctl.id != self->ids[i])
		return "id does not match the cookie's request";
	if (self->seen[i])
		return "second response for one request";
	self->seen[i] = 1;
	if ((size_t)rx->length != self->sizes[i])
		return "wrong length";
	if (!homa_addr_equal(&rx->src, &self->server_addr[i % NUM_SERVERS]))
		return "response from the wrong server";
	n = homa_rx_iov(&self->client.region, rx, iov);
	if (n < 0)
		return "bpages outside the region";
	if (payload_check_iov(iov, n, (uint64_t)i + 1) >= 0)
		return "payload differs";
	return NULL;
}

/*
 * Receives one response per request (or until an error): how many came
 * (@got) and how many were wrong (@bad).
 */
static void receive_all(struct __test_metadata *_metadata,
			FIXTURE_DATA(many) *self, int *got, int *bad)
{
	struct homa_rx rx;
	const char *why;
	int index;
	ssize_t n;

	*got = 0;
	*bad = 0;
	homa_rx_init(&rx);
	while (*got < self->count) {
		n = homa_receive(self->client.fd, &rx, HOMA_RECVMSG_RESPONSE,
				 0, 0);
		if (n < 0) {
			TH_LOG("recvmsg after %d responses: %s (id %llu)",
			       *got, errno_name((int)n),
			       (unsigned long long)rx.ctl.id);
			break;
		}
		(*got)++;
		why = check_response(self, &rx, &index);
		if (why && (*bad)++ < 5)
			TH_LOG("response id %llu (request %d, %zd bytes): %s",
			       (unsigned long long)rx.ctl.id, index,
			       rx.length, why);
	}
	/* Hand the last bpages back. */
	homa_receive(self->client.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
		     MSG_DONTWAIT);
}

/* Every request is sent; the ids are even, increasing, in steps of 2. */
TEST_F_TIMEOUT(many, send_requests, 150)
{
	bool ids_ok, ids_exact;

	EXPECT_ERRNO(0, send_all(_metadata, self, &ids_ok, &ids_exact));
	EXPECT_TRUE(ids_ok) TH_LOG("request ids not even and increasing");
	EXPECT_TRUE(ids_exact) TH_LOG("request ids not in steps of 2");
}

/*
 * Every response arrives, matches its request's id, cookie and payload,
 * comes once, and nothing comes beyond them.
 */
TEST_F_TIMEOUT(many, receive_responses, 420)
{
	bool ids_ok, ids_exact;
	struct homa_rx rx;
	int got, bad, i;
	ssize_t n;

	ASSERT_ERRNO(0, send_all(_metadata, self, &ids_ok, &ids_exact));
	receive_all(_metadata, self, &got, &bad);
	EXPECT_EQ(self->count, got) TH_LOG("responses received");
	EXPECT_EQ(0, bad) TH_LOG("responses with a wrong id, cookie or payload");
	for (i = 0; i < self->count && self->seen[i]; i++)
		;
	EXPECT_EQ(self->count, i) TH_LOG("request %d never answered", i);
	homa_rx_init(&rx);
	n = homa_receive(self->client.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
			 MSG_DONTWAIT);
	EXPECT_ERRNO(EAGAIN, (int)(n < 0 ? n : 0))
		TH_LOG("a response beyond the requests");
}

/* After all the responses, each server served its share and ended by
 * shutdown, without errors.
 */
TEST_F_TIMEOUT(many, servers_served_their_share_and_ended_by_shutdown, 420)
{
	long expected = self->count / NUM_SERVERS;
	bool ids_ok, ids_exact, ok = true;
	int got, bad, i;

	ASSERT_ERRNO(0, send_all(_metadata, self, &ids_ok, &ids_exact));
	receive_all(_metadata, self, &got, &bad);
	ASSERT_EQ(self->count, got);
	stop_servers(self);
	for (i = 0; i < NUM_SERVERS; i++) {
		struct echo_thread *s = &self->servers[i];

		if (s->served < expected || s->errors ||
		    s->last_err != ESHUTDOWN)
			ok = false;
	}
	if (!ok)
		for (i = 0; i < NUM_SERVERS; i++)
			TH_LOG("server %d: served %ld, errors %ld, ended with %s",
			       i, self->servers[i].served,
			       self->servers[i].errors,
			       errno_name(self->servers[i].last_err));
	EXPECT_TRUE(ok);
}

/* ------------------------------------------------------------------ */
/*
 * Sockets that are client and server at once: each sends requests and,
 * with one recvmsg loop (REQUEST | RESPONSE), both answers the requests
 * it gets and collects the responses to its own.
 */

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

/* Whether @d got everything right; if not, says what it got. */
static bool dual_good(struct __test_metadata *_metadata,
		      const struct dual *d, const char *who)
{
	bool good = d->err == 0 && d->responses == DUAL_REQUESTS &&
		    d->responses_bad == 0 &&
		    d->requests == d->expect_requests &&
		    d->requests_bad_id == 0;

	if (!good)
		TH_LOG("%s: %d responses (%d bad), %d requests (%d with even ids), error %s",
		       who, d->responses, d->responses_bad, d->requests,
		       d->requests_bad_id, errno_name(d->err));
	return good;
}

FIXTURE(dual_role) {
	struct dual *d;		/* two of them */
};

FIXTURE_VARIANT(dual_role) {
	int family;
};

HOMA_FAMILY_VARIANTS(dual_role);

FIXTURE_SETUP(dual_role)
{
	self->d = calloc(2, sizeof(*self->d));
	ASSERT_NE(NULL, self->d);
	self->d[0].ep.fd = -1;
	self->d[1].ep.fd = -1;
}

FIXTURE_TEARDOWN(dual_role)
{
	homa_ep_close(&self->d[0].ep);
	homa_ep_close(&self->d[1].ep);
	free(self->d);
}

/* One socket sends requests to itself and answers them. */
TEST_F_TIMEOUT(dual_role, self_requests_and_responses, 180)
{
	struct dual *d = &self->d[0];

	ASSERT_ERRNO(0, homa_ep_open(&d->ep, variant->family, DUAL_PORT0,
				     128));
	homa_addr_loopback(&d->peer, variant->family, DUAL_PORT0);
	d->partner_fd = -1;
	d->tag = 0x5e1f;
	d->expect_requests = DUAL_REQUESTS;
	dual_main(d);
	EXPECT_TRUE(dual_good(_metadata, d, "self"));
}

/*
 * Two sockets, each a client of the other and its server, in two threads
 * at once: both sides' results are checked (a and b).
 */
TEST_F_TIMEOUT(dual_role, pair_a_and_b, 180)
{
	struct dual *a = &self->d[0], *b = &self->d[1];
	int family = variant->family;
	int err;

	ASSERT_ERRNO(0, homa_ep_open(&a->ep, family, DUAL_PORT0 + 1, 128));
	ASSERT_ERRNO(0, homa_ep_open(&b->ep, family, DUAL_PORT0 + 2, 128));
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
	EXPECT_TRUE(dual_good(_metadata, a, "a"));
	EXPECT_TRUE(dual_good(_metadata, b, "b"));
}

/* ------------------------------------------------------------------ */
/*
 * Which message recvmsg hands over: a given id returns that response
 * even when an older one is ready.
 */
FIXTURE(recv_by_id) {
	struct echo_thread srv;
	struct homa_ep cli;
	bool srv_started;
};

FIXTURE_VARIANT(recv_by_id) {
	int family;
};

HOMA_FAMILY_VARIANTS(recv_by_id);

FIXTURE_SETUP(recv_by_id)
{
	self->cli.fd = -1;
	ASSERT_ERRNO(0, echo_thread_start(&self->srv, variant->family,
					  SEL_SERVER_PORT, 8));
	self->srv_started = true;
	ASSERT_ERRNO(0, homa_ep_open(&self->cli, variant->family, 0, 8));
}

FIXTURE_TEARDOWN(recv_by_id)
{
	homa_ep_close(&self->cli);
	if (self->srv_started)
		echo_thread_stop(&self->srv);
}

/* Waits until @fd is readable (a message is ready), up to 5 s. */
static bool wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 5000) == 1 && (p.revents & POLLIN);
}

/*
 * Receives one message with @flags (and @id), waiting up to 5 s for one
 * that matches, without ever blocking in the kernel (MSG_DONTWAIT, so a
 * kernel that ignores the selection cannot hang the test).
 */
static ssize_t recv_within(int fd, struct homa_rx *rx, uint32_t flags,
			   uint64_t id)
{
	ssize_t n;
	int i;

	for (i = 0; i < 500; i++) {
		n = homa_receive(fd, rx, flags, id, MSG_DONTWAIT);
		if (n != -EAGAIN)
			return n;
		usleep(10 * 1000);
	}
	return -ETIMEDOUT;
}

/*
 * Responses to A and B are both ready; asking for B returns B. A's
 * response is made ready first (the only message, so readable means it
 * is there), then B is sent: a kernel that ignored the id would hand
 * out A, the older one.
 */
TEST_F_TIMEOUT(recv_by_id, returns_that_response, 60)
{
	union homa_addr server;
	struct homa_rx rx;
	uint8_t buf[1000];
	uint64_t a = 0, b = 0;
	ssize_t n1, n2;
	int fd = self->cli.fd;

	homa_addr_loopback(&server, variant->family, SEL_SERVER_PORT);
	payload_fill(buf, sizeof(buf), 1, 0);
	ASSERT_ERRNO(0, homa_send_request_buf(fd, &server, buf, 1000, 0xa,
					      &a));
	ASSERT_TRUE(wait_readable(fd)) TH_LOG("A's response not ready in 5 s");
	ASSERT_ERRNO(0, homa_send_request_buf(fd, &server, buf, 10, 0xb,
					      &b));
	homa_rx_init(&rx);
	n1 = recv_within(fd, &rx, HOMA_RECVMSG_RESPONSE, b);
	if (n1 >= 0 && (n1 != 10 || rx.ctl.id != b ||
			rx.ctl.completion_cookie != 0xb))
		n1 = -EBADMSG;
	n2 = recv_within(fd, &rx, HOMA_RECVMSG_RESPONSE, a);
	if (n2 >= 0 && (n2 != 1000 || rx.ctl.id != a ||
			rx.ctl.completion_cookie != 0xa))
		n2 = -EBADMSG;
	if (n1 != 10 || n2 != 1000)
		TH_LOG("by id: B gave %zd (want 10), A gave %zd (want 1000)",
		       n1, n2);
	EXPECT_ERRNO(0, (int)(n1 < 0 ? n1 : 0));
	EXPECT_EQ(10, n1);
	EXPECT_ERRNO(0, (int)(n2 < 0 ? n2 : 0));
	EXPECT_EQ(1000, n2);
}

/*
 * A socket s that is client and server at once, with a request and a
 * response both queued: RESPONSE alone leaves the request queued and
 * REQUEST alone the response, and both flags take both. Its peer is
 * other.
 */
FIXTURE(recv_flags) {
	struct homa_ep s, other;
	union homa_addr to_s, to_other;
	uint64_t id_s;		/* s's request to other (its response) */
	uint64_t id_o;		/* other's request to s */
};

FIXTURE_VARIANT(recv_flags) {
	int family;
};

HOMA_FAMILY_VARIANTS(recv_flags);

FIXTURE_SETUP(recv_flags)
{
	int family = variant->family;

	self->s.fd = -1;
	self->other.fd = -1;
	ASSERT_ERRNO(0, homa_ep_open(&self->s, family, SEL_DUAL_PORT, 8));
	ASSERT_ERRNO(0, homa_ep_open(&self->other, family, SEL_DUAL_PORT + 1,
				     8));
	homa_addr_loopback(&self->to_s, family, SEL_DUAL_PORT);
	homa_addr_loopback(&self->to_other, family, SEL_DUAL_PORT + 1);
}

FIXTURE_TEARDOWN(recv_flags)
{
	homa_ep_close(&self->other);
	homa_ep_close(&self->s);
}

/*
 * s sends a request; other takes it and answers: s's response is on its
 * way (ready in s once s is readable, if nothing else is queued).
 */
static int queue_response(FIXTURE_DATA(recv_flags) *d)
{
	uint8_t byte = 7;
	struct homa_rx rx;
	ssize_t n;
	int err;

	err = homa_send_request_buf(d->s.fd, &d->to_other, &byte, 1, 1,
				    &d->id_s);
	if (err)
		return err;
	homa_rx_init(&rx);
	n = recv_within(d->other.fd, &rx, HOMA_RECVMSG_REQUEST, 0);
	if (n < 0)
		return (int)n;
	return homa_send_response_buf(d->other.fd, &rx.src, rx.ctl.id, &byte,
				      1);
}

/* other sends s a request. */
static int queue_request(FIXTURE_DATA(recv_flags) *d)
{
	uint8_t byte = 8;

	return homa_send_request_buf(d->other.fd, &d->to_s, &byte, 1, 2,
				     &d->id_o);
}

/* What s received: 'q' other's request, 'r' the response, '?' else. */
static char kind(const FIXTURE_DATA(recv_flags) *d, ssize_t n,
		 const struct homa_rx *rx)
{
	if (n != 1)
		return '?';
	if (rx->ctl.id == d->id_s && rx->ctl.completion_cookie == 1)
		return 'r';
	if ((rx->ctl.id & 1) && rx->ctl.id != d->id_s)
		return 'q';
	return '?';
}

/*
 * Ends a round: s answers the request it took (@req, if any) and other
 * collects that response, so no RPC is left over.
 */
static void finish_round(FIXTURE_DATA(recv_flags) *d,
			 const struct homa_rx *req)
{
	uint8_t byte = 9;
	struct homa_rx rx;

	if (req)
		homa_send_response_buf(d->s.fd, &req->src, req->ctl.id, &byte,
				       1);
	homa_rx_init(&rx);
	recv_within(d->other.fd, &rx, HOMA_RECVMSG_RESPONSE, d->id_o);
}

/*
 * Each round receives with one kind of flag and then shows that the
 * message of the other kind is still queued.
 * @first: which is queued first ('q' or 'r'): the one a kernel that
 * ignored the flags would hand out, so the flag under test must skip it.
 * @flags1, @flags2: the flags of the two receives. With one flag in
 * @flags1, a receive with it first, while only the other kind is queued,
 * must find nothing ('-'). Stores what the receives got in @got ("-rq":
 * nothing, the response, then the request). Returns 0 or -errno
 * (-EEXIST when a message was left over).
 */
static int flags_round(FIXTURE_DATA(recv_flags) *d, char first,
		       uint32_t flags1, uint32_t flags2, char got[4])
{
	struct homa_rx rx, req;
	bool have_req = false;
	ssize_t n;
	int err;

	memset(got, 0, 4);
	homa_rx_init(&rx);
	homa_rx_init(&req);
	/* The first is the only message: readable means it is queued. */
	err = first == 'q' ? queue_request(d) : queue_response(d);
	if (!err && !wait_readable(d->s.fd))
		err = -ETIMEDOUT;
	if (err)
		return err;
	/* One flag: with only the other kind queued, nothing to take. */
	if (flags1 != (HOMA_RECVMSG_REQUEST | HOMA_RECVMSG_RESPONSE)) {
		n = homa_receive(d->s.fd, &rx, flags1, 0, MSG_DONTWAIT);
		got[0] = n == -EAGAIN ? '-' : kind(d, n, &rx);
		if (got[0] == 'q') {
			req = rx;
			have_req = true;
		}
		got++;
	}
	err = first == 'q' ? queue_response(d) : queue_request(d);
	if (err)
		return err;
	n = recv_within(d->s.fd, &rx, flags1, 0);
	got[0] = kind(d, n, &rx);
	if (got[0] == 'q') {
		req = rx;
		have_req = true;
	}
	/* The other kind: queued before the first receive (one flag), or
	 * perhaps still on its way (both flags: the first took either).
	 */
	if (flags2 == (HOMA_RECVMSG_REQUEST | HOMA_RECVMSG_RESPONSE))
		n = recv_within(d->s.fd, &rx, flags2, 0);
	else
		n = homa_receive(d->s.fd, &rx, flags2, 0, MSG_DONTWAIT);
	got[1] = n == -EAGAIN ? '-' : kind(d, n, &rx);
	if (got[1] == 'q') {
		req = rx;
		have_req = true;
	}
	finish_round(d, have_req ? &req : NULL);
	/* Hand back the last bpage; nothing may be left for s. */
	n = homa_receive(d->s.fd, &rx, HOMA_RECVMSG_REQUEST |
			 HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
	return n == -EAGAIN ? 0 : -EEXIST;
}

/*
 * Request queued first; RESPONSE takes the response, and the request is
 * still there for REQUEST.
 */
TEST_F_TIMEOUT(recv_flags, response_flag_leaves_requests, 60)
{
	char got[4];
	int err;

	err = flags_round(self, 'q', HOMA_RECVMSG_RESPONSE,
			  HOMA_RECVMSG_REQUEST, got);
	TH_LOG("request queued, RESPONSE; response queued too, RESPONSE then REQUEST: got \"%s\" (want \"-rq\"), %s",
	       got, errno_name(err));
	EXPECT_ERRNO(0, err);
	EXPECT_STREQ("-rq", got);
}

/*
 * Response queued first; REQUEST takes the request, and the response is
 * still there for RESPONSE.
 */
TEST_F_TIMEOUT(recv_flags, request_flag_leaves_responses, 60)
{
	char got[4];
	int err;

	err = flags_round(self, 'r', HOMA_RECVMSG_REQUEST,
			  HOMA_RECVMSG_RESPONSE, got);
	TH_LOG("response queued, REQUEST; request queued too, REQUEST then RESPONSE: got \"%s\" (want \"-qr\"), %s",
	       got, errno_name(err));
	EXPECT_ERRNO(0, err);
	EXPECT_STREQ("-qr", got);
}

/* One of each queued; both flags twice take both (either order). */
TEST_F_TIMEOUT(recv_flags, both_flags_take_both_kinds, 60)
{
	const uint32_t both = HOMA_RECVMSG_REQUEST | HOMA_RECVMSG_RESPONSE;
	char got[4];
	int err;

	err = flags_round(self, 'r', both, both, got);
	TH_LOG("one of each queued, both flags twice: got \"%s\" (want \"rq\" or \"qr\"), %s",
	       got, errno_name(err));
	EXPECT_ERRNO(0, err);
	EXPECT_TRUE(strcmp(got, "rq") == 0 || strcmp(got, "qr") == 0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:", opts, NULL)) != -1) {
		if (c == 'n')
			cfg.count = atoi(optarg);
		if (c != 'n' || cfg.count < 4) {
			fprintf(stderr, "usage: %s [--count N] [-- HARNESS-OPTIONS]\n",
				argv[0]);
			return 2;
		}
	}
	return homa_harness_run(argc, argv, optind);
}
