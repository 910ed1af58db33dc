// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_safety - memory safety of the buffer pool against an
 * unprivileged user (issue 10, items 1 and 2, and the bpages of a
 * recvmsg whose control copy-out faults):
 *
 * - bpage: recvmsg returns only bpage pieces the caller holds. A
 *   duplicate in one call, an offset returned twice, one never handed
 *   out (a free bpage, or a slot inside a held bpage), an unaligned one
 *   and one outside the region are refused with EINVAL before anything
 *   changes: the caller still holds what it held, and the pool still
 *   has exactly its bpages (a message as large as the pool arrives and
 *   a further one waits until it is returned). The "dup_then_small"
 *   tests are the sequence that wrote before the refs array of the pool
 *   (KASAN: slab-out-of-bounds in homa_pool_allocate).
 * - rcvbuf: SO_HOMA_RCVBUF refuses regions longer than
 *   HOMA_MAX_REGION_LENGTH (1 TiB, 4 GiB + 128 KiB, the limit plus one
 *   bpage) with EINVAL, accepts one of exactly the limit, and the
 *   socket keeps working.
 * - control: a recvmsg whose final copy of the control struct faults
 *   returns EFAULT, and the bpages of the message it consumed go back
 *   to the pool.
 *
 * Each of those is a fixture, run over IPv4 and IPv6 (variants ipv4 and
 * ipv6), on a fresh server socket and client per test. A test replays
 * its fixture's sequence up to the step it checks: the steps before it
 * run as they always ran, unchecked.
 *
 * The program drops to uid/gid 65534 before any test runs (unless
 * --uid 0), so every test runs as an unprivileged user; runs_unprivileged
 * says whether that worked, and if it did not every other test fails in
 * its setup instead of running privileged.
 *
 * Usage: homa_test_safety [--uid N] [-- HARNESS-OPTIONS]
 *   e.g. homa_test_safety -- -f bpage   (one fixture, both families)
 *        homa_test_safety -- -V ipv6    (no IPv6 variants)
 * (the harness's include filters add up: -f bpage -v ipv4 selects bpage's
 * tests and every ipv4 test.)
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "harness.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "payload.h"

#ifndef HOMA_MAX_REGION_LENGTH
#define HOMA_MAX_REGION_LENGTH	(1ULL << 30)
#endif

#define SERVER_PORT	3201
#define POOL_BPAGES	2
#define WAIT_MS		5000
#define QUIET_MS	300
#define CLIENT_BPAGES	8
#define MAX_LEN		(POOL_BPAGES * HOMA_BPAGE_SIZE)

/* What the options said and what main() made of it: tests read it. */
static struct {
	int uid;		/* --uid */
	int drop_err;		/* 0, or -errno of dropping to it */
} cfg = { .uid = 65534 };

/* The server socket of one test and the client that talks to it. */
struct pair {
	struct homa_ep srv;
	struct homa_ep cli;
	union homa_addr srv_addr;
	struct homa_rx cli_rx;	/* the client's receive state */
	int sent;		/* requests sent */
	int answered;		/* responses the client received */
};

static uint8_t buf[MAX_LEN];	/* a request's payload */
static uint64_t next_seed = 1000;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int pair_open(struct pair *p, int family, uint16_t port)
{
	int err;

	memset(p, 0, sizeof(*p));
	p->cli.fd = -1;
	err = homa_ep_open(&p->srv, family, port, POOL_BPAGES);
	if (err)
		return err;
	err = homa_ep_open(&p->cli, family, 0, CLIENT_BPAGES);
	if (err) {
		homa_ep_close(&p->srv);
		return err;
	}
	homa_addr_loopback(&p->srv_addr, family, port);
	homa_rx_init(&p->cli_rx);
	return 0;
}

static void pair_close(struct pair *p)
{
	homa_ep_close(&p->cli);
	homa_ep_close(&p->srv);
}

/* Sends a request of @len patterned bytes; its seed goes to @seed. */
static int send_req(struct pair *p, size_t len, uint64_t *seed)
{
	uint64_t id;
	int err;

	*seed = next_seed++;
	payload_fill(buf, len, *seed, 0);
	err = homa_send_request_buf(p->cli.fd, &p->srv_addr, buf, len, *seed,
				    &id);
	if (!err)
		p->sent++;
	return err;
}

