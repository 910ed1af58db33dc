// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_sockapi - the socket API around memory and blocking (issue 10,
 * items 3 and 4):
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
 * Usage: homa_test_sockapi [--family 4|6]
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
#include "expect.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "ktap.h"
#include "watchdog.h"

#define NUM_CASES	15
#define HOMA_DEFAULT_SNDBUF	(32 << 20)	/* kernel/homa_sock.h */
#define REQ_LEN		20000
#define MEMCG_MSGS	8
#define MEMCG_LEN	1000000

static struct ktap k;
static uint8_t *buf;

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
	c->done = 0;
	c->tid = 0;
	homa_rx_init(&c->rx);
	return -pthread_create(&c->thread, NULL, call_main, c);
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
	if (!call_wait(c, 0)) {
		shutdown(c->fd, SHUT_RDWR);
		call_wait(c, 10000);
	}
	pthread_join(c->thread, NULL);
}

static int set_timeo(int fd, int opt, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000,
			      .tv_usec = (ms % 1000) * 1000 };

	return setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv)) ? -errno : 0;
}

/* --- send budget ---------------------------------------------------- */

static const char *const budget_cases[] = {
	"default_sndbuf_is_32MiB", "small_sndbuf_first_send_ok",
	"small_sndbuf_dontwait_eagain", "small_sndbuf_poll_not_writable",
	"small_sndbuf_sndtimeo_eagain", "small_sndbuf_signal_eintr",
	"small_sndbuf_send_blocks",
	"small_sndbuf_send_resumes_after_response",
};

static void test_send_budget(int family, uint16_t port)
{
	struct homa_ep srv, cli;
	union homa_addr dst;
	struct pollfd pfd;
	struct call c = { .send = true };
	struct homa_rx rx;
	uint64_t id1 = 0;
	int val = 0, err, err2;
	socklen_t vlen = sizeof(val);
	long long t0, ms;
	bool blocked;
	ssize_t n;

	homa_rx_init(&rx);
	err = homa_ep_open(&srv, family, port, 64);
	err2 = homa_ep_open(&cli, family, 0, 64);
	if (err || err2) {
		ktap_diag(&k, "sockets: %s %s", errno_name(err),
			  errno_name(err2));
		for (val = 0; val < 8; val++)
			ktap_result(&k, false, "%s", budget_cases[val]);
		return;
	}
	homa_addr_loopback(&dst, family, port);

	err = getsockopt(cli.fd, SOL_SOCKET, SO_SNDBUF, &val, &vlen) ?
	      -errno : 0;
	ktap_diag(&k, "default SO_SNDBUF %d (want %d)", val,
		  HOMA_DEFAULT_SNDBUF);
	ktap_result(&k, !err && val == HOMA_DEFAULT_SNDBUF,
		    "default_sndbuf_is_32MiB");

	val = 4096;
	err = setsockopt(cli.fd, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val)) ?
	      -errno : 0;
	vlen = sizeof(val);
	getsockopt(cli.fd, SOL_SOCKET, SO_SNDBUF, &val, &vlen);
	ktap_diag(&k, "SO_SNDBUF 4096 -> %d (%s)", val, errno_name(err));
	err2 = send_req(cli.fd, &dst, REQ_LEN, MSG_DONTWAIT, &id1);
	ktap_result(&k, !err && err2 == 0, "small_sndbuf_first_send_ok");

	err = send_req(cli.fd, &dst, REQ_LEN, MSG_DONTWAIT, NULL);
	expect_errno(&k, err, EAGAIN, "small_sndbuf_dontwait_eagain");

	pfd.fd = cli.fd;
	pfd.events = POLLOUT;
	pfd.revents = 0;
	n = poll(&pfd, 1, 0);
	ktap_diag(&k, "poll: %zd, revents 0x%x", n, pfd.revents);
	ktap_result(&k, n == 0 && !(pfd.revents & POLLOUT),
		    "small_sndbuf_poll_not_writable");

	set_timeo(cli.fd, SO_SNDTIMEO, 200);
	t0 = now_ms();
	err = send_req(cli.fd, &dst, REQ_LEN, 0, NULL);
	ms = now_ms() - t0;
	set_timeo(cli.fd, SO_SNDTIMEO, 0);
	ktap_diag(&k, "SO_SNDTIMEO 200 ms: %s after %lld ms", errno_name(err),
		  ms);
	ktap_result(&k, err == -EAGAIN && ms >= 150 && ms < 5000,
		    "small_sndbuf_sndtimeo_eagain");

	/* A signal (handler without SA_RESTART) ends a blocked sendmsg. */
	c.fd = cli.fd;
	c.dst = dst;
	c.len = REQ_LEN;
	err = call_start(&c);
	blocked = !err && call_wait_blocked(&c, 3000);
	if (blocked)
		pthread_kill(c.thread, SIGUSR1);
	call_wait(&c, 3000);
	ktap_diag(&k, "blocked %d; after SIGUSR1: %s", blocked,
		  call_done(&c) ? errno_name((int)-c.result) : "still blocked");
	ktap_result(&k, blocked && call_done(&c) && c.result == -EINTR,
		    "small_sndbuf_signal_eintr");
	if (!err)
		call_finish(&c);

	err = call_start(&c);
	blocked = !err && call_wait_blocked(&c, 3000);
	if (!blocked)
		ktap_diag(&k, "blocking send: %s, returned %s",
			  errno_name(err), call_done(&c) ?
			  errno_name((int)-c.result) : "no");
	ktap_result(&k, blocked, "small_sndbuf_send_blocks");

	/* The server answers one request; the client takes the response,
	 * which frees its RPC and so its send memory.
	 */
	n = homa_receive_within(srv.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 5000);
	err = n < 0 ? (int)n :
	      homa_send_response_buf(srv.fd, &rx.src, rx.ctl.id, buf, 100);
	if (!err) {
		homa_rx_init(&rx);
		n = homa_receive_within(cli.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
					5000);
		err = n < 0 ? (int)n : 0;
	}
	ktap_diag(&k, "request answered and response taken: %s",
		  errno_name(err));
	if (!err && call_wait(&c, 5000))
		ktap_diag(&k, "blocked send returned %s after %lld ms",
			  errno_name((int)-c.result), c.ms);
	ktap_result(&k, !err && blocked && call_done(&c) && c.result == 0,
		    "small_sndbuf_send_resumes_after_response");
	call_finish(&c);
	homa_ep_close(&cli);
	homa_ep_close(&srv);
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
static const char *memcg_setup(char *root, size_t len)
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

