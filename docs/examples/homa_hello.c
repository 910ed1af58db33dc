// SPDX-License-Identifier: BSD-2-Clause
/* homa_hello.c - one Homa RPC over loopback (docs/homa.7.md): a server
 * thread sends the request back as its response; the client checks it.
 *   ./homalab run docs/examples/homa_hello.c [--family 4|6]
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/homa.h>

#define PORT 4000                       /* bind() takes ports below 0x8000 */
#define REGION (64 * HOMA_BPAGE_SIZE)   /* 4 MiB buffer region per socket */
#define COOKIE 0x68656c6c6fULL          /* ours; comes back with the response */

static const char hello[] = "hello, homa";

union addr {                            /* a socket address of either family */
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
};

static int family = AF_INET;
static int server_fd;
static char *server_region;
static const char *server_failed;       /* the server call that failed */
static int server_errno;

static void die(const char *call)
{
	fprintf(stderr, "homa_hello: %s failed: %s\n", call, strerror(errno));
	exit(1);
}

/* A Homa socket with its buffer region (clients need one too: responses
 * land there) and a 5 s SO_RCVTIMEO, so that nothing waits forever. */
static int homa_socket(char **region)
{
	struct timeval tv = { .tv_sec = 5 };
	struct homa_rcvbuf_args rb;
	int fd = socket(family, SOCK_DGRAM, IPPROTO_HOMA);

	if (fd < 0)
		die("socket(SOCK_DGRAM, IPPROTO_HOMA)");
	*region = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*region == MAP_FAILED)
		die("mmap");
	rb.start = (uintptr_t)*region;  /* page-aligned, as Homa requires */
	rb.length = REGION;
	if (setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &rb, sizeof(rb)) < 0)
		die("setsockopt(SO_HOMA_RCVBUF)");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		die("setsockopt(SO_RCVTIMEO)");
	return fd;
}

/* The server thread stops at the first call that fails. */
static void *server_fails(const char *call)
{
	server_failed = call;
	server_errno = errno;
	return NULL;
}

/* Server thread: receive one request, send its bytes back, return bpages. */
static void *server(void *unused)
{
	struct homa_recvmsg_args rcv = { .flags = HOMA_RECVMSG_REQUEST };
	struct homa_sendmsg_args snd = { 0 };
	struct iovec iov[HOMA_MAX_BPAGES];
	union addr client;
	struct msghdr m = { .msg_name = &client, .msg_namelen = sizeof(client),
		.msg_control = &rcv, .msg_controllen = sizeof(rcv) };
	ssize_t len, left;
	uint32_t i;

	(void)unused;
	len = recvmsg(server_fd, &m, 0);
	if (len < 0)
		return server_fails("server recvmsg");
	printf("server: request id %llu, %zd bytes in %u bpage piece(s)\n",
	       (unsigned long long)rcv.id, len, rcv.num_bpages);

	/* The request lies in our region, 64 KiB per bpage_offsets[] entry:
	 * send it from there to the client, with its id (so: the response). */
	for (i = 0, left = len; i < rcv.num_bpages; i++) {
		iov[i].iov_base = server_region + rcv.bpage_offsets[i];
		iov[i].iov_len = left < HOMA_BPAGE_SIZE ? (size_t)left
							: HOMA_BPAGE_SIZE;
		left -= (ssize_t)iov[i].iov_len;
	}
	snd.id = rcv.id;
	m.msg_iov = iov;
	m.msg_iovlen = rcv.num_bpages;
	m.msg_control = &snd;
	m.msg_controllen = 0;                   /* sendmsg wants 0 here */
	if (sendmsg(server_fd, &m, 0) < 0)
		return server_fails("server sendmsg");

	/* Return the bpages (num_bpages, bpage_offsets[] as received): a
	 * non-blocking recvmsg takes them, finds no request: EAGAIN. */
	rcv.id = 0;
	rcv.flags = HOMA_RECVMSG_REQUEST | HOMA_RECVMSG_NONBLOCKING;
	m = (struct msghdr){.msg_control = &rcv, .msg_controllen = sizeof(rcv)};
	if (recvmsg(server_fd, &m, 0) >= 0 || errno != EAGAIN)
		return server_fails("server recvmsg (returning bpages)");
	return NULL;
}

int main(int argc, char **argv)
{
	struct homa_sendmsg_args snd = { .id = 0, .completion_cookie = COOKIE };
	struct homa_recvmsg_args rcv = { 0 };
	struct iovec iov = { (void *)hello, sizeof(hello) - 1 };
	union addr srv = { 0 };
	struct timespec t0, t1;
	char *client_region;
	pthread_t thread;
	struct msghdr m;
	ssize_t len;
	int fd, err;

	if (argc == 3 && strcmp(argv[1], "--family") == 0 &&
	    (strcmp(argv[2], "4") == 0 || strcmp(argv[2], "6") == 0)) {
		family = argv[2][0] == '6' ? AF_INET6 : AF_INET;
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--family 4|6]\n", argv[0]);
		return 1;
	}
	/* The server: bound to PORT (bind() uses only the port). */
	if (family == AF_INET6) {
		srv.in6.sin6_family = AF_INET6;
		srv.in6.sin6_port = htons(PORT);
	} else {
		srv.in4.sin_family = AF_INET;
		srv.in4.sin_port = htons(PORT);
	}
	server_fd = homa_socket(&server_region);
	if (bind(server_fd, &srv.sa, sizeof(srv)) < 0)
		die("bind");
	printf("server: bound to port %d (IPv%c)\n", PORT,
	       family == AF_INET6 ? '6' : '4');
	err = pthread_create(&thread, NULL, server, NULL);
	if (err) {
		errno = err;
		die("pthread_create");
	}

	/* Client: a new request (id 0) to the server over loopback;
	 * sendmsg writes the new RPC's id into snd.id. */
	fd = homa_socket(&client_region);
	if (family == AF_INET6)
		srv.in6.sin6_addr = in6addr_loopback;
	else
		srv.in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	m = (struct msghdr){ .msg_name = &srv, .msg_namelen = sizeof(srv),
			     .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = &snd, .msg_controllen = 0 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (sendmsg(fd, &m, 0) < 0)
		die("client sendmsg");

	/* Wait for the response of that RPC, by its id. */
	rcv.id = snd.id;
	m = (struct msghdr){.msg_control = &rcv, .msg_controllen = sizeof(rcv)};
	len = recvmsg(fd, &m, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	err = errno;
	pthread_join(thread, NULL);     /* a server failure explains the rest */
	errno = server_failed ? server_errno : err;
	if (server_failed || len < 0)
		die(server_failed ? server_failed : "client recvmsg");

	/* 11 bytes: one piece, at bpage_offsets[0] in the client's region. */
	if (rcv.id != snd.id || rcv.completion_cookie != COOKIE ||
	    len != (ssize_t)iov.iov_len || rcv.num_bpages != 1 ||
	    memcmp(client_region + rcv.bpage_offsets[0], hello, iov.iov_len)) {
		fprintf(stderr, "homa_hello: response (id %llu, %zd bytes) is"
			" not the request\n", (unsigned long long)rcv.id, len);
		return 1;
	}
	printf("client: RPC id %llu: sent %zu bytes, got back %zd: \"%.*s\", "
	       "round trip %.1f us\n", (unsigned long long)rcv.id, iov.iov_len,
	       len, (int)len, client_region + rcv.bpage_offsets[0],
	       (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3);
	close(fd);
	close(server_fd);
	return 0;
}
