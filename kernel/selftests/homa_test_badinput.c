// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_badinput - wrong arguments get the documented errno and
 * leave the kernel log clean: unknown ids, wrong address families,
 * lengths out of range, SO_HOMA_RCVBUF misuse, bogus bpages, invalid
 * flags, wrong msg_controllen, NULL msg_name, no buffer region yet;
 * then the calls that wait: NONBLOCKING, signals, shutdown and poll;
 * sockets closed with RPCs in flight; and the errors of RPCs whose peer
 * cannot answer. Every test runs over IPv4 and over IPv6.
 *
 * Usage: homa_test_badinput [--silent-peer ADDR] [-- HARNESS-OPTIONS]
 * ADDR must never answer; it serves the variant of its family (default:
 * the lab's crafter address of each family, $HOMALAB_PEER_IP4 and
 * $HOMALAB_PEER_IP6).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include "blocked_call.h"
#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"

#define SERVER_PORT 4001
#define WAKE_PORT 4101
#define SILENT_PORT 4102
#define NOBODY_PORT 4999

/* The program's options, for the tests. */
static struct {
	const char *silent_peer;	/* --silent-peer, or NULL */
} cfg;

/* sendmsg with every field under the caller's control. */
static int raw_send(int fd, void *name, socklen_t namelen, void *buf,
		    size_t len, struct homa_sendmsg_args *args,
		    size_t controllen)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = name,
		.msg_namelen = namelen,
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = args,
		.msg_controllen = controllen,
	};

	return sendmsg(fd, &msg, 0) < 0 ? -errno : 0;
}

/* recvmsg with a chosen msg_controllen and msg_name. */
static int raw_recv(int fd, struct homa_recvmsg_args *ctl, size_t controllen,
		    void *name, socklen_t namelen)
{
	struct msghdr msg = {
		.msg_name = name,
		.msg_namelen = namelen,
		.msg_control = ctl,
		.msg_controllen = controllen,
	};
	ssize_t n = recvmsg(fd, &msg, 0);

	return n < 0 ? -errno : (int)n;
}

/* ------------------------------------------------------------------ */
/*
 * sendmsg, recvmsg and responses with wrong arguments, between a bound
 * server socket and a client socket (both with a region).
 */
FIXTURE(badinput) {
	struct homa_ep server;	/* bound, with a region */
	struct homa_ep client;	/* automatic port, with a region */
	union homa_addr server_addr;
	uint8_t *buf;		/* HOMA_MAX_MESSAGE_LENGTH + 1 bytes */
	int family;
};

FIXTURE_VARIANT(badinput) {
	int family;
};

HOMA_FAMILY_VARIANTS(badinput);

FIXTURE_SETUP(badinput)
{
	self->family = variant->family;
	self->server.fd = -1;
	self->client.fd = -1;
	self->buf = calloc(1, HOMA_MAX_MESSAGE_LENGTH + 1);
	ASSERT_NE(NULL, self->buf);
	ASSERT_ERRNO(0, homa_ep_open(&self->server, self->family, SERVER_PORT,
				     16));
	ASSERT_ERRNO(0, homa_ep_open(&self->client, self->family, 0, 16));
	homa_addr_loopback(&self->server_addr, self->family, SERVER_PORT);
}

FIXTURE_TEARDOWN(badinput)
{
	homa_ep_close(&self->client);
	homa_ep_close(&self->server);
	free(self->buf);
}

TEST_F_TIMEOUT(badinput, sendmsg_other_family_address_eafnosupport, 30)
{
	struct homa_sendmsg_args args = { 0, 0 };
	union homa_addr other;

	/* Long enough for either family: only the family is wrong. */
	homa_addr_loopback(&other, self->family == AF_INET ? AF_INET6
							   : AF_INET,
			   SERVER_PORT);
	EXPECT_ERRNO(EAFNOSUPPORT, raw_send(self->client.fd, &other,
					    sizeof(other), self->buf, 100,
					    &args, 0));
}

TEST_F_TIMEOUT(badinput, sendmsg_short_msg_namelen_einval, 30)
{
	struct homa_sendmsg_args args = { 0, 0 };
	union homa_addr a = self->server_addr;

	EXPECT_ERRNO(EINVAL, raw_send(self->client.fd, &a,
				      homa_addr_len(&a) - 1, self->buf, 100,
				      &args, 0));
}

TEST_F_TIMEOUT(badinput, sendmsg_null_msg_name_einval, 30)
{
	struct homa_sendmsg_args args = { 0, 0 };

	EXPECT_ERRNO(EINVAL, raw_send(self->client.fd, NULL, 0, self->buf,
				      100, &args, 0));
}

