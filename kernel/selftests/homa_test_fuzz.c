// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_fuzz [--seconds S] [--seed N] [--uid U] [-- HARNESS ARGS]
 *
 * A syscall fuzzer for Homa sockets. A root "victim" process runs an echo
 * server and a client that exchange secret-patterned messages; the fuzzer
 * drops to an unprivileged uid and, for S seconds with a fixed seed,
 * calls socket/bind/setsockopt/getsockopt/sendmsg/recvmsg/poll/shutdown/
 * ioctl/close on its own Homa sockets with random and boundary values
 * (bad pointers, lengths, ids, flags, families, bpage offsets, regions
 * that get unmapped). It checks that every message it receives lies in
 * its own region (bpage offsets in range), that it never sees the
 * victim's bytes, and that the victim's RPCs all complete, verified.
 * The lab's log scan catches any oops, KASAN or lockdep report.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "echo.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "harness.h"
#include "homa_sock.h"
#include "payload.h"
#include "rpc_client.h"

#define VICTIM_PORT 730
#define SECRET 0xC5
#define NSOCK 6
/* The test's timeout: the fuzzing, the victim's 5 s more, and room. */
#define FUZZ_TIMEOUT 600
#define MAX_SECONDS (FUZZ_TIMEOUT - 100)

/* The options, for the test to read. */
static struct {
	int seconds;
	int uid;
} cfg = { .seconds = 40, .uid = 65534 };

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static unsigned int seed;

static unsigned long rnd(void)
{
	return ((unsigned long)rand_r(&seed) << 31) ^ (unsigned long)rand_r(&seed);
}

static unsigned long pick(const unsigned long *v, int n)
{
	return v[rnd() % (unsigned long)n];
}

/* Boundary-flavoured integers. */
static unsigned long rint_b(void)
{
	static const unsigned long v[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 87, 88, 89, 100, 4095,
		4096, 65535, 65536, 65537, 131072, 999999, 1000000, 1000001,
		0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000UL,
		0xffffffffUL, (unsigned long)-1, (unsigned long)-2,
	};

	if (rnd() % 3 == 0)
		return rnd();
	return pick(v, sizeof(v) / sizeof(v[0]));
}

static void *bad_ptr(void *good)
{
	static const unsigned long v[] = {
		0, 1, 4095, 0xffff888000000000UL, 0xffffffff81000000UL,
		0x7ffffffff000UL, (unsigned long)-1,
	};

	if (rnd() % 2)
		return good;
	return (void *)pick(v, sizeof(v) / sizeof(v[0]));
}

/*
 * One fuzzer socket. @region/@rlen is the memory the fuzzer mapped;
 * @kstart/@klen the region the kernel took for the socket (the last
 * SO_HOMA_RCVBUF that succeeded; @klen 0: none). They differ when a
 * fuzzed SO_HOMA_RCVBUF was accepted (a longer length, another start) or
 * the mapping was removed under the socket: bpage offsets are checked
 * against the kernel's region, bytes are read only where both agree.
 */
struct fsock {
	int fd;
	int family;
	uint8_t *region;
	size_t rlen;
	uintptr_t kstart;
	size_t klen;
	struct homa_rx rx;
};

static struct fsock s[NSOCK];
static long ops, received, bad_offsets, secret_seen, region_faults;
static uint8_t *sendbuf;

/* Learns the region the kernel has for @f now (SO_HOMA_RCVBUF). */
static void sync_region(struct fsock *f)
{
	struct homa_rcvbuf_args a;
	socklen_t len = sizeof(a);

	f->klen = 0;
	if (getsockopt(f->fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &a, &len) == 0 &&
	    len == sizeof(a)) {
		f->kstart = (uintptr_t)a.start;
		f->klen = (size_t)a.length;
	}
}

static void open_sock(struct fsock *f)
{
	struct homa_rcvbuf_args a;

	f->family = rnd() % 2 ? AF_INET : AF_INET6;
	f->fd = socket(f->family, SOCK_DGRAM, IPPROTO_HOMA);
	homa_rx_init(&f->rx);
	f->klen = 0;
	f->rlen = (2 + rnd() % 62) * HOMA_BPAGE_SIZE;
	f->region = mmap(NULL, f->rlen, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->region == MAP_FAILED) {
		f->region = NULL;
		return;
	}
	a.start = (uintptr_t)f->region;
	a.length = f->rlen;
	setsockopt(f->fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &a, sizeof(a));
	sync_region(f);
}

