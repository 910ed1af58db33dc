// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_badinput - wrong arguments get the documented errno and
 * leave the kernel log clean: unknown ids, wrong address families,
 * lengths out of range, SO_HOMA_RCVBUF misuse, bogus bpages, invalid
 * flags, wrong msg_controllen, NULL msg_name, no buffer region yet;
 * then the calls that wait: NONBLOCKING, signals, shutdown and poll
 * (wakeups.c); and the errors of RPCs whose peer cannot answer
 * (peer_errors.c).
 *
 * Usage: homa_test_badinput [--family 4|6] [--silent-peer ADDR]
 * ADDR must never answer (default: the lab's crafter address of the
 * family, $HOMALAB_PEER_IP4 or $HOMALAB_PEER_IP6).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blocked_call.h"
#include "expect.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "ktap.h"
#include "peer_errors.h"
#include "wakeups.h"
#include "watchdog.h"

#define SERVER_PORT 4001

struct bad_ctx {
	struct ktap *k;
	int family;
	struct homa_ep server;	/* bound, with a region */
	struct homa_ep client;	/* automatic port, with a region */
	union homa_addr server_addr;
	uint8_t *buf;		/* HOMA_MAX_MESSAGE_LENGTH + 1 bytes */
};

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

static void test_send_args(struct bad_ctx *c)
{
	struct homa_sendmsg_args args = { 0, 0 };
	union homa_addr other, a = c->server_addr;
	int other_family = c->family == AF_INET ? AF_INET6 : AF_INET;
	int fd = c->client.fd;

	/* Long enough for either family: only the family is wrong. */
	homa_addr_loopback(&other, other_family, SERVER_PORT);
	expect_errno(c->k, raw_send(fd, &other, sizeof(other), c->buf,
				    100, &args, 0),
		     EAFNOSUPPORT, "sendmsg_other_family_address_eafnosupport");
	args.id = 0;
	expect_errno(c->k, raw_send(fd, &a, homa_addr_len(&a) - 1, c->buf, 100,
				    &args, 0),
		     EINVAL, "sendmsg_short_msg_namelen_einval");
	args.id = 0;
	expect_errno(c->k, raw_send(fd, NULL, 0, c->buf, 100, &args, 0),
		     EINVAL, "sendmsg_null_msg_name_einval");
	args.id = 0;
	expect_errno(c->k, raw_send(fd, &a, homa_addr_len(&a), c->buf, 0,
				    &args, 0),
		     EINVAL, "sendmsg_0_bytes_einval");
	args.id = 0;
	expect_errno(c->k, raw_send(fd, &a, homa_addr_len(&a), c->buf,
				    HOMA_MAX_MESSAGE_LENGTH + 1, &args, 0),
		     EINVAL, "sendmsg_over_max_length_einval");
	args.id = 0;
	expect_errno(c->k, raw_send(fd, &a, homa_addr_len(&a), c->buf, 100,
				    &args, sizeof(args)),
		     EINVAL, "sendmsg_controllen_not_0_einval");
	/* A response for an RPC that does not exist is not an error. */
	args.id = 12345;
	expect_errno(c->k, raw_send(c->server.fd, &a, homa_addr_len(&a),
				    c->buf, 100, &args, 0),
		     0, "sendmsg_response_to_unknown_rpc_ignored");
}

/*
 * Responses are held to the same length limits as requests: for a real
 * request in service, 0 bytes and HOMA_MAX_MESSAGE_LENGTH + 1 give EINVAL
 * and leave the RPC intact, so a proper response still reaches the client.
 */