/*
 * Receives a request on the server within @ms, keeping its bpages (the
 * caller returns them). Returns the length or -errno (-EAGAIN: none).
 */
static ssize_t srv_recv(struct pair *p, struct homa_rx *rx, int ms)
{
	long long end = now_ms() + ms;
	ssize_t n;

	for (;;) {
		homa_rx_init(rx);
		n = homa_receive(p->srv.fd, rx, HOMA_RECVMSG_REQUEST, 0,
				 MSG_DONTWAIT);
		rx->ret_count = 0;
		if (n != -EAGAIN || now_ms() >= end)
			return n;
		usleep(5000);
	}
}

/* Checks that @rx is request @seed of @len bytes, laid out in the region. */
static const char *check_msg(struct pair *p, const struct homa_rx *rx,
			     ssize_t len, uint64_t seed)
{
	struct iovec iov[HOMA_MAX_BPAGES];
	int n;

	if (rx->length != len)
		return "wrong length";
	n = homa_rx_iov(&p->srv.region, rx, iov);
	if (n < 0)
		return "bpages outside the region";
	if (payload_check_iov(iov, n, seed) >= 0)
		return "payload differs";
	return NULL;
}

/*
 * Returns @n offsets on the server socket without taking a message:
 * recvmsg for responses, which a server socket never has. Returns 0
 * when the kernel took them (recvmsg then says EAGAIN), else -errno.
 */
static int give_back(struct pair *p, const uint32_t *offsets, uint32_t n)
{
	struct homa_recvmsg_args ctl;
	struct msghdr msg;
	int r;

	memset(&ctl, 0, sizeof(ctl));
	memset(&msg, 0, sizeof(msg));
	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	ctl.num_bpages = n;
	memcpy(ctl.bpage_offsets, offsets, n * sizeof(*offsets));
	msg.msg_control = &ctl;
	msg.msg_controllen = sizeof(ctl);
	r = recvmsg(p->srv.fd, &msg, MSG_DONTWAIT) < 0 ? -errno : -EBADMSG;
	return r == -EAGAIN ? 0 : r;
}

static int give_back_rx(struct pair *p, const struct homa_rx *rx)
{
	return give_back(p, rx->ctl.bpage_offsets, rx->ctl.num_bpages);
}

/* Answers request @rx with one byte. */
static int answer(struct pair *p, const struct homa_rx *rx)
{
	uint8_t b = 0x5a;

	return homa_send_response_buf(p->srv.fd, &rx->src, rx->ctl.id, &b, 1);
}

/* The client collects every response still due, within WAIT_MS. */
static int collect(struct pair *p)
{
	long long end = now_ms() + WAIT_MS;
	ssize_t n;

	while (p->answered < p->sent) {
		n = homa_receive(p->cli.fd, &p->cli_rx, HOMA_RECVMSG_RESPONSE,
				 0, MSG_DONTWAIT);
		if (n == 1) {
			p->answered++;
			continue;
		}
		if (n != -EAGAIN)
			return n < 0 ? (int)n : -EBADMSG;
		if (now_ms() >= end)
			return -ETIMEDOUT;
		usleep(5000);
	}
	return 0;
}

/*
 * The pool of @p, of which the application holds nothing, has exactly
 * @nfree free bpages (POOL_BPAGES, or one less while the allocator keeps
 * a partial bpage): a message of @nfree bpages arrives in distinct
 * bpages; a further message waits while it is held and arrives once it
 * is returned; every RPC completes. Returns NULL or what failed.
 */
static const char *pool_intact(struct __test_metadata *_metadata,
			       struct pair *p, int nfree)
{
	struct homa_rx big, next;
	uint64_t s1, s2;
	const char *why;
	ssize_t n;