/* Whether the kernel's region for @f is the fuzzer's mapping. */
static bool region_agrees(const struct fsock *f)
{
	return f->region && f->klen && f->kstart == (uintptr_t)f->region &&
	       f->klen <= f->rlen;
}

static void close_sock(struct fsock *f)
{
	close(f->fd);
	if (f->region)
		munmap(f->region, f->rlen);
	f->region = NULL;
	f->klen = 0;
	f->fd = -1;
}

static void rand_addr(union homa_addr *a, int family)
{
	static const unsigned long ports[] = { 0, 1, VICTIM_PORT, 0x7fff,
					       0x8000, 0x8001, 0xffff };
	uint16_t port = (uint16_t)(rnd() % 2 ? pick(ports, 7) :
				   (unsigned long)(0x8000 + rnd() % 64));

	if (rnd() % 8 == 0)
		family = family == AF_INET ? AF_INET6 : AF_INET;
	if (rnd() % 3 == 0)	/* the other guest (main() checked it is set) */
		homa_addr_parse(a, homa_lab_addr("G1", family), port);
	else
		homa_addr_loopback(a, family, port);
	if (rnd() % 20 == 0)
		a->sa.sa_family = (sa_family_t)rnd();
}

/* Checks a message the fuzzer received. */
static void check_received(struct fsock *f, ssize_t n)
{
	uint32_t i, nb = f->rx.ctl.num_bpages;

	received++;
	if (nb > HOMA_MAX_BPAGES || nb != homa_bpages_for((size_t)n)) {
		bad_offsets++;
		return;
	}
	for (i = 0; i < nb; i++) {
		size_t len = homa_rx_chunk_len(&f->rx, i);
		uint32_t off = f->rx.ctl.bpage_offsets[i], j;

		if (off > f->klen || len > f->klen - off) {
			bad_offsets++;
			return;
		}
		if (!region_agrees(f))
			continue;
		/* The victim's messages are all SECRET bytes; ours never
		 * have 32 in a row.
		 */
		for (j = 0; j + 32 <= len; j += 32)
			if (f->region[off + j] == SECRET &&
			    memchr(f->region + off + j, SECRET ^ 1, 32) == NULL &&
			    f->region[off + j + 31] == SECRET &&
			    f->region[off + j + 16] == SECRET) {
				secret_seen++;
				return;
			}
	}
}

static void op_sendmsg(struct fsock *f)
{
	struct homa_sendmsg_args args = { 0 };
	union homa_addr a;
	struct iovec iov[4];
	struct msghdr m;
	size_t len = rnd() % 4 ? 1 + rnd() % 5000 : rint_b() % 1100000;
	int i, niov = 1 + (int)(rnd() % 4);

	rand_addr(&a, f->family);
	if (rnd() % 2)
		args.id = rnd() % 4 ? 0 : rint_b();
	args.completion_cookie = rnd();
	for (i = 0; i < niov; i++) {
		iov[i].iov_base = sendbuf + rnd() % 1000;
		iov[i].iov_len = len / (size_t)niov;
	}
	if (rnd() % 10 == 0)
		iov[rnd() % (unsigned long)niov].iov_base = bad_ptr(sendbuf);
	memset(&m, 0, sizeof(m));
	m.msg_name = rnd() % 20 ? (void *)&a : bad_ptr(&a);
	m.msg_namelen = rnd() % 10 ? homa_addr_len(&a) : (socklen_t)rint_b();
	if (m.msg_namelen > sizeof(a) && m.msg_name == (void *)&a)
		m.msg_namelen = sizeof(a);
	m.msg_iov = iov;
	m.msg_iovlen = (size_t)niov;
	m.msg_control = rnd() % 10 ? (void *)&args : bad_ptr(&args);
	m.msg_controllen = rnd() % 10 ? 0 : rint_b() % 200;
	sendmsg(f->fd, &m, (int)(rnd() % 8 == 0 ? rnd() : MSG_DONTWAIT));
}