static void test_response_lengths(struct bad_ctx *c)
{
	struct homa_rx srx, crx;
	uint64_t id = 0;
	ssize_t n;
	int err;

	homa_rx_init(&srx);
	homa_rx_init(&crx);
	err = homa_send_request_buf(c->client.fd, &c->server_addr, c->buf, 100,
				    9, &id);
	n = err < 0 ? err : homa_receive(c->server.fd, &srx,
					  HOMA_RECVMSG_REQUEST, 0, 0);
	if (!expect_errno(c->k, n < 0 ? (int)n : 0, 0, "response_test_request")) {
		ktap_skip(c->k, "no request to answer", "response_0_bytes_einval");
		ktap_skip(c->k, "no request to answer",
			  "response_over_max_length_einval");
		ktap_skip(c->k, "no request to answer",
			  "response_after_bad_lengths_completes");
		return;
	}
	expect_errno(c->k, homa_send_response_buf(c->server.fd, &srx.src,
						  srx.ctl.id, c->buf, 0),
		     EINVAL, "response_0_bytes_einval");
	expect_errno(c->k, homa_send_response_buf(c->server.fd, &srx.src,
						  srx.ctl.id, c->buf,
						  HOMA_MAX_MESSAGE_LENGTH + 1),
		     EINVAL, "response_over_max_length_einval");
	err = homa_send_response_buf(c->server.fd, &srx.src, srx.ctl.id,
				     c->buf, 200);
	n = err < 0 ? err : homa_receive(c->client.fd, &crx,
					  HOMA_RECVMSG_RESPONSE, id, 0);
	expect_errno(c->k, n < 0 ? (int)n :
		     (n == 200 && crx.ctl.id == id &&
		      crx.ctl.completion_cookie == 9 ? 0 : -EPROTO),
		     0, "response_after_bad_lengths_completes");
	/* Hand the bpages back. */
	homa_receive(c->server.fd, &srx, HOMA_RECVMSG_REQUEST, 0, MSG_DONTWAIT);
	homa_receive(c->client.fd, &crx, HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
}

static void test_rcvbuf_args(struct bad_ctx *c)
{
	struct homa_rcvbuf_args args;
	struct homa_region r;
	socklen_t len;
	int fd, err;

	fd = homa_socket(c->family);
	err = fd < 0 ? fd : homa_region_map(&r, 4);
	if (!expect_errno(c->k, err, 0, "rcvbuf_test_socket")) {
		if (fd >= 0)
			close(fd);
		for (err = 0; err < 6; err++)
			ktap_result(c->k, false, "rcvbuf_case_%d", err);
		return;
	}
	args.start = (uintptr_t)r.base + 64;
	args.length = r.length - 4096;
	err = setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args,
			 sizeof(args)) < 0 ? -errno : 0;
	expect_errno(c->k, err, EINVAL, "rcvbuf_unaligned_start_einval");
	args.start = (uintptr_t)r.base;
	args.length = HOMA_BPAGE_SIZE;
	err = setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args,
			 sizeof(args)) < 0 ? -errno : 0;
	expect_errno(c->k, err, EINVAL, "rcvbuf_one_bpage_too_small_einval");
	args.length = r.length;
	err = setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args,
			 sizeof(args) - 1) < 0 ? -errno : 0;
	expect_errno(c->k, err, EINVAL, "rcvbuf_optlen_15_einval");
	err = setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args,
			 sizeof(args) + 1) < 0 ? -errno : 0;
	expect_errno(c->k, err, EINVAL, "rcvbuf_optlen_17_einval");
	len = sizeof(args) - 1;
	err = getsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args, &len) < 0
		? -errno : 0;
	expect_errno(c->k, err, EINVAL, "rcvbuf_getsockopt_short_optlen_einval");
	/* Nothing above may have installed a region. */
	{
		struct blocked_call b;

		err = blocked_call_start(&b, fd, HOMA_RECVMSG_REQUEST |
					 HOMA_RECVMSG_RESPONSE);
		if (!err) {
			blocked_call_wait(&b, 2000);
			if (!blocked_call_finish(&b)) {
				ktap_diag(c->k, "recvmsg blocked for 2 s instead of failing");
				err = -EWOULDBLOCK;
			} else {
				err = (int)(b.result < 0 ? b.result : 0);
			}
		}
		expect_errno(c->k, err, EINVAL, "recvmsg_before_region_einval");
	}
	close(fd);
	homa_region_unmap(&r);
}