static void test_memcg(int family, uint16_t port)
{
	char root[128], cg[200], path[300];
	int to_parent[2], to_child[2];
	struct memcg_report r = { .err = -EIO };
	const char *why;
	union homa_addr dst;
	struct homa_ep srv;
	long long drop_to = -1, want = (long long)MEMCG_MSGS * MEMCG_LEN * 9 / 10;
	int err, i;
	pid_t pid;

	why = memcg_setup(root, sizeof(root));
	if (why) {
		ktap_diag(&k, "memory cgroup: %s", why);
		ktap_skip(&k, why, "memcg_charges_send_buffers");
		ktap_skip(&k, why, "memcg_uncharged_after_close");
		return;
	}
	snprintf(cg, sizeof(cg), "%s/homa_sockapi_%d", root, (int)getpid());
	if (mkdir(cg, 0755) && errno != EEXIST) {
		ktap_diag(&k, "mkdir %s: %s", cg, strerror(errno));
		ktap_result(&k, false, "memcg_charges_send_buffers");
		ktap_result(&k, false, "memcg_uncharged_after_close");
		return;
	}
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	err = homa_ep_open(&srv, family, port, 16);
	homa_addr_loopback(&dst, family, port);
	if (err || pipe(to_parent) || pipe(to_child)) {
		ktap_diag(&k, "server/pipes: %s", errno_name(err));
		goto fail;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(to_parent[0]);
		close(to_child[1]);
		memcg_child(cg, &dst, family, to_parent[1], to_child[0]);
	}
	close(to_parent[1]);
	close(to_child[0]);
	if (pid < 0 || read(to_parent[0], &r, sizeof(r)) != sizeof(r))
		r.err = -EIO;
	ktap_diag(&k, "child: %s; memory.current %lld -> %lld (+%lld) after %d requests of %d B (want +%lld)",
		  errno_name(r.err), r.before, r.after, r.after - r.before,
		  MEMCG_MSGS, MEMCG_LEN, want);
	ktap_result(&k, !r.err && r.after - r.before >= want,
		    "memcg_charges_send_buffers");
	if (write(to_child[1], "x", 1) < 0)
		r.err = -errno;
	if (pid > 0)
		waitpid(pid, NULL, 0);
	/* Closing the socket freed the RPCs: the charge goes away. */
	for (i = 0; i < 100; i++) {
		drop_to = read_ll(path);
		if (drop_to >= 0 && drop_to <= r.after - want)
			break;
		usleep(20000);
	}
	ktap_diag(&k, "memory.current after the child exited: %lld",
		  drop_to);
	ktap_result(&k, !r.err && r.after - r.before >= want &&
		    drop_to >= 0 && drop_to <= r.after - want,
		    "memcg_uncharged_after_close");
	close(to_parent[0]);
	close(to_child[1]);
	homa_ep_close(&srv);
	rmdir(cg);
	return;
fail:
	homa_ep_close(&srv);
	rmdir(cg);
	ktap_result(&k, false, "memcg_charges_send_buffers");
	ktap_result(&k, false, "memcg_uncharged_after_close");
}

