// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_rcvmem - guest side of the receive-memory tests (issue 10,
 * items 7 and 10). The packets come from the lab host (rcvmem_host.sh
 * injects them with homa-pktgen).
 *
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
 *   homa_test_rcvmem check --family 4|6 --port P --budget B --file F
 *                          [--slack-kb K] [--global]
 *       After a flood of one-byte segments at the server on P (budget B,
 *       as the server printed it, or net.homa.rcvmem_max_kb with
 *       --global): receive memory stayed within the budget, memory in use
 *       grew by less than the budget plus slack, drops were counted
 *       (drop_rcvbuf, and drop_msg_mem unless --global), the flood's RPCs
 *       time out, the receive memory is given back, and well-formed RPCs
 *       (100 B and 200 KB) are served.
 *   homa_test_rcvmem default --family 4|6
 *       A new socket's receive budget is HOMA's default (64 MiB), not
 *       net.core.rmem_default.
 *
 * Each prints KTAP with fixed case names.
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
#include "ktap.h"
#include "watchdog.h"

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

struct opts {
	const char *mode;
	int family;
	int port;
	long long rcvbuf;
	long long slack_kb;
	const char *file;
	bool global;	/* check: the bound is rcvmem_max_kb, not the socket's */
};

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
		"       homa_test_rcvmem check --family 4|6 --port P --budget B --file F [--slack-kb K] [--global]\n"
		"       homa_test_rcvmem default --family 4|6\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
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
	int c;

	if (argc < 2)
		usage();
	*o = (struct opts){ .mode = argv[1], .family = AF_INET };
	optind = 2;
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