	if (send_req(p, (size_t)nfree * HOMA_BPAGE_SIZE, &s1))
		return "send of the large request failed";
	n = srv_recv(p, &big, WAIT_MS);
	if (n < 0) {
		TH_LOG("large request: %s", errno_name((int)n));
		return "the pool cannot hold a message as large as itself";
	}
	why = check_msg(p, &big, (ssize_t)nfree * HOMA_BPAGE_SIZE, s1);
	if (why)
		return why;
	if (big.ctl.num_bpages != (uint32_t)nfree ||
	    (nfree == 2 &&
	     big.ctl.bpage_offsets[0] == big.ctl.bpage_offsets[1]))
		return "the large message does not have distinct whole bpages";
	if (send_req(p, HOMA_BPAGE_SIZE, &s2))
		return "send of the second request failed";
	n = srv_recv(p, &next, QUIET_MS);
	if (n != -EAGAIN) {
		TH_LOG("second request while the pool is full: %s (%zd)",
		       errno_name(n < 0 ? (int)n : 0), n);
		return "a message got space in a full pool";
	}
	if (answer(p, &big) || give_back_rx(p, &big))
		return "answer or return of the large message failed";
	n = srv_recv(p, &next, WAIT_MS);
	if (n < 0) {
		TH_LOG("second request: %s", errno_name((int)n));
		return "the waiting message did not get the returned bpages";
	}
	why = check_msg(p, &next, HOMA_BPAGE_SIZE, s2);
	if (why)
		return why;
	if (answer(p, &next) || give_back_rx(p, &next))
		return "answer or return of the second message failed";
	if (collect(p))
		return "the client did not get every response";
	return NULL;
}

/* Whether returning @n offsets gives EINVAL; @what names the attempt. */
static bool refused(struct __test_metadata *_metadata, struct pair *p,
		    const uint32_t *offsets, uint32_t n, const char *what)
{
	int err = give_back(p, offsets, n);

	if (err != -EINVAL)
		TH_LOG("%s: %s, expected EINVAL", what, errno_name(err));
	return err == -EINVAL;
}

/*
 * Receives one request of one bpage and keeps it: the caller holds bpage
 * offset *@a. Returns 0 or -errno.
 */
static int hold_one(struct pair *p, struct homa_rx *rx, uint32_t *a)
{
	uint64_t seed;
	ssize_t n;
	int err;

	err = send_req(p, HOMA_BPAGE_SIZE, &seed);
	if (err)
		return err;
	n = srv_recv(p, rx, WAIT_MS);
	if (n < 0)
		return (int)n;
	if (check_msg(p, rx, HOMA_BPAGE_SIZE, seed) || rx->ctl.num_bpages != 1)
		return -EBADMSG;
	*a = rx->ctl.bpage_offsets[0];
	return 0;
}

/*
 * Two small requests packed into the partial bpage; the caller holds
 * both pieces. Returns 0 or -errno.
 */
static int hold_two_small(struct pair *p, struct homa_rx rx[2])
{
	uint64_t seed;
	ssize_t n;
	int i, err;

	for (i = 0; i < 2; i++) {
		err = send_req(p, 100, &seed);
		if (err)
			return err;
		n = srv_recv(p, &rx[i], WAIT_MS);
		if (n < 0)
			return (int)n;
		if (check_msg(p, &rx[i], 100, seed))
			return -EBADMSG;
	}
	if (rx[0].ctl.bpage_offsets[0] >> HOMA_BPAGE_SHIFT !=
	    rx[1].ctl.bpage_offsets[0] >> HOMA_BPAGE_SHIFT)
		return -EXDEV;
	return 0;
}

/* No test runs privileged: setups first check the drop to --uid. */
static int drop_privileges(int uid)
{
	if (uid == 0 || getuid() == (uid_t)uid)
		return 0;
	if (setgroups(0, NULL) || setgid((gid_t)uid) || setuid((uid_t)uid))
		return -errno;
	return getuid() == (uid_t)uid && geteuid() == (uid_t)uid ? 0 : -EPERM;
}

/* main() dropped to --uid (65534 unless --uid 0) before any test. */
TEST(runs_unprivileged)
{
	TH_LOG("uid %d, euid %d", (int)getuid(), (int)geteuid());
	EXPECT_ERRNO(0, cfg.drop_err);
}

/*
 * Bad bpage returns, on a pair whose server holds one request's bpage A
 * (the other bpage, b, is free): each is refused with EINVAL, A is still
 * held afterwards (unless the case returned it), and the pool is whole.
 */
FIXTURE(bpage) {
	struct pair p;
	struct homa_rx held;	/* the request in A */
	uint32_t a, b;
	int nfree;		/* free bpages the pool has at the end */
};