static void test_recv_args(struct bad_ctx *c)
{
	struct homa_recvmsg_args ctl;
	int fd = c->client.fd;

	memset(&ctl, 0, sizeof(ctl));
	ctl.flags = HOMA_RECVMSG_RESPONSE;
	ctl.id = 1000;
	expect_errno(c->k, raw_recv(fd, &ctl, sizeof(ctl), NULL, 0), EINVAL,
		     "recvmsg_unknown_client_id_einval");
	memset(&ctl, 0, sizeof(ctl));
	ctl.flags = HOMA_RECVMSG_RESPONSE;
	ctl.id = 1001;
	expect_errno(c->k, raw_recv(fd, &ctl, sizeof(ctl), NULL, 0), EINVAL,
		     "recvmsg_odd_server_id_einval");
	memset(&ctl, 0, sizeof(ctl));
	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	expect_errno(c->k, raw_recv(fd, &ctl, sizeof(ctl) - 1, NULL, 0), EINVAL,
		     "recvmsg_controllen_87_einval");
	expect_errno(c->k, raw_recv(fd, &ctl, sizeof(ctl) + 1, NULL, 0), EINVAL,
		     "recvmsg_controllen_89_einval");
	expect_errno(c->k, raw_recv(fd, NULL, 0, NULL, 0), EINVAL,
		     "recvmsg_no_control_einval");
	memset(&ctl, 0, sizeof(ctl));
	ctl.flags = HOMA_RECVMSG_VALID_FLAGS + 1;
	expect_errno(c->k, raw_recv(fd, &ctl, sizeof(ctl), NULL, 0), EINVAL,
		     "recvmsg_invalid_flags_einval");
	memset(&ctl, 0, sizeof(ctl));
	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	ctl.num_bpages = HOMA_MAX_BPAGES + 1;
	expect_errno(c->k, raw_recv(fd, &ctl, sizeof(ctl), NULL, 0), EINVAL,
		     "recvmsg_num_bpages_17_einval");
	memset(&ctl, 0, sizeof(ctl));
	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	ctl.num_bpages = 1;
	ctl.bpage_offsets[0] = (uint32_t)c->client.region.length;
	expect_errno(c->k, raw_recv(fd, &ctl, sizeof(ctl), NULL, 0), EINVAL,
		     "recvmsg_bpage_offset_outside_region_einval");
	memset(&ctl, 0, sizeof(ctl));
	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	ctl.num_bpages = 1;
	ctl.bpage_offsets[0] = 0xfffff000u;
	expect_errno(c->k, raw_recv(fd, &ctl, sizeof(ctl), NULL, 0), EINVAL,
		     "recvmsg_bpage_offset_huge_einval");
	/* No message has arrived yet: the caller owns no bpage. */
	memset(&ctl, 0, sizeof(ctl));
	ctl.flags = HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING;
	ctl.num_bpages = 1;
	ctl.bpage_offsets[0] = HOMA_BPAGE_SIZE;
	expect_errno(c->k, raw_recv(fd, &ctl, sizeof(ctl), NULL, 0), EINVAL,
		     "recvmsg_return_bpage_not_owned_einval");
}