static void op_recvmsg(struct fsock *f)
{
	struct homa_recvmsg_args ctl;
	union homa_addr src;
	struct msghdr m;
	ssize_t n;
	unsigned int i;

	if (rnd() % 3) {
		/* Well-formed: returns the previous bpages, any message. */
		n = homa_receive(f->fd, &f->rx, HOMA_RECVMSG_REQUEST |
				 HOMA_RECVMSG_RESPONSE |
				 HOMA_RECVMSG_NONBLOCKING, 0, 0);
		if (n > 0) {
			check_received(f, n);
			/* Answer requests (odd ids) now and then. */
			if ((f->rx.ctl.id & 1) && rnd() % 2 &&
			    region_agrees(f)) {
				struct iovec iov[HOMA_MAX_BPAGES];
				int c = homa_rx_iov(&(struct homa_region){
					f->region, f->rlen }, &f->rx, iov);

				if (c > 0)
					homa_send_response(f->fd, &f->rx.src,
							   f->rx.ctl.id, iov, c);
			}
		}
		return;
	}
	memset(&ctl, 0, sizeof(ctl));
	ctl.id = rnd() % 2 ? 0 : rint_b();
	ctl.flags = (uint32_t)(rnd() % 4 ? (rnd() & 7) | HOMA_RECVMSG_NONBLOCKING :
			       rint_b());
	ctl.num_bpages = (uint32_t)(rnd() % 2 ? rnd() % 20 : rint_b());
	for (i = 0; i < HOMA_MAX_BPAGES; i++)
		ctl.bpage_offsets[i] = (uint32_t)(rnd() % 2 ? rint_b() :
					(rnd() % 64) << HOMA_BPAGE_SHIFT);
	memset(&m, 0, sizeof(m));
	m.msg_name = rnd() % 10 ? (void *)&src : bad_ptr(&src);
	m.msg_namelen = sizeof(src);
	m.msg_control = rnd() % 10 ? (void *)&ctl : bad_ptr(&ctl);
	m.msg_controllen = rnd() % 5 ? sizeof(ctl) : rint_b() % 200;
	n = recvmsg(f->fd, &m, MSG_DONTWAIT | (rnd() % 5 == 0 ? (int)rnd() : 0));
	if (n > 0 && m.msg_control == (void *)&ctl) {
		received++;
		if (ctl.num_bpages > HOMA_MAX_BPAGES)
			bad_offsets++;
		else
			for (i = 0; i < ctl.num_bpages; i++)
				if (ctl.bpage_offsets[i] >= f->klen)
					bad_offsets++;
		/* These bpages are lost to this socket: fine. */
	}
}

static void op_setsockopt(struct fsock *f)
{
	struct homa_rcvbuf_args a;
	char junk[64];

	if (rnd() % 3 == 0) {
		setsockopt(f->fd, (int)(rnd() % 2 ? IPPROTO_HOMA : rint_b()),
			   (int)(rnd() % 2 ? SO_HOMA_RCVBUF : rint_b()),
			   bad_ptr(junk), (socklen_t)(rint_b() % 100));
		sync_region(f);
		return;
	}
	/* A new region, sometimes odd: unaligned, huge, unmapped. */
	a.start = (uintptr_t)f->region + (rnd() % 8 == 0 ? rnd() % 4096 : 0);
	a.length = rnd() % 4 ? f->rlen : rint_b();
	if (rnd() % 10 == 0)
		a.start = (uintptr_t)bad_ptr(f->region);
	setsockopt(f->fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &a,
		   (socklen_t)(rnd() % 8 ? sizeof(a) : rint_b() % 40));
	sync_region(f);
}

static void op_getsockopt(struct fsock *f)
{
	char out[64];
	socklen_t len = (socklen_t)(rnd() % 2 ? 16 : rint_b() % 80);

	getsockopt(f->fd, (int)(rnd() % 2 ? IPPROTO_HOMA : rint_b()),
		   (int)(rnd() % 2 ? SO_HOMA_RCVBUF : rint_b()),
		   rnd() % 8 ? (void *)out : bad_ptr(out),
		   rnd() % 8 ? &len : bad_ptr(&len));
	if (len > sizeof(out))
		len = 0;
}