FIXTURE_VARIANT(bpage) {
	int family;
};

HOMA_FAMILY_VARIANTS(bpage);

FIXTURE_SETUP(bpage)
{
	ASSERT_ERRNO(0, cfg.drop_err) TH_LOG("not run privileged");
	ASSERT_ERRNO(0, pair_open(&self->p, variant->family, SERVER_PORT));
	ASSERT_ERRNO(0, hold_one(&self->p, &self->held, &self->a))
		TH_LOG("a one-bpage request held");
	self->b = self->a ^ HOMA_BPAGE_SIZE;
	self->nfree = POOL_BPAGES;
}

FIXTURE_TEARDOWN(bpage)
{
	pair_close(&self->p);
}

/*
 * The sequence of the review (L1): duplicates accepted drove a refcount
 * below zero, and a later partial bpage was taken at index -1. Step 1:
 * {A, A}.
 */
static bool dup_refused(struct __test_metadata *_metadata,
			FIXTURE_DATA(bpage) *self)
{
	uint32_t dup[2] = { self->a, self->a };

	return refused(_metadata, &self->p, dup, 2, "{A, A}");
}

TEST_F_TIMEOUT(bpage, dup_then_small_dup_einval, 60)
{
	EXPECT_TRUE(dup_refused(_metadata, self));
}

TEST_F_TIMEOUT(bpage, dup_then_small_messages_no_heap_write, 60)
{
	struct pair *p = &self->p;
	struct homa_rx small, tail;
	const char *why = NULL;
	uint64_t s2, s3;
	ssize_t n;

	dup_refused(_metadata, self);
	/*
	 * Every step runs whatever the previous ones gave: the write before
	 * the refs array happens when the 65472-byte request arrives.
	 */
	if (send_req(p, 100, &s2))
		why = "send of the 100-byte request failed";
	n = srv_recv(p, &small, WAIT_MS);
	if (!why && (n < 0 || check_msg(p, &small, 100, s2)))
		why = "the 100-byte request did not arrive intact";
	/* A new partial bpage is needed: the pool has none free. */
	if (send_req(p, HOMA_BPAGE_SIZE - 64, &s3) && !why)
		why = "send of the 65472-byte request failed";
	usleep(QUIET_MS * 1000);
	/* A is still held: returning it makes room for that request. */
	if ((answer(p, &self->held) || give_back(p, &self->a, 1)) && !why)
		why = "A could not be returned once after the refused call";
	n = srv_recv(p, &tail, WAIT_MS);
	if (!why && (n < 0 || check_msg(p, &tail, HOMA_BPAGE_SIZE - 64, s3)))
		why = "the 65472-byte request did not arrive intact";
	if (!why && (answer(p, &small) || answer(p, &tail) ||
		     give_back_rx(p, &small) || give_back_rx(p, &tail)))
		why = "answer or return failed";
	if (!why && collect(p))
		why = "the client did not get every response";
	EXPECT_EQ(NULL, why) TH_LOG("%s", why);
}

enum bad_kind { DUP, TWICE, NEVER, UNALIGNED, OUTSIDE };

/*
 * Step 1 of the other bpage tests: one kind of bad return; whether every
 * attempt of it was refused. "returned_twice" returns A (which the others
 * leave held) and then holds two pieces P1 and P2 of one partial bpage:
 * P1 returned twice must not release P2's share.
 */