TEST_F_TIMEOUT(badinput, sendmsg_0_bytes_einval, 30)
{
	struct homa_sendmsg_args args = { 0, 0 };
	union homa_addr a = self->server_addr;

	EXPECT_ERRNO(EINVAL, raw_send(self->client.fd, &a, homa_addr_len(&a),
				      self->buf, 0, &args, 0));
}

TEST_F_TIMEOUT(badinput, sendmsg_over_max_length_einval, 30)
{
	struct homa_sendmsg_args args = { 0, 0 };
	union homa_addr a = self->server_addr;

	EXPECT_ERRNO(EINVAL, raw_send(self->client.fd, &a, homa_addr_len(&a),
				      self->buf, HOMA_MAX_MESSAGE_LENGTH + 1,
				      &args, 0));
}

TEST_F_TIMEOUT(badinput, sendmsg_controllen_not_0_einval, 30)
{
	struct homa_sendmsg_args args = { 0, 0 };
	union homa_addr a = self->server_addr;

	EXPECT_ERRNO(EINVAL, raw_send(self->client.fd, &a, homa_addr_len(&a),
				      self->buf, 100, &args, sizeof(args)));
}

/* A response for an RPC that does not exist is not an error. */
TEST_F_TIMEOUT(badinput, sendmsg_response_to_unknown_rpc_ignored, 30)
{
	struct homa_sendmsg_args args = { 12345, 0 };
	union homa_addr a = self->server_addr;

	EXPECT_ERRNO(0, raw_send(self->server.fd, &a, homa_addr_len(&a),
				 self->buf, 100, &args, 0));
}

/*
 * Responses are held to the same length limits as requests: for a real
 * request in service, 0 bytes and HOMA_MAX_MESSAGE_LENGTH + 1 give EINVAL
 * and leave the RPC intact, so a proper response still reaches the client.
 * serve_request() sends the client's request (cookie 9, id in @id) and
 * takes it at the server (@srx): 0 or -errno.
 */
static int serve_request(FIXTURE_DATA(badinput) *self, struct homa_rx *srx,
			 uint64_t *id)
{
	ssize_t n;
	int err;

	homa_rx_init(srx);
	err = homa_send_request_buf(self->client.fd, &self->server_addr,
				    self->buf, 100, 9, id);
	if (err)
		return err;
	n = homa_receive(self->server.fd, srx, HOMA_RECVMSG_REQUEST, 0, 0);
	return n < 0 ? (int)n : 0;
}

TEST_F_TIMEOUT(badinput, response_0_bytes_einval, 30)
{
	struct homa_rx srx;
	uint64_t id = 0;

	ASSERT_ERRNO(0, serve_request(self, &srx, &id));
	EXPECT_ERRNO(EINVAL, homa_send_response_buf(self->server.fd, &srx.src,
						    srx.ctl.id, self->buf, 0));
}

TEST_F_TIMEOUT(badinput, response_over_max_length_einval, 30)
{
	struct homa_rx srx;
	uint64_t id = 0;

	ASSERT_ERRNO(0, serve_request(self, &srx, &id));
	EXPECT_ERRNO(EINVAL, homa_send_response_buf(self->server.fd, &srx.src,
						    srx.ctl.id, self->buf,
						    HOMA_MAX_MESSAGE_LENGTH + 1));
}

TEST_F_TIMEOUT(badinput, response_after_bad_lengths_completes, 30)
{
	struct homa_rx srx, crx;
	uint64_t id = 0;
	ssize_t n;
	int err;

	ASSERT_ERRNO(0, serve_request(self, &srx, &id));
	EXPECT_ERRNO(EINVAL, homa_send_response_buf(self->server.fd, &srx.src,
						    srx.ctl.id, self->buf, 0));
	EXPECT_ERRNO(EINVAL, homa_send_response_buf(self->server.fd, &srx.src,
						    srx.ctl.id, self->buf,
						    HOMA_MAX_MESSAGE_LENGTH + 1));
	homa_rx_init(&crx);
	err = homa_send_response_buf(self->server.fd, &srx.src, srx.ctl.id,
				     self->buf, 200);
	n = err < 0 ? err : homa_receive(self->client.fd, &crx,
					  HOMA_RECVMSG_RESPONSE, id, 0);
	EXPECT_ERRNO(0, (int)(n < 0 ? n : 0));
	EXPECT_EQ(200, n);
	EXPECT_EQ(id, crx.ctl.id);
	EXPECT_EQ(9, crx.ctl.completion_cookie);
	/* Hand the bpages back. */
	homa_receive(self->server.fd, &srx, HOMA_RECVMSG_REQUEST, 0,
		     MSG_DONTWAIT);
	homa_receive(self->client.fd, &crx, HOMA_RECVMSG_RESPONSE, 0,
		     MSG_DONTWAIT);
}