static void op_misc(struct fsock *f)
{
	union homa_addr a;
	struct pollfd p;
	struct homa_abort_args ab;

	switch (rnd() % 6) {
	case 0:
		rand_addr(&a, f->family);
		bind(f->fd, rnd() % 10 ? &a.sa : bad_ptr(&a.sa),
		     rnd() % 5 ? homa_addr_len(&a) : (socklen_t)(rint_b() % 64));
		break;
	case 1:
		p.fd = f->fd;
		p.events = (short)rnd();
		poll(&p, 1, 0);
		break;
	case 2:
		if (rnd() % 20 == 0)
			shutdown(f->fd, (int)rint_b());
		break;
	case 3:
		memset(&ab, 0, sizeof(ab));
		ab.id = rnd() % 2 ? 0 : rint_b();
		ab.error = (int)(rnd() % 2 ? rnd() % 140 : rint_b());
		if (rnd() % 10 == 0)
			ab._pad1 = 1;
		ioctl(f->fd, HOMAIOCABORT, rnd() % 10 ? (void *)&ab : bad_ptr(&ab));
		break;
	case 4:
		ioctl(f->fd, (unsigned long)rint_b(), bad_ptr(&ab));
		break;
	default:
		if (rnd() % 30 == 0) {
			/* Unmap the region under the socket (EFAULT later). */
			if (f->region && rnd() % 2) {
				munmap(f->region, f->rlen);
				f->region = NULL;
				region_faults++;
			} else {
				close_sock(f);
				open_sock(f);
			}
		}
		break;
	}
}

static void fuzz(int seconds)
{
	long long end = now_ms() + seconds * 1000LL;
	int i;

	sendbuf = malloc(1200000);
	memset(sendbuf, 0x11, 1200000);
	for (i = 0; i < NSOCK; i++)
		open_sock(&s[i]);
	while (now_ms() < end) {
		struct fsock *f = &s[rnd() % NSOCK];

		switch (rnd() % 8) {
		case 0: case 1: case 2:
			op_sendmsg(f);
			break;
		case 3: case 4:
			op_recvmsg(f);
			break;
		case 5:
			op_setsockopt(f);
			break;
		case 6:
			op_getsockopt(f);
			break;
		default:
			op_misc(f);
			break;
		}
		ops++;
		if (rnd() % 200 == 0) {
			/* A raw socket() with odd arguments. */
			int fd = socket((int)(rnd() % 2 ? AF_INET6 : rint_b() % 50),
					(int)(rnd() % 2 ? SOCK_DGRAM : rint_b() % 12),
					IPPROTO_HOMA);

			if (fd >= 0)
				close(fd);
		}
	}
	for (i = 0; i < NSOCK; i++)
		close_sock(&s[i]);
}

/* The victim: an echo server and a client, both root, secret bytes. */
static int victim(int seconds)
{
	struct echo_thread srv;
	struct rpc_result res;
	union homa_addr a;
	struct homa_ep ep;
	struct homa_rx rx;
	uint8_t *buf = malloc(200000);
	long long end = now_ms() + seconds * 1000LL;
	long n = 0, bad = 0;
	size_t len;

	if (echo_thread_start(&srv, AF_INET, VICTIM_PORT, 256) ||
	    homa_ep_open(&ep, AF_INET, 0, 64))
		return 1;
	homa_addr_loopback(&a, AF_INET, VICTIM_PORT);
	homa_rx_init(&rx);
	while (now_ms() < end) {
		struct iovec iov[HOMA_MAX_BPAGES];
		uint64_t id;
		int c, i;
		ssize_t r;
		size_t j;

		len = 1 + (size_t)(n * 7919 % 150000);
		memset(buf, SECRET, len);
		if (homa_send_request_buf(ep.fd, &a, buf, len, (uint64_t)n,
					  &id)) {
			bad++;
			continue;
		}
		r = homa_receive(ep.fd, &rx, HOMA_RECVMSG_RESPONSE, id, 0);
		c = r > 0 ? homa_rx_iov(&ep.region, &rx, iov) : -1;
		if (r != (ssize_t)len || c < 0 ||
		    rx.ctl.completion_cookie != (uint64_t)n) {
			bad++;
		} else {
			for (i = 0; i < c; i++)
				for (j = 0; j < iov[i].iov_len; j++)
					if (((uint8_t *)iov[i].iov_base)[j] != SECRET)
						bad++;
		}
		n++;
	}
	echo_thread_stop(&srv);
	homa_ep_close(&ep);
	printf("# victim: %ld RPCs, %ld bad; its server echoed %ld requests (the fuzzer's too)\n",
	       n, bad, srv.served);
	free(buf);
	(void)res;
	return bad == 0 && n > 0 ? 0 : 1;
}

