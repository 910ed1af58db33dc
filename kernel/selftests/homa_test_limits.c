// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_limits - guest side of the remote resource-limit tests
 * (issue 10, items 5 and 6). The packets come from the lab host
 * (limits_host.sh injects them with homa-pktgen); the servers are
 * homa_echo_server daemons with a small pool.
 *
 *   homa_test_limits stall --family 4|6 --port P
 *       The host has sent one DATA packet that claims a message as large
 *       as the server's pool, then nothing. A real request over loopback
 *       must wait for the pool, then be served once the bogus RPC has
 *       timed out (timeout_ticks of silence) and its bpages are back.
 *   homa_test_limits monitor --file F
 *       Starts a daemon that samples server_rpcs_live and slab memory
 *       every 20 ms and keeps the first and largest values in F.
 *   homa_test_limits flood --family 4|6 --port P --limit L --file F
 *       After a flood of DATA with distinct ids: live server RPCs reached
 *       L and never exceeded it, slab memory stayed bounded, the flood's
 *       RPCs timed out, and a well-formed RPC is served.
 *
 * Each prints KTAP with fixed case names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "ktap.h"
#include "watchdog.h"

/* Slab memory may grow by at most this much during a flood. */
#define FLOOD_SLAB_BOUND_KB	(8 * 1024)
#define REQ_LEN			100

struct opts {
	const char *mode;
	int family;
	int port;
	long limit;
	const char *file;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Active objects of kmalloc-512 (where RPCs live) from /proc/slabinfo,
 * or -1 when the kernel has no slabinfo.
 */
static long kmalloc512_objs(void)
{
	char line[512], name[64];
	long active = -1;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", name, &active) == 2 &&
		    !strcmp(name, "kmalloc-512"))
			break;
		else
			active = -1;
	fclose(f);
	return active;
}

/*
 * Ticks the Homa timer has run: the homa_timer thread sleeps once per
 * tick, so its voluntary context switches count them (a slow guest has
 * slow ticks: limits in ticks hold there too). -1 if not found.
 */
