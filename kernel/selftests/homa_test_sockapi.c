// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_sockapi - the socket API around memory and blocking (issue 10,
 * items 3 and 4), for IPv4 and IPv6 (a variant each):
 *  - the send budget: a new socket's SO_SNDBUF is Homa's default (32 MiB);
 *    with a small SO_SNDBUF and a server that does not answer, a second
 *    request gets EAGAIN under MSG_DONTWAIT, poll() reports no POLLOUT,
 *    SO_SNDTIMEO ends a blocked sendmsg with EAGAIN, a signal with EINTR,
 *    and a blocked sendmsg goes on once a response frees the first RPC;
 *  - the memory cgroup sees outgoing messages (__GFP_ACCOUNT), and gives
 *    them back when the socket closes;
 *  - HOMAIOCABORT with error 0 wakes a thread blocked in recvmsg on that
 *    id (EINVAL, as for an id that does not exist);
 *  - SO_RCVTIMEO ends a blocked recvmsg with EAGAIN;
 *  - bind() is refused (EINVAL) while the socket has live RPCs, client or
 *    server, and allowed again once they are gone.
 * "Blocked" means the thread sleeps in that system call: state S in
 * /proc/self/task/<tid>/stat and the call's number in .../syscall, waited
 * for with a deadline.
 *
 * The send budget, memcg and bind fixtures are scenarios of numbered
 * stages: the test of stage N runs stages 1..N again from a fresh set-up
 * (each test is a process of its own) and checks what stage N did.
 *
 * Usage: homa_test_sockapi [--no-memcg] [-- harness options]
 * --no-memcg leaves the memcg fixture out of the plan (a kernel without
 * cgroup2, such as the debug kernel); without it, a kernel that has no
 * memory cgroup reports the memcg tests as skipped (which fails a lab
 * run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blocked_call.h"
#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"

#define HOMA_DEFAULT_SNDBUF	(32 << 20)	/* kernel/homa_sock.h */
#define REQ_LEN		20000
#define MEMCG_MSGS	8
#define MEMCG_LEN	1000000

/*
 * What the old watchdog allowed each scenario (s); a test takes well
 * under a second on the distro kernel (memcg about one).
 */
#define SOCKAPI_TIMEOUT	60

/* Request payloads (the memcg child fills it with 0x5a in its copy). */
static uint8_t buf[MEMCG_LEN];

/* Ports: base (send budget), + 1 (memcg), + 2 (recvmsg), + 3 (bind),
 * + 10 and + 11 (bind's targets).
 */
static uint16_t port_base(int family)
{
	return family == AF_INET ? 5100 : 5200;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* sendmsg of a request with @flags; 0 or -errno. */
static int send_req(int fd, const union homa_addr *dst, size_t len,
		    int flags, uint64_t *id)
{
	struct homa_sendmsg_args args = { .id = 0, .completion_cookie = 7 };
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = (void *)dst,
		.msg_namelen = homa_addr_len(dst),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &args,
		.msg_controllen = 0,
	};

	if (sendmsg(fd, &msg, flags) < 0)
		return -errno;
	if (id)
		*id = args.id;
	return 0;
}

/* A sendmsg or recvmsg in its own thread. */
struct call {
	pthread_t thread;
	bool started;		/* not joined yet */
	bool send;
	int fd;
	union homa_addr dst;	/* send */
	size_t len;		/* send */
	uint32_t flags;		/* recv: HOMA_RECVMSG_* */
	uint64_t id;		/* recv: the id waited for */
	struct homa_rx rx;
	long long result;	/* 0, length or -errno */
	long long ms;		/* how long the call took */
	int done;		/* atomic */
	pid_t tid;		/* atomic */
};

static void *call_main(void *arg)
{
	struct call *c = arg;
	long long t0;

	__atomic_store_n(&c->tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	t0 = now_ms();
	if (c->send)
		c->result = send_req(c->fd, &c->dst, c->len, 0, NULL);
	else
		c->result = homa_receive(c->fd, &c->rx, c->flags, c->id, 0);
	c->ms = now_ms() - t0;
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int call_start(struct call *c)
{
	int err;

	c->done = 0;
	c->tid = 0;
	homa_rx_init(&c->rx);
	err = pthread_create(&c->thread, NULL, call_main, c);
	c->started = !err;
	return -err;
}

static bool call_done(struct call *c)
{
	return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE);
}

/* Waits up to @ms for the call to return. */
static bool call_wait(struct call *c, int ms)
{
	long long end = now_ms() + ms;

	while (!call_done(c) && now_ms() < end)
		usleep(1000);
	return call_done(c);
}

/* Waits up to @ms until the thread sleeps in its call (false if the call
 * returned instead).
 */
static bool call_wait_blocked(struct call *c, int ms)
{
	long nr = c->send ? SYS_sendmsg : SYS_recvmsg;
	long long end = now_ms() + ms;
	pid_t tid;

	for (;;) {
		if (call_done(c))
			return false;
		tid = __atomic_load_n(&c->tid, __ATOMIC_ACQUIRE);
		if (tid && task_sleeps_in_syscall(0, tid, nr))
			return true;
		if (now_ms() >= end)
			return false;
		usleep(1000);
	}
}

/* Ends a call that is still blocked (shutdown wakes it), then joins. */
static void call_finish(struct call *c)
{
	if (!c->started)
		return;
	if (!call_wait(c, 0)) {
		shutdown(c->fd, SHUT_RDWR);
		call_wait(c, 10000);
	}
	pthread_join(c->thread, NULL);
	c->started = false;
}

static int set_timeo(int fd, int opt, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (ms % 1000) * 1000 };

	return setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv)) ? -errno : 0;
}