static bool bad_return(struct __test_metadata *_metadata,
		       FIXTURE_DATA(bpage) *self, enum bad_kind kind)
{
	struct pair *p = &self->p;
	uint32_t a = self->a, b = self->b, o[2];
	struct homa_rx sm[2];
	bool ok = true;
	int err;

	switch (kind) {
	case DUP:
		o[0] = a;
		o[1] = a;
		ok = refused(_metadata, p, o, 2, "{A, A}");
		break;
	case TWICE:
		err = answer(p, &self->held);
		if (!err)
			err = give_back(p, &a, 1);
		if (err) {
			TH_LOG("first return of A: %s", errno_name(err));
			ok = false;
		}
		ok &= refused(_metadata, p, &a, 1, "A again");
		err = hold_two_small(p, sm);
		if (err) {
			TH_LOG("two small messages in one bpage: %s",
			       errno_name(err));
			ok = false;
			break;
		}
		/* The allocator keeps the partial bpage. */
		self->nfree = POOL_BPAGES - 1;
		err = give_back_rx(p, &sm[0]);
		if (err) {
			TH_LOG("first return of P1: %s", errno_name(err));
			ok = false;
		}
		ok &= refused(_metadata, p, sm[0].ctl.bpage_offsets, 1,
			      "P1 again");
		err = give_back_rx(p, &sm[1]);
		if (err) {
			TH_LOG("P2 no longer held: %s", errno_name(err));
			ok = false;
		}
		if (answer(p, &sm[0]) || answer(p, &sm[1]))
			ok = false;
		break;
	case NEVER:
		ok = refused(_metadata, p, &b, 1, "{free bpage}");
		o[0] = a + 64;
		ok &= refused(_metadata, p, o, 1, "{A + 64}");
		o[0] = a;
		o[1] = b;
		ok &= refused(_metadata, p, o, 2, "{A, free bpage}");
		break;
	case UNALIGNED:
		o[0] = a + 1;
		ok = refused(_metadata, p, o, 1, "{A + 1}");
		o[0] = a;
		o[1] = a + 8;
		ok &= refused(_metadata, p, o, 2, "{A, A + 8}");
		break;
	case OUTSIDE:
		o[0] = POOL_BPAGES * HOMA_BPAGE_SIZE;
		ok = refused(_metadata, p, o, 1, "{region length}");
		o[0] = 0xffff0000u;
		ok &= refused(_metadata, p, o, 1, "{0xffff0000}");
		o[0] = a;
		o[1] = 0xffffffc0u;
		ok &= refused(_metadata, p, o, 2, "{A, 0xffffffc0}");
		break;
	}
	return ok;
}

/*
 * Step 2: A is still held (except after TWICE): answered and returned;
 * the first RPCs complete and the pool is whole.
 */
static void pool_intact_after(struct __test_metadata *_metadata,
			      FIXTURE_DATA(bpage) *self, enum bad_kind kind)
{
	const char *why;
	int err = 0;

	if (kind != TWICE) {
		err = answer(&self->p, &self->held);
		if (!err)
			err = give_back(&self->p, &self->a, 1);
		if (err)
			TH_LOG("A no longer held after the refused call: %s",
			       errno_name(err));
	}
	if (!err)
		err = collect(&self->p);
	ASSERT_ERRNO(0, err) TH_LOG("the first RPCs");
	why = pool_intact(_metadata, &self->p, self->nfree);
	EXPECT_EQ(NULL, why) TH_LOG("%s", why);
}

TEST_F_TIMEOUT(bpage, dup_in_one_call_einval, 60)
{
	EXPECT_TRUE(bad_return(_metadata, self, DUP));
}

TEST_F_TIMEOUT(bpage, dup_in_one_call_pool_intact, 60)
{
	bad_return(_metadata, self, DUP);
	pool_intact_after(_metadata, self, DUP);
}

TEST_F_TIMEOUT(bpage, returned_twice_einval, 60)
{
	EXPECT_TRUE(bad_return(_metadata, self, TWICE));
}

TEST_F_TIMEOUT(bpage, returned_twice_pool_intact, 60)
{
	bad_return(_metadata, self, TWICE);
	pool_intact_after(_metadata, self, TWICE);
}

TEST_F_TIMEOUT(bpage, never_handed_out_einval, 60)
{
	EXPECT_TRUE(bad_return(_metadata, self, NEVER));
}

TEST_F_TIMEOUT(bpage, never_handed_out_pool_intact, 60)
{
	bad_return(_metadata, self, NEVER);
	pool_intact_after(_metadata, self, NEVER);
}

TEST_F_TIMEOUT(bpage, unaligned_einval, 60)
{
	EXPECT_TRUE(bad_return(_metadata, self, UNALIGNED));
}

TEST_F_TIMEOUT(bpage, unaligned_pool_intact, 60)
{
	bad_return(_metadata, self, UNALIGNED);
	pool_intact_after(_metadata, self, UNALIGNED);
}

TEST_F_TIMEOUT(bpage, outside_region_einval, 60)
{
	EXPECT_TRUE(bad_return(_metadata, self, OUTSIDE));
}