/* --- recvmsg wakeups ------------------------------------------------ */

static void test_abort_wakes(int family, uint16_t port)
{
	struct call c = { .send = false };
	struct homa_ep srv, cli;
	union homa_addr dst;
	uint64_t id = 0;
	bool blocked = false, woke = false;
	int err;

	err = homa_ep_open(&srv, family, port, 16);
	if (!err)
		err = homa_ep_open(&cli, family, 0, 16);
	homa_addr_loopback(&dst, family, port);
	if (!err)
		err = send_req(cli.fd, &dst, 100, 0, &id);
	if (!err) {
		c.fd = cli.fd;
		c.id = id;
		err = call_start(&c);
	}
	if (!err) {
		blocked = call_wait_blocked(&c, 3000);
		err = homa_abort(cli.fd, id, 0);
		woke = call_wait(&c, 2000);
		ktap_diag(&k, "recvmsg(id %llu) blocked %d; HOMAIOCABORT error 0: %s; recvmsg %s: %s after %lld ms",
			  (unsigned long long)id, blocked, errno_name(err),
			  woke ? "returned" : "still blocked 2 s later",
			  woke ? errno_name((int)-c.result) : "-", c.ms);
		ktap_result(&k, blocked && !err && woke && c.result == -EINVAL,
			    "abort_error0_wakes_recvmsg_by_id_einval");
		call_finish(&c);
	} else {
		ktap_diag(&k, "setup: %s", errno_name(err));
		ktap_result(&k, false, "abort_error0_wakes_recvmsg_by_id_einval");
	}
	homa_ep_close(&cli);
	homa_ep_close(&srv);
}

static void test_rcvtimeo(int family)
{
	struct call c = { .send = false };
	struct homa_ep ep;
	bool woke = false;
	int err;

	err = homa_ep_open(&ep, family, 0, 16);
	if (!err)
		err = set_timeo(ep.fd, SO_RCVTIMEO, 300);
	if (!err) {
		c.fd = ep.fd;
		c.flags = HOMA_RECVMSG_REQUEST | HOMA_RECVMSG_RESPONSE;
		err = call_start(&c);
	}
	if (!err) {
		woke = call_wait(&c, 3000);
		ktap_diag(&k, "SO_RCVTIMEO 300 ms: recvmsg %s: %s after %lld ms",
			  woke ? "returned" : "still blocked 3 s later",
			  woke ? errno_name((int)-c.result) : "-", c.ms);
		call_finish(&c);
	} else {
		ktap_diag(&k, "setup: %s", errno_name(err));
	}
	ktap_result(&k, !err && woke && c.result == -EAGAIN && c.ms >= 250 &&
		    c.ms < 3000, "rcvtimeo_expires_with_eagain");
	homa_ep_close(&ep);
}

/* --- bind with live RPCs -------------------------------------------- */

