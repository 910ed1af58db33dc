// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_rcvmem - guest side of the receive-memory tests (issue 10,
 * items 7 and 10). The packets come from the lab host (rcvmem_host.sh
 * injects them with homa-pktgen).
 *
 * Tools, not tests (the lab's scripts run them between host steps):
 *   homa_test_rcvmem server --family 4|6 --port P --rcvbuf B --pidfile F
 *       Starts an echo server daemon (64 bpages) whose socket has the
 *       receive budget B (SO_RCVBUFFORCE; the kernel doubles it, as for
 *       any socket); prints the budget it got.
 *   homa_test_rcvmem stop --pidfile F
 *       Stops it (closing a socket that may still hold RPCs).
 *   homa_test_rcvmem monitor --file F
 *       Starts a daemon that samples the metric rcvmem_bytes, used memory
 *       (MemTotal - MemAvailable) and Slab every 10 ms and keeps the first
 *       and largest values in F.
 * The tests (kselftest harness):
 *   homa_test_rcvmem [--port P --budget B --file F [--slack-kb K]
 *                    [--global]] [-- HARNESS ARGS]
 *       default_budget: a new socket's receive budget is Homa's default
 *       (64 MiB), not net.core.rmem_default.
 *       check (needs --port, --budget, --file): after a flood of one-byte
 *       segments at the server on P (budget B, as the server printed it,
 *       or net.homa.rcvmem_max_kb with --global): receive memory stayed
 *       within the budget, memory in use grew by less than the budget
 *       plus slack, drops were counted (drop_rcvbuf, and drop_msg_mem
 *       unless --global), the flood's RPCs time out, the receive memory
 *       is given back, and well-formed RPCs (100 B and 200 KB) are
 *       served. The host floods one family at a time: select its variant
 *       ("-- -V ipv6 -f check": the harness's filters stop at the first
 *       match).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "echo.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "harness.h"

/*
 * Memory in use may grow by at most the budget plus SLACK_KB (it is
 * noisy), slab memory by the budget plus SLAB_SLACK_KB (RPCs, gaps). The
 * flood keeps 16,000 skbs without accounting: slab grew by ~6.9 MB then.
 * --slack-kb replaces both: a debug kernel's KASAN quarantine and
 * kmemleak metadata make freed and live objects cost more slab.
 */
#define SLACK_KB	(4 * 1024)
#define SLAB_SLACK_KB	(2 * 1024)
/* The largest skb one packet may add over the budget. */
#define ONE_SKB		(64 * 1024)
#define BIG_LEN		(200 * 1000)
#define DEFAULT_RCVBUF	(64LL << 20)

/* The options: a tool's, or the tests' (they read them from here). */
static struct opts {
	const char *mode;	/* server, stop, monitor; NULL for the tests */
	int family;
	int port;
	long long rcvbuf;
	long long slack_kb;
	const char *file;
	bool global;	/* check: the bound is rcvmem_max_kb, not the socket's */
} cfg;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long long used_kb(void)
{
	return homa_meminfo_kb("MemTotal") - homa_meminfo_kb("MemAvailable");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: homa_test_rcvmem server --family 4|6 --port P --rcvbuf B --pidfile F\n"
		"       homa_test_rcvmem stop --pidfile F\n"
		"       homa_test_rcvmem monitor --file F\n"
		"       homa_test_rcvmem [--port P --budget B --file F [--slack-kb K] [--global]] [-- HARNESS ARGS]\n");
	exit(2);
}