/*
 * An unprivileged fuzzer cannot reach what is not its own: for --seconds
 * it calls everything on its own Homa sockets while a root victim runs
 * RPCs with secret bytes. One fuzzing run is the scenario, so its five
 * checks are one case: the fuzzer ran to the end, it received messages
 * of its own, every received bpage lay inside its own region, it never
 * saw the victim's bytes, and the victim's RPCs all completed intact.
 */
FIXTURE(fuzz) {
};

FIXTURE_SETUP(fuzz)
{
}

FIXTURE_TEARDOWN(fuzz)
{
}

TEST_F_TIMEOUT(fuzz, unprivileged_fuzzer_contained, FUZZ_TIMEOUT)
{
	long vals[6] = { 0 };	/* what the fuzzer counted; [5]: it finished */
	int pipefd[2], st;
	pid_t vpid, fpid;
	long long t0;

	TH_LOG("seed %u, %d s, fuzzer uid %d", seed, cfg.seconds, cfg.uid);
	t0 = now_ms();
	vpid = fork();
	ASSERT_GE(vpid, 0);
	if (vpid == 0)
		_exit(victim(cfg.seconds + 5));
	usleep(300000);
	ASSERT_EQ(0, pipe(pipefd));
	fpid = fork();
	ASSERT_GE(fpid, 0);
	if (fpid == 0) {
		close(pipefd[0]);
		if (setgroups(0, NULL) || setgid((gid_t)cfg.uid) ||
		    setuid((uid_t)cfg.uid) || getuid() != (uid_t)cfg.uid)
			_exit(3);
		fuzz(cfg.seconds);
		vals[0] = ops;
		vals[1] = received;
		vals[2] = bad_offsets;
		vals[3] = secret_seen;
		vals[4] = region_faults;
		vals[5] = 1;
		if (write(pipefd[1], vals, sizeof(vals)) != sizeof(vals))
			_exit(4);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], vals, sizeof(vals)) != sizeof(vals))
		vals[5] = 0;
	st = -1;
	waitpid(fpid, &st, 0);
	TH_LOG("the unprivileged fuzzer ran %d s: %ld calls (exit status %#x)",
	       cfg.seconds, vals[0], st);
	EXPECT_TRUE(vals[5] == 1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("the fuzzer did not run to the end");
	TH_LOG("it received %ld messages of its own", vals[1]);
	EXPECT_GT(vals[1], 0);
	TH_LOG("received bpages outside the receiver's own region: %ld",
	       vals[2]);
	EXPECT_EQ(0, vals[2]);
	TH_LOG("times it saw the victim's bytes: %ld", vals[3]);
	EXPECT_EQ(0, vals[3]);
	st = -1;
	waitpid(vpid, &st, 0);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("the root victim's RPCs did not all complete with their own bytes (status %#x)",
		       st);
	TH_LOG("fuzzing took %lld ms (regions unmapped under sockets: %ld)",
	       now_ms() - t0, vals[4]);
}

static void usage(void)
{
	fprintf(stderr, "usage: homa_test_fuzz [--seconds S (1..%d)] [--seed N] [--uid U] [-- HARNESS ARGS]\n",
		MAX_SECONDS);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "uid", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	seed = 20240612;
	while ((c = getopt_long(argc, argv, "s:S:u:", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			cfg.seconds = atoi(optarg);
			break;
		case 'S':
			seed = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'u':
			cfg.uid = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (cfg.seconds < 1 || cfg.seconds > MAX_SECONDS)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	/* Some requests go to the other guest of the lab run. */
	if (!homa_lab_addr("G1", AF_INET) || !homa_lab_addr("G1", AF_INET6))
		return 2;
	return homa_harness_run(argc, argv, optind);
}