TEST_F_TIMEOUT(badinput, recvmsg_unknown_client_id_einval, 30)
{
	struct homa_recvmsg_args ctl = { 0 };

	ctl.flags = HOMA_RECVMSG_RESPONSE;
	ctl.id = 1000;
	EXPECT_ERRNO(EINVAL, raw_recv(self->client.fd, &ctl, sizeof(ctl),
				      NULL, 0));
}

TEST_F_TIMEOUT(badinput, recvmsg_odd_server_id_einval, 30)
{
	struct homa_recvmsg_args ctl = { 0 };

	ctl.flags = HOMA_RECVMSG_RESPONSE;
	ctl.id = 1001;
	EXPECT_ERRNO(EINVAL, raw_recv(self->client.fd, &ctl, sizeof(ctl),
				      NULL, 0));
}

TEST_F_TIMEOUT(badinput, recvmsg_controllen_87_einval, 30)
{
	struct homa_recvmsg_args ctl = { 0 };

	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	EXPECT_ERRNO(EINVAL, raw_recv(self->client.fd, &ctl, sizeof(ctl) - 1,
				      NULL, 0));
}

TEST_F_TIMEOUT(badinput, recvmsg_controllen_89_einval, 30)
{
	struct homa_recvmsg_args ctl = { 0 };

	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	EXPECT_ERRNO(EINVAL, raw_recv(self->client.fd, &ctl, sizeof(ctl) + 1,
				      NULL, 0));
}

TEST_F_TIMEOUT(badinput, recvmsg_no_control_einval, 30)
{
	EXPECT_ERRNO(EINVAL, raw_recv(self->client.fd, NULL, 0, NULL, 0));
}

TEST_F_TIMEOUT(badinput, recvmsg_invalid_flags_einval, 30)
{
	struct homa_recvmsg_args ctl = { 0 };

	ctl.flags = HOMA_RECVMSG_VALID_FLAGS + 1;
	EXPECT_ERRNO(EINVAL, raw_recv(self->client.fd, &ctl, sizeof(ctl),
				      NULL, 0));
}

TEST_F_TIMEOUT(badinput, recvmsg_num_bpages_17_einval, 30)
{
	struct homa_recvmsg_args ctl = { 0 };

	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	ctl.num_bpages = HOMA_MAX_BPAGES + 1;
	EXPECT_ERRNO(EINVAL, raw_recv(self->client.fd, &ctl, sizeof(ctl),
				      NULL, 0));
}

TEST_F_TIMEOUT(badinput, recvmsg_bpage_offset_outside_region_einval, 30)
{
	struct homa_recvmsg_args ctl = { 0 };

	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	ctl.num_bpages = 1;
	ctl.bpage_offsets[0] = (uint32_t)self->client.region.length;
	EXPECT_ERRNO(EINVAL, raw_recv(self->client.fd, &ctl, sizeof(ctl),
				      NULL, 0));
}

TEST_F_TIMEOUT(badinput, recvmsg_bpage_offset_huge_einval, 30)
{
	struct homa_recvmsg_args ctl = { 0 };

	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	ctl.num_bpages = 1;
	ctl.bpage_offsets[0] = 0xfffff000u;
	EXPECT_ERRNO(EINVAL, raw_recv(self->client.fd, &ctl, sizeof(ctl),
				      NULL, 0));
}

/* No message has arrived yet: the caller owns no bpage. */
TEST_F_TIMEOUT(badinput, recvmsg_return_bpage_not_owned_einval, 30)
{
	struct homa_recvmsg_args ctl = { 0 };

	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	ctl.num_bpages = 1;
	ctl.bpage_offsets[0] = HOMA_BPAGE_SIZE;
	EXPECT_ERRNO(EINVAL, raw_recv(self->client.fd, &ctl, sizeof(ctl),
				      NULL, 0));
}

/*
 * A request received with msg_name NULL still arrives whole (500 bytes,
 * cookie 77): sends it and takes it at the server into @ctl. Returns the
 * length received or -errno.
 */
static int null_name_request(FIXTURE_DATA(badinput) *self,
			     struct homa_recvmsg_args *ctl, uint64_t *id)
{
	int err;

	memset(self->buf, 0x42, 500);
	err = homa_send_request_buf(self->client.fd, &self->server_addr,
				    self->buf, 500, 77, id);
	if (err)
		return err;
	memset(ctl, 0, sizeof(*ctl));
	ctl->flags = HOMA_RECVMSG_REQUEST;
	return raw_recv(self->server.fd, ctl, sizeof(*ctl), NULL, 0);
}

