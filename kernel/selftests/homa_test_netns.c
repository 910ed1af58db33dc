// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_netns - Homa in network namespaces other than the initial one.
 *
 * A container's network namespace must get its own Homa: its own net.homa
 * sysctls (starting at the defaults, whatever the initial namespace was set
 * to), its own /proc/net/homa_metrics counting its own traffic, settings
 * that govern its own sockets only, and no state that outlives it. Checks:
 *   - child_has_per_namespace_sysctls: with the initial namespace's
 *     timeout_ticks at 200, a new namespace's timeout_ticks is 100, and
 *     every per-namespace sysctl exists there with its default;
 *   - child_lacks_module_wide_sysctls: the module-wide sysctls (reap_limit
 *     and the like) are absent in the child's /proc/sys/net/homa, which
 *     exists, and present in the initial namespace;
 *   - sysctl_write_stays_in_namespace: timeout_ticks written in the child
 *     leaves the initial namespace's value alone, and the other way round;
 *   - child_has_own_metrics: a new namespace's rpcs_created is 0; after 20
 *     echoes over its loopback it has grown by at least 40 while the
 *     initial namespace's stayed the same; the next new namespace starts
 *     at 0 again;
 *   - module_wide_metrics_same_in_child: timer_runs, timer_ns and
 *     rcvmem_bytes are the module's: read in the initial namespace, the
 *     child and the initial namespace again, the child's timer_runs and
 *     timer_ns lie between the two others, and rcvmem_bytes is the same
 *     in all three and not 0 (the initial namespace holds unread requests);
 *   - limit_applies_per_namespace: with max_server_rpcs 1 in a child, 3
 *     requests to a server that does not read admit one and drop the rest
 *     there (drop_rpc_limit), not counted in the initial namespace; the
 *     same 3 requests in the initial namespace (default limit), made while
 *     the child still has its limit, are all admitted, none dropped;
 *   - dead_namespace_peers_freed: 20 namespaces made and destroyed one
 *     after the other, each with one RPC over its loopback: each starts
 *     with peers_live 0 and has 1 after its RPC (a peer of a dead namespace
 *     whose struct net address came back would be found instead, and its
 *     count would stay 0; how many namespaces got the inode number of a
 *     dead one, i.e. came after its cleanup, is printed).
 *
 *   - limits_read_only_in_user_namespace: in a namespace made together
 *     with a user namespace (its root is nobody's root on the host), the
 *     limits resend_peer_limit, rexmit_peer_kb, max_server_rpcs and
 *     max_server_rpcs_per_peer can be read (their defaults) but not
 *     written (EACCES), and the timing parameters can (timeout_ticks);
 *     left out with --no-userns (a kernel without user namespaces).
 *
 * Each namespace is made by a forked process (unshare(CLONE_NEWNET), lo
 * brought up with SIOCSIFFLAGS) that does what this process asks through
 * a pipe and answers through another; only the test prints. Each test
 * sets the initial namespace's timeout_ticks to INIT_TIMEOUT_TICKS first
 * and restores it at its end.
 *
 * Every test runs over IPv4 and IPv6 (variants ipv4, ipv6).
 *
 * usage: homa_test_netns [--no-userns] [-- HARNESS OPTIONS (-v ipv4 ...)]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "echo.h"
#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "rpc_client.h"

#define SYSCTL_DIR		"/proc/sys/net/homa"
#define METRICS_FILE		"/proc/net/homa_metrics"
#define INIT_TIMEOUT_TICKS	200	/* the initial namespace's, meanwhile */
#define CHILD_TIMEOUT_TICKS	50
#define OTHER_TIMEOUT_TICKS	300
#define ECHO_RPCS		20
#define ECHO_LEN		100
#define HOLD_PORT		4730
/* The loopback echo server's port (only a bound socket takes requests). */
#define ECHO_PORT		4731
#define HOLD_RPCS		3
#define PEER_NAMESPACES		20

/* net.homa sysctls every namespace has, with their defaults. */
/* @limit: read-only in a namespace of another user namespace. */
static const struct {
	const char *name;
	long def;
	bool limit;
} per_ns_sysctls[] = {
	{ "resend_ticks", 5, false },
	{ "resend_interval", 5, false },
	{ "timeout_ticks", 100, false },
	{ "resend_peer_limit", 8, true },
	{ "rexmit_peer_kb", 512, true },
	{ "request_ack_ticks", 2, false },
	{ "max_server_rpcs", 4096, true },
	{ "max_server_rpcs_per_peer", 512, true },
	{ "max_gso_size", 10000, false },
};

/* net.homa sysctls of the module as a whole: the initial namespace's. */
static const char *const module_wide_sysctls[] = {
	"reap_limit", "dead_buffs_limit", "peer_idle_secs", "rcvmem_max_kb",
	"link_mbps", "max_nic_queue_ns", "max_tx_queue_kb", "pacer_fifo_every",
	"throttle_min_bytes",
};

/* What a namespace's process is asked to do. */
enum ns_op {
	NS_STAT,		/* stat(name): value = inode number */
	NS_SYSCTL_READ,		/* net.homa.<name> */
	NS_SYSCTL_WRITE,	/* net.homa.<name> = arg */
	NS_METRIC,		/* metric <name> */
	NS_ECHO,		/* arg echoes over loopback: value = completed */
	NS_HOLD_START,		/* arg requests to a server that does not read */
	NS_EXIT,		/* no answer */
};

struct ns_cmd {
	int op;
	long long arg;
	char name[64];
};

struct ns_reply {
	int err;		/* 0 or -errno */
	long long value;
	long long value2;
	char detail[112];	/* what went wrong */
};

/* The sockets of NS_HOLD_START, kept until agent_stop(). */
struct ns_hold {
	struct homa_ep srv;
	struct homa_ep cli;
	bool open;
};

/*
 * A network namespace and the process acting in it. pid 0 is the initial
 * namespace, where this process itself acts; otherwise a forked process
 * that made its own namespace (its copy of @hold is the one used).
 */
struct ns_agent {
	const char *name;	/* for diagnostics */
	pid_t pid;
	int cmd_fd;		/* we write commands */
	int reply_fd;		/* we read answers */
	int family;
	bool userns;		/* its namespace comes with a user namespace */
	bool quiet;		/* agent_do() prints no diagnostic */
	struct ns_hold hold;
};

struct netns_test {
	struct __test_metadata *md;	/* the test, for its "#" lines */
	int family;
	long old_timeout;	/* the initial namespace's, to restore */
	int timeout_err;	/* setting it to INIT_TIMEOUT_TICKS */
};

/* A "#" line of @t's test (TH_LOG outside the test's own function). */
#define NS_LOG(t, fmt, ...) do { \
	struct __test_metadata *_metadata = (t)->md; \
	TH_LOG(fmt, ##__VA_ARGS__); \
} while (0)

static void reply_fail(struct ns_reply *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void reply_fail(struct ns_reply *r, int err, const char *fmt, ...)
{
	va_list ap;

	r->err = err;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
}

/* A metric of this namespace; on failure r->err says why. */
static long long metric(const char *name, struct ns_reply *r)
{
	long long v = homa_metric(name);

	if (v >= 0)
		return v;
	if (access(METRICS_FILE, R_OK))
		reply_fail(r, -errno, METRICS_FILE ": %s", errno_name(errno));
	else
		reply_fail(r, -ENODATA, "no metric %s", name);
	return -1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* @n echoes of ECHO_LEN bytes to a server thread, both on loopback. */
static void do_echo(struct ns_agent *a, int n, struct ns_reply *r)
{
	static uint8_t buf[ECHO_LEN];
	struct rpc_result res;
	struct echo_thread srv;
	union homa_addr dst;
	struct homa_ep cli;
	struct homa_rx rx;
	int err, i;

	err = echo_thread_start(&srv, a->family, ECHO_PORT, 8);
	if (err) {
		reply_fail(r, err, "echo server socket: %s", errno_name(err));
		return;
	}
	err = homa_ep_open(&cli, a->family, 0, 8);
	if (err) {
		reply_fail(r, err, "client socket: %s", errno_name(err));
		echo_thread_stop(&srv);
		return;
	}
	homa_addr_loopback(&dst, a->family, srv.ep.port);
	homa_rx_init(&rx);
	for (i = 0; i < n; i++) {
		if (!rpc_echo_checked(&cli, &rx, &dst, buf, sizeof(buf),
				      (uint64_t)i + 1, 1, &res)) {
			reply_fail(r, res.err ? res.err : -EBADMSG,
				   "echo %d: %s: %s %s", i, res.stage,
				   errno_name(res.err), res.detail);
			break;
		}
		r->value++;
	}
	homa_ep_close(&cli);
	echo_thread_stop(&srv);
}

/*
 * @n one-packet requests to a server socket (HOLD_PORT) that does not
 * read them; waits (2 s at most) until each has made a server RPC or was
 * dropped at a limit. value: drop_rpc_limit's growth, value2:
 * server_rpcs_live's. The sockets stay open until agent_stop().
 */
static void do_hold(struct ns_agent *a, int n, struct ns_reply *r)
{
	struct ns_hold *h = &a->hold;
	long long drops0, live0, drops = 0, live = 0, end;
	static uint8_t buf[ECHO_LEN];
	union homa_addr dst;
	uint64_t id;
	int err, i;

	if (h->open) {
		reply_fail(r, -EBUSY, "requests already held");
		return;
	}
	drops0 = metric("drop_rpc_limit", r);
	live0 = metric("server_rpcs_live", r);
	if (r->err)
		return;
	err = homa_ep_open(&h->srv, a->family, HOLD_PORT, 4);
	if (err) {
		reply_fail(r, err, "server socket on port %d: %s", HOLD_PORT,
			   errno_name(err));
		return;
	}
	err = homa_ep_open(&h->cli, a->family, 0, 0);
	if (err) {
		reply_fail(r, err, "client socket: %s", errno_name(err));
		homa_ep_close(&h->srv);
		return;
	}
	h->open = true;
	homa_addr_loopback(&dst, a->family, HOLD_PORT);
	for (i = 0; i < n; i++) {
		err = homa_send_request_buf(h->cli.fd, &dst, buf, sizeof(buf),
					    (uint64_t)i, &id);
		if (err) {
			reply_fail(r, err, "request %d: %s", i,
				   errno_name(err));
			return;
		}
	}
	end = now_ms() + 2000;
	do {
		usleep(20 * 1000);
		drops = metric("drop_rpc_limit", r) - drops0;
		live = metric("server_rpcs_live", r) - live0;
	} while (!r->err && drops + live < n && now_ms() < end);
	r->value = drops;
	r->value2 = live;
}

static void do_hold_end(struct ns_agent *a)
{
	if (!a->hold.open)
		return;
	homa_ep_close(&a->hold.cli);
	homa_ep_close(&a->hold.srv);
	a->hold.open = false;
}

/* Does @c in the namespace of the calling process. */
static void ns_exec(struct ns_agent *a, const struct ns_cmd *c,
		    struct ns_reply *r)
{
	char path[128];
	struct stat st;
	int err;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), SYSCTL_DIR "/%s", c->name);
	switch (c->op) {
	case NS_STAT:
		if (stat(c->name, &st))
			reply_fail(r, -errno, "stat %s: %s", c->name,
				   errno_name(errno));
		else
			r->value = (long long)st.st_ino;
		break;
	case NS_SYSCTL_READ:
		if (stat(path, &st)) {
			reply_fail(r, -errno, "%s: %s", path,
				   errno_name(errno));
			break;
		}
		r->value = homa_sysctl_read(c->name);
		if (r->value < 0)
			reply_fail(r, -EIO, "%s: cannot read a number", path);
		break;
	case NS_SYSCTL_WRITE:
		err = homa_sysctl_set(c->name, (long)c->arg);
		if (err)
			reply_fail(r, err, "write %lld to %s: %s", c->arg,
				   path, errno_name(err));
		break;
	case NS_METRIC:
		r->value = metric(c->name, r);
		break;
	case NS_ECHO:
		do_echo(a, (int)c->arg, r);
		break;
	case NS_HOLD_START:
		do_hold(a, (int)c->arg, r);
		break;
	default:
		reply_fail(r, -EINVAL, "unknown op %d", c->op);
	}
}

/* Reads exactly @len bytes: 0, -EPIPE at end of file, or -errno. */
static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		got += (size_t)n;
	}
	return 0;
}