static void on_signal(int sig)
{
	(void)sig;
}

/*
 * --- send budget -----------------------------------------------------
 * A client and a server that does not answer. Stages: 1 the default
 * SO_SNDBUF; 2 SO_SNDBUF 4096 and a first request under MSG_DONTWAIT;
 * 3 a second one under MSG_DONTWAIT; 4 poll(POLLOUT); 5 a blocking send
 * with SO_SNDTIMEO 200 ms; 6 a blocked send and SIGUSR1 (handler without
 * SA_RESTART); 7 a blocked send; 8 the server answers the first request
 * and the client takes the response, which frees its RPC and so its send
 * memory.
 */
FIXTURE(send_budget) {
	struct homa_ep srv, cli;
	union homa_addr dst;
	struct call c;
	uint64_t id1;
	int dflt, dflt_err, set_err, first_err, dontwait_err;
	int poll_n, revents;
	int timeo_err;
	long long timeo_ms;
	bool sig_blocked, sig_done;
	long long sig_result;
	bool blocked;
	int resume_err;
	bool resumed;
};

FIXTURE_VARIANT(send_budget) {
	int family;
};

HOMA_FAMILY_VARIANTS(send_budget);

FIXTURE_SETUP(send_budget)
{
	uint16_t port = port_base(variant->family);
	struct sigaction sa = { 0 };

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	ASSERT_ERRNO(0, sys_err(sigaction(SIGUSR1, &sa, NULL)));
	self->srv.fd = -1;
	self->cli.fd = -1;
	ASSERT_ERRNO(0, homa_ep_open(&self->srv, variant->family, port, 64));
	ASSERT_ERRNO(0, homa_ep_open(&self->cli, variant->family, 0, 64));
	homa_addr_loopback(&self->dst, variant->family, port);
	self->c.send = true;
	self->c.fd = self->cli.fd;
	self->c.dst = self->dst;
	self->c.len = REQ_LEN;
}

FIXTURE_TEARDOWN(send_budget)
{
	call_finish(&self->c);
	homa_ep_close(&self->cli);
	homa_ep_close(&self->srv);
}

