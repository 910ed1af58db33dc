// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_abort - HOMAIOCABORT (homa_ioc_abort() in homa_plumbing.c),
 * in one guest over loopback, for IPv4 and IPv6 (a variant each). Each
 * fixture has a server socket on a fixed port that takes requests and
 * answers only when told to, so client RPCs stay outstanding; every
 * request carries a tag (its first 8 bytes and its completion cookie),
 * and the response to tag T is T's pattern of a length that depends on T,
 * checked byte for byte with id, cookie and the server's address.
 *
 * A fixture is one scenario of numbered stages; the test of stage N runs
 * stages 1..N again from a fresh set-up (each test is a process of its
 * own) and checks what stage N did.
 *  - abort(id, ECANCELED) of one of three RPCs: a recvmsg blocked on that
 *    id returns ECANCELED (with the RPC's id and cookie) within 2 s, the
 *    id is gone once reported, the other two stay outstanding and
 *    complete when answered;
 *  - abort(id, 0) frees the RPC: recvmsg(id) and a second abort are
 *    EINVAL, a response that comes later is not delivered;
 *  - abort(id, 0) wakes the recvmsg waiting for that id (EINVAL) and not
 *    the one waiting for another id, which gets its response; abort(0, 0)
 *    wakes a recvmsg waiting by id too;
 *  - abort(0, EIO) with five outstanding RPCs: each recvmsg gives EIO; the
 *    socket's own server RPCs (one in service, one queued) go on and are
 *    answered, and the server serves a new client;
 *  - ids that are not client RPCs of the socket (never issued, odd, a
 *    server RPC's id on the server socket, another socket's RPC) are
 *    EINVAL and change nothing;
 *  - bad arguments: error -1 and 4096, nonzero _pad1/_pad2[0]/_pad2[1]
 *    EINVAL, a pointer to unmapped memory (also an argument that runs
 *    into an unmapped page) EFAULT, none of them touches the RPC; error
 *    4095 (MAX_ERRNO) is accepted and reported as is;
 *  - the ioctl on a UDP socket fails (the errno is printed).
 * Every wait has a deadline, and each test has a timeout of its own.
 *
 * Usage: homa_test_abort [harness options: -v ipv4, -f FIXTURE, -l, ...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "blocked_call.h"
#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "payload.h"

#define REQ_LEN		100
#define RESP_MAX	(100000 + 500)
#define NODE_BPAGES	64
#define MAX_HELD	16
#define MAX_ERRNO	4095		/* include/linux/err.h */

/*
 * What the old watchdog allowed each scenario (s). A test runs its
 * scenario up to one stage: well under a second on the distro kernel.
 */
#define ABORT_TIMEOUT	90

static uint8_t resp_buf[RESP_MAX];

/* The server ports are base + 1..7 and base + 14. */
static uint16_t port_base(int family)
{
	return family == AF_INET ? 5300 : 5400;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static size_t resp_len(uint64_t tag)
{
	return 500 + (size_t)((tag * 7919) % 100000);
}

/* --- sockets -------------------------------------------------------- */

/* A request a node has received and may answer. */
struct held {
	uint64_t tag;
	uint64_t id;		/* the server RPC's id */
	union homa_addr src;
	bool answered;
};

/* A Homa socket with its receive state, in either role. */
struct node {
	int family;
	struct homa_ep ep;
	struct homa_rx rx;
	struct held held[MAX_HELD];
	int nheld;
};

static void node_init(struct node *n, int family)
{
	memset(n, 0, sizeof(*n));
	n->family = family;
	n->ep.fd = -1;
	homa_rx_init(&n->rx);
}

/* Opens the socket (@port 0: automatic) with a region. */
static int node_open(struct node *n, int family, uint16_t port)
{
	node_init(n, family);
	return homa_ep_open(&n->ep, family, port, NODE_BPAGES);
}

static void node_close(struct node *n)
{
	homa_ep_close(&n->ep);
}

/* Sends request @tag to the local port @port; its id goes to @id. */
static int node_send(struct node *n, uint16_t port, uint64_t tag,
		     uint64_t *id)
{
	uint8_t req[REQ_LEN] = { 0 };
	union homa_addr dst;

	memcpy(req, &tag, sizeof(tag));
	homa_addr_loopback(&dst, n->family, port);
	return homa_send_request_buf(n->ep.fd, &dst, req, sizeof(req), tag,
				     id);
}

/* recvmsg for @id without waiting: -EAGAIN while it is outstanding. */
static long node_poll_id(struct node *n, uint64_t id)
{
	return (long)homa_receive(n->ep.fd, &n->rx, 0, id, MSG_DONTWAIT);
}

/*
 * Receives requests until the one with @tag is held (within @ms).
 * Returns its index in n->held or -errno.
 */
static int node_take(struct node *n, uint64_t tag, int ms)
{
	long long end = now_ms() + ms;
	struct iovec iov[HOMA_MAX_BPAGES];
	struct held *h;
	ssize_t len;
	int i, cnt;

	for (;;) {
		for (i = 0; i < n->nheld; i++)
			if (n->held[i].tag == tag && !n->held[i].answered)
				return i;
		if (n->nheld == MAX_HELD)
			return -ENOSPC;
		len = homa_receive_within(n->ep.fd, &n->rx,
					  HOMA_RECVMSG_REQUEST, 0,
					  (int)(end > now_ms() ?
						end - now_ms() : 0));
		if (len < 0)
			return (int)len;
		cnt = homa_rx_iov(&n->ep.region, &n->rx, iov);
		if (cnt < 1 || iov[0].iov_len < sizeof(uint64_t))
			return -EBADMSG;
		h = &n->held[n->nheld++];
		memcpy(&h->tag, iov[0].iov_base, sizeof(h->tag));
		h->id = n->rx.ctl.id;
		h->src = n->rx.src;
		h->answered = false;
	}
}

/* Answers request @tag (receiving it first if need be). */
static int node_answer(struct node *n, uint64_t tag, int ms)
{
	size_t len = resp_len(tag);
	struct held *h;
	int i, err;

	i = node_take(n, tag, ms);
	if (i < 0)
		return i;
	h = &n->held[i];
	payload_fill(resp_buf, len, tag, 0);
	err = homa_send_response_buf(n->ep.fd, &h->src, h->id, resp_buf, len);
	if (!err)
		h->answered = true;
	return err;
}

/*
 * Whether @rx (received from a socket of @family with region @r, result
 * @got) is the response of RPC @id to request @tag from the local port
 * @port; says what is wrong otherwise.
 */
static bool response_ok(struct __test_metadata *_metadata, int family,
			const struct homa_region *r,
			const struct homa_rx *rx, ssize_t got, uint64_t id,
			uint64_t tag, uint16_t port, const char *what)
{
	struct iovec iov[HOMA_MAX_BPAGES];
	union homa_addr from;
	char a[64], b[64];
	long bad = -1;
	int cnt;

	if (got < 0) {
		TH_LOG("%s: recvmsg(id %llu): %s", what,
		       (unsigned long long)id, errno_name((int)got));
		return false;
	}
	homa_addr_loopback(&from, family, port);
	cnt = homa_rx_iov(r, rx, iov);
	if (cnt >= 0)
		bad = payload_check_iov(iov, cnt, tag);
	if (rx->ctl.id != id || rx->ctl.completion_cookie != tag ||
	    (size_t)got != resp_len(tag) || !homa_addr_equal(&rx->src, &from) ||
	    cnt < 0 || bad >= 0) {
		TH_LOG("%s: id %llu (want %llu), cookie %llu (want %llu), %zd B (want %zu), from %s (want %s), bpages %s, first wrong byte %ld",
		       what, (unsigned long long)rx->ctl.id,
		       (unsigned long long)id,
		       (unsigned long long)rx->ctl.completion_cookie,
		       (unsigned long long)tag, got, resp_len(tag),
		       homa_addr_str(&rx->src, a, sizeof(a)),
		       homa_addr_str(&from, b, sizeof(b)),
		       cnt < 0 ? "outside the region" : "ok", bad);
		return false;
	}
	return true;
}

/* Receives the response of @id within @ms and checks it. */
static bool node_response_ok(struct __test_metadata *_metadata,
			     struct node *n, uint64_t id, uint64_t tag,
			     uint16_t port, int ms, const char *what)
{
	ssize_t got = homa_receive_within(n->ep.fd, &n->rx, 0, id, ms);

	return response_ok(_metadata, n->family, &n->ep.region, &n->rx, got,
			   id, tag, port, what);
}

/* Whether recvmsg for @id gave -@err with the RPC's id and cookie. */
static bool error_ok(const struct homa_rx *rx, ssize_t got, uint64_t id,
		     uint64_t tag, int err)
{
	return got == -err && rx->ctl.id == id &&
	       rx->ctl.completion_cookie == tag;
}

/* --- a recvmsg for one id in its own thread -------------------------- */

struct waiter {
	pthread_t thread;
	bool started;
	int fd;
	uint64_t id;
	struct homa_rx rx;
	ssize_t result;		/* length or -errno, once done */
	long long end_ms;	/* when recvmsg returned */
	int done;		/* atomic */
	pid_t tid;		/* atomic */
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	w->result = homa_receive(w->fd, &w->rx, 0, w->id, 0);
	w->end_ms = now_ms();
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int waiter_start(struct waiter *w, int fd, uint64_t id)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->id = id;
	homa_rx_init(&w->rx);
	err = pthread_create(&w->thread, NULL, waiter_main, w);
	w->started = !err;
	return -err;
}

static bool waiter_done(struct waiter *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/* Waits up to @ms for recvmsg to return. */
static bool waiter_wait(struct waiter *w, int ms)
{
	long long end = now_ms() + ms;

	while (!waiter_done(w) && now_ms() < end)
		usleep(1000);
	return waiter_done(w);
}

/* Waits up to @ms until the thread sleeps in recvmsg (false if the call
 * returned instead).
 */
static bool waiter_blocked(struct waiter *w, int ms)
{
	long long end = now_ms() + ms;
	pid_t tid;

	for (;;) {
		if (waiter_done(w))
			return false;
		tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE);
		if (tid && task_sleeps_in_recvmsg(0, tid))
			return true;
		if (now_ms() >= end)
			return false;
		usleep(1000);
	}
}

/* Ends the thread: a call still blocked is woken by shutdown. */
static void waiter_finish(struct waiter *w)
{
	if (!w->started)
		return;
	if (!waiter_done(w)) {
		shutdown(w->fd, SHUT_RDWR);
		waiter_wait(w, 10000);
	}
	pthread_join(w->thread, NULL);
	w->started = false;
}

static const char *waiter_str(struct waiter *w, long long t0, char *buf,
			      size_t len)
{
	if (!waiter_done(w))
		snprintf(buf, len, "still blocked");
	else
		snprintf(buf, len, "%s after %lld ms (id %llu, cookie %llu)",
			 errno_name((int)(w->result < 0 ? w->result : 0)),
			 w->end_ms - t0, (unsigned long long)w->rx.ctl.id,
			 (unsigned long long)w->rx.ctl.completion_cookie);
	return buf;
}

/* ioctl(HOMAIOCABORT) with any argument pointer; 0 or -errno. */
static int abort_raw(int fd, const void *arg)
{
	return ioctl(fd, HOMAIOCABORT, arg) ? -errno : 0;
}

/*
 * --- 1. abort(id, ECANCELED) of one of three -------------------------
 * Stages: 1 a recvmsg blocked on the middle RPC's id, then abort(that id,
 * ECANCELED); 2 recvmsg for that id again; 3 recvmsg MSG_DONTWAIT for the
 * other two; 4 the server answers the other two.
 */
FIXTURE(abort_one_of_three) {
	uint16_t port;
	struct node srv, cli;
	uint64_t id[3];
	struct waiter w;
	bool blocked, woke, ok0, ok2;
	int err, err_answer;
	long r_again, r0, r2;
};

FIXTURE_VARIANT(abort_one_of_three) {
	int family;
};

HOMA_FAMILY_VARIANTS(abort_one_of_three);

static const uint64_t one_of_three_tag[3] = { 101, 102, 103 };

FIXTURE_SETUP(abort_one_of_three)
{
	int i;

	self->port = port_base(variant->family) + 1;
	node_init(&self->srv, variant->family);
	node_init(&self->cli, variant->family);
	ASSERT_ERRNO(0, node_open(&self->srv, variant->family, self->port));
	ASSERT_ERRNO(0, node_open(&self->cli, variant->family, 0));
	for (i = 0; i < 3; i++)
		ASSERT_ERRNO(0, node_send(&self->cli, self->port,
					  one_of_three_tag[i], &self->id[i]));
}

FIXTURE_TEARDOWN(abort_one_of_three)
{
	waiter_finish(&self->w);
	node_close(&self->cli);
	node_close(&self->srv);
}

static void one_of_three_run(struct __test_metadata *_metadata,
			     FIXTURE_DATA(abort_one_of_three) *self, int last)
{
	const uint64_t *tag = one_of_three_tag;
	uint64_t *id = self->id;
	long long t0;
	char s[128];

	ASSERT_ERRNO(0, waiter_start(&self->w, self->cli.ep.fd, id[1]));
	self->blocked = waiter_blocked(&self->w, 3000);
	t0 = now_ms();
	self->err = homa_abort(self->cli.ep.fd, id[1], ECANCELED);
	self->woke = waiter_wait(&self->w, 2000);
	TH_LOG("ids %llu %llu %llu; recvmsg(id %llu) blocked %d; HOMAIOCABORT(id, ECANCELED): %s; recvmsg: %s",
	       (unsigned long long)id[0], (unsigned long long)id[1],
	       (unsigned long long)id[2], (unsigned long long)id[1],
	       self->blocked, errno_name(self->err),
	       waiter_str(&self->w, t0, s, sizeof(s)));
	if (last == 1)
		return;

	/* recvmsg handed the error over and ended the RPC. */
	self->r_again = node_poll_id(&self->cli, id[1]);
	TH_LOG("recvmsg(id %llu) again: %s", (unsigned long long)id[1],
	       errno_name((int)self->r_again));
	if (last == 2)
		return;

	self->r0 = node_poll_id(&self->cli, id[0]);
	self->r2 = node_poll_id(&self->cli, id[2]);
	TH_LOG("recvmsg MSG_DONTWAIT for the other two: %s, %s",
	       errno_name((int)self->r0), errno_name((int)self->r2));
	if (last == 3)
		return;

	self->err_answer = node_answer(&self->srv, tag[0], 5000);
	if (!self->err_answer)
		self->err_answer = node_answer(&self->srv, tag[2], 5000);
	if (self->err_answer)
		TH_LOG("server: %s", errno_name(self->err_answer));
	self->ok0 = !self->err_answer &&
		    node_response_ok(_metadata, &self->cli, id[0], tag[0],
				     self->port, 5000, "first RPC");
	self->ok2 = node_response_ok(_metadata, &self->cli, id[2], tag[2],
				     self->port, 5000, "third RPC");
}

TEST_F_TIMEOUT(abort_one_of_three, blocked_recvmsg_gets_ecanceled,
	       ABORT_TIMEOUT)
{
	one_of_three_run(_metadata, self, 1);
	EXPECT_TRUE(self->blocked);
	EXPECT_ERRNO(0, self->err);
	EXPECT_TRUE(self->woke);
	EXPECT_TRUE(self->woke &&
		    error_ok(&self->w.rx, self->w.result, self->id[1],
			     one_of_three_tag[1], ECANCELED));
}

TEST_F_TIMEOUT(abort_one_of_three, aborted_id_gone_after_report,
	       ABORT_TIMEOUT)
{
	one_of_three_run(_metadata, self, 2);
	EXPECT_ERRNO(EINVAL, (int)self->r_again);
}

TEST_F_TIMEOUT(abort_one_of_three, others_still_outstanding, ABORT_TIMEOUT)
{
	one_of_three_run(_metadata, self, 3);
	EXPECT_EQ(-EAGAIN, self->r0);
	EXPECT_EQ(-EAGAIN, self->r2);
}

TEST_F_TIMEOUT(abort_one_of_three, others_complete_with_payload,
	       ABORT_TIMEOUT)
{
	one_of_three_run(_metadata, self, 4);
	EXPECT_ERRNO(0, self->err_answer);
	EXPECT_TRUE(self->ok0);
	EXPECT_TRUE(self->ok2);
}

/*
 * --- 2. abort(id, 0) frees the RPC -----------------------------------
 * Stages: 1 abort(x, 0) and recvmsg(x); 2 a second abort(x, 0); 3 the
 * server answers x's request, then a new RPC's: the new response arrives,
 * the old one is dropped (drop_unknown_rpc, printed).
 */
FIXTURE(abort_error0) {
	uint16_t port;
	struct node srv, cli;
	uint64_t x, y;
	int err, err2, e1, e2;
	long r, r_late;
	bool y_ok;
};

FIXTURE_VARIANT(abort_error0) {
	int family;
};

HOMA_FAMILY_VARIANTS(abort_error0);

FIXTURE_SETUP(abort_error0)
{
	self->port = port_base(variant->family) + 2;
	node_init(&self->srv, variant->family);
	node_init(&self->cli, variant->family);
	ASSERT_ERRNO(0, node_open(&self->srv, variant->family, self->port));
	ASSERT_ERRNO(0, node_open(&self->cli, variant->family, 0));
	ASSERT_ERRNO(0, node_send(&self->cli, self->port, 201, &self->x));
}

FIXTURE_TEARDOWN(abort_error0)
{
	node_close(&self->cli);
	node_close(&self->srv);
}

static void error0_run(struct __test_metadata *_metadata,
		       FIXTURE_DATA(abort_error0) *self, int last)
{
	long long drops0, drops1;

	self->err = homa_abort(self->cli.ep.fd, self->x, 0);
	self->r = node_poll_id(&self->cli, self->x);
	TH_LOG("HOMAIOCABORT(id %llu, 0): %s; recvmsg(id): %s",
	       (unsigned long long)self->x, errno_name(self->err),
	       errno_name((int)self->r));
	if (last == 1)
		return;

	self->err2 = homa_abort(self->cli.ep.fd, self->x, 0);
	TH_LOG("second HOMAIOCABORT(id, 0): %s", errno_name(self->err2));
	if (last == 2)
		return;

	drops0 = homa_metric("drop_unknown_rpc");
	self->e1 = node_answer(&self->srv, 201, 5000);
	self->e2 = node_send(&self->cli, self->port, 202, &self->y);
	if (!self->e2)
		self->e2 = node_answer(&self->srv, 202, 5000);
	self->y_ok = !self->e2 &&
		     node_response_ok(_metadata, &self->cli, self->y, 202,
				      self->port, 5000, "next RPC");
	self->r_late = homa_receive_within(self->cli.ep.fd, &self->cli.rx,
					   HOMA_RECVMSG_RESPONSE, 0, 300);
	drops1 = homa_metric("drop_unknown_rpc");
	TH_LOG("response to the freed RPC sent: %s; next RPC: %s; then recvmsg(RESPONSE) within 300 ms: %s (id %llu); drop_unknown_rpc %lld -> %lld",
	       errno_name(self->e1), self->y_ok ? "ok" : "failed",
	       errno_name((int)self->r_late),
	       (unsigned long long)self->cli.rx.ctl.id, drops0, drops1);
}

TEST_F_TIMEOUT(abort_error0, recvmsg_einval, ABORT_TIMEOUT)
{
	error0_run(_metadata, self, 1);
	EXPECT_ERRNO(0, self->err);
	EXPECT_ERRNO(EINVAL, (int)self->r);
}

TEST_F_TIMEOUT(abort_error0, second_abort_einval, ABORT_TIMEOUT)
{
	error0_run(_metadata, self, 2);
	EXPECT_ERRNO(0, self->err);
	EXPECT_ERRNO(EINVAL, self->err2);
}

TEST_F_TIMEOUT(abort_error0, late_response_not_delivered, ABORT_TIMEOUT)
{
	error0_run(_metadata, self, 3);
	EXPECT_ERRNO(0, self->e1);
	EXPECT_TRUE(self->y_ok);
	EXPECT_ERRNO(EAGAIN, (int)self->r_late);
}

/*
 * --- 3. abort(id, 0) wakes the waiter of that id ---------------------
 * Two recvmsg wait, for x and for y. Stages: 1 abort(x, 0); 2 200 ms
 * later the waiter for y sleeps again (one wait queue, so it was woken
 * too); 3 the server answers y; 4 a new RPC z, a recvmsg waiting for it,
 * then abort(0, 0) (every client RPC of the socket).
 */
FIXTURE(abort_error0_wakes) {
	uint16_t port;
	struct node srv, cli;
	struct waiter wx, wy, wz;
	uint64_t x, y, z;
	bool bx, by, bz, woke_x, still, woke_y, y_ok, woke_z;
	int err_x, err_y, err_z;
};

FIXTURE_VARIANT(abort_error0_wakes) {
	int family;
};

HOMA_FAMILY_VARIANTS(abort_error0_wakes);

FIXTURE_SETUP(abort_error0_wakes)
{
	self->port = port_base(variant->family) + 3;
	node_init(&self->srv, variant->family);
	node_init(&self->cli, variant->family);
	ASSERT_ERRNO(0, node_open(&self->srv, variant->family, self->port));
	ASSERT_ERRNO(0, node_open(&self->cli, variant->family, 0));
	ASSERT_ERRNO(0, node_send(&self->cli, self->port, 301, &self->x));
	ASSERT_ERRNO(0, node_send(&self->cli, self->port, 302, &self->y));
	ASSERT_ERRNO(0, waiter_start(&self->wx, self->cli.ep.fd, self->x));
	ASSERT_ERRNO(0, waiter_start(&self->wy, self->cli.ep.fd, self->y));
}

FIXTURE_TEARDOWN(abort_error0_wakes)
{
	waiter_finish(&self->wx);
	waiter_finish(&self->wy);
	waiter_finish(&self->wz);
	node_close(&self->cli);
	node_close(&self->srv);
}

static void error0_wakes_run(struct __test_metadata *_metadata,
			     FIXTURE_DATA(abort_error0_wakes) *self,
			     int last)
{
	long long t0;
	char s[128];
	int err;

	self->bx = waiter_blocked(&self->wx, 3000);
	self->by = waiter_blocked(&self->wy, 3000);
	t0 = now_ms();
	self->err_x = homa_abort(self->cli.ep.fd, self->x, 0);
	self->woke_x = waiter_wait(&self->wx, 2000);
	TH_LOG("waiters blocked %d %d; HOMAIOCABORT(id %llu, 0): %s; its recvmsg: %s",
	       self->bx, self->by, (unsigned long long)self->x,
	       errno_name(self->err_x),
	       waiter_str(&self->wx, t0, s, sizeof(s)));
	if (last == 1)
		return;

	usleep(200 * 1000);
	self->still = waiter_blocked(&self->wy, 1000);
	TH_LOG("waiter for id %llu 200 ms later: %s",
	       (unsigned long long)self->y, self->still ?
	       "asleep in recvmsg" : waiter_str(&self->wy, t0, s, sizeof(s)));
	if (last == 2)
		return;

	self->err_y = node_answer(&self->srv, 302, 5000);
	t0 = now_ms();
	self->woke_y = !self->err_y && waiter_wait(&self->wy, 5000);
	TH_LOG("server answered id %llu: %s; waiter: %s",
	       (unsigned long long)self->y, errno_name(self->err_y),
	       self->woke_y ? waiter_str(&self->wy, t0, s, sizeof(s)) :
	       "still blocked");
	self->y_ok = self->woke_y &&
		     response_ok(_metadata, self->cli.family,
				 &self->cli.ep.region, &self->wy.rx,
				 self->wy.result, self->y, 302, self->port,
				 "other waiter");
	if (last == 3)
		return;

	/* id 0: every client RPC of the socket. */
	err = node_send(&self->cli, self->port, 303, &self->z);
	if (!err)
		err = waiter_start(&self->wz, self->cli.ep.fd, self->z);
	self->bz = !err && waiter_blocked(&self->wz, 3000);
	t0 = now_ms();
	if (!err)
		err = homa_abort(self->cli.ep.fd, 0, 0);
	self->err_z = err;
	self->woke_z = self->bz && waiter_wait(&self->wz, 2000);
	TH_LOG("recvmsg(id %llu) blocked %d; HOMAIOCABORT(0, 0): %s; recvmsg: %s",
	       (unsigned long long)self->z, self->bz, errno_name(err),
	       waiter_str(&self->wz, t0, s, sizeof(s)));
}

TEST_F_TIMEOUT(abort_error0_wakes, id_wakes_its_waiter_einval,
	       ABORT_TIMEOUT)
{
	error0_wakes_run(_metadata, self, 1);
	EXPECT_TRUE(self->bx);
	EXPECT_ERRNO(0, self->err_x);
	EXPECT_TRUE(self->woke_x);
	EXPECT_TRUE(self->woke_x && self->wx.result == -EINVAL);
}

TEST_F_TIMEOUT(abort_error0_wakes, id_other_waiter_still_blocked,
	       ABORT_TIMEOUT)
{
	error0_wakes_run(_metadata, self, 2);
	EXPECT_TRUE(self->by);
	EXPECT_TRUE(self->still);
}

TEST_F_TIMEOUT(abort_error0_wakes, id_other_waiter_gets_response,
	       ABORT_TIMEOUT)
{
	error0_wakes_run(_metadata, self, 3);
	EXPECT_TRUE(self->woke_y);
	EXPECT_TRUE(self->y_ok);
}

TEST_F_TIMEOUT(abort_error0_wakes, all_wakes_waiter_einval, ABORT_TIMEOUT)
{
	error0_wakes_run(_metadata, self, 4);
	EXPECT_TRUE(self->bz);
	EXPECT_ERRNO(0, self->err_z);
	EXPECT_TRUE(self->woke_z);
	EXPECT_TRUE(self->woke_z && self->wz.result == -EINVAL);
}

/*
 * --- 4. abort(0, EIO): all client RPCs, no server RPC ----------------
 * The aborting socket is a server too, on its own port, with one request
 * in service and one queued. Stages: 1 abort(0, EIO) with five client RPCs
 * outstanding and a recvmsg blocked on the first; 2 its server RPCs are
 * answered; 3 the server takes a request from a new client and answers
 * it.
 */
FIXTURE(abort_all_eio) {
	uint16_t port, cport;
	struct node srv, cli, d, e;
	struct waiter w;
	uint64_t id[5], did[2], eid;
	bool blocked, ok_served, ok_new;
	int err, n_eio, err_served, err_new;
};

FIXTURE_VARIANT(abort_all_eio) {
	int family;
};

HOMA_FAMILY_VARIANTS(abort_all_eio);

FIXTURE_SETUP(abort_all_eio)
{
	int family = variant->family;
	struct pollfd pfd;
	int i;

	self->port = port_base(family) + 4;
	self->cport = port_base(family) + 14;
	node_init(&self->srv, family);
	node_init(&self->cli, family);
	node_init(&self->d, family);
	node_init(&self->e, family);
	ASSERT_ERRNO(0, node_open(&self->srv, family, self->port));
	ASSERT_ERRNO(0, node_open(&self->cli, family, self->cport));
	ASSERT_ERRNO(0, node_open(&self->d, family, 0));
	for (i = 0; i < 5; i++)
		ASSERT_ERRNO(0, node_send(&self->cli, self->port, 401 + i,
					  &self->id[i]));
	/* One request to it in service, one queued (POLLIN, as no response
	 * can be ready yet).
	 */
	ASSERT_ERRNO(0, node_send(&self->d, self->cport, 411, &self->did[0]));
	ASSERT_ERRNO(0, node_take(&self->cli, 411, 5000));
	ASSERT_ERRNO(0, node_send(&self->d, self->cport, 412, &self->did[1]));
	pfd.fd = self->cli.ep.fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	ASSERT_EQ(1, poll(&pfd, 1, 3000)) TH_LOG("queued request not seen");
	ASSERT_ERRNO(0, waiter_start(&self->w, self->cli.ep.fd, self->id[0]));
}

FIXTURE_TEARDOWN(abort_all_eio)
{
	waiter_finish(&self->w);
	node_close(&self->e);
	node_close(&self->d);
	node_close(&self->cli);
	node_close(&self->srv);
}

static void all_eio_run(struct __test_metadata *_metadata,
			FIXTURE_DATA(abort_all_eio) *self, int last)
{
	struct node *cli = &self->cli;
	long long t0;
	char s[128];
	ssize_t r;
	int i, err;
	bool ok;

	self->blocked = waiter_blocked(&self->w, 3000);
	t0 = now_ms();
	self->err = homa_abort(cli->ep.fd, 0, EIO);
	waiter_wait(&self->w, 2000);
	self->n_eio = error_ok(&self->w.rx, self->w.result, self->id[0], 401,
			       EIO);
	TH_LOG("HOMAIOCABORT(0, EIO): %s; recvmsg(id %llu) blocked %d: %s",
	       errno_name(self->err), (unsigned long long)self->id[0],
	       self->blocked, waiter_str(&self->w, t0, s, sizeof(s)));
	for (i = 1; i < 5; i++) {
		r = homa_receive_within(cli->ep.fd, &cli->rx, 0, self->id[i],
					2000);
		if (error_ok(&cli->rx, r, self->id[i], 401 + i, EIO)) {
			self->n_eio++;
			continue;
		}
		TH_LOG("recvmsg(id %llu): %s, id %llu, cookie %llu",
		       (unsigned long long)self->id[i], errno_name((int)r),
		       (unsigned long long)cli->rx.ctl.id,
		       (unsigned long long)cli->rx.ctl.completion_cookie);
	}
	TH_LOG("%d of 5 recvmsg gave EIO with their id and cookie",
	       self->n_eio);
	if (last == 1)
		return;

	/* Its server RPCs: the queued request is still there, both are
	 * answered and their client gets the responses.
	 */
	i = node_take(cli, 412, 2000);
	err = i < 0 ? i : node_answer(cli, 411, 2000);
	if (!err)
		err = node_answer(cli, 412, 2000);
	self->err_served = err;
	TH_LOG("queued request received and both answered: %s",
	       errno_name(err));
	ok = !err && node_response_ok(_metadata, &self->d, self->did[0], 411,
				      self->cport, 5000, "in service");
	ok = !err && node_response_ok(_metadata, &self->d, self->did[1], 412,
				      self->cport, 5000, "queued") && ok;
	self->ok_served = ok;
	if (last == 2)
		return;

	/* The server takes a request from a new client and answers it. */
	err = node_open(&self->e, cli->family, 0);
	if (!err)
		err = node_send(&self->e, self->port, 421, &self->eid);
	if (!err)
		err = node_answer(&self->srv, 421, 5000);
	self->err_new = err;
	TH_LOG("new client's request answered: %s", errno_name(err));
	self->ok_new = !err && node_response_ok(_metadata, &self->e,
						self->eid, 421, self->port,
						5000, "new client");
}

TEST_F_TIMEOUT(abort_all_eio, each_of_five_gets_eio, ABORT_TIMEOUT)
{
	all_eio_run(_metadata, self, 1);
	EXPECT_ERRNO(0, self->err);
	EXPECT_TRUE(self->blocked);
	EXPECT_EQ(5, self->n_eio);
}

TEST_F_TIMEOUT(abort_all_eio, leaves_own_server_rpcs, ABORT_TIMEOUT)
{
	all_eio_run(_metadata, self, 2);
	EXPECT_ERRNO(0, self->err_served);
	EXPECT_TRUE(self->ok_served);
}

TEST_F_TIMEOUT(abort_all_eio, server_serves_new_client, ABORT_TIMEOUT)
{
	all_eio_run(_metadata, self, 3);
	EXPECT_ERRNO(0, self->err_new);
	EXPECT_TRUE(self->ok_new);
}

/*
 * --- 5. ids that are not client RPCs of the socket -------------------
 * Sockets a and b each have a client RPC (a1, b1) the server holds.
 * Stages: abort(ECANCELED) of 1 an id not issued yet, 2 an odd id (a1 ^ 1:
 * the server's id of a1) on a, 3 the server RPC's id on the server
 * socket, 4 b1 on a; 5 both RPCs are still outstanding and complete.
 */
FIXTURE(abort_foreign_ids) {
	uint16_t port;
	struct node srv, a, b;
	uint64_t a1, b1, never, sid;
	int err[4], e1, e2;
	long ra, rb;
	bool ok;
};

FIXTURE_VARIANT(abort_foreign_ids) {
	int family;
};

HOMA_FAMILY_VARIANTS(abort_foreign_ids);

FIXTURE_SETUP(abort_foreign_ids)
{
	int family = variant->family;
	int ia, ib;

	self->port = port_base(family) + 5;
	node_init(&self->srv, family);
	node_init(&self->a, family);
	node_init(&self->b, family);
	ASSERT_ERRNO(0, node_open(&self->srv, family, self->port));
	ASSERT_ERRNO(0, node_open(&self->a, family, 0));
	ASSERT_ERRNO(0, node_open(&self->b, family, 0));
	ASSERT_ERRNO(0, node_send(&self->a, self->port, 501, &self->a1));
	ASSERT_ERRNO(0, node_send(&self->b, self->port, 502, &self->b1));
	ia = node_take(&self->srv, 501, 5000);
	ASSERT_ERRNO(0, ia);
	ib = node_take(&self->srv, 502, 5000);
	ASSERT_ERRNO(0, ib);
	self->sid = self->srv.held[ia].id;
	/* Ids step by 2 from a random start: a1 + 2000 is not issued yet. */
	self->never = self->a1 + 2000;
	if (self->never == 0)
		self->never += 2000;
	TH_LOG("client ids %llu and %llu (other socket); server RPC id %llu",
	       (unsigned long long)self->a1, (unsigned long long)self->b1,
	       (unsigned long long)self->sid);
}

FIXTURE_TEARDOWN(abort_foreign_ids)
{
	node_close(&self->b);
	node_close(&self->a);
	node_close(&self->srv);
}

static void foreign_ids_run(struct __test_metadata *_metadata,
			    FIXTURE_DATA(abort_foreign_ids) *self, int last)
{
	int *err = self->err;

	err[0] = homa_abort(self->a.ep.fd, self->never, ECANCELED);
	TH_LOG("HOMAIOCABORT(%llu, ECANCELED): %s",
	       (unsigned long long)self->never, errno_name(err[0]));
	if (last == 1)
		return;

	err[1] = homa_abort(self->a.ep.fd, self->a1 ^ 1, ECANCELED);
	TH_LOG("HOMAIOCABORT(%llu, ECANCELED): %s",
	       (unsigned long long)(self->a1 ^ 1), errno_name(err[1]));
	if (last == 2)
		return;

	err[2] = homa_abort(self->srv.ep.fd, self->sid, ECANCELED);
	TH_LOG("server socket: HOMAIOCABORT(%llu (%s), ECANCELED): %s",
	       (unsigned long long)self->sid, self->sid & 1 ? "odd" : "even",
	       errno_name(err[2]));
	if (last == 3)
		return;

	err[3] = homa_abort(self->a.ep.fd, self->b1, ECANCELED);
	TH_LOG("HOMAIOCABORT(other socket's %llu, ECANCELED): %s",
	       (unsigned long long)self->b1, errno_name(err[3]));
	if (last == 4)
		return;

	self->ra = node_poll_id(&self->a, self->a1);
	self->rb = node_poll_id(&self->b, self->b1);
	self->e1 = node_answer(&self->srv, 501, 2000);
	self->e2 = node_answer(&self->srv, 502, 2000);
	TH_LOG("then: recvmsg MSG_DONTWAIT %s, %s; server answers %s, %s",
	       errno_name((int)self->ra), errno_name((int)self->rb),
	       errno_name(self->e1), errno_name(self->e2));
	self->ok = node_response_ok(_metadata, &self->a, self->a1, 501,
				    self->port, 5000, "own RPC");
	self->ok = node_response_ok(_metadata, &self->b, self->b1, 502,
				    self->port, 5000, "other socket's RPC") &&
		   self->ok;
}

TEST_F_TIMEOUT(abort_foreign_ids, never_issued_id_einval, ABORT_TIMEOUT)
{
	foreign_ids_run(_metadata, self, 1);
	EXPECT_ERRNO(EINVAL, self->err[0]);
}

TEST_F_TIMEOUT(abort_foreign_ids, odd_id_on_client_einval, ABORT_TIMEOUT)
{
	foreign_ids_run(_metadata, self, 2);
	EXPECT_ERRNO(EINVAL, self->err[1]);
}

TEST_F_TIMEOUT(abort_foreign_ids, server_rpc_id_on_server_einval,
	       ABORT_TIMEOUT)
{
	foreign_ids_run(_metadata, self, 3);
	EXPECT_ERRNO(EINVAL, self->err[2]);
}

TEST_F_TIMEOUT(abort_foreign_ids, other_sockets_id_einval, ABORT_TIMEOUT)
{
	foreign_ids_run(_metadata, self, 4);
	EXPECT_ERRNO(EINVAL, self->err[3]);
}

TEST_F_TIMEOUT(abort_foreign_ids, change_nothing, ABORT_TIMEOUT)
{
	foreign_ids_run(_metadata, self, 5);
	EXPECT_EQ(-EAGAIN, self->ra);
	EXPECT_EQ(-EAGAIN, self->rb);
	EXPECT_ERRNO(0, self->e1);
	EXPECT_ERRNO(0, self->e2);
	EXPECT_TRUE(self->ok);
}

/*
 * --- 6. bad arguments ------------------------------------------------
 * Two RPCs outstanding, id1 and id2, and two pages of which the second is
 * unmapped. Stages 1-5: each of bad_args[] names id1 (EINVAL); 6 the argument
 * at the unmapped page's start, 7 one whose id and error lie in the
 * mapped page and the rest in the unmapped one (EFAULT); 8 id1 is still
 * outstanding and gets its response; 9 abort(id2, MAX_ERRNO).
 */
static const struct {
	const char *what;
	int error, pad1;
	uint64_t pad2_0, pad2_1;
} bad_args[] = {
	{ "error -1", -1, 0, 0, 0 },
	{ "error 4096", MAX_ERRNO + 1, 0, 0, 0 },
	{ "_pad1 1", ECANCELED, 1, 0, 0 },
	{ "_pad2[0] 1", ECANCELED, 0, 1, 0 },
	{ "_pad2[1] 1", ECANCELED, 0, 0, 1 },
};

#define NUM_BAD ((int)ARRAY_SIZE(bad_args))

FIXTURE(abort_bad_args) {
	uint16_t port;
	struct node srv, a;
	uint64_t id1, id2;
	uint8_t *map;
	size_t page;
	int err_bad[NUM_BAD], err_unmapped, err_crossing, err_answer;
	int err_max;
	long r1;
	ssize_t r_max;
	bool ok;
};

FIXTURE_VARIANT(abort_bad_args) {
	int family;
};

HOMA_FAMILY_VARIANTS(abort_bad_args);

FIXTURE_SETUP(abort_bad_args)
{
	long page = sysconf(_SC_PAGESIZE);

	self->map = MAP_FAILED;
	self->port = port_base(variant->family) + 6;
	node_init(&self->srv, variant->family);
	node_init(&self->a, variant->family);
	ASSERT_ERRNO(0, node_open(&self->srv, variant->family, self->port));
	ASSERT_ERRNO(0, node_open(&self->a, variant->family, 0));
	ASSERT_ERRNO(0, node_send(&self->a, self->port, 601, &self->id1));
	ASSERT_ERRNO(0, node_send(&self->a, self->port, 602, &self->id2));
	ASSERT_GT(page, 0);
	self->page = (size_t)page;
	self->map = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->map) TH_LOG("mmap: %s", strerror(errno));
	ASSERT_ERRNO(0, sys_err(munmap(self->map + self->page, self->page)));
}

FIXTURE_TEARDOWN(abort_bad_args)
{
	if (self->map != MAP_FAILED)
		munmap(self->map, self->page);
	node_close(&self->a);
	node_close(&self->srv);
}

static void bad_args_run(struct __test_metadata *_metadata,
			 FIXTURE_DATA(abort_bad_args) *self, int last)
{
	struct homa_abort_args args;
	uint8_t *end = self->map + self->page;
	int i;

	for (i = 0; i < NUM_BAD; i++) {
		memset(&args, 0, sizeof(args));
		args.id = self->id1;
		args.error = bad_args[i].error;
		args._pad1 = bad_args[i].pad1;
		args._pad2[0] = bad_args[i].pad2_0;
		args._pad2[1] = bad_args[i].pad2_1;
		self->err_bad[i] = abort_raw(self->a.ep.fd, &args);
		TH_LOG("HOMAIOCABORT(id, %s): %s", bad_args[i].what,
		       errno_name(self->err_bad[i]));
		if (last == i + 1)
			return;
	}

	self->err_unmapped = abort_raw(self->a.ep.fd, end);
	TH_LOG("HOMAIOCABORT(unmapped %p): %s", (void *)end,
	       errno_name(self->err_unmapped));
	if (last == 6)
		return;

	memset(&args, 0, sizeof(args));
	args.id = self->id1;
	args.error = ECANCELED;
	memcpy(end - 16, &args, 16);
	self->err_crossing = abort_raw(self->a.ep.fd, end - 16);
	TH_LOG("HOMAIOCABORT(%p: id and error mapped, the rest not): %s",
	       (void *)(end - 16), errno_name(self->err_crossing));
	if (last == 7)
		return;

	self->r1 = node_poll_id(&self->a, self->id1);
	self->err_answer = node_answer(&self->srv, 601, 5000);
	TH_LOG("after them: recvmsg(id1) MSG_DONTWAIT %s; answered: %s",
	       errno_name((int)self->r1), errno_name(self->err_answer));
	self->ok = !self->err_answer &&
		   node_response_ok(_metadata, &self->a, self->id1, 601,
				    self->port, 5000, "id1");
	if (last == 8)
		return;

	/* MAX_ERRNO is the largest error accepted, and recvmsg reports it. */
	self->err_max = homa_abort(self->a.ep.fd, self->id2, MAX_ERRNO);
	self->r_max = homa_receive_within(self->a.ep.fd, &self->a.rx, 0,
					  self->id2, 2000);
	TH_LOG("HOMAIOCABORT(id2, %d): %s; recvmsg: %zd (errno %ld), id %llu",
	       MAX_ERRNO, errno_name(self->err_max),
	       self->r_max < 0 ? (ssize_t)-1 : self->r_max,
	       self->r_max < 0 ? (long)-self->r_max : 0L,
	       (unsigned long long)self->a.rx.ctl.id);
}

TEST_F_TIMEOUT(abort_bad_args, error_negative_einval, ABORT_TIMEOUT)
{
	bad_args_run(_metadata, self, 1);
	EXPECT_ERRNO(EINVAL, self->err_bad[0]);
}

TEST_F_TIMEOUT(abort_bad_args, error_4096_einval, ABORT_TIMEOUT)
{
	bad_args_run(_metadata, self, 2);
	EXPECT_ERRNO(EINVAL, self->err_bad[1]);
}

TEST_F_TIMEOUT(abort_bad_args, pad1_einval, ABORT_TIMEOUT)
{
	bad_args_run(_metadata, self, 3);
	EXPECT_ERRNO(EINVAL, self->err_bad[2]);
}

TEST_F_TIMEOUT(abort_bad_args, pad2_0_einval, ABORT_TIMEOUT)
{
	bad_args_run(_metadata, self, 4);
	EXPECT_ERRNO(EINVAL, self->err_bad[3]);
}

TEST_F_TIMEOUT(abort_bad_args, pad2_1_einval, ABORT_TIMEOUT)
{
	bad_args_run(_metadata, self, 5);
	EXPECT_ERRNO(EINVAL, self->err_bad[4]);
}

TEST_F_TIMEOUT(abort_bad_args, unmapped_pointer_efault, ABORT_TIMEOUT)
{
	bad_args_run(_metadata, self, 6);
	EXPECT_ERRNO(EFAULT, self->err_unmapped);
}

TEST_F_TIMEOUT(abort_bad_args, args_crossing_into_unmapped_page_efault,
	       ABORT_TIMEOUT)
{
	bad_args_run(_metadata, self, 7);
	EXPECT_ERRNO(EFAULT, self->err_crossing);
}

TEST_F_TIMEOUT(abort_bad_args, change_nothing, ABORT_TIMEOUT)
{
	bad_args_run(_metadata, self, 8);
	EXPECT_EQ(-EAGAIN, self->r1);
	EXPECT_TRUE(self->ok);
}

TEST_F_TIMEOUT(abort_bad_args, error_4095_accepted, ABORT_TIMEOUT)
{
	bad_args_run(_metadata, self, 9);
	EXPECT_ERRNO(0, self->err_max);
	EXPECT_TRUE(error_ok(&self->a.rx, self->r_max, self->id2, 602,
			     MAX_ERRNO));
}

/*
 * --- 7. the ioctl on a UDP socket ------------------------------------
 * Stages: 1 HOMAIOCABORT on a UDP socket, naming a Homa RPC (the errno
 * is printed); 2 the Homa RPC is still outstanding and gets its
 * response.
 */
FIXTURE(abort_on_udp_socket) {
	uint16_t port;
	struct node srv, a;
	uint64_t id1;
	int udp, rc, uerr, err;
	long r1;
	bool ok;
};

FIXTURE_VARIANT(abort_on_udp_socket) {
	int family;
};

HOMA_FAMILY_VARIANTS(abort_on_udp_socket);

FIXTURE_SETUP(abort_on_udp_socket)
{
	self->udp = -1;
	self->port = port_base(variant->family) + 7;
	node_init(&self->srv, variant->family);
	node_init(&self->a, variant->family);
	ASSERT_ERRNO(0, node_open(&self->srv, variant->family, self->port));
	ASSERT_ERRNO(0, node_open(&self->a, variant->family, 0));
	ASSERT_ERRNO(0, node_send(&self->a, self->port, 701, &self->id1));
	self->udp = socket(variant->family, SOCK_DGRAM, IPPROTO_UDP);
	ASSERT_ERRNO(0, sys_err(self->udp));
}

FIXTURE_TEARDOWN(abort_on_udp_socket)
{
	if (self->udp >= 0)
		close(self->udp);
	node_close(&self->a);
	node_close(&self->srv);
}

static void on_udp_run(struct __test_metadata *_metadata,
		       FIXTURE_DATA(abort_on_udp_socket) *self, int last)
{
	struct homa_abort_args args;

	memset(&args, 0, sizeof(args));
	args.id = self->id1;
	args.error = ECANCELED;
	self->rc = ioctl(self->udp, HOMAIOCABORT, &args);
	self->uerr = self->rc < 0 ? errno : 0;
	TH_LOG("ioctl(UDP socket, HOMAIOCABORT, Homa RPC %llu) = %d, errno %s (%d)",
	       (unsigned long long)self->id1, self->rc,
	       errno_name(self->uerr), self->uerr);
	if (last == 1)
		return;

	self->r1 = node_poll_id(&self->a, self->id1);
	self->err = node_answer(&self->srv, 701, 5000);
	TH_LOG("Homa RPC: recvmsg MSG_DONTWAIT %s; answered: %s",
	       errno_name((int)self->r1), errno_name(self->err));
	self->ok = !self->err &&
		   node_response_ok(_metadata, &self->a, self->id1, 701,
				    self->port, 5000, "Homa RPC");
}

TEST_F_TIMEOUT(abort_on_udp_socket, fails, ABORT_TIMEOUT)
{
	on_udp_run(_metadata, self, 1);
	EXPECT_EQ(-1, self->rc);
	EXPECT_NE(0, self->uerr);
}

TEST_F_TIMEOUT(abort_on_udp_socket, homa_rpc_unaffected, ABORT_TIMEOUT)
{
	on_udp_run(_metadata, self, 2);
	EXPECT_EQ(-EAGAIN, self->r1);
	EXPECT_ERRNO(0, self->err);
	EXPECT_TRUE(self->ok);
}

TEST_HARNESS_MAIN