/* Fills cfg; optind is then the first argument for the harness. */
static void parse(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "port", required_argument, NULL, 'p' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ "budget", required_argument, NULL, 'r' },
		{ "file", required_argument, NULL, 'F' },
		{ "pidfile", required_argument, NULL, 'F' },
		{ "slack-kb", required_argument, NULL, 's' },
		{ "global", no_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts *o = &cfg;
	int c;

	o->family = AF_INET;
	optind = 1;
	if (argc > 1 && (!strcmp(argv[1], "server") ||
			 !strcmp(argv[1], "stop") ||
			 !strcmp(argv[1], "monitor"))) {
		o->mode = argv[1];
		optind = 2;
	}
	while ((c = getopt_long(argc, argv, "f:p:r:F:s:g", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->family = homa_family_parse(optarg);
			if (o->family < 0)
				usage();
			break;
		case 'p':
			o->port = atoi(optarg);
			break;
		case 'r':
			o->rcvbuf = atoll(optarg);
			break;
		case 'F':
			o->file = optarg;
			break;
		case 's':
			o->slack_kb = atoll(optarg);
			break;
		case 'g':
			o->global = true;
			break;
		default:
			usage();
		}
	}
}

static int read_pid(const char *file)
{
	int pid = 0;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%d", &pid) != 1)
		pid = -1;
	fclose(f);
	return pid;
}

static int write_pid(const char *file, int pid)
{
	FILE *f = fopen(file, "w");

	if (!f)
		return -1;
	fprintf(f, "%d\n", pid);
	fclose(f);
	return 0;
}

/* Detaches a daemon child from the lab's output. */
static void quiet(void)
{
	int fd;

	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
}

static int do_server(const struct opts *o)
{
	int ready[2], rcvbuf = (int)o->rcvbuf, got = 0;
	socklen_t len = sizeof(got);
	struct homa_ep ep;
	long served = 0;
	pid_t pid;
	int err;

	if (!o->file || o->port <= 0 || o->rcvbuf <= 0 || pipe(ready) < 0)
		usage();
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid > 0) {
		close(ready[1]);
		if (read(ready[0], &got, sizeof(got)) != sizeof(got) ||
		    got <= 0) {
			printf("# rcvmem server did not start\n");
			return 1;
		}
		write_pid(o->file, pid);
		printf("# rcvmem server: pid %d, port %d, sk_rcvbuf %d\n",
		       (int)pid, o->port, got);
		return 0;
	}
	close(ready[0]);
	err = homa_ep_open(&ep, o->family, (uint16_t)o->port, 64);
	if (!err && setsockopt(ep.fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
			       sizeof(rcvbuf)) < 0)
		err = -errno;
	if (!err && getsockopt(ep.fd, SOL_SOCKET, SO_RCVBUF, &got, &len) < 0)
		err = -errno;
	if (err)
		got = err;
	if (write(ready[1], &got, sizeof(got)) != sizeof(got) || err)
		_exit(1);
	close(ready[1]);
	quiet();
	echo_serve(&ep, &served, NULL, NULL);
	homa_ep_close(&ep);
	_exit(0);
}

/* True while @pid exists and is not a zombie. */
static bool alive(int pid)
{
	char path[64], line[128];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "State:", 6) == 0)
			found = strchr(line, 'Z') == NULL;
	fclose(f);
	return found;
}

static int do_stop(const struct opts *o)
{
	int pid, i;

	if (!o->file)
		usage();
	pid = read_pid(o->file);
	if (pid <= 1 || kill(pid, SIGTERM) < 0) {
		printf("# rcvmem server: no such process\n");
		return 1;
	}
	for (i = 0; i < 100; i++) {
		if (!alive(pid))
			return 0;
		usleep(100000);
	}
	printf("# rcvmem server pid %d did not exit\n", pid);
	return 1;
}

/* What the monitor keeps. */
struct mon {
	long long rmem0, rmem_peak, used0, used_peak, slab0, slab_peak;
	long long samples, timeouts0, rcvbuf0, msgmem0, live0, data0;
};

static volatile sig_atomic_t mon_stop;

static void on_term(int sig)
{
	(void)sig;
	mon_stop = 1;
}

#define MON_FMT "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld"

static void mon_write(const char *file, const struct mon *m)
{
	char tmp[256];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, MON_FMT "\n", m->rmem0, m->rmem_peak, m->used0,
		m->used_peak, m->slab0, m->slab_peak, m->samples, m->timeouts0,
		m->rcvbuf0, m->msgmem0, m->live0, m->data0);
	fclose(f);
	rename(tmp, file);
}

