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
 *   case is the sequence that wrote before the refs array of the pool
 *   (KASAN: slab-out-of-bounds in homa_pool_allocate).
 * - rcvbuf: SO_HOMA_RCVBUF refuses regions longer than
 *   HOMA_MAX_REGION_LENGTH (1 TiB, 4 GiB + 128 KiB, the limit plus one
 *   bpage) with EINVAL, accepts one of exactly the limit, and the
 *   socket keeps working.
 * - control: a recvmsg whose final copy of the control struct faults
 *   returns EFAULT, and the bpages of the message it consumed go back
 *   to the pool.
 *
 * The program drops to uid/gid 65534 before it opens any socket (unless
 * --uid 0), so every case runs as an unprivileged user.
 *
 * Usage: homa_test_safety [--family 4|6] [--uid N]
 *                         [--only bpage|rcvbuf|control]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "expect.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "ktap.h"
#include "payload.h"
#include "watchdog.h"

#ifndef HOMA_MAX_REGION_LENGTH
#define HOMA_MAX_REGION_LENGTH	(1ULL << 30)
#endif

#define PORT_BASE	3201
#define POOL_BPAGES	2
#define WAIT_MS		5000
#define QUIET_MS	300
#define CLIENT_BPAGES	8
#define MAX_LEN		(POOL_BPAGES * HOMA_BPAGE_SIZE)

/* The server socket of one case and the client that talks to it. */
struct pair {
	struct homa_ep srv;
	struct homa_ep cli;
	union homa_addr srv_addr;
	struct homa_rx cli_rx;	/* the client's receive state */
	int sent;		/* requests sent */
	int answered;		/* responses the client received */
};

