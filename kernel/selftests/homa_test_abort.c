// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_abort - HOMAIOCABORT (homa_ioc_abort() in homa_plumbing.c),
 * in one guest over loopback. Each part has a server socket on a fixed
 * port that takes requests and answers only when told to, so client RPCs
 * stay outstanding; every request carries a tag (its first 8 bytes and
 * its completion cookie), and the response to tag T is T's pattern of a
 * length that depends on T, checked byte for byte with id, cookie and
 * the server's address.
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
 * Every wait has a deadline, and the watchdog ends a part that hangs.
 *
 * Usage: homa_test_abort [--family 4|6]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
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
#include "expect.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "ktap.h"
#include "payload.h"
#include "watchdog.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define REQ_LEN		100
#define RESP_MAX	(100000 + 500)
#define NODE_BPAGES	64
#define MAX_HELD	16
#define MAX_ERRNO	4095		/* include/linux/err.h */

static struct ktap k;
static int family = AF_INET;
static uint16_t base;
static uint8_t *resp_buf;

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

/* --- the cases of each part, in order ------------------------------- */

static const char *const one_of_three_cases[] = {
	"abort_one_of_three_blocked_recvmsg_gets_ecanceled",
	"abort_one_of_three_aborted_id_gone_after_report",
	"abort_one_of_three_others_still_outstanding",
	"abort_one_of_three_others_complete_with_payload",
};
static const char *const free_cases[] = {
	"abort_error0_recvmsg_einval",
	"abort_error0_second_abort_einval",
	"abort_error0_late_response_not_delivered",
};
static const char *const wake_cases[] = {
	"abort_id_error0_wakes_its_waiter_einval",
	"abort_id_error0_other_waiter_still_blocked",
	"abort_id_error0_other_waiter_gets_response",
	"abort_all_error0_wakes_waiter_einval",
};
static const char *const all_cases[] = {
	"abort_all_eio_each_of_five_gets_eio",
	"abort_all_eio_leaves_own_server_rpcs",
	"abort_all_eio_server_serves_new_client",
};
static const char *const foreign_cases[] = {
	"abort_never_issued_id_einval",
	"abort_odd_id_on_client_einval",
	"abort_server_rpc_id_on_server_einval",
	"abort_other_sockets_id_einval",
	"abort_foreign_ids_change_nothing",
};
static const char *const badarg_cases[] = {
	"abort_error_negative_einval",
	"abort_error_4096_einval",
	"abort_pad1_einval",
	"abort_pad2_0_einval",
	"abort_pad2_1_einval",
	"abort_unmapped_pointer_efault",
	"abort_args_crossing_into_unmapped_page_efault",
	"abort_bad_args_change_nothing",
	"abort_error_4095_accepted",
};
static const char *const udp_cases[] = {
	"abort_on_udp_socket_fails",
	"abort_on_udp_socket_homa_rpc_unaffected",
};

#define NUM_CASES (ARRAY_SIZE(one_of_three_cases) + ARRAY_SIZE(free_cases) + \
		   ARRAY_SIZE(wake_cases) + ARRAY_SIZE(all_cases) +	     \
		   ARRAY_SIZE(foreign_cases) + ARRAY_SIZE(badarg_cases) +    \
		   ARRAY_SIZE(udp_cases))

/* The cases of one part, reported in order. */
struct part {
	const char *const *names;
	size_t count;
	size_t next;
};

#define PART(names) { (names), ARRAY_SIZE(names), 0 }

static bool part_result(struct part *p, bool pass)
{
	if (p->next >= p->count)
		return false;
	return ktap_result(&k, pass, "%s", p->names[p->next++]);
}

/* A case that passes when @got (0 or -errno) is -@want. */
static bool part_errno(struct part *p, long got, int want)
{
	if (p->next >= p->count)
		return false;
	return expect_errno(&k, (int)got, want, "%s", p->names[p->next++]);
}

/* After a failed set-up: the cases not reported yet fail. */
static void part_fail_rest(struct part *p, int err)
{
	ktap_diag(&k, "set-up failed: %s", errno_name(err));
	while (p->next < p->count)
		part_result(p, false);
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
	struct homa_ep ep;
	struct homa_rx rx;
	struct held held[MAX_HELD];
	int nheld;
};