static int mon_read(const char *file, struct mon *m)
{
	FILE *f = fopen(file, "r");
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, MON_FMT, &m->rmem0, &m->rmem_peak, &m->used0,
		   &m->used_peak, &m->slab0, &m->slab_peak, &m->samples,
		   &m->timeouts0, &m->rcvbuf0, &m->msgmem0, &m->live0,
		   &m->data0);
	fclose(f);
	return n == 12 ? 0 : -EINVAL;
}

static long long max_ll(long long a, long long b)
{
	return a > b ? a : b;
}

static int do_monitor(const struct opts *o)
{
	struct mon m = {};
	char pidfile[256];
	pid_t pid;

	if (!o->file)
		usage();
	m.rmem0 = m.rmem_peak = homa_metric("rcvmem_bytes");
	m.used0 = m.used_peak = used_kb();
	m.slab0 = m.slab_peak = homa_meminfo_kb("Slab");
	m.timeouts0 = homa_metric("timeouts");
	m.rcvbuf0 = homa_metric("drop_rcvbuf");
	m.msgmem0 = homa_metric("drop_msg_mem");
	m.live0 = homa_metric("server_rpcs_live");
	m.data0 = homa_metric("pkts_rcvd_DATA");
	mon_write(o->file, &m);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid > 0) {
		snprintf(pidfile, sizeof(pidfile), "%s.pid", o->file);
		write_pid(pidfile, pid);
		printf("# monitor pid %d: rcvmem_bytes %lld, used %lld kB, Slab %lld kB\n",
		       (int)pid, m.rmem0, m.used0, m.slab0);
		return 0;
	}
	quiet();
	signal(SIGTERM, on_term);
	while (!mon_stop) {
		usleep(10000);
		m.rmem_peak = max_ll(m.rmem_peak, homa_metric("rcvmem_bytes"));
		m.used_peak = max_ll(m.used_peak, used_kb());
		m.slab_peak = max_ll(m.slab_peak, homa_meminfo_kb("Slab"));
		if (++m.samples % 10 == 0)
			mon_write(o->file, &m);
	}
	mon_write(o->file, &m);
	_exit(0);
}

/*
 * Stops the monitor of @file (once: its pid file goes with it) and reads
 * what it kept.
 */
static int monitor_stop(const char *file, struct mon *m)
{
	char pidfile[256];
	int pid, i;

	snprintf(pidfile, sizeof(pidfile), "%s.pid", file);
	if (access(pidfile, F_OK))
		return mon_read(file, m);	/* stopped, or never started */
	pid = read_pid(pidfile);
	if (pid <= 1)
		return -ENOENT;
	kill(pid, SIGTERM);
	for (i = 0; i < 100 && kill(pid, 0) == 0; i++)
		usleep(20000);
	unlink(pidfile);	/* stopped once, for every test */
	return mon_read(file, m);
}

/* Echo of a @len-byte request to @server from a fresh socket: 0 or -errno. */
static int echo_rpc(int family, const union homa_addr *server, size_t len)
{
	uint8_t *req = malloc(len), *resp = malloc(len);
	struct homa_ep ep;
	struct homa_rx rx;
	uint64_t id;
	size_t i;
	ssize_t n;
	int err;

	if (!req || !resp) {
		free(req);
		free(resp);
		return -ENOMEM;
	}
	for (i = 0; i < len; i++)
		req[i] = (uint8_t)(i * 7 + 3);
	err = homa_ep_open(&ep, family, 0, homa_bpages_for(len) + 2);
	if (!err)
		err = homa_send_request_buf(ep.fd, server, req, len, 1, &id);
	if (!err) {
		homa_rx_init(&rx);
		n = homa_receive(ep.fd, &rx, 0, id, 0);
		if (n < 0)
			err = (int)n;
		else if ((size_t)n != len)
			err = -EMSGSIZE;
		else if (homa_rx_copy(&ep.region, &rx, resp, len))
			err = -EFAULT;
		else if (memcmp(req, resp, len))
			err = -EBADMSG;
		homa_ep_close(&ep);
	}
	free(req);
	free(resp);
	return err;
}