static long long timer_ticks(void)
{
	char path[300], line[128];
	long long n = -1;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	dir = opendir("/proc");
	if (!dir)
		return -1;
	while (n < 0 && (d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(line, sizeof(line), f) ||
		    strcmp(line, "homa_timer\n")) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%s/status", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "voluntary_ctxt_switches: %lld",
				   &n) == 1)
				break;
		fclose(f);
	}
	closedir(dir);
	return n;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: homa_test_limits stall --family 4|6 --port P\n"
		"       homa_test_limits monitor --file F\n"
		"       homa_test_limits flood --family 4|6 --port P --limit L --file F\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "port", required_argument, NULL, 'p' },
		{ "limit", required_argument, NULL, 'l' },
		{ "file", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	if (argc < 2)
		usage();
	*o = (struct opts){ .mode = argv[1], .family = AF_INET };
	optind = 2;
	while ((c = getopt_long(argc, argv, "f:p:l:F:", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->family = homa_family_parse(optarg);
			if (o->family < 0)
				usage();
			break;
		case 'p':
			o->port = atoi(optarg);
			break;
		case 'l':
			o->limit = atol(optarg);
			break;
		case 'F':
			o->file = optarg;
			break;
		default:
			usage();
		}
	}
}

/*
 * Sends one REQ_LEN request from @ep to @server; *@id gets its id.
 * Returns 0 or -errno.
 */
static int send_req(struct homa_ep *ep, const union homa_addr *server,
		    uint8_t *req, uint64_t *id)
{
	int i;

	for (i = 0; i < REQ_LEN; i++)
		req[i] = (uint8_t)(i * 7 + 3);
	return homa_send_request_buf(ep->fd, server, req, REQ_LEN, 1, id);
}

/* Waits for the echo of send_req(); 0 if it is intact, else -errno. */
static int wait_echo(struct homa_ep *ep, const uint8_t *req, uint64_t id)
{
	uint8_t resp[REQ_LEN];
	struct homa_rx rx;
	ssize_t n;

	homa_rx_init(&rx);
	n = homa_receive(ep->fd, &rx, 0, id, 0);
	if (n < 0)
		return (int)n;
	if (n != REQ_LEN)
		return -EMSGSIZE;
	if (homa_rx_copy(&ep->region, &rx, resp, sizeof(resp)))
		return -EFAULT;
	return memcmp(resp, req, REQ_LEN) ? -EBADMSG : 0;
}

static int do_stall(const struct opts *o)
{
	long long timeouts0, nobuf0, t0, tick0, elapsed, ticks_taken;
	uint8_t req[REQ_LEN];
	union homa_addr server;
	struct watchdog wd;
	struct homa_ep ep;
	struct ktap k;
	long ticks;
	uint64_t id;
	bool waited;
	int err;

	ktap_start(&k, 4);
	watchdog_start(&wd, &k);
	ticks = homa_sysctl_read("timeout_ticks");
	timeouts0 = homa_metric("timeouts");
	nobuf0 = homa_metric("drop_no_buffer");
	homa_addr_loopback(&server, o->family, (uint16_t)o->port);
	err = homa_ep_open(&ep, o->family, 0, 2);
	if (err) {
		ktap_diag(&k, "client socket: %s", strerror(-err));
		return ktap_finish(&k);
	}
	/* A tick takes 1 ms, up to ~5 ms on a slow (debug, TCG) guest. */
	watchdog_arm(&wd, (int)(ticks * 10 / 1000) + 30,
		     "stalled server serves a real request");
	t0 = now_ms();
	tick0 = timer_ticks();
	err = send_req(&ep, &server, req, &id);
	/* The request must find the pool taken by the bogus RPC. */
	waited = !err && homa_metric_rises_to("drop_no_buffer", nobuf0 + 1,
					      1000);
	ktap_result(&k, waited, "request waits for the pool the bogus RPC holds");
	if (!err)
		err = wait_echo(&ep, req, id);
	elapsed = now_ms() - t0;
	ticks_taken = timer_ticks() - tick0;
	watchdog_disarm(&wd);
	if (err)
		ktap_diag(&k, "request: %s", strerror(-err));
	ktap_result(&k, !err, "stalled server serves a real request");
	/* The bogus RPC was silent for a while before the request came:
	 * at most timeout_ticks more, then a tick to reap it and a round
	 * trip (RESEND, DATA) to fetch the request.
	 */
	ktap_diag(&k, "time to recover: %lld ms, %lld timer ticks (timeout_ticks %ld, bound timeout_ticks + 100)",
		  elapsed, ticks_taken, ticks);
	ktap_result(&k, !err && tick0 >= 0 && ticks_taken <= ticks + 100,
		    "recovery within timeout_ticks + 100 ticks");
	ktap_result(&k, homa_metric("timeouts") > timeouts0,
		    "bogus RPC counted in timeouts");
	homa_ep_close(&ep);
	watchdog_stop(&wd);
	return ktap_finish(&k);
}

/* What the monitor keeps. */
struct mon {
	long long live_peak, slab0, slab_peak, objs0, objs_peak, samples;
	long long timeouts0, data0, limit0, nobuf0;
};

static volatile sig_atomic_t mon_stop;

static void on_term(int sig)
{
	(void)sig;
	mon_stop = 1;
}

static void mon_write(const char *file, const struct mon *m)
{
	char tmp[256];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld\n",
		m->live_peak, m->slab0, m->slab_peak, m->objs0, m->objs_peak,
		m->samples, m->timeouts0, m->data0, m->limit0, m->nobuf0);
	fclose(f);
	rename(tmp, file);
}

static int mon_read(const char *file, struct mon *m)
{
	FILE *f = fopen(file, "r");
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld",
		   &m->live_peak, &m->slab0, &m->slab_peak, &m->objs0,
		   &m->objs_peak, &m->samples, &m->timeouts0, &m->data0,
		   &m->limit0, &m->nobuf0);
	fclose(f);
	return n == 10 ? 0 : -EINVAL;
}

static long long max_ll(long long a, long long b)
{
	return a > b ? a : b;
}

static int do_monitor(const struct opts *o)
{
	struct mon m = {};
	char pidfile[256];
	long long live;
	pid_t pid;
	FILE *f;
	int fd;

	if (!o->file)
		usage();
	m.slab0 = m.slab_peak = homa_meminfo_kb("Slab");
	m.objs0 = m.objs_peak = kmalloc512_objs();
	m.live_peak = homa_metric("server_rpcs_live");
	m.timeouts0 = homa_metric("timeouts");
	m.data0 = homa_metric("pkts_rcvd_DATA");
	m.limit0 = homa_metric("drop_rpc_limit");
	m.nobuf0 = homa_metric("drop_no_buffer");
	mon_write(o->file, &m);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid > 0) {
		snprintf(pidfile, sizeof(pidfile), "%s.pid", o->file);
		f = fopen(pidfile, "w");
		if (!f)
			return 1;
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
		printf("# monitor pid %d: Slab %lld kB, kmalloc-512 %lld objects\n",
		       (int)pid, m.slab0, m.objs0);
		return 0;
	}
	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	signal(SIGTERM, on_term);
	while (!mon_stop) {
		usleep(20000);
		live = homa_metric("server_rpcs_live");
		m.live_peak = max_ll(m.live_peak, live);
		m.slab_peak = max_ll(m.slab_peak, homa_meminfo_kb("Slab"));
		m.objs_peak = max_ll(m.objs_peak, kmalloc512_objs());
		if (++m.samples % 10 == 0)
			mon_write(o->file, &m);
	}
	mon_write(o->file, &m);
	_exit(0);
}

