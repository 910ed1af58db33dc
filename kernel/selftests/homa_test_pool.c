// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_pool - the receive buffer pool seen from user space:
 * SO_HOMA_RCVBUF set and get; where messages land (bpage count, offsets
 * in range, each piece inside one bpage, no overlap while held, data
 * intact); bpages reused after they are returned; and a pool too small
 * for the messages in flight makes them wait, not fail, until bpages
 * come back. Every test runs over IPv4 and over IPv6.
 *
 * Usage: homa_test_pool [-- HARNESS-OPTIONS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "payload.h"

#define PORT_LAYOUT 3001
#define PORT_REUSE 3002
#define PORT_EXHAUST 3003
#define MAX_MSGS 16

/* A client thread: sends its requests, then collects the responses. */
struct pool_client {
	struct homa_ep ep;
	union homa_addr server;
	int count;
	const size_t *sizes;
	uint64_t seed0;		/* request i has seed seed0 + i */
	int responses;
	int errors;
	int first_err;
	pthread_t thread;
	uint8_t *buf;
};

static void *client_main(void *arg)
{
	struct pool_client *c = arg;
	struct homa_rx rx;
	uint64_t id;
	int i, err;
	ssize_t n;

	for (i = 0; i < c->count; i++) {
		payload_fill(c->buf, c->sizes[i], c->seed0 + i, 0);
		err = homa_send_request_buf(c->ep.fd, &c->server, c->buf,
					    c->sizes[i], c->seed0 + i, &id);
		if (err) {
			c->errors++;
			c->first_err = c->first_err ? c->first_err : err;
		}
	}
	homa_rx_init(&rx);
	while (c->responses + c->errors < c->count) {
		n = homa_receive(c->ep.fd, &rx, HOMA_RECVMSG_RESPONSE, 0, 0);
		if (n == -ESHUTDOWN)
			break;
		if (n != 1) {
			c->errors++;
			c->first_err = c->first_err ? c->first_err
				       : (n < 0 ? (int)n : -EMSGSIZE);
			continue;
		}
		c->responses++;
	}
	return NULL;
}

static int client_start(struct pool_client *c, int family, uint16_t port,
			const size_t *sizes, int count, uint64_t seed0)
{
	size_t max = 0;
	int i, err;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < count; i++)
		max = sizes[i] > max ? sizes[i] : max;
	c->buf = malloc(max);
	if (!c->buf)
		return -ENOMEM;
	homa_addr_loopback(&c->server, family, port);
	c->count = count;
	c->sizes = sizes;
	c->seed0 = seed0;
	err = homa_ep_open(&c->ep, family, 0, 16);
	if (!err)
		err = -pthread_create(&c->thread, NULL, client_main, c);
	if (err) {
		homa_ep_close(&c->ep);
		free(c->buf);
	}
	return err;
}

static void client_stop(struct pool_client *c)
{
	shutdown(c->ep.fd, SHUT_RDWR);
	pthread_join(c->thread, NULL);
	homa_ep_close(&c->ep);
	free(c->buf);
}

/* Waits up to @ms for the client to have all its responses. */
static bool client_wait(struct pool_client *c, int ms)
{
	for (; ms > 0; ms -= 20) {
		if (__atomic_load_n(&c->responses, __ATOMIC_RELAXED) +
		    __atomic_load_n(&c->errors, __ATOMIC_RELAXED) >= c->count)
			return true;
		usleep(20 * 1000);
	}
	return false;
}

/* Hands bpages back without taking a message (expects EAGAIN). */
static int return_bpages(int fd, const uint32_t *offsets, uint32_t n)
{
	struct homa_rx rx;
	ssize_t r;

	homa_rx_init(&rx);
	rx.ret_count = n;
	memcpy(rx.ret_offsets, offsets, n * sizeof(*offsets));
	r = homa_receive(fd, &rx, HOMA_RECVMSG_REQUEST,
			 0, MSG_DONTWAIT);
	return r == -EAGAIN ? 0 : (r < 0 ? (int)r : -EBUSY);
}