/*
 * Receive memory stays within a socket's budget under a flood of
 * one-byte segments (the host's, at the server on --port whose budget is
 * --budget, or net.homa.rcvmem_max_kb with --global). The monitor,
 * started before the flood, kept the first and largest values; setup
 * waits for the flood's RPCs to time out (ticks are up to ~5 ms on a
 * debug guest) and be reaped, then stops it, once.
 */
FIXTURE(check) {
	struct mon m;
	bool gone;
};

FIXTURE_VARIANT(check) {
	int family;
};

HOMA_FAMILY_VARIANTS(check);

FIXTURE_SETUP(check)
{
	long ticks = homa_sysctl_read("timeout_ticks");
	long long t0;
	int err = 0, i;

	if (!cfg.file || cfg.port <= 0 || cfg.rcvbuf <= 0)
		SKIP(return, "needs --port, --budget and --file (the monitor's)");
	for (i = 0; i < 20; i++) {
		err = mon_read(cfg.file, &self->m);
		if (!err)
			break;
		usleep(50000);
	}
	ASSERT_ERRNO(0, err) TH_LOG("monitor file %s", cfg.file);
	t0 = now_ms();
	self->gone = homa_metric_falls_to("server_rpcs_live", self->m.live0,
					  (int)(30 * ticks + 30000));
	TH_LOG("server_rpcs_live %lld %s %lld after %lld ms",
	       homa_metric("server_rpcs_live"),
	       self->gone ? "back to" : "not back to", self->m.live0,
	       now_ms() - t0);
	ASSERT_ERRNO(0, monitor_stop(cfg.file, &self->m))
		TH_LOG("monitor file %s", cfg.file);
}

FIXTURE_TEARDOWN(check)
{
}

/* The flood's setup waits up to 30 * timeout_ticks ms + 30 s. */
TEST_F_TIMEOUT(check, receive_memory_reaches_budget_within_it, 120)
{
	const struct mon *m = &self->m;

	TH_LOG("flood: %lld DATA received; dropped over the socket budget (drop_rcvbuf) %lld, over the per-message bound (drop_msg_mem) %lld",
	       homa_metric("pkts_rcvd_DATA") - m->data0,
	       homa_metric("drop_rcvbuf") - m->rcvbuf0,
	       homa_metric("drop_msg_mem") - m->msgmem0);
	TH_LOG("rcvmem_bytes: before %lld, peak %lld (budget %lld); %lld samples",
	       m->rmem0, m->rmem_peak, cfg.rcvbuf, m->samples);
	EXPECT_GT(m->samples, 0);
	EXPECT_GE(m->rmem0, 0);
	EXPECT_LE(m->rmem_peak - m->rmem0, cfg.rcvbuf + ONE_SKB);
	EXPECT_GE(m->rmem_peak - m->rmem0, cfg.rcvbuf / 2);
}

TEST_F_TIMEOUT(check, memory_in_use_within_budget_plus_slack, 120)
{
	long long slack = cfg.slack_kb ? cfg.slack_kb : SLACK_KB;
	long long slab_slack = cfg.slack_kb ? cfg.slack_kb : SLAB_SLACK_KB;
	const struct mon *m = &self->m;
	long long used_after;

	/* Let the timer reap and KASAN's quarantine drain a little. */
	sleep(1);
	used_after = used_kb();
	TH_LOG("memory in use kB: before %lld, peak %lld, after %lld (bound: budget + %lld kB); Slab kB: before %lld, peak %lld, after %lld (bound: budget + %lld kB)",
	       m->used0, m->used_peak, used_after, slack, m->slab0,
	       m->slab_peak, homa_meminfo_kb("Slab"), slab_slack);
	EXPECT_GT(m->used0, 0);
	EXPECT_LE(m->used_peak - m->used0, cfg.rcvbuf / 1024 + slack);
	EXPECT_LE(m->slab_peak - m->slab0, cfg.rcvbuf / 1024 + slab_slack);
}