TEST_F_TIMEOUT(bpage, outside_region_pool_intact, 60)
{
	bad_return(_metadata, self, OUTSIDE);
	pool_intact_after(_metadata, self, OUTSIDE);
}

static int set_rcvbuf(int fd, uint64_t start, uint64_t length)
{
	struct homa_rcvbuf_args args = { .start = start, .length = length };

	return sys_err(setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args,
				  sizeof(args)));
}

/*
 * SO_HOMA_RCVBUF on a working server socket: regions past the limit are
 * refused and the socket keeps its region; one of exactly the limit is
 * taken; the socket (its region attached again) still works.
 */
FIXTURE(rcvbuf) {
	struct pair p;
};

FIXTURE_VARIANT(rcvbuf) {
	int family;
};

HOMA_FAMILY_VARIANTS(rcvbuf);

FIXTURE_SETUP(rcvbuf)
{
	ASSERT_ERRNO(0, cfg.drop_err) TH_LOG("not run privileged");
	ASSERT_ERRNO(0, pair_open(&self->p, variant->family, SERVER_PORT));
}

FIXTURE_TEARDOWN(rcvbuf)
{
	pair_close(&self->p);
}

enum rcvbuf_step {
	OVER_4GIB, OVER_1TIB, OVER_LIMIT, KEEPS_REGION, AT_LIMIT, WORKS,
};

/* Step @step of the sequence: 0 or -errno (-EIO: the pool is not whole). */
static int rcvbuf_step(struct __test_metadata *_metadata, struct pair *p,
		       enum rcvbuf_step step)
{
	struct homa_rcvbuf_args got = { 0, 0 };
	socklen_t len = sizeof(got);
	uint64_t limit = HOMA_MAX_REGION_LENGTH;
	const char *why;
	void *big;
	int err;

	/* Nothing need be mapped there: the kernel only checks the range. */
	switch (step) {
	case OVER_4GIB:
		return set_rcvbuf(p->srv.fd, 0x10000,
				  (4ULL << 30) + 2 * HOMA_BPAGE_SIZE);
	case OVER_1TIB:
		return set_rcvbuf(p->srv.fd, 0x10000, 1ULL << 40);
	case OVER_LIMIT:
		return set_rcvbuf(p->srv.fd, 0x10000, limit + HOMA_BPAGE_SIZE);
	case KEEPS_REGION:
		err = sys_err(getsockopt(p->srv.fd, IPPROTO_HOMA,
					 SO_HOMA_RCVBUF, &got, &len));
		if (!err && (got.start != (uintptr_t)p->srv.region.base ||
			     got.length != p->srv.region.length))
			err = -EBADMSG;
		return err;
	case AT_LIMIT:
		/* A region of exactly the limit: reserved, never touched. */
		big = mmap(NULL, limit, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (big == MAP_FAILED)
			return -errno;
		err = set_rcvbuf(p->srv.fd, (uintptr_t)big, limit);
		if (!err)
			err = homa_region_attach(p->srv.fd, &p->srv.region);
		munmap(big, limit);
		return err;
	case WORKS:
		why = pool_intact(_metadata, p, POOL_BPAGES);
		if (why)
			TH_LOG("%s", why);
		return why ? -EIO : 0;
	}
	return -EINVAL;
}

/* Runs the steps before @step, unchecked; returns what @step gives. */
static int rcvbuf_upto(struct __test_metadata *_metadata, struct pair *p,
		       enum rcvbuf_step step)
{
	int i;