/* One write of @len bytes (at most PIPE_BUF: atomic): 0 or -errno. */
static int write_all(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* Brings this namespace's lo up (which gives it 127.0.0.1 and ::1). */
static int loopback_up(struct ns_reply *r)
{
	struct ifreq ifr;
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		reply_fail(r, -errno, "socket(AF_INET, SOCK_DGRAM): %s",
			   errno_name(errno));
		return r->err;
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		err = -errno;
		reply_fail(r, err, "SIOCGIFFLAGS lo: %s", errno_name(err));
	} else {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr)) {
			err = -errno;
			reply_fail(r, err, "SIOCSIFFLAGS lo up: %s",
				   errno_name(err));
		}
	}
	close(fd);
	return err;
}

/*
 * The forked process: makes its namespace, answers whether that worked,
 * then does each command until NS_EXIT or the end of the pipe.
 */
static void __attribute__((noreturn)) agent_main(struct ns_agent *a)
{
	struct ns_reply r;
	struct ns_cmd c;

	memset(&r, 0, sizeof(r));
	/* Not left behind if the test dies (e.g. by its timeout). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		reply_fail(&r, -errno, "prctl(PR_SET_PDEATHSIG): %s",
			   errno_name(errno));
	else if (unshare(CLONE_NEWNET | (a->userns ? CLONE_NEWUSER : 0)))
		reply_fail(&r, -errno, "unshare(CLONE_NEWNET%s): %s",
			   a->userns ? " | CLONE_NEWUSER" : "",
			   errno_name(errno));
	else
		loopback_up(&r);
	if (write_all(a->reply_fd, &r, sizeof(r)) || r.err)
		_exit(1);
	while (read_full(a->cmd_fd, &c, sizeof(c)) == 0 && c.op != NS_EXIT) {
		c.name[sizeof(c.name) - 1] = '\0';
		ns_exec(a, &c, &r);
		if (write_all(a->reply_fd, &r, sizeof(r)))
			break;
	}
	_exit(0);
}

/* The initial namespace, acted in by this process. */
static void agent_init(struct ns_agent *a, int family)
{
	memset(a, 0, sizeof(*a));
	a->name = "initial namespace";
	a->family = family;
	a->cmd_fd = -1;
	a->reply_fd = -1;
}

/* Reaps the agent's process and closes its pipes. */
static void agent_stop(struct netns_test *t, struct ns_agent *a)
{
	struct ns_cmd c = { .op = NS_EXIT };
	int status;
	pid_t p;

	if (a->pid <= 0) {
		do_hold_end(a);
		return;
	}
	write_all(a->cmd_fd, &c, sizeof(c));
	close(a->cmd_fd);
	close(a->reply_fd);
	do
		p = waitpid(a->pid, &status, 0);
	while (p < 0 && errno == EINTR);
	if (p < 0)
		NS_LOG(t, "waitpid(%d): %s", (int)a->pid,
			  errno_name(errno));
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		NS_LOG(t, "%s process ended with status %#x", a->name,
			  status);
	a->pid = 0;
}

/*
 * Forks a process that makes a new network namespace with lo up. Returns
 * true when it is ready, else reports why (diagnostic) and returns false.
 * Only one such process may live at a time (it holds copies of the
 * other's pipes otherwise; NS_EXIT still ends it).
 */
static bool agent_start_as(struct netns_test *t, struct ns_agent *a,
			   const char *name, bool userns)
{
	int cmd[2], reply[2], err;
	struct ns_reply r;

	agent_init(a, t->family);
	a->name = name;
	a->userns = userns;
	if (pipe2(cmd, O_CLOEXEC)) {
		NS_LOG(t, "pipe2: %s", errno_name(errno));
		return false;
	}
	if (pipe2(reply, O_CLOEXEC)) {
		NS_LOG(t, "pipe2: %s", errno_name(errno));
		close(cmd[0]);
		close(cmd[1]);
		return false;
	}
	a->pid = fork();
	if (a->pid == 0) {
		close(cmd[1]);
		close(reply[0]);
		a->cmd_fd = cmd[0];
		a->reply_fd = reply[1];
		agent_main(a);
	}
	err = a->pid < 0 ? errno : 0;
	close(cmd[0]);
	close(reply[1]);
	a->cmd_fd = cmd[1];
	a->reply_fd = reply[0];
	if (err) {
		NS_LOG(t, "fork: %s", errno_name(err));
		close(a->cmd_fd);
		close(a->reply_fd);
		a->pid = 0;
		return false;
	}
	err = read_full(a->reply_fd, &r, sizeof(r));
	if (err || r.err) {
		NS_LOG(t, "%s: setting up: %s", name,
			  err ? "the process died" : r.detail);
		agent_stop(t, a);
		return false;
	}
	return true;
}

/* A new namespace of the host's user namespace: see agent_start_as(). */
static bool agent_start(struct netns_test *t, struct ns_agent *a,
			const char *name)
{
	return agent_start_as(t, a, name, false);
}

/*
 * Does @op in @a's namespace. Returns true when it worked; otherwise a
 * diagnostic (unless @a->quiet) names the namespace and what went wrong.
 */
static bool agent_do(struct netns_test *t, struct ns_agent *a, int op,
		     const char *name, long long arg, struct ns_reply *r)
{
	struct ns_cmd c;
	int err;

	memset(&c, 0, sizeof(c));
	c.op = op;
	c.arg = arg;
	snprintf(c.name, sizeof(c.name), "%s", name ? name : "");
	if (a->pid <= 0) {
		ns_exec(a, &c, r);
	} else {
		err = write_all(a->cmd_fd, &c, sizeof(c));
		if (!err)
			err = read_full(a->reply_fd, r, sizeof(*r));
		if (err) {
			memset(r, 0, sizeof(*r));
			reply_fail(r, err, "talking to its process: %s",
				   errno_name(err));
		}
	}
	if (r->err && !a->quiet)
		NS_LOG(t, "%s: %s", a->name, r->detail);
	return r->err == 0;
}

/* A value from @a's namespace, or -1 (with a diagnostic). */
static long long agent_value(struct netns_test *t, struct ns_agent *a,
			     int op, const char *name)
{
	struct ns_reply r;

	return agent_do(t, a, op, name, 0, &r) ? r.value : -1;
}

/*
 * Each test: the initial namespace's timeout_ticks at INIT_TIMEOUT_TICKS
 * (so that a child's default shows), put back at the end.
 */
FIXTURE(netns) {
	struct netns_test t;
};

FIXTURE_VARIANT(netns) {
	int family;
};

HOMA_FAMILY_VARIANTS(netns);

FIXTURE_SETUP(netns)
{
	struct netns_test *t = &self->t;

	t->md = _metadata;
	t->family = variant->family;
	t->old_timeout = homa_sysctl_read("timeout_ticks");
	t->timeout_err = t->old_timeout < 0 ? -ENOENT :
			 homa_sysctl_set("timeout_ticks", INIT_TIMEOUT_TICKS);
}

FIXTURE_TEARDOWN(netns)
{
	struct netns_test *t = &self->t;

	if (t->old_timeout > 0 &&
	    homa_sysctl_set("timeout_ticks", t->old_timeout))
		TH_LOG("restoring timeout_ticks %ld failed", t->old_timeout);
}

/*
 * A new namespace has every per-namespace sysctl, at its default (its
 * timeout_ticks is 100 while the initial namespace's is 200).
 */
TEST_F_TIMEOUT(netns, child_has_per_namespace_sysctls, 30)
{
	struct netns_test *t = &self->t;
	struct ns_agent child;
	size_t i;

	EXPECT_ERRNO(0, t->timeout_err)
		TH_LOG("initial namespace: timeout_ticks %d",
		       INIT_TIMEOUT_TICKS);
	ASSERT_TRUE(agent_start(t, &child, "child namespace"));
	for (i = 0; i < ARRAY_SIZE(per_ns_sysctls); i++) {
		EXPECT_EQ(per_ns_sysctls[i].def,
			  agent_value(t, &child, NS_SYSCTL_READ,
				      per_ns_sysctls[i].name))
			TH_LOG("child namespace: %s, want the default",
			       per_ns_sysctls[i].name);
	}
	agent_stop(t, &child);
}

/*
 * The module-wide sysctls are the initial namespace's only: present there,
 * absent in a child's /proc/sys/net/homa (which exists).
 */
TEST_F_TIMEOUT(netns, child_lacks_module_wide_sysctls, 30)
{
	struct netns_test *t = &self->t;
	struct ns_agent init, child;
	char path[128];
	struct ns_reply r;
	size_t i;

	agent_init(&init, t->family);
	ASSERT_TRUE(agent_start(t, &child, "child namespace"));
	/* Absent names mean something only where the directory exists. */
	EXPECT_TRUE(agent_do(t, &child, NS_STAT, SYSCTL_DIR, 0, &r));
	/* ENOENT is what the child must answer: no line for it. */
	child.quiet = true;
	for (i = 0; i < ARRAY_SIZE(module_wide_sysctls); i++) {
		snprintf(path, sizeof(path), SYSCTL_DIR "/%s",
			 module_wide_sysctls[i]);
		EXPECT_TRUE(agent_do(t, &init, NS_STAT, path, 0, &r));
		memset(&r, 0, sizeof(r));
		agent_do(t, &child, NS_STAT, path, 0, &r);
		EXPECT_EQ(-ENOENT, r.err)
			TH_LOG("child namespace: %s: %s", path,
			       r.err ? r.detail : "present");
	}
	agent_stop(t, &child);
}

/* timeout_ticks written in one namespace is not seen in the other. */
TEST_F_TIMEOUT(netns, sysctl_write_stays_in_namespace, 30)
{
	struct netns_test *t = &self->t;
	struct ns_agent init, child;
	struct ns_reply r;

	EXPECT_ERRNO(0, t->timeout_err)
		TH_LOG("initial namespace: timeout_ticks %d",
		       INIT_TIMEOUT_TICKS);
	agent_init(&init, t->family);
	ASSERT_TRUE(agent_start(t, &child, "child namespace"));
	/* The child's write, seen in the child only. */
	EXPECT_TRUE(agent_do(t, &child, NS_SYSCTL_WRITE, "timeout_ticks",
			     CHILD_TIMEOUT_TICKS, &r));
	EXPECT_EQ(CHILD_TIMEOUT_TICKS,
		  agent_value(t, &child, NS_SYSCTL_READ, "timeout_ticks"))
		TH_LOG("child namespace's timeout_ticks");
	EXPECT_EQ(INIT_TIMEOUT_TICKS,
		  agent_value(t, &init, NS_SYSCTL_READ, "timeout_ticks"))
		TH_LOG("initial namespace's timeout_ticks");
	/* The initial namespace's write, seen there only. */
	EXPECT_TRUE(agent_do(t, &init, NS_SYSCTL_WRITE, "timeout_ticks",
			     OTHER_TIMEOUT_TICKS, &r));
	EXPECT_EQ(OTHER_TIMEOUT_TICKS,
		  agent_value(t, &init, NS_SYSCTL_READ, "timeout_ticks"))
		TH_LOG("initial namespace's timeout_ticks");
	EXPECT_EQ(CHILD_TIMEOUT_TICKS,
		  agent_value(t, &child, NS_SYSCTL_READ, "timeout_ticks"))
		TH_LOG("child namespace's timeout_ticks");
	agent_do(t, &init, NS_SYSCTL_WRITE, "timeout_ticks",
		 INIT_TIMEOUT_TICKS, &r);
	agent_stop(t, &child);
}

/*
 * A new namespace's metrics start at 0 and count its own traffic only;
 * the next new namespace starts at 0 again.
 */
TEST_F_TIMEOUT(netns, child_has_own_metrics, 60)
{
	long long c0 = -1, c1 = -1, fresh = -1, i0, i1;
	struct netns_test *t = &self->t;
	struct ns_agent init, child;
	struct ns_reply r;
	bool echoed;

	agent_init(&init, t->family);
	ASSERT_TRUE(agent_start(t, &child, "child namespace"));
	c0 = agent_value(t, &child, NS_METRIC, "rpcs_created");
	i0 = agent_value(t, &init, NS_METRIC, "rpcs_created");
	echoed = agent_do(t, &child, NS_ECHO, NULL, ECHO_RPCS, &r);
	c1 = agent_value(t, &child, NS_METRIC, "rpcs_created");
	i1 = agent_value(t, &init, NS_METRIC, "rpcs_created");
	agent_stop(t, &child);
	/* A namespace made after that traffic starts from nothing too. */
	if (agent_start(t, &child, "second child namespace")) {
		fresh = agent_value(t, &child, NS_METRIC, "rpcs_created");
		agent_stop(t, &child);
	}
	TH_LOG("measured: child rpcs_created %lld -> %lld over %lld of %d echoes, initial namespace %lld -> %lld, second child %lld",
	       c0, c1, r.value, ECHO_RPCS, i0, i1, fresh);
	EXPECT_TRUE(echoed);
	EXPECT_EQ(0, c0);
	EXPECT_GE(c1, 2 * ECHO_RPCS);
	EXPECT_GE(i0, 0);
	EXPECT_EQ(i0, i1);
	EXPECT_EQ(0, fresh);
}

/*
 * timer_runs, timer_ns and rcvmem_bytes are the module's: the child's
 * counters lie between two readings in the initial namespace, and the
 * gauge (not 0: the initial namespace holds unread requests) is the same
 * in all three.
 */
TEST_F_TIMEOUT(netns, module_wide_metrics_same_in_child, 30)
{
	static const char *const names[] = {
		"timer_runs", "timer_ns", "rcvmem_bytes"
	};
	long long v[3][ARRAY_SIZE(names)];
	struct netns_test *t = &self->t;
	struct ns_agent init, child;
	struct ns_reply r;
	bool held;
	size_t i;

	agent_init(&init, t->family);
	ASSERT_TRUE(agent_start(t, &child, "child namespace"));
	/* Unread requests in the initial namespace keep receive memory. */
	held = agent_do(t, &init, NS_HOLD_START, NULL, HOLD_RPCS, &r);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		v[0][i] = agent_value(t, &init, NS_METRIC, names[i]);
		v[1][i] = agent_value(t, &child, NS_METRIC, names[i]);
		v[2][i] = agent_value(t, &init, NS_METRIC, names[i]);
		TH_LOG("measured: %s: initial namespace %lld, child %lld, initial namespace %lld",
		       names[i], v[0][i], v[1][i], v[2][i]);
	}
	agent_stop(t, &init);
	agent_stop(t, &child);
	EXPECT_TRUE(held);
	/* Counters: the child's lies between two readings of the module's. */
	for (i = 0; i < 2; i++) {
		EXPECT_GT(v[0][i], 0) TH_LOG("%s", names[i]);
		EXPECT_LE(v[0][i], v[1][i]) TH_LOG("%s", names[i]);
		EXPECT_LE(v[1][i], v[2][i]) TH_LOG("%s", names[i]);
	}
	/* The gauge does not move while the requests wait. */
	EXPECT_GT(v[0][2], 0);
	EXPECT_EQ(v[0][2], v[1][2]);
	EXPECT_EQ(v[0][2], v[2][2]);
}