TEST_F_TIMEOUT(badinput, recvmsg_null_msg_name_gets_message, 30)
{
	struct homa_recvmsg_args ctl;
	uint64_t id = 0;
	int n;

	n = null_name_request(self, &ctl, &id);
	EXPECT_ERRNO(0, n);
	EXPECT_EQ(500, n);
}

/* ... and the server can answer it: the client gets the response. */
TEST_F_TIMEOUT(badinput, response_after_null_msg_name_request, 30)
{
	struct homa_recvmsg_args ctl;
	union homa_addr client;
	struct homa_rx rx;
	uint64_t id = 0;
	int n;

	n = null_name_request(self, &ctl, &id);
	ASSERT_EQ(500, n);
	/* Answer, hand the bpages back and collect the response. */
	homa_addr_loopback(&client, self->family, self->client.port);
	homa_send_response_buf(self->server.fd, &client, ctl.id, self->buf, 1);
	homa_rx_init(&rx);
	rx.ret_count = ctl.num_bpages;
	memcpy(rx.ret_offsets, ctl.bpage_offsets, sizeof(rx.ret_offsets));
	homa_receive(self->server.fd, &rx, HOMA_RECVMSG_REQUEST, 0,
		     MSG_DONTWAIT);
	homa_rx_init(&rx);
	n = (int)homa_receive(self->client.fd, &rx, HOMA_RECVMSG_RESPONSE, id,
			      0);
	EXPECT_ERRNO(0, n);
	EXPECT_EQ(77, rx.ctl.completion_cookie);
	homa_rx_init(&rx);
	homa_receive(self->client.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
		     MSG_DONTWAIT);
}

/* ------------------------------------------------------------------ */
/*
 * SO_HOMA_RCVBUF misuse on a socket without a region: each wrong call
 * gives EINVAL, and none of them installs a region (recvmsg still fails).
 */
FIXTURE(rcvbuf) {
	struct homa_region r;
	struct homa_rcvbuf_args args;
	int fd;
};

FIXTURE_VARIANT(rcvbuf) {
	int family;
};

HOMA_FAMILY_VARIANTS(rcvbuf);

FIXTURE_SETUP(rcvbuf)
{
	memset(&self->r, 0, sizeof(self->r));
	self->fd = homa_socket(variant->family);
	ASSERT_ERRNO(0, self->fd);
	ASSERT_ERRNO(0, homa_region_map(&self->r, 4));
}

FIXTURE_TEARDOWN(rcvbuf)
{
	if (self->fd >= 0)
		close(self->fd);
	homa_region_unmap(&self->r);
}

static int set_rcvbuf(int fd, const struct homa_rcvbuf_args *args,
		      socklen_t len)
{
	return sys_err(setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, args,
				  len));
}

TEST_F_TIMEOUT(rcvbuf, unaligned_start_einval, 30)
{
	self->args.start = (uintptr_t)self->r.base + 64;
	self->args.length = self->r.length - 4096;
	EXPECT_ERRNO(EINVAL, set_rcvbuf(self->fd, &self->args,
					sizeof(self->args)));
}

TEST_F_TIMEOUT(rcvbuf, one_bpage_too_small_einval, 30)
{
	self->args.start = (uintptr_t)self->r.base;
	self->args.length = HOMA_BPAGE_SIZE;
	EXPECT_ERRNO(EINVAL, set_rcvbuf(self->fd, &self->args,
					sizeof(self->args)));
}

TEST_F_TIMEOUT(rcvbuf, optlen_15_einval, 30)
{
	self->args.start = (uintptr_t)self->r.base;
	self->args.length = self->r.length;
	EXPECT_ERRNO(EINVAL, set_rcvbuf(self->fd, &self->args,
					sizeof(self->args) - 1));
}

TEST_F_TIMEOUT(rcvbuf, optlen_17_einval, 30)
{
	self->args.start = (uintptr_t)self->r.base;
	self->args.length = self->r.length;
	EXPECT_ERRNO(EINVAL, set_rcvbuf(self->fd, &self->args,
					sizeof(self->args) + 1));
}

TEST_F_TIMEOUT(rcvbuf, getsockopt_short_optlen_einval, 30)
{
	socklen_t len = sizeof(self->args) - 1;

	EXPECT_ERRNO(EINVAL, sys_err(getsockopt(self->fd, IPPROTO_HOMA,
						SO_HOMA_RCVBUF, &self->args,
						&len)));
}

