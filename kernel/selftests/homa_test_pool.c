// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_pool - the receive buffer pool seen from user space:
 * SO_HOMA_RCVBUF set and get; where messages land (bpage count, offsets
 * in range, each piece inside one bpage, no overlap while held, data
 * intact); bpages reused after they are returned; and a pool too small
 * for the messages in flight makes them wait, not fail, until bpages
 * come back.
 *
 * Usage: homa_test_pool [--family 4|6]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "ktap.h"
#include "payload.h"
#include "watchdog.h"

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

static void test_rcvbuf_get(struct ktap *k, int family)
{
	struct homa_rcvbuf_args got = { 0, 0 };
	socklen_t len = sizeof(got);
	struct homa_ep ep;
	int err;

	err = homa_ep_open(&ep, family, 0, 4);
	if (!err)
		err = getsockopt(ep.fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &got,
				 &len) < 0 ? -errno : 0;
	if (!err && (got.start != (uintptr_t)ep.region.base ||
		     got.length != ep.region.length || len != sizeof(got))) {
		ktap_diag(k, "getsockopt: start %#llx length %llu optlen %u; set %p %zu",
			  (unsigned long long)got.start,
			  (unsigned long long)got.length, (unsigned int)len,
			  (void *)ep.region.base, ep.region.length);
		err = -EBADMSG;
	}
	expect_errno(k, err, 0, "rcvbuf_getsockopt_returns_region");
	if (ep.fd >= 0)
		homa_ep_close(&ep);
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

/*
 * Messages shorter than a bpage are packed: held at the same time, at
 * least two of them lie in one bpage (the pool's partial bpage).
 */
static bool small_ones_share(struct ktap *k, const struct homa_rx *held,
			     int n)
{
	int i, j, small = 0, shared = 0;

	for (i = 0; i < n; i++) {
		if (held[i].length >= HOMA_BPAGE_SIZE)
			continue;
		small++;
		for (j = i + 1; j < n; j++)
			if (held[j].length < HOMA_BPAGE_SIZE &&
			    held[i].ctl.bpage_offsets[0] >> HOMA_BPAGE_SHIFT ==
			    held[j].ctl.bpage_offsets[0] >> HOMA_BPAGE_SHIFT)
				shared++;
	}
	ktap_diag(k, "%d small messages, %d pairs of them in one bpage",
		  small, shared);
	return small >= 2 && shared > 0;
}

static void test_layout(struct ktap *k, int family, struct homa_rx *held)
{
	static const size_t sizes[] = { 1000, 70000, 200000, 5000, 131072,
					300 };
	const int count = sizeof(sizes) / sizeof(sizes[0]);
	uint32_t offs[HOMA_MAX_BPAGES], noffs;
	struct pool_client c;
	const char *why = NULL;
	struct homa_ep ep;
	int n = 0, i, err;

	err = homa_ep_open(&ep, family, PORT_LAYOUT, 16);
	if (!err) {
		err = client_start(&c, family, PORT_LAYOUT, sizes, count, 100);
		if (err)
			homa_ep_close(&ep);
	}
	if (!expect_errno(k, err, 0, "layout_sockets")) {
		for (i = 0; i < 6; i++)
			ktap_result(k, false, "layout_case_%d", i);
		return;
	}
	n = receive_held(&ep, held, count, 0);
	if (n != count)
		ktap_diag(k, "received %d of %d: %s", n < 0 ? 0 : n, count,
			  errno_name(n < 0 ? n : 0));
	ktap_result(k, n == count, "layout_receive_while_holding_bpages");
	if (n < 0)
		n = 0;
	for (i = 0; i < n && !why; i++) {
		why = check_pieces(&ep.region, &held[i]);
		if (why)
			ktap_diag(k, "message of %zd bytes: %s (num_bpages %u, first offset %u)",
				  held[i].length, why, held[i].ctl.num_bpages,
				  held[i].ctl.bpage_offsets[0]);
	}
	ktap_result(k, n == count && !why,
		    "layout_bpage_count_and_offsets_in_range");
	ktap_result(k, n == count && !pieces_overlap(held, n),
		    "layout_held_messages_do_not_overlap");
	ktap_result(k, n == count && held_intact(&ep.region, held, n, 100, count),
		    "layout_held_messages_intact");
	ktap_result(k, n == count && small_ones_share(k, held, n),
		    "layout_small_messages_packed_into_a_shared_bpage");
	for (i = 0; i < n; i++)
		answer(ep.fd, &held[i]);
	noffs = held_offsets(held, n, offs);
	err = return_bpages(ep.fd, offs, noffs);
	if (!err && !client_wait(&c, 20000))
		err = -ETIMEDOUT;
	if (!err && c.errors)
		err = c.first_err;
	expect_errno(k, err, 0, "layout_return_bpages_and_answer_all");
	client_stop(&c);
	homa_ep_close(&ep);
}

/*
 * 16 one-bpage messages through a 4-bpage pool. The first one is held
 * (its bpage not returned) while the next 7 pass: none of them may get
 * its bpage. Then it is returned: the pool hands it out again to one of
 * the last 8 (it scans its bpages round robin, and at most 3 others can
 * be taken when it comes back).
 */
static void test_reuse(struct ktap *k, int family)
{
	enum { COUNT = 16, BPAGES = 4, HOLD_FOR = 7 };
	size_t sizes[COUNT];
	int got = 0, bad = 0, clash = 0, reused = 0, i, err;
	uint32_t held = UINT32_MAX, page;
	struct pool_client c;
	struct homa_ep ep;
	struct homa_rx rx;
	ssize_t r;

	for (i = 0; i < COUNT; i++)
		sizes[i] = HOMA_BPAGE_SIZE;
	err = homa_ep_open(&ep, family, PORT_REUSE, BPAGES);
	if (!err) {
		err = client_start(&c, family, PORT_REUSE, sizes, COUNT, 200);
		if (err)
			homa_ep_close(&ep);
	}
	if (!expect_errno(k, err, 0, "reuse_sockets")) {
		ktap_result(k, false, "reuse_all_messages_complete");
		ktap_result(k, false, "reuse_offsets_repeat");
		return;
	}
	homa_rx_init(&rx);
	while (got < COUNT) {
		if (got == 1 + HOLD_FOR && held != UINT32_MAX) {
			/* Hand the held bpage back with this receive. */
			rx.ret_offsets[rx.ret_count++] = held;
		}
		r = homa_receive(ep.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0);
		if (r < 0) {
			ktap_diag(k, "recvmsg after %d: %s", got,
				  errno_name((int)r));
			break;
		}
		got++;
		if (r != HOMA_BPAGE_SIZE || check_pieces(&ep.region, &rx) ||
		    !match_seed(&ep.region, &rx, 200, COUNT))
			bad++;
		page = rx.ctl.bpage_offsets[0] >> HOMA_BPAGE_SHIFT;
		if (got == 1) {
			held = rx.ctl.bpage_offsets[0];
			answer(ep.fd, &rx);
			rx.ret_count = 0;	/* keep it */
			continue;
		}
		if (got <= 1 + HOLD_FOR && page == held >> HOMA_BPAGE_SHIFT)
			clash++;
		if (got > 1 + HOLD_FOR && page == held >> HOMA_BPAGE_SHIFT)
			reused++;
		answer(ep.fd, &rx);
	}
	/* Return the last one's bpage (nothing more comes: EAGAIN). */
	return_bpages(ep.fd, rx.ret_offsets, rx.ret_count);
	if (!client_wait(&c, 20000) || c.errors)
		ktap_diag(k, "client: %d responses, %d errors (%s)",
			  c.responses, c.errors, errno_name(c.first_err));
	ktap_result(k, got == COUNT && bad == 0 && c.responses == COUNT,
		    "reuse_all_messages_complete");
	ktap_diag(k, "held bpage %u: given to %d of the %d messages while held, to %d of the %d after its return",
		  held >> HOMA_BPAGE_SHIFT, clash, HOLD_FOR, reused,
		  COUNT - 1 - HOLD_FOR);
	ktap_result(k, got == COUNT && clash == 0 && reused > 0,
		    "reuse_offsets_repeat");
	client_stop(&c);
	homa_ep_close(&ep);
}

static void test_exhaustion(struct ktap *k, int family, struct homa_rx *held)
{
	enum { COUNT = 6, BPAGES = 4 };
	size_t sizes[COUNT];
	int n = 0, more, i, idle, waited, err, rest_ok;
	struct pool_client c;
	struct homa_ep ep;

	for (i = 0; i < COUNT; i++)
		sizes[i] = 100000;
	err = homa_ep_open(&ep, family, PORT_EXHAUST, BPAGES);
	if (!err) {
		err = client_start(&c, family, PORT_EXHAUST, sizes, COUNT, 300);
		if (err)
			homa_ep_close(&ep);
	}
	if (!expect_errno(k, err, 0, "exhaust_sockets")) {
		ktap_result(k, false, "exhaust_pool_full_holds_messages_back");
		ktap_result(k, false, "exhaust_senders_wait_not_fail");
		ktap_result(k, false, "exhaust_all_complete_after_return");
		return;
	}
	/*
	 * Take what fits, keeping it, until nothing more comes for 2 s
	 * (waiting up to 20 s for the first message).
	 */
	for (idle = 0, waited = 0; idle < 20 && waited < 200 && n < COUNT;) {
		more = receive_held(&ep, held + n, COUNT - n, 1);
		if (more > 0) {
			n += more;
			idle = 0;
			continue;
		}
		idle += n > 0;
		waited++;
		usleep(100 * 1000);
	}
	ktap_diag(k, "pool of %d bpages holds %d of %d messages of 100000 bytes",
		  BPAGES, n, COUNT);
	ktap_result(k, n >= 1 && n < COUNT,
		    "exhaust_pool_full_holds_messages_back");
	/*
	 * Nobody gives up, for longer than the protocol's timeout. Time is
	 * measured in the timer's ticks, through what they make happen: a
	 * waiting sender asks for its response (RESEND) every resend_ticks
	 * silent ticks, and the receiver's BUSY answer starts the count
	 * again. Once the waiting senders have sent (timeout_ticks /
	 * resend_ticks + 1) RESENDs each, more than timeout_ticks ticks
	 * have passed for at least one of them.
	 */
	{
		long tt = homa_sysctl_read("timeout_ticks");
		long rt = homa_sysctl_read("resend_ticks");
		long long r0 = homa_metric("resend_requests_sent"), need;
		bool waited;

		need = rt > 0 && tt > 0 ? (long long)(COUNT - n) * (tt / rt + 1)
					: 1;
		waited = tt > 0 && rt > 0 &&
			 homa_metric_rises_to("resend_requests_sent",
					      r0 + need, 60000);
		ktap_diag(k, "%d senders waited: resend_requests_sent +%lld (want %lld: timeout_ticks %ld, resend_ticks %ld), sender errors %d",
			  COUNT - n, homa_metric("resend_requests_sent") - r0,
			  need, tt, rt, c.errors);
		ktap_result(k, waited && c.errors == 0,
			    "exhaust_senders_wait_not_fail");
	}
	rest_ok = held_intact(&ep.region, held, n, 300, COUNT);
	for (i = 0; i < n; i++)
		answer(ep.fd, &held[i]);
	/*
	 * Hand every held bpage back with the next receive: the messages
	 * that waited now get space and arrive one after the other.
	 */
	{
		struct homa_rx rx;
		ssize_t r;

		homa_rx_init(&rx);
		rx.ret_count = held_offsets(held, n, rx.ret_offsets);
		for (i = n, err = 0; i < COUNT && !err; i++) {
			r = homa_receive(ep.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0);
			if (r < 0) {
				err = (int)r;
				break;
			}
			rest_ok &= r == 100000 &&
				   match_seed(&ep.region, &rx, 300, COUNT);
			answer(ep.fd, &rx);
		}
	}
	if (!err && !client_wait(&c, 20000))
		err = -ETIMEDOUT;
	if (err || !rest_ok || c.responses != COUNT)
		ktap_diag(k, "after return: %s, payloads %s, client %d responses %d errors (%s)",
			  errno_name(err), rest_ok ? "ok" : "BAD", c.responses,
			  c.errors, errno_name(c.first_err));
	ktap_result(k, !err && rest_ok && c.responses == COUNT,
		    "exhaust_all_complete_after_return");
	client_stop(&c);
	homa_ep_close(&ep);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct homa_rx *held;
	int family = AF_INET, c;
	struct watchdog wd;
	struct ktap k;

	while ((c = getopt_long(argc, argv, "f:", opts, NULL)) != -1) {
		if (c == 'f')
			family = homa_family_parse(optarg);
		if (c != 'f' || family < 0) {
			fprintf(stderr, "usage: %s [--family 4|6]\n", argv[0]);
			return 2;
		}
	}
	held = calloc(MAX_MSGS, sizeof(*held));
	if (!held)
		return 1;
	ktap_start(&k, 1 + 7 + 3 + 4);
	watchdog_start(&wd, &k);
	watchdog_arm(&wd, 30, "rcvbuf_getsockopt");
	test_rcvbuf_get(&k, family);
	watchdog_arm(&wd, 90, "layout");
	test_layout(&k, family, held);
	watchdog_arm(&wd, 90, "reuse");
	test_reuse(&k, family);
	watchdog_arm(&wd, 90, "exhaustion");
	test_exhaustion(&k, family, held);
	watchdog_stop(&wd);
	free(held);
	return ktap_finish(&k);
}