static void send_budget_run(struct __test_metadata *_metadata,
			    FIXTURE_DATA(send_budget) *self, int last)
{
	struct call *c = &self->c;
	int fd = self->cli.fd;
	socklen_t vlen;
	struct pollfd pfd;
	struct homa_rx rx;
	long long t0;
	int val, err;
	ssize_t n;

	val = 0;
	vlen = sizeof(val);
	self->dflt_err = sys_err(getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &val,
					    &vlen));
	self->dflt = val;
	TH_LOG("default SO_SNDBUF %d (want %d)", val, HOMA_DEFAULT_SNDBUF);
	if (last == 1)
		return;

	val = 4096;
	self->set_err = sys_err(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &val,
					   sizeof(val)));
	vlen = sizeof(val);
	getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &val, &vlen);
	TH_LOG("SO_SNDBUF 4096 -> %d (%s)", val, errno_name(self->set_err));
	self->first_err = send_req(fd, &self->dst, REQ_LEN, MSG_DONTWAIT,
				   &self->id1);
	if (last == 2)
		return;

	self->dontwait_err = send_req(fd, &self->dst, REQ_LEN, MSG_DONTWAIT,
				      NULL);
	if (last == 3)
		return;

	pfd.fd = fd;
	pfd.events = POLLOUT;
	pfd.revents = 0;
	self->poll_n = poll(&pfd, 1, 0);
	self->revents = pfd.revents;
	TH_LOG("poll: %d, revents 0x%x", self->poll_n, self->revents);
	if (last == 4)
		return;

	set_timeo(fd, SO_SNDTIMEO, 200);
	t0 = now_ms();
	self->timeo_err = send_req(fd, &self->dst, REQ_LEN, 0, NULL);
	self->timeo_ms = now_ms() - t0;
	set_timeo(fd, SO_SNDTIMEO, 0);
	TH_LOG("SO_SNDTIMEO 200 ms: %s after %lld ms",
	       errno_name(self->timeo_err), self->timeo_ms);
	if (last == 5)
		return;

	/* A signal (handler without SA_RESTART) ends a blocked sendmsg. */
	err = call_start(c);
	self->sig_blocked = !err && call_wait_blocked(c, 3000);
	if (self->sig_blocked)
		pthread_kill(c->thread, SIGUSR1);
	if (!err)
		call_wait(c, 3000);
	self->sig_done = !err && call_done(c);
	self->sig_result = self->sig_done ? c->result : 1;
	TH_LOG("blocked %d; after SIGUSR1: %s", self->sig_blocked,
	       self->sig_done ? errno_name((int)-c->result) : "still blocked");
	call_finish(c);
	if (last == 6)
		return;

	err = call_start(c);
	self->blocked = !err && call_wait_blocked(c, 3000);
	if (!self->blocked)
		TH_LOG("blocking send: %s, returned %s", errno_name(err),
		       !err && call_done(c) ?
		       errno_name((int)-c->result) : "no");
	if (last == 7)
		return;

	homa_rx_init(&rx);
	n = homa_receive_within(self->srv.fd, &rx, HOMA_RECVMSG_REQUEST, 0,
				5000);
	err = n < 0 ? (int)n :
	      homa_send_response_buf(self->srv.fd, &rx.src, rx.ctl.id, buf,
				     100);
	if (!err) {
		homa_rx_init(&rx);
		n = homa_receive_within(fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
					5000);
		err = n < 0 ? (int)n : 0;
	}
	self->resume_err = err;
	TH_LOG("request answered and response taken: %s", errno_name(err));
	if (!err && c->started && call_wait(c, 5000))
		TH_LOG("blocked send returned %s after %lld ms",
		       errno_name((int)-c->result), c->ms);
	self->resumed = c->started && call_done(c) && c->result == 0;
}

TEST_F_TIMEOUT(send_budget, default_sndbuf_is_32MiB, SOCKAPI_TIMEOUT)
{
	send_budget_run(_metadata, self, 1);
	EXPECT_ERRNO(0, self->dflt_err);
	EXPECT_EQ(HOMA_DEFAULT_SNDBUF, self->dflt);
}

TEST_F_TIMEOUT(send_budget, small_sndbuf_first_send_ok, SOCKAPI_TIMEOUT)
{
	send_budget_run(_metadata, self, 2);
	EXPECT_ERRNO(0, self->set_err);
	EXPECT_ERRNO(0, self->first_err);
}

TEST_F_TIMEOUT(send_budget, small_sndbuf_dontwait_eagain, SOCKAPI_TIMEOUT)
{
	send_budget_run(_metadata, self, 3);
	EXPECT_ERRNO(EAGAIN, self->dontwait_err);
}

TEST_F_TIMEOUT(send_budget, small_sndbuf_poll_not_writable, SOCKAPI_TIMEOUT)
{
	send_budget_run(_metadata, self, 4);
	EXPECT_EQ(0, self->poll_n);
	EXPECT_FALSE(self->revents & POLLOUT);
}