/* Answers request @rx with one byte. */
static int answer(int fd, const struct homa_rx *rx)
{
	uint8_t b = 0x5a;

	return homa_send_response_buf(fd, &rx->src, rx->ctl.id, &b, 1);
}

/* Message @m's pieces, checked against the region: 0 or what failed. */
static const char *check_pieces(const struct homa_region *r,
				const struct homa_rx *m)
{
	uint32_t i;

	if (m->ctl.num_bpages != homa_bpages_for((size_t)m->length))
		return "num_bpages does not fit the length";
	for (i = 0; i < m->ctl.num_bpages; i++) {
		uint32_t off = m->ctl.bpage_offsets[i];
		size_t len = homa_rx_chunk_len(m, i);

		if (!homa_region_holds(r, off, len))
			return "piece outside the region";
		if ((off & (HOMA_BPAGE_SIZE - 1)) + len > HOMA_BPAGE_SIZE)
			return "piece crosses a bpage boundary";
	}
	return NULL;
}

static bool pieces_overlap(const struct homa_rx *held, int n)
{
	int a, b;
	uint32_t i, j;

	for (a = 0; a < n; a++)
		for (b = a; b < n; b++)
			for (i = 0; i < held[a].ctl.num_bpages; i++)
				for (j = 0; j < held[b].ctl.num_bpages; j++) {
					uint32_t s1 = held[a].ctl.bpage_offsets[i];
					uint32_t s2 = held[b].ctl.bpage_offsets[j];
					size_t l1 = homa_rx_chunk_len(&held[a], i);
					size_t l2 = homa_rx_chunk_len(&held[b], j);

					if (a == b && i == j)
						continue;
					if (s1 < s2 + l2 && s2 < s1 + l1)
						return true;
				}
	return false;
}

/* True when @m carries the bytes of request seed0 + i for some i < count. */
static bool match_seed(const struct homa_region *r, const struct homa_rx *m,
		       uint64_t seed0, int count)
{
	struct iovec iov[HOMA_MAX_BPAGES];
	int i, cnt = homa_rx_iov(r, m, iov);

	for (i = 0; i < count && cnt > 0; i++)
		if (payload_check_iov(iov, cnt, seed0 + i) < 0)
			return true;
	return false;
}

static bool held_intact(const struct homa_region *r, const struct homa_rx *held,
			int n, uint64_t seed0, int count)
{
	int i;

	for (i = 0; i < n; i++)
		if (!match_seed(r, &held[i], seed0, count))
			return false;
	return true;
}

/* Collects every bpage the held messages own. */
static uint32_t held_offsets(const struct homa_rx *held, int n,
			     uint32_t out[HOMA_MAX_BPAGES])
{
	uint32_t count = 0, i;
	int m;

	for (m = 0; m < n; m++)
		for (i = 0; i < held[m].ctl.num_bpages && count < HOMA_MAX_BPAGES; i++)
			out[count++] = held[m].ctl.bpage_offsets[i];
	return count;
}