/*
 * max_server_rpcs 1 in a child: of HOLD_RPCS requests to a server that
 * does not read, one is admitted and the rest dropped there, none counted
 * in the initial namespace; the same requests in the initial namespace
 * (default limit), while the child keeps its limit, are all admitted.
 */
TEST_F_TIMEOUT(netns, limit_applies_per_namespace, 60)
{
	long long d0, d1, d2, max_rpcs, max_peer;
	struct netns_test *t = &self->t;
	struct ns_agent init, child;
	struct ns_reply rc, ri;

	agent_init(&init, t->family);
	memset(&rc, 0, sizeof(rc));
	memset(&ri, 0, sizeof(ri));
	max_rpcs = agent_value(t, &init, NS_SYSCTL_READ, "max_server_rpcs");
	max_peer = agent_value(t, &init, NS_SYSCTL_READ,
			       "max_server_rpcs_per_peer");
	EXPECT_GE(max_rpcs, HOLD_RPCS)
		TH_LOG("initial namespace: max_server_rpcs");
	EXPECT_GE(max_peer, HOLD_RPCS)
		TH_LOG("initial namespace: max_server_rpcs_per_peer");
	ASSERT_TRUE(agent_start(t, &child, "child namespace"));
	EXPECT_TRUE(agent_do(t, &child, NS_SYSCTL_WRITE, "max_server_rpcs", 1,
			     &rc));
	d0 = agent_value(t, &init, NS_METRIC, "drop_rpc_limit");
	EXPECT_TRUE(agent_do(t, &child, NS_HOLD_START, NULL, HOLD_RPCS, &rc));
	d1 = agent_value(t, &init, NS_METRIC, "drop_rpc_limit");
	/* The same in the initial namespace while the child has its limit. */
	EXPECT_TRUE(agent_do(t, &init, NS_HOLD_START, NULL, HOLD_RPCS, &ri));
	d2 = agent_value(t, &init, NS_METRIC, "drop_rpc_limit");
	agent_stop(t, &init);
	agent_stop(t, &child);
	TH_LOG("measured: %d requests: child (max_server_rpcs 1) %lld admitted, %lld dropped; initial namespace %lld admitted, %lld dropped; initial drop_rpc_limit %lld -> %lld during the child's, %lld after its own",
	       HOLD_RPCS, rc.value2, rc.value, ri.value2, ri.value, d0, d1,
	       d2);
	/* The child: one admitted, the rest dropped. */
	EXPECT_GE(rc.value, HOLD_RPCS - 1);
	EXPECT_EQ(1, rc.value2);
	/* Not counted in the initial namespace. */
	EXPECT_GE(d0, 0);
	EXPECT_EQ(d0, d1);
	/* The initial namespace: all admitted, none dropped. */
	EXPECT_EQ(0, ri.value);
	EXPECT_EQ(HOLD_RPCS, ri.value2);
	EXPECT_EQ(d1, d2);
}