/* Stops the monitor of @file and reads what it kept. */
static int monitor_stop(const char *file, struct mon *m)
{
	char pidfile[256];
	int pid = 0, i;
	FILE *f;

	snprintf(pidfile, sizeof(pidfile), "%s.pid", file);
	f = fopen(pidfile, "r");
	if (!f)
		return -ENOENT;
	if (fscanf(f, "%d", &pid) != 1)
		pid = 0;
	fclose(f);
	if (pid <= 0)
		return -EINVAL;
	kill(pid, SIGTERM);
	for (i = 0; i < 100 && kill(pid, 0) == 0; i++)
		usleep(20000);
	return mon_read(file, m);
}

static int do_flood(const struct opts *o)
{
	long long live, slab_after, objs_after, t0, bound;
	uint8_t req[REQ_LEN];
	union homa_addr server;
	struct watchdog wd;
	struct homa_ep ep;
	struct mon m;
	struct ktap k;
	bool gone;
	long ticks;
	uint64_t id;
	int err;

	if (!o->file || o->limit <= 0)
		usage();
	ktap_start(&k, 5);
	watchdog_start(&wd, &k);
	ticks = homa_sysctl_read("timeout_ticks");
	bound = 4 * ticks + 10000;

	/* The flood's RPCs time out (the last ones timeout_ticks after the
	 * flood ended) and are freed.
	 */
	gone = homa_metric_falls_to("server_rpcs_live", 0, (int)bound);
	err = monitor_stop(o->file, &m);
	if (err) {
		ktap_diag(&k, "monitor: %s", strerror(-err));
		memset(&m, 0, sizeof(m));
	}
	live = homa_metric("server_rpcs_live");
	ktap_diag(&k, "flood: %lld DATA received, %lld dropped at the RPC limit, %lld for want of buffer space",
		  homa_metric("pkts_rcvd_DATA") - m.data0,
		  homa_metric("drop_rpc_limit") - m.limit0,
		  homa_metric("drop_no_buffer") - m.nobuf0);
	ktap_diag(&k, "server_rpcs_live: peak %lld (limit %ld), now %lld; %lld samples",
		  m.live_peak, o->limit, live, m.samples);
	ktap_result(&k, m.samples > 0 && m.live_peak == o->limit,
		    "live server RPCs reach the limit and never exceed it");

	/* Let the timer reap and KASAN's quarantine drain a little. */
	sleep(1);
	slab_after = homa_meminfo_kb("Slab");
	objs_after = kmalloc512_objs();
	ktap_diag(&k, "Slab kB: before %lld, peak %lld, after %lld (bound +%d)",
		  m.slab0, m.slab_peak, slab_after, FLOOD_SLAB_BOUND_KB);
	ktap_diag(&k, "kmalloc-512 objects: before %lld, peak %lld, after %lld",
		  m.objs0, m.objs_peak, objs_after);
	ktap_result(&k, m.slab0 > 0 &&
		    m.slab_peak - m.slab0 <= FLOOD_SLAB_BOUND_KB &&
		    slab_after - m.slab0 <= FLOOD_SLAB_BOUND_KB,
		    "slab memory stays bounded");

	ktap_diag(&k, "timeouts: +%lld", homa_metric("timeouts") - m.timeouts0);
	ktap_result(&k, gone && homa_metric("timeouts") - m.timeouts0 >= o->limit,
		    "flood RPCs time out");

	homa_addr_loopback(&server, o->family, (uint16_t)o->port);
	err = homa_ep_open(&ep, o->family, 0, 2);
	if (!err) {
		watchdog_arm(&wd, (int)(bound / 1000) + 20,
			     "well-formed RPC served after the flood");
		t0 = now_ms();
		err = send_req(&ep, &server, req, &id);
		if (!err)
			err = wait_echo(&ep, req, id);
		watchdog_disarm(&wd);
		ktap_diag(&k, "well-formed RPC: %s after %lld ms",
			  err ? strerror(-err) : "served", now_ms() - t0);
		homa_ep_close(&ep);
	}
	ktap_result(&k, !err, "well-formed RPC served after the flood");
	ktap_result(&k, homa_metric("drop_rpc_limit") - m.limit0 > 0,
		    "DATA over the limit dropped and counted");
	watchdog_stop(&wd);
	return ktap_finish(&k);
}

int main(int argc, char **argv)
{
	struct opts o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse(argc, argv, &o);
	if (!strcmp(o.mode, "stall") && o.port > 0)
		return do_stall(&o);
	if (!strcmp(o.mode, "monitor"))
		return do_monitor(&o);
	if (!strcmp(o.mode, "flood") && o.port > 0)
		return do_flood(&o);
	usage();
	return 2;
}