TEST_F_TIMEOUT(send_budget, small_sndbuf_sndtimeo_eagain, SOCKAPI_TIMEOUT)
{
	send_budget_run(_metadata, self, 5);
	EXPECT_ERRNO(EAGAIN, self->timeo_err);
	EXPECT_GE(self->timeo_ms, 150);
	EXPECT_LT(self->timeo_ms, 5000);
}

TEST_F_TIMEOUT(send_budget, small_sndbuf_signal_eintr, SOCKAPI_TIMEOUT)
{
	send_budget_run(_metadata, self, 6);
	EXPECT_TRUE(self->sig_blocked);
	EXPECT_TRUE(self->sig_done);
	EXPECT_EQ(-EINTR, self->sig_result);
}

TEST_F_TIMEOUT(send_budget, small_sndbuf_send_blocks, SOCKAPI_TIMEOUT)
{
	send_budget_run(_metadata, self, 7);
	EXPECT_TRUE(self->blocked);
}

TEST_F_TIMEOUT(send_budget, small_sndbuf_send_resumes_after_response,
	       SOCKAPI_TIMEOUT)
{
	send_budget_run(_metadata, self, 8);
	EXPECT_ERRNO(0, self->resume_err);
	EXPECT_TRUE(self->blocked);
	EXPECT_TRUE(self->resumed);
}

/* --- memory cgroup -------------------------------------------------- */

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static long long read_ll(const char *path)
{
	char b[64];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	b[n] = 0;
	return strtoll(b, NULL, 10);
}

static bool file_has(const char *path, const char *word)
{
	char b[4096];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return false;
	b[n] = 0;
	return strstr(b, word) != NULL;
}

/* Mounts cgroup2 at /sys/fs/cgroup unless it is mounted; the root of the
 * hierarchy goes to @root. Returns NULL or the reason there is none.
 */
static const char *memcg_prepare(char *root, size_t len)
{
	char path[256];

	if (!file_has("/proc/filesystems", "cgroup2"))
		return "kernel has no cgroup2 (/proc/filesystems)";
	snprintf(root, len, "/sys/fs/cgroup");
	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	if (access(path, R_OK) &&
	    mount("none", root, "cgroup2", 0, NULL))
		return "cannot mount cgroup2 at /sys/fs/cgroup";
	if (!file_has(path, "memory"))
		return "cgroup2 has no memory controller";
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	if (!file_has(path, "memory") && write_file(path, "+memory"))
		return "cannot enable the memory controller";
	return NULL;
}

struct memcg_report {
	long long before;
	long long after;
	int err;
};

/* The child in the cgroup: 8 requests of 1 MB to a server that does not
 * read, memory.current before and after.
 */
static void memcg_child(const char *cg, const union homa_addr *dst,
			int family, int out, int in)
{
	struct memcg_report r = { 0 };
	char path[300];
	int fd, i;
	char c;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	r.err = write_file(path, "0");
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	fd = homa_socket(family);
	if (fd < 0 && !r.err)
		r.err = fd;
	memset(buf, 0x5a, MEMCG_LEN);
	r.before = read_ll(path);
	for (i = 0; i < MEMCG_MSGS && !r.err; i++)
		r.err = send_req(fd, dst, MEMCG_LEN, 0, NULL);
	r.after = read_ll(path);
	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	if (read(in, &c, 1) < 0)
		_exit(1);
	_exit(0);
}

/*
 * A child process in a cgroup of its own sends 8 requests of 1 MB to a
 * server that does not read them, then exits. Stages: 1 memory.current
 * grows by at least 90% of what was sent; 2 it falls back by as much
 * once the child (and so its socket) is gone. Without a memory cgroup
 * the tests are skipped, with the reason (--no-memcg leaves them out).
 */
FIXTURE(memcg) {
	char cg[200];
	bool made;
	struct homa_ep srv;
	union homa_addr dst;
	int to_parent[2], to_child[2];
	pid_t pid;
	struct memcg_report r;
	long long want, drop_to;
};

FIXTURE_VARIANT(memcg) {
	int family;
};

HOMA_FAMILY_VARIANTS(memcg);