static struct ktap k;
static uint8_t *buf;
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
static const char *pool_intact(struct pair *p, int nfree)
{
	struct homa_rx big, next;
	uint64_t s1, s2;
	const char *why;
	ssize_t n;

	if (send_req(p, (size_t)nfree * HOMA_BPAGE_SIZE, &s1))
		return "send of the large request failed";
	n = srv_recv(p, &big, WAIT_MS);
	if (n < 0) {
		ktap_diag(&k, "large request: %s", errno_name((int)n));
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
		ktap_diag(&k, "second request while the pool is full: %s (%zd)",
			  errno_name(n < 0 ? (int)n : 0), n);
		return "a message got space in a full pool";
	}
	if (answer(p, &big) || give_back_rx(p, &big))
		return "answer or return of the large message failed";
	n = srv_recv(p, &next, WAIT_MS);
	if (n < 0) {
		ktap_diag(&k, "second request: %s", errno_name((int)n));
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

static void report_intact(struct pair *p, int nfree, const char *name)
{
	const char *why = pool_intact(p, nfree);

	if (why)
		ktap_diag(&k, "%s: %s", name, why);
	ktap_result(&k, !why, "%s", name);
}

/* Expects EINVAL for returning @n offsets; @what names the attempt. */
static bool refused(struct pair *p, const uint32_t *offsets, uint32_t n,
		    const char *what)
{
	int err = give_back(p, offsets, n);

	if (err != -EINVAL)
		ktap_diag(&k, "%s: %s, expected EINVAL", what, errno_name(err));
	return err == -EINVAL;
}

/*
 * Receives one request of one bpage on a fresh pair and keeps it: the
 * caller holds bpage offset *@a. Returns 0 or -errno.
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
 * The sequence of the review (L1): duplicates accepted drove a refcount
 * below zero, and a later partial bpage was taken at index -1.
 */
static void test_dup_then_small(int family, uint16_t port)
{
	struct homa_rx held, small, tail;
	uint32_t a, dup[2];
	uint64_t s2, s3;
	const char *why = NULL;
	struct pair p;
	int err;
	ssize_t n;

	err = pair_open(&p, family, port);
	if (!err)
		err = hold_one(&p, &held, &a);
	if (err) {
		ktap_diag(&k, "set-up: %s", errno_name(err));
		ktap_result(&k, false, "bpage_dup_then_small_dup_einval");
		ktap_result(&k, false, "bpage_dup_then_small_messages_no_heap_write");
		pair_close(&p);
		return;
	}
	dup[0] = a;
	dup[1] = a;
	ktap_result(&k, refused(&p, dup, 2, "{A, A}"),
		    "bpage_dup_then_small_dup_einval");
	/*
	 * Every step runs whatever the previous ones gave: the write before
	 * the refs array happens when the 65472-byte request arrives.
	 */
	if (send_req(&p, 100, &s2))
		why = "send of the 100-byte request failed";
	n = srv_recv(&p, &small, WAIT_MS);
	if (!why && (n < 0 || check_msg(&p, &small, 100, s2)))
		why = "the 100-byte request did not arrive intact";
	/* A new partial bpage is needed: the pool has none free. */
	if (send_req(&p, HOMA_BPAGE_SIZE - 64, &s3) && !why)
		why = "send of the 65472-byte request failed";
	usleep(QUIET_MS * 1000);
	/* A is still held: returning it makes room for that request. */
	if ((answer(&p, &held) || give_back(&p, &a, 1)) && !why)
		why = "A could not be returned once after the refused call";
	n = srv_recv(&p, &tail, WAIT_MS);
	if (!why && (n < 0 || check_msg(&p, &tail, HOMA_BPAGE_SIZE - 64, s3)))
		why = "the 65472-byte request did not arrive intact";
	if (!why && (answer(&p, &small) || answer(&p, &tail) ||
		     give_back_rx(&p, &small) || give_back_rx(&p, &tail)))
		why = "answer or return failed";
	if (!why && collect(&p))
		why = "the client did not get every response";
	if (why)
		ktap_diag(&k, "dup_then_small: %s", why);
	ktap_result(&k, !why, "bpage_dup_then_small_messages_no_heap_write");
	pair_close(&p);
}

enum bad_kind { DUP, TWICE, NEVER, UNALIGNED, OUTSIDE };

static const char *const bad_names[] = {
	[DUP] = "dup_in_one_call",
	[TWICE] = "returned_twice",
	[NEVER] = "never_handed_out",
	[UNALIGNED] = "unaligned",
	[OUTSIDE] = "outside_region",
};

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

/*
 * One kind of bad return on a fresh pair that holds bpage A; then A is
 * returned (it must still be held unless the case returned it) and the
 * pool must be whole. "returned_twice" also holds two pieces P1 and P2
 * of one partial bpage: P1 returned twice must not release P2's share.
 */
static void test_bad_return(int family, uint16_t port, enum bad_kind kind)
{
	const char *name = bad_names[kind];
	struct homa_rx held, sm[2];
	uint32_t a, b, o[2];
	int err, nfree = POOL_BPAGES;
	bool ok = true;
	struct pair p;
	char what[64];

	err = pair_open(&p, family, port);
	if (!err)
		err = hold_one(&p, &held, &a);
	if (err) {
		ktap_diag(&k, "%s set-up: %s", name, errno_name(err));
		ktap_result(&k, false, "bpage_%s_einval", name);
		ktap_result(&k, false, "bpage_%s_pool_intact", name);
		pair_close(&p);
		return;
	}
	b = a ^ HOMA_BPAGE_SIZE;	/* the other, free, bpage */
	switch (kind) {
	case DUP:
		o[0] = a;
		o[1] = a;
		ok = refused(&p, o, 2, "{A, A}");
		break;
	case TWICE:
		err = answer(&p, &held);
		if (!err)
			err = give_back(&p, &a, 1);
		if (err) {
			ktap_diag(&k, "first return of A: %s", errno_name(err));
			ok = false;
		}
		ok &= refused(&p, &a, 1, "A again");
		err = hold_two_small(&p, sm);
		if (err) {
			ktap_diag(&k, "two small messages in one bpage: %s",
				  errno_name(err));
			ok = false;
			break;
		}
		nfree = POOL_BPAGES - 1;	/* the allocator keeps the partial */
		err = give_back_rx(&p, &sm[0]);
		if (err) {
			ktap_diag(&k, "first return of P1: %s", errno_name(err));
			ok = false;
		}
		ok &= refused(&p, sm[0].ctl.bpage_offsets, 1, "P1 again");
		err = give_back_rx(&p, &sm[1]);
		if (err) {
			ktap_diag(&k, "P2 no longer held: %s", errno_name(err));
			ok = false;
		}
		if (answer(&p, &sm[0]) || answer(&p, &sm[1]))
			ok = false;
		break;
	case NEVER:
		ok = refused(&p, &b, 1, "{free bpage}");
		o[0] = a + 64;
		ok &= refused(&p, o, 1, "{A + 64}");
		o[0] = a;
		o[1] = b;
		ok &= refused(&p, o, 2, "{A, free bpage}");
		break;
	case UNALIGNED:
		o[0] = a + 1;
		ok = refused(&p, o, 1, "{A + 1}");
		o[0] = a;
		o[1] = a + 8;
		ok &= refused(&p, o, 2, "{A, A + 8}");
		break;
	case OUTSIDE:
		o[0] = POOL_BPAGES * HOMA_BPAGE_SIZE;
		ok = refused(&p, o, 1, "{region length}");
		o[0] = 0xffff0000u;
		ok &= refused(&p, o, 1, "{0xffff0000}");
		o[0] = a;
		o[1] = 0xffffffc0u;
		ok &= refused(&p, o, 2, "{A, 0xffffffc0}");
		break;
	}
	ktap_result(&k, ok, "bpage_%s_einval", name);
	/* A is still held (except after TWICE): answer and return it. */
	err = 0;
	if (kind != TWICE) {
		err = answer(&p, &held);
		if (!err)
			err = give_back(&p, &a, 1);
		if (err)
			ktap_diag(&k, "%s: A no longer held after the refused call: %s",
				  name, errno_name(err));
	}
	if (!err)
		err = collect(&p);
	snprintf(what, sizeof(what), "bpage_%s_pool_intact", name);
	if (err) {
		ktap_diag(&k, "%s: first RPCs: %s", name, errno_name(err));
		ktap_result(&k, false, "%s", what);
	} else {
		report_intact(&p, nfree, what);
	}
	pair_close(&p);
}

static int set_rcvbuf(int fd, uint64_t start, uint64_t length)
{
	struct homa_rcvbuf_args args = { .start = start, .length = length };

	if (setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args,
		       sizeof(args)) < 0)
		return -errno;
	return 0;
}

static void test_rcvbuf(int family, uint16_t port)
{
	struct homa_rcvbuf_args got = { 0, 0 };
	socklen_t len = sizeof(got);
	uint64_t limit = HOMA_MAX_REGION_LENGTH;
	struct pair p;
	void *big;
	int err;

	err = pair_open(&p, family, port);
	if (err) {
		ktap_diag(&k, "rcvbuf set-up: %s", errno_name(err));
		pair_close(&p);
		ktap_result(&k, false, "rcvbuf_4gib_plus_128kib_einval");
		ktap_result(&k, false, "rcvbuf_1tib_einval");
		ktap_result(&k, false, "rcvbuf_limit_plus_one_bpage_einval");
		ktap_result(&k, false, "rcvbuf_rejected_keeps_region");
		ktap_result(&k, false, "rcvbuf_at_limit_accepted");
		ktap_result(&k, false, "rcvbuf_socket_still_works");
		return;
	}
	/* Nothing need be mapped there: the kernel only checks the range. */
	expect_errno(&k, set_rcvbuf(p.srv.fd, 0x10000,
				    (4ULL << 30) + 2 * HOMA_BPAGE_SIZE),
		     EINVAL, "rcvbuf_4gib_plus_128kib_einval");
	expect_errno(&k, set_rcvbuf(p.srv.fd, 0x10000, 1ULL << 40), EINVAL,
		     "rcvbuf_1tib_einval");
	expect_errno(&k, set_rcvbuf(p.srv.fd, 0x10000,
				    limit + HOMA_BPAGE_SIZE),
		     EINVAL, "rcvbuf_limit_plus_one_bpage_einval");
	err = getsockopt(p.srv.fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &got,
			 &len) < 0 ? -errno : 0;
	if (!err && (got.start != (uintptr_t)p.srv.region.base ||
		     got.length != p.srv.region.length))
		err = -EBADMSG;
	expect_errno(&k, err, 0, "rcvbuf_rejected_keeps_region");
	/* A region of exactly the limit: reserved, never touched. */
	big = mmap(NULL, limit, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (big == MAP_FAILED) {
		err = -errno;
	} else {
		err = set_rcvbuf(p.srv.fd, (uintptr_t)big, limit);
		if (!err)
			err = homa_region_attach(p.srv.fd, &p.srv.region);
		munmap(big, limit);
	}
	expect_errno(&k, err, 0, "rcvbuf_at_limit_accepted");
	report_intact(&p, POOL_BPAGES, "rcvbuf_socket_still_works");
	pair_close(&p);
}

/*
 * recvmsg whose control struct is readable but not writable: the message
 * is taken, the copy-out fails (EFAULT), and its bpages must come back.
 */
static void test_control_fault(int family, uint16_t port)
{
	struct homa_recvmsg_args *ctl;
	struct msghdr msg;
	const char *why = NULL;
	struct homa_rx rx;
	uint64_t s1, s2;
	struct pair p;
	long pg = sysconf(_SC_PAGESIZE);
	int err;
	ssize_t n;

	ctl = mmap(NULL, pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ctl == MAP_FAILED) {
		ktap_result(&k, false, "control_copyout_fault_efault");
		ktap_result(&k, false, "control_copyout_fault_bpages_come_back");
		return;
	}
	err = pair_open(&p, family, port);
	if (!err)
		err = send_req(&p, MAX_LEN, &s1);
	if (!err) {
		memset(ctl, 0, sizeof(*ctl));
		ctl->flags = HOMA_RECVMSG_REQUEST;
		err = mprotect(ctl, pg, PROT_READ) ? -errno : 0;
	}
	if (!err) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_control = ctl;
		msg.msg_controllen = sizeof(*ctl);
		/* Blocks until the request is there (the watchdog guards). */
		err = recvmsg(p.srv.fd, &msg, 0) < 0 ? -errno : -EBADMSG;
	}
	expect_errno(&k, err, EFAULT, "control_copyout_fault_efault");
	/* The whole pool again: only if the lost message's bpages came back. */
	if (err != -EFAULT)
		why = "no fault to recover from";
	if (!why && send_req(&p, MAX_LEN, &s2))
		why = "send of the second request failed";
	if (!why) {
		n = srv_recv(&p, &rx, WAIT_MS);
		if (n < 0) {
			ktap_diag(&k, "second request: %s", errno_name((int)n));
			why = "the bpages of the faulted recvmsg did not come back";
		} else if (check_msg(&p, &rx, MAX_LEN, s2)) {
			why = "the second request is not intact";
		} else if (answer(&p, &rx) || give_back_rx(&p, &rx)) {
			why = "answer or return failed";
		}
	}
	if (why)
		ktap_diag(&k, "control fault: %s", why);
	ktap_result(&k, !why, "control_copyout_fault_bpages_come_back");
	pair_close(&p);
	munmap(ctl, pg);
}

static int drop_privileges(int uid)
{
	if (uid == 0 || getuid() == (uid_t)uid)
		return 0;
	if (setgroups(0, NULL) || setgid((gid_t)uid) || setuid((uid_t)uid))
		return -errno;
	return getuid() == (uid_t)uid && geteuid() == (uid_t)uid ? 0 : -EPERM;
}

#define BPAGE_CASES	(2 + 2 * 5)
#define RCVBUF_CASES	6
#define CONTROL_CASES	2

static void skip_cases(const char *reason, int n)
{
	while (n-- > 0)
		ktap_skip(&k, reason, "skipped_by_only");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "uid", required_argument, NULL, 'u' },
		{ "only", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	const char *only = NULL;
	int family = AF_INET, uid = 65534, c, err, kind;
	uint16_t port = PORT_BASE;
	struct watchdog wd;

	while ((c = getopt_long(argc, argv, "f:u:o:", opts, NULL)) != -1) {
		if (c == 'f')
			family = homa_family_parse(optarg);
		else if (c == 'u')
			uid = atoi(optarg);
		else if (c == 'o')
			only = optarg;
		if ((c != 'f' && c != 'u' && c != 'o') || family < 0) {
			fprintf(stderr, "usage: %s [--family 4|6] [--uid N] [--only bpage|rcvbuf|control]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	buf = malloc(MAX_LEN);
	if (!buf)
		return 1;
	ktap_start(&k, 1 + BPAGE_CASES + RCVBUF_CASES + CONTROL_CASES);
	err = drop_privileges(uid);
	ktap_diag(&k, "family %d, uid %d, euid %d", family == AF_INET ? 4 : 6,
		  (int)getuid(), (int)geteuid());
	if (!expect_errno(&k, err, 0, "runs_unprivileged"))
		return ktap_finish(&k);
	watchdog_start(&wd, &k);

	if (!only || !strcmp(only, "bpage")) {
		watchdog_arm(&wd, 60, "bpage_dup_then_small");
		test_dup_then_small(family, port++);
		for (kind = DUP; kind <= OUTSIDE; kind++) {
			watchdog_arm(&wd, 60, bad_names[kind]);
			test_bad_return(family, port++, kind);
		}
	} else {
		skip_cases(only, BPAGE_CASES);
	}
	if (!only || !strcmp(only, "rcvbuf")) {
		watchdog_arm(&wd, 60, "rcvbuf");
		test_rcvbuf(family, port++);
	} else {
		skip_cases(only, RCVBUF_CASES);
	}
	if (!only || !strcmp(only, "control")) {
		watchdog_arm(&wd, 60, "control_copyout_fault");
		test_control_fault(family, port++);
	} else {
		skip_cases(only, CONTROL_CASES);
	}
	watchdog_stop(&wd);
	free(buf);
	return ktap_finish(&k);
}