/* Receives @want requests without returning bpages. */
static int receive_held(struct homa_ep *ep, struct homa_rx *held, int want,
			int nonblocking)
{
	int n = 0;
	ssize_t r;

	while (n < want) {
		homa_rx_init(&held[n]);
		r = homa_receive(ep->fd, &held[n], HOMA_RECVMSG_REQUEST, 0,
				 nonblocking ? MSG_DONTWAIT : 0);
		if (r < 0)
			return n > 0 || r == -EAGAIN ? n : (int)r;
		held[n].ret_count = 0;	/* keep them */
		n++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* SO_HOMA_RCVBUF get returns the region that was set, with its optlen. */
FIXTURE(rcvbuf) {
	struct homa_ep ep;
};

FIXTURE_VARIANT(rcvbuf) {
	int family;
};

HOMA_FAMILY_VARIANTS(rcvbuf);

FIXTURE_SETUP(rcvbuf)
{
	self->ep.fd = -1;
	ASSERT_ERRNO(0, homa_ep_open(&self->ep, variant->family, 0, 4));
}

FIXTURE_TEARDOWN(rcvbuf)
{
	homa_ep_close(&self->ep);
}

TEST_F_TIMEOUT(rcvbuf, getsockopt_returns_region, 30)
{
	struct homa_rcvbuf_args got = { 0, 0 };
	socklen_t len = sizeof(got);

	ASSERT_ERRNO(0, sys_err(getsockopt(self->ep.fd, IPPROTO_HOMA,
					   SO_HOMA_RCVBUF, &got, &len)));
	if (got.start != (uintptr_t)self->ep.region.base ||
	    got.length != self->ep.region.length || len != sizeof(got))
		TH_LOG("getsockopt: start %#llx length %llu optlen %u; set %p %zu",
		       (unsigned long long)got.start,
		       (unsigned long long)got.length, (unsigned int)len,
		       (void *)self->ep.region.base, self->ep.region.length);
	EXPECT_EQ((uintptr_t)self->ep.region.base, got.start);
	EXPECT_EQ(self->ep.region.length, got.length);
	EXPECT_EQ(sizeof(got), len);
}

/* ------------------------------------------------------------------ */
/*
 * Six messages of 300 bytes to 200,000 bytes, all received and held
 * (no bpage returned): each has the bpage count its length needs, its
 * pieces lie in the region and each within one bpage, no two overlap,
 * the bytes are intact, the small ones share a bpage; then all are
 * answered and their bpages returned.
 */
static const size_t layout_sizes[] = { 1000, 70000, 200000, 5000, 131072,
				       300 };
#define LAYOUT_COUNT ((int)(sizeof(layout_sizes) / sizeof(layout_sizes[0])))

FIXTURE(layout) {
	struct homa_ep ep;
	struct pool_client c;
	struct homa_rx held[MAX_MSGS];
	int n;			/* messages received and held, or -errno */
};

FIXTURE_VARIANT(layout) {
	int family;
};

HOMA_FAMILY_VARIANTS(layout);

FIXTURE_SETUP(layout)
{
	int family = variant->family;

	self->ep.fd = -1;
	ASSERT_ERRNO(0, homa_ep_open(&self->ep, family, PORT_LAYOUT, 16));
	ASSERT_ERRNO(0, client_start(&self->c, family, PORT_LAYOUT,
				     layout_sizes, LAYOUT_COUNT, 100));
	self->n = receive_held(&self->ep, self->held, LAYOUT_COUNT, 0);
	if (self->n != LAYOUT_COUNT)
		TH_LOG("received %d of %d: %s", self->n < 0 ? 0 : self->n,
		       LAYOUT_COUNT, errno_name(self->n < 0 ? self->n : 0));
}

FIXTURE_TEARDOWN(layout)
{
	client_stop(&self->c);
	homa_ep_close(&self->ep);
}

TEST_F_TIMEOUT(layout, receive_while_holding_bpages, 90)
{
	EXPECT_EQ(LAYOUT_COUNT, self->n);
}

TEST_F_TIMEOUT(layout, bpage_count_and_offsets_in_range, 90)
{
	const char *why = NULL;
	int i;

	ASSERT_EQ(LAYOUT_COUNT, self->n);
	for (i = 0; i < self->n && !why; i++) {
		why = check_pieces(&self->ep.region, &self->held[i]);
		if (why)
			TH_LOG("message of %zd bytes: %s (num_bpages %u, first offset %u)",
			       self->held[i].length, why,
			       self->held[i].ctl.num_bpages,
			       self->held[i].ctl.bpage_offsets[0]);
	}
	EXPECT_EQ(NULL, why);
}

TEST_F_TIMEOUT(layout, held_messages_do_not_overlap, 90)
{
	ASSERT_EQ(LAYOUT_COUNT, self->n);
	EXPECT_FALSE(pieces_overlap(self->held, self->n));
}

TEST_F_TIMEOUT(layout, held_messages_intact, 90)
{
	ASSERT_EQ(LAYOUT_COUNT, self->n);
	EXPECT_TRUE(held_intact(&self->ep.region, self->held, self->n, 100,
				LAYOUT_COUNT));
}

/*
 * Messages shorter than a bpage are packed: held at the same time, at
 * least two of them lie in one bpage (the pool's partial bpage).
 */
TEST_F_TIMEOUT(layout, small_messages_packed_into_a_shared_bpage, 90)
{
	const struct homa_rx *held = self->held;
	int i, j, small = 0, shared = 0;

	ASSERT_EQ(LAYOUT_COUNT, self->n);
	for (i = 0; i < self->n; i++) {
		if (held[i].length >= HOMA_BPAGE_SIZE)
			continue;
		small++;
		for (j = i + 1; j < self->n; j++)
			if (held[j].length < HOMA_BPAGE_SIZE &&
			    held[i].ctl.bpage_offsets[0] >> HOMA_BPAGE_SHIFT ==
			    held[j].ctl.bpage_offsets[0] >> HOMA_BPAGE_SHIFT)
				shared++;
	}
	TH_LOG("%d small messages, %d pairs of them in one bpage", small,
	       shared);
	EXPECT_GE(small, 2);
	EXPECT_GT(shared, 0);
}

TEST_F_TIMEOUT(layout, return_bpages_and_answer_all, 90)
{
	uint32_t offs[HOMA_MAX_BPAGES], noffs;
	int i, err, n = self->n < 0 ? 0 : self->n;

	for (i = 0; i < n; i++)
		answer(self->ep.fd, &self->held[i]);
	noffs = held_offsets(self->held, n, offs);
	err = return_bpages(self->ep.fd, offs, noffs);
	if (!err && !client_wait(&self->c, 20000))
		err = -ETIMEDOUT;
	if (!err && self->c.errors)
		err = self->c.first_err;
	EXPECT_ERRNO(0, err);
	EXPECT_EQ(LAYOUT_COUNT, self->n);
}

/* ------------------------------------------------------------------ */
/*
 * 16 one-bpage messages through a 4-bpage pool. The first one is held
 * (its bpage not returned) while the next 7 pass: none of them may get
 * its bpage. Then it is returned: the pool hands it out again to one of
 * the last 8 (it scans its bpages round robin, and at most 3 others can
 * be taken when it comes back). Both tests run the whole exchange; each
 * checks one side of it.
 */
enum { REUSE_COUNT = 16, REUSE_BPAGES = 4, REUSE_HOLD_FOR = 7 };

FIXTURE(reuse) {
	struct homa_ep ep;
	struct pool_client c;
	size_t sizes[REUSE_COUNT];
	int got, bad, clash, reused;
	uint32_t held;
};

FIXTURE_VARIANT(reuse) {
	int family;
};

HOMA_FAMILY_VARIANTS(reuse);

FIXTURE_SETUP(reuse)
{
	int i;

	for (i = 0; i < REUSE_COUNT; i++)
		self->sizes[i] = HOMA_BPAGE_SIZE;
	self->ep.fd = -1;
	ASSERT_ERRNO(0, homa_ep_open(&self->ep, variant->family, PORT_REUSE,
				     REUSE_BPAGES));
	ASSERT_ERRNO(0, client_start(&self->c, variant->family, PORT_REUSE,
				     self->sizes, REUSE_COUNT, 200));
}

FIXTURE_TEARDOWN(reuse)
{
	client_stop(&self->c);
	homa_ep_close(&self->ep);
}

/* Receives the 16 messages, holding the first one's bpage for 7. */
static void run_reuse(struct __test_metadata *_metadata,
		      FIXTURE_DATA(reuse) *self)
{
	struct homa_ep *ep = &self->ep;
	uint32_t page, held = UINT32_MAX;
	struct homa_rx rx;
	ssize_t r;

	self->got = self->bad = self->clash = self->reused = 0;
	homa_rx_init(&rx);
	while (self->got < REUSE_COUNT) {
		if (self->got == 1 + REUSE_HOLD_FOR && held != UINT32_MAX) {
			/* Hand the held bpage back with this receive. */
			rx.ret_offsets[rx.ret_count++] = held;
		}
		r = homa_receive(ep->fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0);
		if (r < 0) {
			TH_LOG("recvmsg after %d: %s", self->got,
			       errno_name((int)r));
			break;
		}
		self->got++;
		if (r != HOMA_BPAGE_SIZE || check_pieces(&ep->region, &rx) ||
		    !match_seed(&ep->region, &rx, 200, REUSE_COUNT))
			self->bad++;
		page = rx.ctl.bpage_offsets[0] >> HOMA_BPAGE_SHIFT;
		if (self->got == 1) {
			held = rx.ctl.bpage_offsets[0];
			answer(ep->fd, &rx);
			rx.ret_count = 0;	/* keep it */
			continue;
		}
		if (self->got <= 1 + REUSE_HOLD_FOR &&
		    page == held >> HOMA_BPAGE_SHIFT)
			self->clash++;
		if (self->got > 1 + REUSE_HOLD_FOR &&
		    page == held >> HOMA_BPAGE_SHIFT)
			self->reused++;
		answer(ep->fd, &rx);
	}
	self->held = held;
	/* Return the last one's bpage (nothing more comes: EAGAIN). */
	return_bpages(ep->fd, rx.ret_offsets, rx.ret_count);
	if (!client_wait(&self->c, 20000) || self->c.errors)
		TH_LOG("client: %d responses, %d errors (%s)",
		       self->c.responses, self->c.errors,
		       errno_name(self->c.first_err));
	TH_LOG("held bpage %u: given to %d of the %d messages while held, to %d of the %d after its return",
	       held >> HOMA_BPAGE_SHIFT, self->clash, REUSE_HOLD_FOR,
	       self->reused, REUSE_COUNT - 1 - REUSE_HOLD_FOR);
}

TEST_F_TIMEOUT(reuse, all_messages_complete, 90)
{
	run_reuse(_metadata, self);
	EXPECT_EQ(REUSE_COUNT, self->got);
	EXPECT_EQ(0, self->bad);
	EXPECT_EQ(REUSE_COUNT, self->c.responses);
}

TEST_F_TIMEOUT(reuse, offsets_repeat, 90)
{
	run_reuse(_metadata, self);
	EXPECT_EQ(REUSE_COUNT, self->got);
	EXPECT_EQ(0, self->clash);
	EXPECT_GT(self->reused, 0);
}

/* ------------------------------------------------------------------ */
/*
 * Six messages of 100,000 bytes (two bpages each) through a 4-bpage
 * pool: what fits is received and held; the others wait, and their
 * senders do not give up for longer than the protocol's timeout; once
 * the held bpages come back, all complete. The setup receives what fits.
 */
enum { EXHAUST_COUNT = 6, EXHAUST_BPAGES = 4 };

FIXTURE(exhaust) {
	struct homa_ep ep;
	struct pool_client c;
	size_t sizes[EXHAUST_COUNT];
	struct homa_rx held[MAX_MSGS];
	int n;			/* messages received and held */
};

FIXTURE_VARIANT(exhaust) {
	int family;
};

HOMA_FAMILY_VARIANTS(exhaust);

FIXTURE_SETUP(exhaust)
{
	int i, more, idle, waited;

	for (i = 0; i < EXHAUST_COUNT; i++)
		self->sizes[i] = 100000;
	self->ep.fd = -1;
	ASSERT_ERRNO(0, homa_ep_open(&self->ep, variant->family,
				     PORT_EXHAUST, EXHAUST_BPAGES));
	ASSERT_ERRNO(0, client_start(&self->c, variant->family, PORT_EXHAUST,
				     self->sizes, EXHAUST_COUNT, 300));
	/*
	 * Take what fits, keeping it, until nothing more comes for 2 s
	 * (waiting up to 20 s for the first message).
	 */
	self->n = 0;
	for (idle = 0, waited = 0;
	     idle < 20 && waited < 200 && self->n < EXHAUST_COUNT;) {
		more = receive_held(&self->ep, self->held + self->n,
				    EXHAUST_COUNT - self->n, 1);
		if (more > 0) {
			self->n += more;
			idle = 0;
			continue;
		}
		idle += self->n > 0;
		waited++;
		usleep(100 * 1000);
	}
	TH_LOG("pool of %d bpages holds %d of %d messages of 100000 bytes",
	       EXHAUST_BPAGES, self->n, EXHAUST_COUNT);
}

FIXTURE_TEARDOWN(exhaust)
{
	client_stop(&self->c);
	homa_ep_close(&self->ep);
}

TEST_F_TIMEOUT(exhaust, pool_full_holds_messages_back, 90)
{
	EXPECT_GE(self->n, 1);
	EXPECT_LT(self->n, EXHAUST_COUNT);
}

/*
 * Nobody gives up, for longer than the protocol's timeout. Time is
 * measured in the timer's ticks, through what they make happen: a
 * waiting sender asks for its response (RESEND) every resend_ticks
 * silent ticks, and the receiver's BUSY answer starts the count again.
 * Once the waiting senders have sent (timeout_ticks / resend_ticks + 1)
 * RESENDs each, more than timeout_ticks ticks have passed for at least
 * one of them. Returns whether they did (within 60 s).
 */
static bool senders_waited(struct __test_metadata *_metadata,
			   FIXTURE_DATA(exhaust) *self)
{
	long tt = homa_sysctl_read("timeout_ticks");
	long rt = homa_sysctl_read("resend_ticks");
	long long r0 = homa_metric("resend_requests_sent"), need;
	int waiting = EXHAUST_COUNT - self->n;
	bool waited;

	need = rt > 0 && tt > 0 ? (long long)waiting * (tt / rt + 1) : 1;
	waited = tt > 0 && rt > 0 &&
		 homa_metric_rises_to("resend_requests_sent", r0 + need,
				      60000);
	TH_LOG("%d senders waited: resend_requests_sent +%lld (want %lld: timeout_ticks %ld, resend_ticks %ld), sender errors %d",
	       waiting, homa_metric("resend_requests_sent") - r0, need, tt,
	       rt, self->c.errors);
	return waited;
}

TEST_F_TIMEOUT(exhaust, senders_wait_not_fail, 90)
{
	EXPECT_TRUE(senders_waited(_metadata, self));
	EXPECT_EQ(0, self->c.errors);
}

/*
 * After that wait, every held bpage is handed back with the next
 * receive: the messages that waited now get space and arrive one after
 * the other, intact, and every sender gets its response.
 */
TEST_F_TIMEOUT(exhaust, all_complete_after_return, 90)
{
	int n = self->n, i, err = 0;
	struct homa_rx rx;
	bool rest_ok;
	ssize_t r;

	senders_waited(_metadata, self);
	rest_ok = held_intact(&self->ep.region, self->held, n, 300,
			      EXHAUST_COUNT);
	for (i = 0; i < n; i++)
		answer(self->ep.fd, &self->held[i]);
	homa_rx_init(&rx);
	rx.ret_count = held_offsets(self->held, n, rx.ret_offsets);
	for (i = n; i < EXHAUST_COUNT; i++) {
		r = homa_receive(self->ep.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0);
		if (r < 0) {
			err = (int)r;
			break;
		}
		rest_ok &= r == 100000 &&
			   match_seed(&self->ep.region, &rx, 300,
				      EXHAUST_COUNT);
		answer(self->ep.fd, &rx);
	}
	if (!err && !client_wait(&self->c, 20000))
		err = -ETIMEDOUT;
	if (err || !rest_ok || self->c.responses != EXHAUST_COUNT)
		TH_LOG("after return: %s, payloads %s, client %d responses %d errors (%s)",
		       errno_name(err), rest_ok ? "ok" : "BAD",
		       self->c.responses, self->c.errors,
		       errno_name(self->c.first_err));
	EXPECT_ERRNO(0, err);
	EXPECT_TRUE(rest_ok);
	EXPECT_EQ(EXHAUST_COUNT, self->c.responses);
}

int main(int argc, char **argv)
{
	return homa_harness_run(argc, argv, 1);
}