/* A request received with msg_name NULL still arrives whole. */
static void test_null_recv_name(struct bad_ctx *c)
{
	struct homa_recvmsg_args ctl;
	union homa_addr client;
	struct homa_rx rx;
	uint64_t id = 0;
	int err, n = -1;

	memset(c->buf, 0x42, 500);
	err = homa_send_request_buf(c->client.fd, &c->server_addr, c->buf, 500,
				    77, &id);
	if (!err) {
		memset(&ctl, 0, sizeof(ctl));
		ctl.flags = HOMA_RECVMSG_REQUEST;
		n = raw_recv(c->server.fd, &ctl, sizeof(ctl), NULL, 0);
		err = n < 0 ? n : (n == 500 ? 0 : -EMSGSIZE);
	}
	expect_errno(c->k, err, 0, "recvmsg_null_msg_name_gets_message");
	if (n < 0)
		return;
	/* Answer, hand the bpages back and collect the response. */
	homa_addr_loopback(&client, c->family, c->client.port);
	homa_send_response_buf(c->server.fd, &client, ctl.id, c->buf, 1);
	homa_rx_init(&rx);
	rx.ret_count = ctl.num_bpages;
	memcpy(rx.ret_offsets, ctl.bpage_offsets, sizeof(rx.ret_offsets));
	homa_receive(c->server.fd, &rx, HOMA_RECVMSG_REQUEST, 0, MSG_DONTWAIT);
	homa_rx_init(&rx);
	n = (int)homa_receive(c->client.fd, &rx, HOMA_RECVMSG_RESPONSE, id, 0);
	expect_errno(c->k, n < 0 ? n : (rx.ctl.completion_cookie == 77 ? 0
					: -EBADMSG), 0,
		     "response_after_null_msg_name_request");
	homa_rx_init(&rx);
	homa_receive(c->client.fd, &rx, HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "silent-peer", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct bad_ctx c = { .family = AF_INET };
	const char *silent_peer = NULL;
	struct watchdog wd;
	struct ktap k;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "f:p:", opts, NULL)) != -1) {
		if (opt == 'f')
			c.family = homa_family_parse(optarg);
		else if (opt == 'p')
			silent_peer = optarg;
		if ((opt != 'f' && opt != 'p') || c.family < 0) {
			fprintf(stderr, "usage: %s [--family 4|6] [--silent-peer ADDR]\n",
				argv[0]);
			return 2;
		}
	}
	if (!silent_peer)
		silent_peer = homa_lab_addr("PEER", c.family);
	if (!silent_peer)
		return 2;
	c.k = &k;
	/*
	 * Cases: setup, send 7, response lengths 4, rcvbuf 7, recv 10,
	 * NULL msg_name 2.
	 */
	ktap_start(&k, 1 + 7 + 4 + 7 + 10 + 2 + WAKEUP_CASES +
		   PEER_ERROR_CASES);
	watchdog_start(&wd, &k);
	c.buf = calloc(1, HOMA_MAX_MESSAGE_LENGTH + 1);
	err = c.buf ? homa_ep_open(&c.server, c.family, SERVER_PORT, 16)
		    : -ENOMEM;
	if (!err) {
		err = homa_ep_open(&c.client, c.family, 0, 16);
		if (err)
			homa_ep_close(&c.server);
	}
	if (!expect_errno(&k, err, 0, "sockets_with_regions"))
		return ktap_finish(&k);
	homa_addr_loopback(&c.server_addr, c.family, SERVER_PORT);

	watchdog_arm(&wd, 30, "send_args");
	test_send_args(&c);
	watchdog_arm(&wd, 30, "response_lengths");
	test_response_lengths(&c);
	watchdog_arm(&wd, 30, "rcvbuf_args");
	test_rcvbuf_args(&c);
	watchdog_arm(&wd, 30, "recv_args");
	test_recv_args(&c);
	watchdog_arm(&wd, 30, "null_recv_name");
	test_null_recv_name(&c);
	watchdog_arm(&wd, 60, "wakeups");
	wakeup_tests(&k, c.family);
	watchdog_arm(&wd, 60, "peer_errors");
	peer_error_tests(&k, c.family, silent_peer);
	watchdog_stop(&wd);

	homa_ep_close(&c.client);
	homa_ep_close(&c.server);
	free(c.buf);
	return ktap_finish(&k);
}