/*
 * Under the protocol-wide bound (--global) every message stays below its
 * own bound: only drop_rcvbuf counts then.
 */
TEST_F_TIMEOUT(check, drops_counted, 120)
{
	long long drops_rcvbuf = homa_metric("drop_rcvbuf") - self->m.rcvbuf0;
	long long drops_msg = homa_metric("drop_msg_mem") - self->m.msgmem0;

	TH_LOG("drop_rcvbuf +%lld, drop_msg_mem +%lld%s", drops_rcvbuf,
	       drops_msg, cfg.global ? " (--global: need not grow)" : "");
	EXPECT_GT(drops_rcvbuf, 0);
	if (!cfg.global)
		EXPECT_GT(drops_msg, 0);
}

TEST_F_TIMEOUT(check, flood_rpcs_time_out, 120)
{
	TH_LOG("timeouts: +%lld; server_rpcs_live %lld (before %lld)",
	       homa_metric("timeouts") - self->m.timeouts0,
	       homa_metric("server_rpcs_live"), self->m.live0);
	EXPECT_TRUE(self->gone) TH_LOG("server_rpcs_live not back");
	EXPECT_GT(homa_metric("timeouts"), self->m.timeouts0);
}

TEST_F_TIMEOUT(check, receive_memory_given_back, 120)
{
	long long rmem_after = homa_metric("rcvmem_bytes");

	TH_LOG("rcvmem_bytes after: %lld (before the flood %lld)", rmem_after,
	       self->m.rmem0);
	EXPECT_GE(rmem_after, 0);
	EXPECT_LE(rmem_after, self->m.rmem0);
}

/*
 * Well-formed RPCs are served after the flood. The old watchdog allowed
 * timeout_ticks * 10 ms + 60 s for both.
 */
static void served(struct __test_metadata *_metadata, int family,
		   size_t len)
{
	union homa_addr server;
	long long t0 = now_ms();
	int err;

	homa_addr_loopback(&server, family, (uint16_t)cfg.port);
	err = echo_rpc(family, &server, len);
	TH_LOG("%zu B RPC: %s after %lld ms", len, errno_name(err),
	       now_ms() - t0);
	EXPECT_ERRNO(0, err);
}

TEST_F_TIMEOUT(check, rpc_100_bytes_served_after_flood, 120)
{
	served(_metadata, variant->family, 100);
}

TEST_F_TIMEOUT(check, rpc_200_kb_served_after_flood, 120)
{
	served(_metadata, variant->family, BIG_LEN);
}

/* A new socket's receive budget is Homa's default (64 MiB), not
 * net.core.rmem_default.
 */
FIXTURE(default_budget) {
};

FIXTURE_VARIANT(default_budget) {
	int family;
};

HOMA_FAMILY_VARIANTS(default_budget);

FIXTURE_SETUP(default_budget)
{
}

FIXTURE_TEARDOWN(default_budget)
{
}

TEST_F(default_budget, new_socket_budget_is_64_mib)
{
	int fd, got = 0;
	socklen_t len = sizeof(got);

	fd = homa_socket(variant->family);
	ASSERT_ERRNO(0, fd);
	EXPECT_ERRNO(0, sys_err(getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got,
					   &len)));
	TH_LOG("sk_rcvbuf of a new socket: %d", got);
	EXPECT_EQ(DEFAULT_RCVBUF, got);
	close(fd);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	parse(argc, argv);
	if (!cfg.mode)
		return homa_harness_run(argc, argv, optind);
	if (!strcmp(cfg.mode, "server"))
		return do_server(&cfg);
	if (!strcmp(cfg.mode, "stop"))
		return do_stop(&cfg);
	return do_monitor(&cfg);
}