static void test_bind(int family, uint16_t port, uint16_t other)
{
	struct homa_ep srv, cli;
	union homa_addr dst;
	struct homa_rx rx;
	uint64_t id = 0;
	int err, err2, before, after;
	ssize_t n;

	homa_rx_init(&rx);
	err = homa_ep_open(&srv, family, port, 16);
	if (!err)
		err = homa_ep_open(&cli, family, 0, 16);
	homa_addr_loopback(&dst, family, port);
	if (!err)
		err = send_req(cli.fd, &dst, 100, 0, &id);
	if (err) {
		ktap_diag(&k, "setup: %s", errno_name(err));
		ktap_result(&k, false, "bind_refused_with_live_client_rpc");
		ktap_result(&k, false, "bind_refused_with_live_server_rpc");
		ktap_result(&k, false, "bind_allowed_after_rpcs_end");
		return;
	}
	before = homa_local_port(cli.fd);
	err = homa_bind_port(cli.fd, family, other);
	after = homa_local_port(cli.fd);
	ktap_diag(&k, "client with a live RPC: bind(%u) %s, port %d -> %d",
		  other, errno_name(err), before, after);
	ktap_result(&k, err == -EINVAL && after == before,
		    "bind_refused_with_live_client_rpc");

	/* The server takes the request: a server RPC in service. */
	n = homa_receive_within(srv.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 5000);
	err = n < 0 ? (int)n : homa_bind_port(srv.fd, family, other + 1);
	after = homa_local_port(srv.fd);
	ktap_diag(&k, "server with a request in service: bind(%u) %s, port %u -> %d",
		  other + 1, errno_name(err), port, after);
	ktap_result(&k, n >= 0 && err == -EINVAL && after == port,
		    "bind_refused_with_live_server_rpc");

	/* Once the client RPC is gone (response taken, or aborted when the
	 * response cannot arrive), the client may bind.
	 */
	err = n < 0 ? (int)n :
	      homa_send_response_buf(srv.fd, &rx.src, rx.ctl.id, buf, 100);
	homa_rx_init(&rx);
	n = err ? err : homa_receive_within(cli.fd, &rx,
					    HOMA_RECVMSG_RESPONSE, id, 5000);
	if (n < 0)
		homa_abort(cli.fd, id, 0);
	err2 = homa_bind_port(cli.fd, family, other);
	ktap_diag(&k, "response: %s; then bind(%u): %s",
		  errno_name(n < 0 ? (int)-n : 0), other, errno_name(err2));
	ktap_result(&k, n == 100 && err2 == 0, "bind_allowed_after_rpcs_end");
	homa_ep_close(&cli);
	homa_ep_close(&srv);
}

static void on_signal(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "no-memcg", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa = { 0 };
	int family = AF_INET, c;
	bool memcg = true;
	uint16_t base;
	struct watchdog wd;

	while ((c = getopt_long(argc, argv, "f:m", opts, NULL)) != -1) {
		if (c == 'f')
			family = homa_family_parse(optarg);
		else if (c == 'm')
			memcg = false;
		if ((c != 'f' && c != 'm') || family < 0) {
			fprintf(stderr, "usage: %s [--family 4|6] [--no-memcg]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART */
	buf = calloc(1, MEMCG_LEN);
	if (!buf)
		return 1;
	base = family == AF_INET ? 5100 : 5200;
	/* --no-memcg: a kernel without cgroup2 (the debug kernel) does not
	 * run the two memory cgroup cases at all; a kernel that should have
	 * it and does not gets them reported as skipped, which fails the lab.
	 */
	ktap_start(&k, memcg ? NUM_CASES : NUM_CASES - 2);
	ktap_diag(&k, "family %d", family == AF_INET ? 4 : 6);
	watchdog_start(&wd, &k);

	watchdog_arm(&wd, 60, "send_budget");
	test_send_budget(family, base);
	if (memcg) {
		watchdog_arm(&wd, 60, "memcg");
		test_memcg(family, base + 1);
	}
	watchdog_arm(&wd, 60, "abort_error0_wakes_recvmsg_by_id_einval");
	test_abort_wakes(family, base + 2);
	watchdog_arm(&wd, 60, "rcvtimeo_expires_with_eagain");
	test_rcvtimeo(family);
	watchdog_arm(&wd, 60, "bind");
	test_bind(family, base + 3, base + 10);

	watchdog_stop(&wd);
	free(buf);
	return ktap_finish(&k);
}