static void node_init(struct node *n)
{
	memset(n, 0, sizeof(*n));
	n->ep.fd = -1;
	homa_rx_init(&n->rx);
}

/* Opens the socket (@port 0: automatic) with a region. */
static int node_open(struct node *n, uint16_t port)
{
	node_init(n);
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
	homa_addr_loopback(&dst, family, port);
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
 * Whether @rx (received from a socket with region @r, result @got) is the
 * response of RPC @id to request @tag from the local port @port; says
 * what is wrong otherwise.
 */
static bool response_ok(const struct homa_region *r,
			const struct homa_rx *rx, ssize_t got, uint64_t id,
			uint64_t tag, uint16_t port, const char *what)
{
	struct iovec iov[HOMA_MAX_BPAGES];
	union homa_addr from;
	char a[64], b[64];
	long bad = -1;
	int cnt;

	if (got < 0) {
		ktap_diag(&k, "%s: recvmsg(id %llu): %s", what,
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
		ktap_diag(&k, "%s: id %llu (want %llu), cookie %llu (want %llu), %zd B (want %zu), from %s (want %s), bpages %s, first wrong byte %ld",
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
static bool node_response_ok(struct node *n, uint64_t id, uint64_t tag,
			     uint16_t port, int ms, const char *what)
{
	ssize_t got = homa_receive_within(n->ep.fd, &n->rx, 0, id, ms);

	return response_ok(&n->ep.region, &n->rx, got, id, tag, port, what);
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

/* --- 1. abort(id, ECANCELED) of one of three ------------------------ */

static void test_one_of_three(void)
{
	struct part p = PART(one_of_three_cases);
	const uint64_t tag[3] = { 101, 102, 103 };
	uint16_t port = base + 1;
	uint64_t id[3] = { 0 };
	struct node srv, cli;
	struct waiter w = { 0 };
	bool blocked, woke, ok;
	long r0, r2, r;
	char s[128];
	long long t0;
	int err, i;

	node_init(&cli);
	err = node_open(&srv, port);
	if (!err)
		err = node_open(&cli, 0);
	for (i = 0; i < 3 && !err; i++)
		err = node_send(&cli, port, tag[i], &id[i]);
	if (!err)
		err = waiter_start(&w, cli.ep.fd, id[1]);
	if (err) {
		part_fail_rest(&p, err);
		goto out;
	}
	blocked = waiter_blocked(&w, 3000);
	t0 = now_ms();
	err = homa_abort(cli.ep.fd, id[1], ECANCELED);
	woke = waiter_wait(&w, 2000);
	ktap_diag(&k, "ids %llu %llu %llu; recvmsg(id %llu) blocked %d; HOMAIOCABORT(id, ECANCELED): %s; recvmsg: %s",
		  (unsigned long long)id[0], (unsigned long long)id[1],
		  (unsigned long long)id[2], (unsigned long long)id[1],
		  blocked, errno_name(err), waiter_str(&w, t0, s, sizeof(s)));
	part_result(&p, blocked && !err && woke &&
		    error_ok(&w.rx, w.result, id[1], tag[1], ECANCELED));

	/* recvmsg handed the error over and ended the RPC. */
	r = node_poll_id(&cli, id[1]);
	ktap_diag(&k, "recvmsg(id %llu) again: %s", (unsigned long long)id[1],
		  errno_name((int)r));
	part_errno(&p, r, EINVAL);

	r0 = node_poll_id(&cli, id[0]);
	r2 = node_poll_id(&cli, id[2]);
	ktap_diag(&k, "recvmsg MSG_DONTWAIT for the other two: %s, %s",
		  errno_name((int)r0), errno_name((int)r2));
	part_result(&p, r0 == -EAGAIN && r2 == -EAGAIN);

	err = node_answer(&srv, tag[0], 5000);
	if (!err)
		err = node_answer(&srv, tag[2], 5000);
	if (err)
		ktap_diag(&k, "server: %s", errno_name(err));
	ok = !err && node_response_ok(&cli, id[0], tag[0], port, 5000,
				      "first RPC");
	ok = node_response_ok(&cli, id[2], tag[2], port, 5000, "third RPC") &&
	     ok;
	part_result(&p, ok);
out:
	waiter_finish(&w);
	node_close(&cli);
	node_close(&srv);
}

/* --- 2. abort(id, 0) frees the RPC ---------------------------------- */

static void test_free(void)
{
	struct part p = PART(free_cases);
	uint16_t port = base + 2;
	uint64_t x = 0, y = 0;
	struct node srv, cli;
	long long drops0, drops1;
	int err, err2, e1, e2;
	bool y_ok;
	long r;

	node_init(&cli);
	err = node_open(&srv, port);
	if (!err)
		err = node_open(&cli, 0);
	if (!err)
		err = node_send(&cli, port, 201, &x);
	if (err) {
		part_fail_rest(&p, err);
		goto out;
	}
	err = homa_abort(cli.ep.fd, x, 0);
	r = node_poll_id(&cli, x);
	ktap_diag(&k, "HOMAIOCABORT(id %llu, 0): %s; recvmsg(id): %s",
		  (unsigned long long)x, errno_name(err), errno_name((int)r));
	part_result(&p, !err && r == -EINVAL);

	err2 = homa_abort(cli.ep.fd, x, 0);
	ktap_diag(&k, "second HOMAIOCABORT(id, 0): %s", errno_name(err2));
	part_result(&p, !err && err2 == -EINVAL);

	/* The server answers the freed RPC's request, then a new one: the
	 * new response arrives, the old one is dropped (drop_unknown_rpc).
	 */
	drops0 = homa_metric("drop_unknown_rpc");
	e1 = node_answer(&srv, 201, 5000);
	e2 = node_send(&cli, port, 202, &y);
	if (!e2)
		e2 = node_answer(&srv, 202, 5000);
	y_ok = !e2 && node_response_ok(&cli, y, 202, port, 5000, "next RPC");
	r = homa_receive_within(cli.ep.fd, &cli.rx, HOMA_RECVMSG_RESPONSE, 0,
				300);
	drops1 = homa_metric("drop_unknown_rpc");
	ktap_diag(&k, "response to the freed RPC sent: %s; next RPC: %s; then recvmsg(RESPONSE) within 300 ms: %s (id %llu); drop_unknown_rpc %lld -> %lld",
		  errno_name(e1), y_ok ? "ok" : "failed", errno_name((int)r),
		  (unsigned long long)cli.rx.ctl.id, drops0, drops1);
	part_result(&p, !e1 && y_ok && r == -EAGAIN);
out:
	node_close(&cli);
	node_close(&srv);
}

/* --- 3. abort(id, 0) wakes the waiter of that id -------------------- */

static void test_wake(void)
{
	struct part p = PART(wake_cases);
	struct waiter wx = { 0 }, wy = { 0 }, wz = { 0 };
	uint16_t port = base + 3;
	uint64_t x = 0, y = 0, z = 0;
	bool bx, by, bz, still, woke;
	struct node srv, cli;
	char s[128];
	long long t0;
	int err;

	node_init(&cli);
	err = node_open(&srv, port);
	if (!err)
		err = node_open(&cli, 0);
	if (!err)
		err = node_send(&cli, port, 301, &x);
	if (!err)
		err = node_send(&cli, port, 302, &y);
	if (!err)
		err = waiter_start(&wx, cli.ep.fd, x);
	if (!err)
		err = waiter_start(&wy, cli.ep.fd, y);
	if (err) {
		part_fail_rest(&p, err);
		goto out;
	}
	bx = waiter_blocked(&wx, 3000);
	by = waiter_blocked(&wy, 3000);
	t0 = now_ms();
	err = homa_abort(cli.ep.fd, x, 0);
	woke = waiter_wait(&wx, 2000);
	ktap_diag(&k, "waiters blocked %d %d; HOMAIOCABORT(id %llu, 0): %s; its recvmsg: %s",
		  bx, by, (unsigned long long)x, errno_name(err),
		  waiter_str(&wx, t0, s, sizeof(s)));
	part_result(&p, bx && !err && woke && wx.result == -EINVAL);

	/* The other waiter was woken too (one wait queue) and must have
	 * gone back to sleep.
	 */
	usleep(200 * 1000);
	still = waiter_blocked(&wy, 1000);
	ktap_diag(&k, "waiter for id %llu 200 ms later: %s",
		  (unsigned long long)y, still ? "asleep in recvmsg" :
		  waiter_str(&wy, t0, s, sizeof(s)));
	part_result(&p, by && still);

	err = node_answer(&srv, 302, 5000);
	t0 = now_ms();
	woke = !err && waiter_wait(&wy, 5000);
	ktap_diag(&k, "server answered id %llu: %s; waiter: %s",
		  (unsigned long long)y, errno_name(err),
		  woke ? waiter_str(&wy, t0, s, sizeof(s)) : "still blocked");
	part_result(&p, woke && response_ok(&cli.ep.region, &wy.rx, wy.result,
					    y, 302, port, "other waiter"));

	/* id 0: every client RPC of the socket. */
	err = node_send(&cli, port, 303, &z);
	if (!err)
		err = waiter_start(&wz, cli.ep.fd, z);
	bz = !err && waiter_blocked(&wz, 3000);
	t0 = now_ms();
	if (!err)
		err = homa_abort(cli.ep.fd, 0, 0);
	woke = bz && waiter_wait(&wz, 2000);
	ktap_diag(&k, "recvmsg(id %llu) blocked %d; HOMAIOCABORT(0, 0): %s; recvmsg: %s",
		  (unsigned long long)z, bz, errno_name(err),
		  waiter_str(&wz, t0, s, sizeof(s)));
	part_result(&p, bz && !err && woke && wz.result == -EINVAL);
out:
	waiter_finish(&wx);
	waiter_finish(&wy);
	waiter_finish(&wz);
	node_close(&cli);
	node_close(&srv);
}

/* --- 4. abort(0, EIO): all client RPCs, no server RPC --------------- */

static void test_all(void)
{
	struct part p = PART(all_cases);
	uint16_t port = base + 4, cport = base + 14;
	uint64_t id[5] = { 0 }, did[2] = { 0 }, eid = 0;
	struct node srv, cli, d, e;
	struct waiter w = { 0 };
	struct pollfd pfd;
	int err, i, n_eio, pr = 0;
	bool blocked, ok;
	char s[128];
	long long t0;
	ssize_t r;

	node_init(&cli);
	node_init(&d);
	node_init(&e);
	err = node_open(&srv, port);
	/* The aborting socket is a server too, on its own port. */
	if (!err)
		err = node_open(&cli, cport);
	if (!err)
		err = node_open(&d, 0);
	for (i = 0; i < 5 && !err; i++)
		err = node_send(&cli, port, 401 + i, &id[i]);
	/* One request to it in service, one queued (POLLIN, as no response
	 * can be ready yet).
	 */
	if (!err)
		err = node_send(&d, cport, 411, &did[0]);
	if (!err) {
		i = node_take(&cli, 411, 5000);
		err = i < 0 ? i : 0;
	}
	if (!err)
		err = node_send(&d, cport, 412, &did[1]);
	if (!err) {
		pfd.fd = cli.ep.fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		pr = poll(&pfd, 1, 3000);
		err = pr == 1 ? 0 : -ETIMEDOUT;
	}
	if (!err)
		err = waiter_start(&w, cli.ep.fd, id[0]);
	if (err) {
		part_fail_rest(&p, err);
		goto out;
	}
	blocked = waiter_blocked(&w, 3000);
	t0 = now_ms();
	err = homa_abort(cli.ep.fd, 0, EIO);
	waiter_wait(&w, 2000);
	n_eio = error_ok(&w.rx, w.result, id[0], 401, EIO);
	ktap_diag(&k, "HOMAIOCABORT(0, EIO): %s; recvmsg(id %llu) blocked %d: %s",
		  errno_name(err), (unsigned long long)id[0], blocked,
		  waiter_str(&w, t0, s, sizeof(s)));
	for (i = 1; i < 5; i++) {
		r = homa_receive_within(cli.ep.fd, &cli.rx, 0, id[i], 2000);
		if (error_ok(&cli.rx, r, id[i], 401 + i, EIO)) {
			n_eio++;
			continue;
		}
		ktap_diag(&k, "recvmsg(id %llu): %s, id %llu, cookie %llu",
			  (unsigned long long)id[i], errno_name((int)r),
			  (unsigned long long)cli.rx.ctl.id,
			  (unsigned long long)cli.rx.ctl.completion_cookie);
	}
	ktap_diag(&k, "%d of 5 recvmsg gave EIO with their id and cookie",
		  n_eio);
	part_result(&p, !err && blocked && n_eio == 5);

	/* Its server RPCs: the queued request is still there, both are
	 * answered and their client gets the responses.
	 */
	i = node_take(&cli, 412, 2000);
	err = i < 0 ? i : node_answer(&cli, 411, 2000);
	if (!err)
		err = node_answer(&cli, 412, 2000);
	ktap_diag(&k, "queued request received and both answered: %s",
		  errno_name(err));
	ok = !err && node_response_ok(&d, did[0], 411, cport, 5000,
				      "in service");
	ok = !err && node_response_ok(&d, did[1], 412, cport, 5000,
				      "queued") && ok;
	part_result(&p, ok);

	/* The server takes a request from a new client and answers it. */
	err = node_open(&e, 0);
	if (!err)
		err = node_send(&e, port, 421, &eid);
	if (!err)
		err = node_answer(&srv, 421, 5000);
	ktap_diag(&k, "new client's request answered: %s", errno_name(err));
	part_result(&p, !err && node_response_ok(&e, eid, 421, port, 5000,
						 "new client"));
out:
	waiter_finish(&w);
	node_close(&e);
	node_close(&d);
	node_close(&cli);
	node_close(&srv);
}

/* --- 5. ids that are not client RPCs of the socket ------------------ */

static void test_foreign(void)
{
	struct part p = PART(foreign_cases);
	uint16_t port = base + 5;
	uint64_t a1 = 0, b1 = 0, never, sid = 0;
	struct node srv, a, b;
	int err, ia = -1, ib = -1, e1, e2;
	long ra, rb;
	bool ok;

	node_init(&a);
	node_init(&b);
	err = node_open(&srv, port);
	if (!err)
		err = node_open(&a, 0);
	if (!err)
		err = node_open(&b, 0);
	if (!err)
		err = node_send(&a, port, 501, &a1);
	if (!err)
		err = node_send(&b, port, 502, &b1);
	if (!err) {
		ia = node_take(&srv, 501, 5000);
		ib = node_take(&srv, 502, 5000);
		err = ia < 0 ? ia : ib < 0 ? ib : 0;
	}
	if (err) {
		part_fail_rest(&p, err);
		goto out;
	}
	sid = srv.held[ia].id;
	/* Ids step by 2 from a random start: a1 + 2000 is not issued yet. */
	never = a1 + 2000;
	if (never == 0)
		never += 2000;
	ktap_diag(&k, "client ids %llu and %llu (other socket); server RPC id %llu",
		  (unsigned long long)a1, (unsigned long long)b1,
		  (unsigned long long)sid);

	err = homa_abort(a.ep.fd, never, ECANCELED);
	ktap_diag(&k, "HOMAIOCABORT(%llu, ECANCELED): %s",
		  (unsigned long long)never, errno_name(err));
	part_errno(&p, err, EINVAL);

	err = homa_abort(a.ep.fd, a1 ^ 1, ECANCELED);
	ktap_diag(&k, "HOMAIOCABORT(%llu, ECANCELED): %s",
		  (unsigned long long)(a1 ^ 1), errno_name(err));
	part_errno(&p, err, EINVAL);

	err = homa_abort(srv.ep.fd, sid, ECANCELED);
	ktap_diag(&k, "server socket: HOMAIOCABORT(%llu (%s), ECANCELED): %s",
		  (unsigned long long)sid, sid & 1 ? "odd" : "even",
		  errno_name(err));
	part_errno(&p, err, EINVAL);

	err = homa_abort(a.ep.fd, b1, ECANCELED);
	ktap_diag(&k, "HOMAIOCABORT(other socket's %llu, ECANCELED): %s",
		  (unsigned long long)b1, errno_name(err));
	part_errno(&p, err, EINVAL);

	ra = node_poll_id(&a, a1);
	rb = node_poll_id(&b, b1);
	e1 = node_answer(&srv, 501, 2000);
	e2 = node_answer(&srv, 502, 2000);
	ktap_diag(&k, "then: recvmsg MSG_DONTWAIT %s, %s; server answers %s, %s",
		  errno_name((int)ra), errno_name((int)rb), errno_name(e1),
		  errno_name(e2));
	ok = node_response_ok(&a, a1, 501, port, 5000, "own RPC");
	ok = node_response_ok(&b, b1, 502, port, 5000, "other socket's RPC") &&
	     ok;
	part_result(&p, ra == -EAGAIN && rb == -EAGAIN && !e1 && !e2 && ok);
out:
	node_close(&b);
	node_close(&a);
	node_close(&srv);
}

/* --- 6. bad arguments ----------------------------------------------- */

static void test_badargs(void)
{
	struct part p = PART(badarg_cases);
	uint16_t port = base + 6;
	struct homa_abort_args args;
	uint64_t id1 = 0, id2 = 0;
	struct node srv, a;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *map = MAP_FAILED;
	int err, i;
	ssize_t r;
	long r1;
	bool ok;
	static const struct {
		const char *what;
		int error, pad1;
		uint64_t pad2_0, pad2_1;
	} bad[] = {
		{ "error -1", -1, 0, 0, 0 },
		{ "error 4096", MAX_ERRNO + 1, 0, 0, 0 },
		{ "_pad1 1", ECANCELED, 1, 0, 0 },
		{ "_pad2[0] 1", ECANCELED, 0, 1, 0 },
		{ "_pad2[1] 1", ECANCELED, 0, 0, 1 },
	};

	node_init(&a);
	err = node_open(&srv, port);
	if (!err)
		err = node_open(&a, 0);
	if (!err)
		err = node_send(&a, port, 601, &id1);
	if (!err)
		err = node_send(&a, port, 602, &id2);
	if (err) {
		part_fail_rest(&p, err);
		goto out;
	}
	/* Each names the outstanding RPC id1. */
	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		memset(&args, 0, sizeof(args));
		args.id = id1;
		args.error = bad[i].error;
		args._pad1 = bad[i].pad1;
		args._pad2[0] = bad[i].pad2_0;
		args._pad2[1] = bad[i].pad2_1;
		err = abort_raw(a.ep.fd, &args);
		ktap_diag(&k, "HOMAIOCABORT(id, %s): %s", bad[i].what,
			  errno_name(err));
		part_errno(&p, err, EINVAL);
	}

	/* Two pages, the second unmapped: the argument at its start, and
	 * one whose id and error lie in the first page and the rest in the
	 * second.
	 */
	if (page > 0)
		map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED || munmap(map + page, (size_t)page)) {
		ktap_diag(&k, "mmap/munmap: %s", strerror(errno));
		part_result(&p, false);
		part_result(&p, false);
	} else {
		err = abort_raw(a.ep.fd, map + page);
		ktap_diag(&k, "HOMAIOCABORT(unmapped %p): %s",
			  (void *)(map + page), errno_name(err));
		part_errno(&p, err, EFAULT);

		memset(&args, 0, sizeof(args));
		args.id = id1;
		args.error = ECANCELED;
		memcpy(map + page - 16, &args, 16);
		err = abort_raw(a.ep.fd, map + page - 16);
		ktap_diag(&k, "HOMAIOCABORT(%p: id and error mapped, the rest not): %s",
			  (void *)(map + page - 16), errno_name(err));
		part_errno(&p, err, EFAULT);
	}
	if (map != MAP_FAILED)
		munmap(map, (size_t)page);

	r1 = node_poll_id(&a, id1);
	err = node_answer(&srv, 601, 5000);
	ktap_diag(&k, "after them: recvmsg(id1) MSG_DONTWAIT %s; answered: %s",
		  errno_name((int)r1), errno_name(err));
	ok = !err && node_response_ok(&a, id1, 601, port, 5000, "id1");
	part_result(&p, r1 == -EAGAIN && ok);

	/* MAX_ERRNO is the largest error accepted, and recvmsg reports it. */
	err = homa_abort(a.ep.fd, id2, MAX_ERRNO);
	r = homa_receive_within(a.ep.fd, &a.rx, 0, id2, 2000);
	ktap_diag(&k, "HOMAIOCABORT(id2, %d): %s; recvmsg: %zd (errno %ld), id %llu",
		  MAX_ERRNO, errno_name(err), r < 0 ? (ssize_t)-1 : r,
		  r < 0 ? (long)-r : 0L, (unsigned long long)a.rx.ctl.id);
	part_result(&p, !err && error_ok(&a.rx, r, id2, 602, MAX_ERRNO));
out:
	node_close(&a);
	node_close(&srv);
}

/* --- 7. the ioctl on a UDP socket ------------------------------------ */

static void test_udp(void)
{
	struct part p = PART(udp_cases);
	uint16_t port = base + 7;
	struct homa_abort_args args;
	struct node srv, a;
	uint64_t id1 = 0;
	int err, udp = -1, rc, uerr;
	long r1;

	node_init(&a);
	err = node_open(&srv, port);
	if (!err)
		err = node_open(&a, 0);
	if (!err)
		err = node_send(&a, port, 701, &id1);
	if (!err) {
		udp = socket(family, SOCK_DGRAM, IPPROTO_UDP);
		err = udp < 0 ? -errno : 0;
	}
	if (err) {
		part_fail_rest(&p, err);
		goto out;
	}
	memset(&args, 0, sizeof(args));
	args.id = id1;
	args.error = ECANCELED;
	rc = ioctl(udp, HOMAIOCABORT, &args);
	uerr = rc < 0 ? errno : 0;
	ktap_diag(&k, "ioctl(UDP socket, HOMAIOCABORT, Homa RPC %llu) = %d, errno %s (%d)",
		  (unsigned long long)id1, rc, errno_name(uerr), uerr);
	part_result(&p, rc == -1 && uerr != 0);

	r1 = node_poll_id(&a, id1);
	err = node_answer(&srv, 701, 5000);
	ktap_diag(&k, "Homa RPC: recvmsg MSG_DONTWAIT %s; answered: %s",
		  errno_name((int)r1), errno_name(err));
	part_result(&p, r1 == -EAGAIN && !err &&
		    node_response_ok(&a, id1, 701, port, 5000, "Homa RPC"));
out:
	if (udp >= 0)
		close(udp);
	node_close(&a);
	node_close(&srv);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		void (*run)(void);
	} parts[] = {
		{ "abort_one_of_three", test_one_of_three },
		{ "abort_error0_frees", test_free },
		{ "abort_error0_wakes", test_wake },
		{ "abort_all_eio", test_all },
		{ "abort_foreign_ids", test_foreign },
		{ "abort_bad_args", test_badargs },
		{ "abort_on_udp_socket", test_udp },
	};
	struct watchdog wd;
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "f:", opts, NULL)) != -1) {
		if (c == 'f')
			family = homa_family_parse(optarg);
		if (c != 'f' || family < 0) {
			fprintf(stderr, "usage: %s [--family 4|6]\n", argv[0]);
			return 2;
		}
	}
	resp_buf = malloc(RESP_MAX);
	if (!resp_buf)
		return 1;
	base = family == AF_INET ? 5300 : 5400;
	ktap_start(&k, (int)NUM_CASES);
	ktap_diag(&k, "family %d, server ports %u..%u", family == AF_INET ? 4 : 6,
		  base + 1, base + 14);
	watchdog_start(&wd, &k);
	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		watchdog_arm(&wd, 90, parts[i].name);
		parts[i].run();
	}
	watchdog_disarm(&wd);
	watchdog_stop(&wd);
	free(resp_buf);
	return ktap_finish(&k);
}