/*
 * After every wrong SO_HOMA_RCVBUF call above (made again here), the
 * socket still has no region: recvmsg fails at once instead of waiting.
 */
TEST_F_TIMEOUT(rcvbuf, recvmsg_before_region_einval, 30)
{
	struct homa_rcvbuf_args *a = &self->args;
	struct blocked_call b;
	socklen_t len;
	int err;

	a->start = (uintptr_t)self->r.base + 64;
	a->length = self->r.length - 4096;
	set_rcvbuf(self->fd, a, sizeof(*a));
	a->start = (uintptr_t)self->r.base;
	a->length = HOMA_BPAGE_SIZE;
	set_rcvbuf(self->fd, a, sizeof(*a));
	a->length = self->r.length;
	set_rcvbuf(self->fd, a, sizeof(*a) - 1);
	set_rcvbuf(self->fd, a, sizeof(*a) + 1);
	len = sizeof(*a) - 1;
	getsockopt(self->fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, a, &len);

	err = blocked_call_start(&b, self->fd, HOMA_RECVMSG_REQUEST |
				 HOMA_RECVMSG_RESPONSE);
	if (!err) {
		blocked_call_wait(&b, 2000);
		if (!blocked_call_finish(&b)) {
			TH_LOG("recvmsg blocked for 2 s instead of failing");
			err = -EWOULDBLOCK;
		} else {
			err = (int)(b.result < 0 ? b.result : 0);
		}
	}
	EXPECT_ERRNO(EINVAL, err);
}

/* ------------------------------------------------------------------ */
/*
 * Calls that wait, on one bound socket x with a region: NONBLOCKING and
 * MSG_DONTWAIT give EAGAIN, poll and select report arrivals, a signal
 * ends a blocked recvmsg with EINTR, shutdown ends it with ESHUTDOWN
 * (and poll then reports POLLIN, later calls get ESHUTDOWN).
 */
FIXTURE(wakeups) {
	struct homa_ep x;
	int family;
};

FIXTURE_VARIANT(wakeups) {
	int family;
};

HOMA_FAMILY_VARIANTS(wakeups);

FIXTURE_SETUP(wakeups)
{
	self->family = variant->family;
	self->x.fd = -1;
	ASSERT_ERRNO(0, homa_ep_open(&self->x, self->family, WAKE_PORT, 4));
}

FIXTURE_TEARDOWN(wakeups)
{
	homa_ep_close(&self->x);
}

static void on_sigusr1(int sig)
{
	(void)sig;
}

static int poll_in(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, timeout_ms);

	if (n < 0)
		return -errno;
	return n > 0 && (p.revents & POLLIN);
}

/* select() for reading (and writing) on @fd: 1 readable, 0 not, -errno. */
static int select_in(int fd, int timeout_ms, bool *writable)
{
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	fd_set rd, wr;
	int n;

	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(fd, &rd);
	FD_SET(fd, &wr);
	n = select(fd + 1, &rd, writable ? &wr : NULL, NULL, &tv);
	if (n < 0)
		return -errno;
	if (writable)
		*writable = FD_ISSET(fd, &wr);
	return FD_ISSET(fd, &rd) ? 1 : 0;
}

TEST_F_TIMEOUT(wakeups, recvmsg_nonblocking_flag_eagain, 60)
{
	struct homa_rx rx;
	ssize_t n;

	homa_rx_init(&rx);
	n = homa_receive(self->x.fd, &rx, HOMA_RECVMSG_REQUEST |
			 HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING, 0, 0);
	EXPECT_ERRNO(EAGAIN, (int)(n < 0 ? n : 0));
}