/*
 * PEER_NAMESPACES namespaces made and destroyed one after the other, each
 * with one RPC over its loopback: each starts with peers_live 0 and has 1
 * after its RPC (a peer of a dead namespace whose struct net address came
 * back would be found instead, and its count would stay 0).
 */
TEST_F_TIMEOUT(netns, dead_namespace_peers_freed, 120)
{
	long long before, after, ino[PEER_NAMESPACES];
	struct netns_test *t = &self->t;
	int i, j, reused = 0, failed = 0;
	struct ns_reply rb, re, ra;
	struct ns_agent child;
	const char *why;
	char name[48];
	bool echoed;

	for (i = 0; i < PEER_NAMESPACES; i++) {
		snprintf(name, sizeof(name), "child namespace %d", i);
		if (!agent_start(t, &child, name))
			break;
		/* The inode number comes back once a namespace is freed. */
		ino[i] = agent_value(t, &child, NS_STAT, "/proc/self/ns/net");
		for (j = 0; j < i && ino[i] >= 0; j++)
			if (ino[j] == ino[i]) {
				reused++;
				break;
			}
		/* One line per namespace below, for the first few only. */
		child.quiet = true;
		before = agent_do(t, &child, NS_METRIC, "peers_live", 0, &rb) ?
			 rb.value : -1;
		echoed = agent_do(t, &child, NS_ECHO, NULL, 1, &re);
		after = agent_do(t, &child, NS_METRIC, "peers_live", 0, &ra) ?
			ra.value : -1;
		agent_stop(t, &child);
		why = rb.err ? rb.detail : re.err ? re.detail : ra.detail;
		if ((!echoed || before != 0 || after != 1) && ++failed <= 3)
			TH_LOG("%s: peers_live %lld before its RPC, %lld after (want 0 and 1)%s%s",
			       name, before, after, *why ? ": " : "", why);
		/* Give the namespace's cleanup (asynchronous) time to run,
		 * so that the next one may get its memory.
		 */
		usleep(100 * 1000);
	}
	TH_LOG("measured: %d namespaces, %d wrong, %d with the inode number of one already dead (freed before it was made)",
	       i, failed, reused);
	EXPECT_EQ(PEER_NAMESPACES, i);
	EXPECT_EQ(0, failed);
}