static int monitor_stop(const char *file, struct mon *m)
{
	char pidfile[256];
	int pid, i;

	snprintf(pidfile, sizeof(pidfile), "%s.pid", file);
	pid = read_pid(pidfile);
	if (pid <= 1)
		return -ENOENT;
	kill(pid, SIGTERM);
	for (i = 0; i < 100 && kill(pid, 0) == 0; i++)
		usleep(20000);
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

static int do_check(const struct opts *o)
{
	long long used_after, rmem_after, t0, drops_rcvbuf, drops_msg;
	long long budget = o->rcvbuf;
	long long slack = o->slack_kb ? o->slack_kb : SLACK_KB;
	long long slab_slack = o->slack_kb ? o->slack_kb : SLAB_SLACK_KB;
	union homa_addr server;
	struct watchdog wd;
	struct ktap k;
	struct mon m;
	bool gone;
	long ticks;
	int err, i;

	if (!o->file || o->port <= 0 || budget <= 0)
		usage();
	ktap_start(&k, 7);
	watchdog_start(&wd, &k);
	ticks = homa_sysctl_read("timeout_ticks");

	/* The flood's RPCs time out (ticks are up to ~5 ms on a debug
	 * guest) and are reaped.
	 */
	for (i = 0; i < 20; i++) {
		err = mon_read(o->file, &m);
		if (!err)
			break;
		usleep(50000);
	}
	if (err)
		ktap_diag(&k, "monitor file: %s", strerror(-err));
	t0 = now_ms();
	gone = !err && homa_metric_falls_to("server_rpcs_live", m.live0,
					    (int)(30 * ticks + 30000));
	ktap_diag(&k, "server_rpcs_live %lld %s %lld after %lld ms",
		  homa_metric("server_rpcs_live"),
		  gone ? "back to" : "not back to", m.live0, now_ms() - t0);
	err = monitor_stop(o->file, &m);
	if (err) {
		ktap_diag(&k, "monitor: %s", strerror(-err));
		memset(&m, 0, sizeof(m));
	}
	drops_rcvbuf = homa_metric("drop_rcvbuf") - m.rcvbuf0;
	drops_msg = homa_metric("drop_msg_mem") - m.msgmem0;
	ktap_diag(&k, "flood: %lld DATA received; dropped over the socket budget (drop_rcvbuf) %lld, over the per-message bound (drop_msg_mem) %lld",
		  homa_metric("pkts_rcvd_DATA") - m.data0, drops_rcvbuf,
		  drops_msg);
	ktap_diag(&k, "rcvmem_bytes: before %lld, peak %lld (budget %lld); %lld samples",
		  m.rmem0, m.rmem_peak, budget, m.samples);
	ktap_result(&k, m.samples > 0 && m.rmem0 >= 0 &&
		    m.rmem_peak - m.rmem0 <= budget + ONE_SKB &&
		    m.rmem_peak - m.rmem0 >= budget / 2,
		    "receive memory reaches the budget and stays within it");

	/* Let the timer reap and KASAN's quarantine drain a little. */
	sleep(1);
	used_after = used_kb();
	ktap_diag(&k, "memory in use kB: before %lld, peak %lld, after %lld (bound: budget + %lld kB); Slab kB: before %lld, peak %lld, after %lld (bound: budget + %lld kB)",
		  m.used0, m.used_peak, used_after, slack, m.slab0,
		  m.slab_peak, homa_meminfo_kb("Slab"), slab_slack);
	ktap_result(&k, m.used0 > 0 &&
		    m.used_peak - m.used0 <= budget / 1024 + slack &&
		    m.slab_peak - m.slab0 <= budget / 1024 + slab_slack,
		    "memory in use stays within the budget plus slack");
	/* Under the protocol-wide bound (--global) every message stays
	 * below its own bound: only drop_rcvbuf counts then.
	 */
	ktap_result(&k, drops_rcvbuf > 0 && (o->global || drops_msg > 0),
		    "drops counted (drop_rcvbuf, drop_msg_mem)");
	ktap_diag(&k, "timeouts: +%lld; server_rpcs_live %lld (before %lld)",
		  homa_metric("timeouts") - m.timeouts0,
		  homa_metric("server_rpcs_live"), m.live0);
	ktap_result(&k, gone && homa_metric("timeouts") > m.timeouts0,
		    "flood RPCs time out");
	rmem_after = homa_metric("rcvmem_bytes");
	ktap_diag(&k, "rcvmem_bytes after: %lld", rmem_after);
	ktap_result(&k, rmem_after >= 0 && rmem_after <= m.rmem0,
		    "receive memory given back");

	homa_addr_loopback(&server, o->family, (uint16_t)o->port);
	watchdog_arm(&wd, (int)(ticks * 10 / 1000) + 60,
		     "well-formed RPCs served after the flood");
	t0 = now_ms();
	err = echo_rpc(o->family, &server, 100);
	ktap_diag(&k, "100 B RPC: %s after %lld ms",
		  err ? strerror(-err) : "served", now_ms() - t0);
	ktap_result(&k, !err, "100 B RPC served after the flood");
	t0 = now_ms();
	err = echo_rpc(o->family, &server, BIG_LEN);
	watchdog_disarm(&wd);
	ktap_diag(&k, "%d B RPC: %s after %lld ms", BIG_LEN,
		  err ? strerror(-err) : "served", now_ms() - t0);
	ktap_result(&k, !err, "200 KB RPC served after the flood");
	watchdog_stop(&wd);
	return ktap_finish(&k);
}

static int do_default(const struct opts *o)
{
	int fd, got = 0;
	socklen_t len = sizeof(got);
	struct ktap k;

	ktap_start(&k, 1);
	fd = homa_socket(o->family);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) < 0)
		got = -1;
	ktap_diag(&k, "sk_rcvbuf of a new socket: %d", got);
	ktap_result(&k, got == DEFAULT_RCVBUF,
		    "a new socket's receive budget is 64 MiB");
	if (fd >= 0)
		close(fd);
	return ktap_finish(&k);
}

int main(int argc, char **argv)
{
	struct opts o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse(argc, argv, &o);
	if (!strcmp(o.mode, "server"))
		return do_server(&o);
	if (!strcmp(o.mode, "stop"))
		return do_stop(&o);
	if (!strcmp(o.mode, "monitor"))
		return do_monitor(&o);
	if (!strcmp(o.mode, "check"))
		return do_check(&o);
	if (!strcmp(o.mode, "default"))
		return do_default(&o);
	usage();
	return 2;
}