FIXTURE_SETUP(memcg)
{
	uint16_t port = port_base(variant->family) + 1;
	char root[128];
	const char *why;

	self->srv.fd = -1;
	self->to_parent[0] = -1;
	self->to_parent[1] = -1;
	self->to_child[0] = -1;
	self->to_child[1] = -1;
	self->pid = -1;
	self->want = (long long)MEMCG_MSGS * MEMCG_LEN * 9 / 10;
	why = memcg_prepare(root, sizeof(root));
	if (why)
		SKIP(return, "memory cgroup: %s", why);
	snprintf(self->cg, sizeof(self->cg), "%s/homa_sockapi_%d", root,
		 (int)getpid());
	ASSERT_FALSE(mkdir(self->cg, 0755) && errno != EEXIST)
		TH_LOG("mkdir %s: %s", self->cg, strerror(errno));
	self->made = true;
	ASSERT_ERRNO(0, homa_ep_open(&self->srv, variant->family, port, 16));
	homa_addr_loopback(&self->dst, variant->family, port);
	ASSERT_ERRNO(0, sys_err(pipe(self->to_parent)));
	ASSERT_ERRNO(0, sys_err(pipe(self->to_child)));
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

FIXTURE_TEARDOWN(memcg)
{
	/* A child still waiting sees its pipe close and exits. */
	close_fd(&self->to_child[1]);
	if (self->pid > 0)
		waitpid(self->pid, NULL, 0);
	close_fd(&self->to_parent[0]);
	close_fd(&self->to_parent[1]);
	close_fd(&self->to_child[0]);
	homa_ep_close(&self->srv);
	if (self->made)
		rmdir(self->cg);
}

static void memcg_run(struct __test_metadata *_metadata,
		      FIXTURE_DATA(memcg) *self, int family, int last)
{
	char path[300];
	struct memcg_report *r = &self->r;
	long long want = self->want;
	int i;

	fflush(stdout);
	fflush(stderr);
	self->pid = fork();
	if (self->pid == 0) {
		close(self->to_parent[0]);
		close(self->to_child[1]);
		memcg_child(self->cg, &self->dst, family, self->to_parent[1],
			    self->to_child[0]);
	}
	close_fd(&self->to_parent[1]);
	close_fd(&self->to_child[0]);
	if (self->pid < 0 ||
	    read(self->to_parent[0], r, sizeof(*r)) != sizeof(*r))
		r->err = -EIO;
	TH_LOG("child: %s; memory.current %lld -> %lld (+%lld) after %d requests of %d B (want +%lld)",
	       errno_name(r->err), r->before, r->after, r->after - r->before,
	       MEMCG_MSGS, MEMCG_LEN, want);
	if (last == 1)
		return;

	if (write(self->to_child[1], "x", 1) < 0)
		r->err = -errno;
	if (self->pid > 0)
		waitpid(self->pid, NULL, 0);
	self->pid = -1;
	/* Closing the socket freed the RPCs: the charge goes away. */
	snprintf(path, sizeof(path), "%s/memory.current", self->cg);
	self->drop_to = -1;
	for (i = 0; i < 100; i++) {
		self->drop_to = read_ll(path);
		if (self->drop_to >= 0 && self->drop_to <= r->after - want)
			break;
		usleep(20000);
	}
	TH_LOG("memory.current after the child exited: %lld", self->drop_to);
}

TEST_F_TIMEOUT(memcg, charges_send_buffers, SOCKAPI_TIMEOUT)
{
	memcg_run(_metadata, self, variant->family, 1);
	EXPECT_ERRNO(0, self->r.err);
	EXPECT_GE(self->r.after - self->r.before, self->want);
}

TEST_F_TIMEOUT(memcg, uncharged_after_close, SOCKAPI_TIMEOUT)
{
	memcg_run(_metadata, self, variant->family, 2);
	EXPECT_ERRNO(0, self->r.err);
	EXPECT_GE(self->r.after - self->r.before, self->want);
	EXPECT_GE(self->drop_to, 0);
	EXPECT_LE(self->drop_to, self->r.after - self->want);
}

/*
 * --- recvmsg wakeups -------------------------------------------------
 * A recvmsg in a thread of its own: HOMAIOCABORT(id, 0) wakes it when it
 * waits for that id, SO_RCVTIMEO ends it when it waits for anything.
 */
FIXTURE(blocked_recvmsg) {
	struct homa_ep srv, cli;
	struct call c;
};

FIXTURE_VARIANT(blocked_recvmsg) {
	int family;
};

HOMA_FAMILY_VARIANTS(blocked_recvmsg);

FIXTURE_SETUP(blocked_recvmsg)
{
	self->srv.fd = -1;
	self->cli.fd = -1;
	self->c.send = false;
}

FIXTURE_TEARDOWN(blocked_recvmsg)
{
	call_finish(&self->c);
	homa_ep_close(&self->cli);
	homa_ep_close(&self->srv);
}

TEST_F_TIMEOUT(blocked_recvmsg, abort_error0_wakes_by_id_einval,
	       SOCKAPI_TIMEOUT)
{
	uint16_t port = port_base(variant->family) + 2;
	struct call *c = &self->c;
	union homa_addr dst;
	bool blocked, woke;
	uint64_t id = 0;
	int err;

	ASSERT_ERRNO(0, homa_ep_open(&self->srv, variant->family, port, 16));
	ASSERT_ERRNO(0, homa_ep_open(&self->cli, variant->family, 0, 16));
	homa_addr_loopback(&dst, variant->family, port);
	ASSERT_ERRNO(0, send_req(self->cli.fd, &dst, 100, 0, &id));
	c->fd = self->cli.fd;
	c->id = id;
	ASSERT_ERRNO(0, call_start(c));
	blocked = call_wait_blocked(c, 3000);
	err = homa_abort(self->cli.fd, id, 0);
	woke = call_wait(c, 2000);
	TH_LOG("recvmsg(id %llu) blocked %d; HOMAIOCABORT error 0: %s; recvmsg %s: %s after %lld ms",
	       (unsigned long long)id, blocked, errno_name(err),
	       woke ? "returned" : "still blocked 2 s later",
	       woke ? errno_name((int)-c->result) : "-", c->ms);
	EXPECT_TRUE(blocked);
	EXPECT_ERRNO(0, err);
	EXPECT_TRUE(woke);
	EXPECT_EQ(-EINVAL, woke ? c->result : 0);
}

TEST_F_TIMEOUT(blocked_recvmsg, rcvtimeo_expires_with_eagain,
	       SOCKAPI_TIMEOUT)
{
	struct call *c = &self->c;
	bool woke;

	ASSERT_ERRNO(0, homa_ep_open(&self->cli, variant->family, 0, 16));
	ASSERT_ERRNO(0, set_timeo(self->cli.fd, SO_RCVTIMEO, 300));
	c->fd = self->cli.fd;
	c->flags = HOMA_RECVMSG_REQUEST | HOMA_RECVMSG_RESPONSE;
	ASSERT_ERRNO(0, call_start(c));
	woke = call_wait(c, 3000);
	TH_LOG("SO_RCVTIMEO 300 ms: recvmsg %s: %s after %lld ms",
	       woke ? "returned" : "still blocked 3 s later",
	       woke ? errno_name((int)-c->result) : "-", c->ms);
	call_finish(c);
	EXPECT_TRUE(woke);
	EXPECT_EQ(-EAGAIN, c->result);
	EXPECT_GE(c->ms, 250);
	EXPECT_LT(c->ms, 3000);
}

/*
 * --- bind with live RPCs ---------------------------------------------
 * A client with a request outstanding to a server. Stages: 1 the client
 * binds to another port; 2 the server takes the request (a server RPC in
 * service) and binds to another port; 3 once the client RPC is gone
 * (response taken, or aborted when the response cannot arrive), the
 * client binds again.
 */
FIXTURE(bind) {
	uint16_t port, other;
	struct homa_ep srv, cli;
	uint64_t id;
	int client_err, client_before, client_after;
	int server_err, server_after;
	ssize_t n, resp;
	int rebind_err;
};

FIXTURE_VARIANT(bind) {
	int family;
};

HOMA_FAMILY_VARIANTS(bind);

FIXTURE_SETUP(bind)
{
	union homa_addr dst;

	self->port = port_base(variant->family) + 3;
	self->other = port_base(variant->family) + 10;
	self->srv.fd = -1;
	self->cli.fd = -1;
	ASSERT_ERRNO(0, homa_ep_open(&self->srv, variant->family, self->port,
				     16));
	ASSERT_ERRNO(0, homa_ep_open(&self->cli, variant->family, 0, 16));
	homa_addr_loopback(&dst, variant->family, self->port);
	ASSERT_ERRNO(0, send_req(self->cli.fd, &dst, 100, 0, &self->id));
}

FIXTURE_TEARDOWN(bind)
{
	homa_ep_close(&self->cli);
	homa_ep_close(&self->srv);
}

static void bind_run(struct __test_metadata *_metadata,
		     FIXTURE_DATA(bind) *self, int family, int last)
{
	struct homa_rx rx;
	int err;

	self->client_before = homa_local_port(self->cli.fd);
	self->client_err = homa_bind_port(self->cli.fd, family, self->other);
	self->client_after = homa_local_port(self->cli.fd);
	TH_LOG("client with a live RPC: bind(%u) %s, port %d -> %d",
	       self->other, errno_name(self->client_err), self->client_before,
	       self->client_after);
	if (last == 1)
		return;

	homa_rx_init(&rx);
	self->n = homa_receive_within(self->srv.fd, &rx, HOMA_RECVMSG_REQUEST,
				      0, 5000);
	self->server_err = self->n < 0 ? (int)self->n :
			   homa_bind_port(self->srv.fd, family,
					  self->other + 1);
	self->server_after = homa_local_port(self->srv.fd);
	TH_LOG("server with a request in service: bind(%u) %s, port %u -> %d",
	       self->other + 1, errno_name(self->server_err), self->port,
	       self->server_after);
	if (last == 2)
		return;

	err = self->n < 0 ? (int)self->n :
	      homa_send_response_buf(self->srv.fd, &rx.src, rx.ctl.id, buf,
				     100);
	homa_rx_init(&rx);
	self->resp = err ? err :
		     homa_receive_within(self->cli.fd, &rx,
					 HOMA_RECVMSG_RESPONSE, self->id,
					 5000);
	if (self->resp < 0)
		homa_abort(self->cli.fd, self->id, 0);
	self->rebind_err = homa_bind_port(self->cli.fd, family, self->other);
	TH_LOG("response: %s; then bind(%u): %s",
	       errno_name(self->resp < 0 ? (int)-self->resp : 0), self->other,
	       errno_name(self->rebind_err));
}

TEST_F_TIMEOUT(bind, refused_with_live_client_rpc, SOCKAPI_TIMEOUT)
{
	bind_run(_metadata, self, variant->family, 1);
	EXPECT_ERRNO(EINVAL, self->client_err);
	EXPECT_EQ(self->client_before, self->client_after);
}

TEST_F_TIMEOUT(bind, refused_with_live_server_rpc, SOCKAPI_TIMEOUT)
{
	bind_run(_metadata, self, variant->family, 2);
	EXPECT_GE(self->n, 0);
	EXPECT_ERRNO(EINVAL, self->server_err);
	EXPECT_EQ(self->port, self->server_after);
}

TEST_F_TIMEOUT(bind, allowed_after_rpcs_end, SOCKAPI_TIMEOUT)
{
	bind_run(_metadata, self, variant->family, 3);
	EXPECT_EQ(100, self->resp);
	EXPECT_ERRNO(0, self->rebind_err);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-memcg", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	bool memcg = true;
	char **hargv;
	int c, i, n;

	while ((c = getopt_long(argc, argv, "m", opts, NULL)) != -1) {
		if (c != 'm') {
			fprintf(stderr,
				"usage: %s [--no-memcg] [-- harness options]\n",
				argv[0]);
			return 2;
		}
		memcg = false;
	}
	if (memcg)
		return homa_harness_run(argc, argv, optind);

	/*
	 * --no-memcg: a kernel without cgroup2 (the debug kernel) does not
	 * run the memcg fixture at all; a kernel that should have it and
	 * does not gets its tests reported as skipped, which fails the lab.
	 * The exclusion goes first: the harness stops at the first filter
	 * that matches.
	 */
	hargv = calloc((size_t)(argc - optind + 4), sizeof(*hargv));
	if (!hargv)
		return 1;
	n = 0;
	hargv[n++] = argv[0];
	hargv[n++] = "-F";
	hargv[n++] = "memcg";
	for (i = optind; i < argc; i++)
		hargv[n++] = argv[i];
	return homa_harness_run(n, hargv, 1);
}