TEST_F_TIMEOUT(wakeups, recvmsg_msg_dontwait_eagain, 60)
{
	struct homa_rx rx;
	ssize_t n;

	homa_rx_init(&rx);
	n = homa_receive(self->x.fd, &rx, HOMA_RECVMSG_REQUEST |
			 HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
	EXPECT_ERRNO(EAGAIN, (int)(n < 0 ? n : 0));
}

TEST_F_TIMEOUT(wakeups, poll_idle_socket_not_readable, 60)
{
	int r = poll_in(self->x.fd, 0);

	if (r != 0)
		TH_LOG("poll on an idle socket: %d", r);
	EXPECT_EQ(0, r);
}

TEST_F_TIMEOUT(wakeups, select_idle_socket_writable_not_readable, 60)
{
	bool writable = false;
	int r = select_in(self->x.fd, 0, &writable);

	EXPECT_EQ(0, r);
	EXPECT_TRUE(writable);
}

/*
 * A second socket y sends x one request (cookie 5): 0 or -errno. After
 * the check, request_done() serves it and lets y collect the response.
 */
static int request_to_x(FIXTURE_DATA(wakeups) *self, struct homa_ep *y,
			uint64_t *id)
{
	union homa_addr to_x;
	uint8_t b = 1;
	int err;

	y->fd = -1;
	homa_addr_loopback(&to_x, self->family, self->x.port);
	err = homa_ep_open(y, self->family, 0, 4);
	if (!err)
		err = homa_send_request_buf(y->fd, &to_x, &b, 1, 5, id);
	return err;
}

static void request_done(FIXTURE_DATA(wakeups) *self, struct homa_ep *y,
			 uint64_t id)
{
	struct homa_rx rx;
	uint8_t b = 1;

	homa_rx_init(&rx);
	if (homa_receive(self->x.fd, &rx, HOMA_RECVMSG_REQUEST, 0,
			 MSG_DONTWAIT) > 0)
		homa_send_response_buf(self->x.fd, &rx.src, rx.ctl.id, &b, 1);
	homa_rx_init(&rx);
	homa_receive(y->fd, &rx, HOMA_RECVMSG_RESPONSE, id, 0);
	homa_rx_init(&rx);
	homa_receive(self->x.fd, &rx, HOMA_RECVMSG_REQUEST, 0, MSG_DONTWAIT);
	homa_ep_close(y);
}

TEST_F_TIMEOUT(wakeups, poll_pollin_when_request_arrives, 60)
{
	struct homa_ep y;
	uint64_t id = 0;
	int r;

	ASSERT_ERRNO(0, request_to_x(self, &y, &id));
	r = poll_in(self->x.fd, 5000);
	if (r != 1)
		TH_LOG("poll after a request was sent: %s",
		       r < 0 ? errno_name(r) : "no POLLIN in 5 s");
	EXPECT_EQ(1, r);
	request_done(self, &y, id);
}

TEST_F_TIMEOUT(wakeups, select_readable_when_request_arrives, 60)
{
	struct homa_ep y;
	uint64_t id = 0;

	ASSERT_ERRNO(0, request_to_x(self, &y, &id));
	EXPECT_EQ(1, select_in(self->x.fd, 5000, NULL));
	request_done(self, &y, id);
}

TEST_F_TIMEOUT(wakeups, recvmsg_blocked_eintr_on_signal, 60)
{
	struct sigaction sa;
	struct blocked_call b;
	int tries, err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;	/* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	err = blocked_call_start(&b, self->x.fd, HOMA_RECVMSG_REQUEST |
				 HOMA_RECVMSG_RESPONSE);
	ASSERT_ERRNO(0, err);
	/* Signal it once it sleeps in recvmsg; a signal sent before the
	 * thread blocks is lost (no EINTR), so repeat it.
	 */
	if (!blocked_call_wait_blocked(&b, 10000))
		TH_LOG("recvmsg did not block within 10 s (done %d)",
		       __atomic_load_n(&b.done, __ATOMIC_ACQUIRE));
	for (tries = 0; tries < 20 && !blocked_call_wait(&b, 200); tries++)
		pthread_kill(b.thread, SIGUSR1);
	if (!blocked_call_finish(&b)) {
		TH_LOG("recvmsg still blocked after %d signals", tries);
		err = -EWOULDBLOCK;
	} else {
		err = (int)(b.result < 0 ? b.result : 0);
	}
	EXPECT_ERRNO(EINTR, err);
}

/*
 * Blocks a recvmsg on x, then shuts x down once the call really sleeps
 * (a call that starts after the shutdown gets ESHUTDOWN too, without
 * testing the wakeup). Returns what the woken call got, -EWOULDBLOCK if
 * it stayed blocked, -ETIME if it never blocked.
 */
static int shutdown_while_blocked(struct __test_metadata *_metadata,
				  FIXTURE_DATA(wakeups) *self)
{
	struct blocked_call b;
	char wchan[64];
	bool blocked;
	int err;

	err = blocked_call_start(&b, self->x.fd, HOMA_RECVMSG_REQUEST |
				 HOMA_RECVMSG_RESPONSE);
	if (err) {
		shutdown(self->x.fd, SHUT_RDWR);
		return err;
	}
	blocked = blocked_call_wait_blocked(&b, 10000);
	if (blocked)
		TH_LOG("recvmsg sleeps (wchan %s); shutting down",
		       task_wchan(0, b.tid, wchan, sizeof(wchan)));
	else if (blocked_call_wait(&b, 0))
		TH_LOG("recvmsg returned before shutdown: %s",
		       errno_name((int)b.result));
	else
		TH_LOG("recvmsg did not block within 10 s");
	shutdown(self->x.fd, SHUT_RDWR);
	blocked_call_wait(&b, 5000);
	if (!blocked_call_finish(&b)) {
		TH_LOG("recvmsg still blocked 5 s after shutdown");
		return -EWOULDBLOCK;
	}
	if (!blocked)
		return -ETIME;	/* not the case this is about */
	return (int)(b.result < 0 ? b.result : 0);
}

TEST_F_TIMEOUT(wakeups, recvmsg_blocked_eshutdown_on_shutdown, 60)
{
	EXPECT_ERRNO(ESHUTDOWN, shutdown_while_blocked(_metadata, self));
}

/* The three below check the socket after that same shutdown. */
TEST_F_TIMEOUT(wakeups, poll_pollin_after_shutdown, 60)
{
	shutdown_while_blocked(_metadata, self);
	EXPECT_EQ(1, poll_in(self->x.fd, 0));
}

TEST_F_TIMEOUT(wakeups, recvmsg_after_shutdown_eshutdown, 60)
{
	struct homa_rx rx;
	ssize_t n;

	shutdown_while_blocked(_metadata, self);
	homa_rx_init(&rx);
	n = homa_receive(self->x.fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0);
	EXPECT_ERRNO(ESHUTDOWN, (int)(n < 0 ? n : 0));
}

TEST_F_TIMEOUT(wakeups, sendmsg_after_shutdown_eshutdown, 60)
{
	union homa_addr to_x;
	uint8_t byte = 1;
	uint64_t id = 0;

	shutdown_while_blocked(_metadata, self);
	homa_addr_loopback(&to_x, self->family, WAKE_PORT);
	EXPECT_ERRNO(ESHUTDOWN, homa_send_request_buf(self->x.fd, &to_x,
						      &byte, 1, 1, &id));
}

/* ------------------------------------------------------------------ */
/*
 * Requests nobody answers, then both ends close: close() returns 0, every
 * client and server RPC of the two sockets is freed (the live metrics
 * fall back to their values before) and the server's port can be bound
 * again.
 */
FIXTURE(close_in_flight) {
	int unused;
};

FIXTURE_VARIANT(close_in_flight) {
	int family;
};

HOMA_FAMILY_VARIANTS(close_in_flight);

FIXTURE_SETUP(close_in_flight)
{
}

FIXTURE_TEARDOWN(close_in_flight)
{
}

/*
 * Waits (up to 5 s) until the live-RPC metrics stay put for 300 ms, so
 * that RPCs of earlier tests that are still being freed do not count.
 */
static void live_metrics_settle(long long *cl, long long *sv)
{
	int quiet = 0, i;

	*cl = homa_metric("client_rpcs_live");
	*sv = homa_metric("server_rpcs_live");
	for (i = 0; i < 100 && quiet < 6; i++) {
		long long c, s;

		usleep(50 * 1000);
		c = homa_metric("client_rpcs_live");
		s = homa_metric("server_rpcs_live");
		quiet = c == *cl && s == *sv ? quiet + 1 : 0;
		*cl = c;
		*sv = s;
	}
}

TEST_F_TIMEOUT(close_in_flight, all_rpcs_freed_and_port_free, 60)
{
	long long cl0, sv0, cl1 = -1, sv1 = -1;
	bool rose = false, fell = false;
	int family = variant->family;
	int err, i, rebind = -1, fd;
	struct homa_ep srv, cli;
	union homa_addr to_srv;
	uint8_t *buf;
	uint64_t id;

	live_metrics_settle(&cl0, &sv0);
	buf = calloc(1, 200000);
	ASSERT_NE(NULL, buf);
	ASSERT_ERRNO(0, homa_ep_open(&srv, family, SILENT_PORT, 8));
	ASSERT_ERRNO(0, homa_ep_open(&cli, family, 0, 8));
	homa_addr_loopback(&to_srv, family, SILENT_PORT);
	for (i = 0, err = 0; i < 5 && !err; i++)
		err = homa_send_request_buf(cli.fd, &to_srv, buf,
					    i == 0 ? 200000 : 100 * i, i, &id);
	/* All five are live at both ends before the close. */
	rose = !err &&
	       homa_metric_rises_to("client_rpcs_live", cl0 + 5, 20000) &&
	       homa_metric_rises_to("server_rpcs_live", sv0 + 5, 20000);
	cl1 = homa_metric("client_rpcs_live");
	sv1 = homa_metric("server_rpcs_live");
	if (close(cli.fd) < 0 && !err)
		err = -errno;
	cli.fd = -1;
	if (close(srv.fd) < 0 && !err)
		err = -errno;
	srv.fd = -1;
	homa_ep_close(&cli);
	homa_ep_close(&srv);
	fell = homa_metric_falls_to("client_rpcs_live", cl0, 20000) &&
	       homa_metric_falls_to("server_rpcs_live", sv0, 20000);
	fd = homa_socket(family);
	rebind = fd < 0 ? fd : homa_bind_port(fd, family, SILENT_PORT);
	if (fd >= 0)
		close(fd);
	free(buf);
	TH_LOG("close in flight: %s; live client RPCs %lld -> %lld -> %lld, server %lld -> %lld -> %lld (before, in flight, after close); rebinding port %d: %s",
	       errno_name(err), cl0, cl1, homa_metric("client_rpcs_live"),
	       sv0, sv1, homa_metric("server_rpcs_live"), SILENT_PORT,
	       errno_name(rebind));
	EXPECT_ERRNO(0, err);
	EXPECT_TRUE(rose);
	EXPECT_TRUE(fell);
	EXPECT_ERRNO(0, rebind);
}

/* ------------------------------------------------------------------ */
/*
 * Client RPCs that cannot succeed end with an error that recvmsg reports
 * with the RPC's id: ENOTCONN when the server's port has no socket (ICMP
 * port unreachable), ETIMEDOUT when the peer never answers (the lab's
 * crafter address, which nothing on the guest side owns).
 */
FIXTURE(peer_errors) {
	struct homa_ep ep;
};

FIXTURE_VARIANT(peer_errors) {
	int family;
};

HOMA_FAMILY_VARIANTS(peer_errors);

FIXTURE_SETUP(peer_errors)
{
	self->ep.fd = -1;
	ASSERT_ERRNO(0, homa_ep_open(&self->ep, variant->family, 0, 4));
}

FIXTURE_TEARDOWN(peer_errors)
{
	homa_ep_close(&self->ep);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Sends one request to @dst; returns what recvmsg reports for it. */
static int rpc_outcome(struct __test_metadata *_metadata,
		       struct homa_ep *ep, const union homa_addr *dst,
		       size_t len)
{
	static uint8_t buf[20000];
	long long t0 = now_ms();
	struct homa_rx rx;
	uint64_t id = 0;
	ssize_t n;
	int err;

	memset(buf, 0x33, sizeof(buf));
	err = homa_send_request_buf(ep->fd, dst, buf, len, 9, &id);
	if (err)
		return err;
	homa_rx_init(&rx);
	n = homa_receive(ep->fd, &rx, HOMA_RECVMSG_RESPONSE, id, 0);
	TH_LOG("request %llu: %s after %lld ms (recvmsg id %llu)",
	       (unsigned long long)id, errno_name(n < 0 ? (int)n : 0),
	       now_ms() - t0, (unsigned long long)rx.ctl.id);
	if (n < 0 && rx.ctl.id != id)
		return -EBADMSG;	/* the error must name the RPC */
	return n < 0 ? (int)n : 0;
}

TEST_F_TIMEOUT(peer_errors, request_to_port_without_socket_enotconn, 60)
{
	union homa_addr dst;

	homa_addr_loopback(&dst, variant->family, NOBODY_PORT);
	EXPECT_ERRNO(ENOTCONN, rpc_outcome(_metadata, &self->ep, &dst, 100));
}

TEST_F_TIMEOUT(peer_errors, request_to_silent_peer_etimedout, 60)
{
	const char *peer = cfg.silent_peer;
	union homa_addr dst;

	/* --silent-peer serves its own family; the lab's address the other. */
	if (!peer || homa_addr_parse(&dst, peer, 500) < 0 ||
	    dst.sa.sa_family != variant->family)
		peer = homa_lab_addr("PEER", variant->family);
	ASSERT_NE(NULL, peer) TH_LOG("no silent peer for this family");
	ASSERT_GE(homa_addr_parse(&dst, peer, 500), 0)
		TH_LOG("bad silent peer %s", peer);
	ASSERT_EQ(variant->family, dst.sa.sa_family)
		TH_LOG("silent peer %s of the wrong family", peer);
	EXPECT_ERRNO(ETIMEDOUT, rpc_outcome(_metadata, &self->ep, &dst, 5000));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "silent-peer", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "p:", opts, NULL)) != -1) {
		if (opt != 'p') {
			fprintf(stderr, "usage: %s [--silent-peer ADDR] [-- HARNESS-OPTIONS]\n",
				argv[0]);
			return 2;
		}
		cfg.silent_peer = optarg;
	}
	return homa_harness_run(argc, argv, optind);
}