/*
 * In a namespace made together with a user namespace (its root is
 * nobody's root on the host) every per-namespace sysctl reads its
 * default; the limits cannot be written (EACCES), the timing parameters
 * can. Left out with --no-userns (a kernel without user namespaces).
 */
TEST_F_TIMEOUT(netns, limits_read_only_in_user_namespace, 30)
{
	struct netns_test *t = &self->t;
	struct ns_agent child;
	struct ns_reply r;
	size_t i;

	ASSERT_TRUE(agent_start_as(t, &child, "namespace of a user namespace",
				   true));
	child.quiet = true;
	for (i = 0; i < ARRAY_SIZE(per_ns_sysctls); i++) {
		const char *name = per_ns_sysctls[i].name;
		long def = per_ns_sysctls[i].def;
		int want = per_ns_sysctls[i].limit ? -EACCES : 0;

		EXPECT_EQ(def, agent_value(t, &child, NS_SYSCTL_READ, name))
			TH_LOG("%s: cannot read %s's default %ld", child.name,
			       name, def);
		memset(&r, 0, sizeof(r));
		agent_do(t, &child, NS_SYSCTL_WRITE, name, def, &r);
		EXPECT_EQ(want, r.err)
			TH_LOG("%s: writing %s: %s, want %s", child.name, name,
			       r.err ? r.detail : "it worked",
			       want ? errno_name(-want) : "success");
	}
	agent_stop(t, &child);
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--no-userns] [-- HARNESS OPTIONS]\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-userns", no_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	bool userns = true;
	char **hargv;
	int opt, i, n;

	while ((opt = getopt_long(argc, argv, "u", opts, NULL)) != -1) {
		if (opt == 'u')
			userns = false;
		else
			usage(argv[0]);
	}
	/* A namespace's process that died must not kill us on a write. */
	signal(SIGPIPE, SIG_IGN);
	if (userns)
		return homa_harness_run(argc, argv, optind);

	/* --no-userns: the harness leaves that test out (not a SKIP). */
	n = argc - optind;
	hargv = calloc((size_t)n + 4, sizeof(*hargv));
	if (!hargv)
		return 2;
	hargv[0] = argv[0];
	hargv[1] = "-T";
	hargv[2] = "limits_read_only_in_user_namespace";
	for (i = 0; i < n; i++)
		hargv[3 + i] = argv[optind + i];
	return homa_harness_run(n + 3, hargv, 1);
}