	for (i = OVER_4GIB; i < (int)step; i++)
		rcvbuf_step(_metadata, p, (enum rcvbuf_step)i);
	return rcvbuf_step(_metadata, p, step);
}

TEST_F_TIMEOUT(rcvbuf, 4gib_plus_128kib_einval, 60)
{
	EXPECT_ERRNO(EINVAL, rcvbuf_upto(_metadata, &self->p, OVER_4GIB));
}

TEST_F_TIMEOUT(rcvbuf, 1tib_einval, 60)
{
	EXPECT_ERRNO(EINVAL, rcvbuf_upto(_metadata, &self->p, OVER_1TIB));
}

TEST_F_TIMEOUT(rcvbuf, limit_plus_one_bpage_einval, 60)
{
	EXPECT_ERRNO(EINVAL, rcvbuf_upto(_metadata, &self->p, OVER_LIMIT));
}

TEST_F_TIMEOUT(rcvbuf, rejected_keeps_region, 60)
{
	EXPECT_ERRNO(0, rcvbuf_upto(_metadata, &self->p, KEEPS_REGION));
}

TEST_F_TIMEOUT(rcvbuf, at_limit_accepted, 60)
{
	EXPECT_ERRNO(0, rcvbuf_upto(_metadata, &self->p, AT_LIMIT));
}

TEST_F_TIMEOUT(rcvbuf, socket_still_works, 60)
{
	EXPECT_ERRNO(0, rcvbuf_upto(_metadata, &self->p, WORKS));
}

/*
 * recvmsg whose control struct is readable but not writable: the message
 * is taken, the copy-out fails (EFAULT), and its bpages must come back
 * (the whole pool holds a second message as large as itself).
 */
FIXTURE(control) {
	struct homa_recvmsg_args *ctl;	/* one page, made read-only */
	long pg;
	struct pair p;
	bool opened;
};

FIXTURE_VARIANT(control) {
	int family;
};

HOMA_FAMILY_VARIANTS(control);

FIXTURE_SETUP(control)
{
	ASSERT_ERRNO(0, cfg.drop_err) TH_LOG("not run privileged");
	self->pg = sysconf(_SC_PAGESIZE);
	self->ctl = mmap(NULL, self->pg, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->ctl);
	ASSERT_ERRNO(0, pair_open(&self->p, variant->family, SERVER_PORT));
	self->opened = true;
}

FIXTURE_TEARDOWN(control)
{
	if (self->opened)
		pair_close(&self->p);
	munmap(self->ctl, self->pg);
}

/* Step 1: a whole-pool request taken with the read-only control struct. */
static int faulting_recvmsg(FIXTURE_DATA(control) *self)
{
	struct msghdr msg;
	uint64_t seed;
	int err;

	err = send_req(&self->p, MAX_LEN, &seed);
	if (!err) {
		memset(self->ctl, 0, sizeof(*self->ctl));
		self->ctl->flags = HOMA_RECVMSG_REQUEST;
		err = sys_err(mprotect(self->ctl, self->pg, PROT_READ));
	}
	if (!err) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_control = self->ctl;
		msg.msg_controllen = sizeof(*self->ctl);
		/* Blocks until the request is there (the timeout guards). */
		err = recvmsg(self->p.srv.fd, &msg, 0) < 0 ? -errno : -EBADMSG;
	}
	return err;
}

TEST_F_TIMEOUT(control, copyout_fault_efault, 60)
{
	EXPECT_ERRNO(EFAULT, faulting_recvmsg(self));
}

TEST_F_TIMEOUT(control, copyout_fault_bpages_come_back, 60)
{
	const char *why = NULL;
	struct homa_rx rx;
	uint64_t s2;
	ssize_t n;

	/* The whole pool again: only if the lost message's bpages came back. */
	if (faulting_recvmsg(self) != -EFAULT)
		why = "no fault to recover from";
	if (!why && send_req(&self->p, MAX_LEN, &s2))
		why = "send of the second request failed";
	if (!why) {
		n = srv_recv(&self->p, &rx, WAIT_MS);
		if (n < 0) {
			TH_LOG("second request: %s", errno_name((int)n));
			why = "the bpages of the faulted recvmsg did not come back";
		} else if (check_msg(&self->p, &rx, MAX_LEN, s2)) {
			why = "the second request is not intact";
		} else if (answer(&self->p, &rx) ||
			   give_back_rx(&self->p, &rx)) {
			why = "answer or return failed";
		}
	}
	EXPECT_EQ(NULL, why) TH_LOG("%s", why);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "uid", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "u:", opts, NULL)) != -1) {
		if (c != 'u') {
			fprintf(stderr, "usage: %s [--uid N] [-- HARNESS-OPTIONS]\n",
				argv[0]);
			return 2;
		}
		cfg.uid = atoi(optarg);
	}
	cfg.drop_err = drop_privileges(cfg.uid);
	return homa_harness_run(argc, argv, optind);
}
