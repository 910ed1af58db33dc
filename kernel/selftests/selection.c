// SPDX-License-Identifier: GPL-2.0
/* selection.c - see selection.h. */
#define _GNU_SOURCE
#include "selection.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "echo.h"
#include "expect.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "payload.h"

#define SEL_SERVER_PORT 2201
#define SEL_DUAL_PORT 2202

/* Waits until @fd is readable (a message is ready), up to 5 s. */
static void wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	poll(&p, 1, 5000);
}

/* Responses to A and B are both ready; asking for B returns B. */
static void test_by_id(struct ktap *k, int family)
{
	union homa_addr server;
	struct echo_thread srv;
	struct homa_ep cli;
	struct homa_rx rx;
	uint8_t buf[1000];
	uint64_t a = 0, b = 0;
	ssize_t n1 = -1, n2 = -1;
	int err;

	err = echo_thread_start(&srv, family, SEL_SERVER_PORT, 8);
	if (!err) {
		err = homa_ep_open(&cli, family, 0, 8);
		if (err)
			echo_thread_stop(&srv);
	}
	if (err) {
		expect_errno(k, err, 0, "recvmsg_by_id_returns_that_response");
		return;
	}
	homa_addr_loopback(&server, family, SEL_SERVER_PORT);
	payload_fill(buf, sizeof(buf), 1, 0);
	err = homa_send_request_buf(cli.fd, &server, buf, 1000, 0xa, &a);
	if (!err)
		err = homa_send_request_buf(cli.fd, &server, buf, 10, 0xb, &b);
	if (!err) {
		/* Let both responses arrive. */
		wait_readable(cli.fd);
		usleep(300 * 1000);
		homa_rx_init(&rx);
		n1 = homa_receive(cli.fd, &rx, HOMA_RECVMSG_RESPONSE, b, 0);
		if (n1 == 10 && (rx.ctl.id != b || rx.ctl.completion_cookie != 0xb))
			n1 = -EBADMSG;
		n2 = homa_receive(cli.fd, &rx, HOMA_RECVMSG_RESPONSE, a, 0);
		if (n2 == 1000 && (rx.ctl.id != a || rx.ctl.completion_cookie != 0xa))
			n2 = -EBADMSG;
		if (n1 != 10 || n2 != 1000) {
			ktap_diag(k, "by id: B gave %zd (want 10), A gave %zd (want 1000)",
				  n1, n2);
			err = n1 < 0 ? (int)n1 : (n2 < 0 ? (int)n2 : -EBADMSG);
		}
	}
	expect_errno(k, err, 0, "recvmsg_by_id_returns_that_response");
	homa_ep_close(&cli);
	echo_thread_stop(&srv);
}

/*
 * A socket that is client and server: with a request and a response
 * both ready, each flag picks only its kind.
 */
static void test_flags(struct ktap *k, int family)
{
	struct homa_ep s, other;
	union homa_addr to_s, to_other;
	struct homa_rx rx, orx;
	uint64_t id_s = 0, id_o = 0;
	uint8_t byte = 7;
	int err, r1 = 0, r2 = 0;
	ssize_t n;

	err = homa_ep_open(&s, family, SEL_DUAL_PORT, 8);
	if (!err) {
		err = homa_ep_open(&other, family, SEL_DUAL_PORT + 1, 8);
		if (err)
			homa_ep_close(&s);
	}
	if (err) {
		expect_errno(k, err, 0, "recvmsg_response_flag_leaves_requests");
		expect_errno(k, err, 0, "recvmsg_request_flag_leaves_responses");
		expect_errno(k, err, 0, "recvmsg_both_flags_take_both_kinds");
		return;
	}
	homa_addr_loopback(&to_s, family, SEL_DUAL_PORT);
	homa_addr_loopback(&to_other, family, SEL_DUAL_PORT + 1);
	homa_rx_init(&rx);
	homa_rx_init(&orx);
	/* s sends a request to other; other sends one to s. */
	err = homa_send_request_buf(s.fd, &to_other, &byte, 1, 1, &id_s);
	if (!err)
		err = homa_send_request_buf(other.fd, &to_s, &byte, 1, 2, &id_o);
	/* other answers s's request, so s has one of each kind. */
	if (!err) {
		n = homa_receive(other.fd, &orx, HOMA_RECVMSG_REQUEST, 0, 0);
		err = n < 0 ? (int)n : homa_send_response_buf(
			other.fd, &orx.src, orx.ctl.id, &byte, 1);
	}
	if (!err) {
		wait_readable(s.fd);
		usleep(300 * 1000);
		/* RESPONSE only: gets the response, not the request. */
		n = homa_receive(s.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
				 MSG_DONTWAIT);
		r1 = n == 1 && rx.ctl.id == id_s;
		if (r1) {
			n = homa_receive(s.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
					 MSG_DONTWAIT);
			r1 = n == -EAGAIN;
		}
		/* REQUEST only: the request is still there. */
		n = homa_receive(s.fd, &rx, HOMA_RECVMSG_REQUEST, 0,
				 MSG_DONTWAIT);
		r2 = n == 1 && rx.ctl.id != id_s && (rx.ctl.id & 1);
		if (r2)
			homa_send_response_buf(s.fd, &rx.src, rx.ctl.id, &byte, 1);
	}
	if (err)
		ktap_diag(k, "set-up: %s", errno_name(err));
	ktap_result(k, !err && r1, "recvmsg_response_flag_leaves_requests");
	ktap_result(k, !err && r2, "recvmsg_request_flag_leaves_responses");
	/* other collects its response with both flags set. */
	n = err ? err : homa_receive(other.fd, &orx, HOMA_RECVMSG_REQUEST |
				     HOMA_RECVMSG_RESPONSE, 0, 0);
	expect_errno(k, n < 0 ? (int)n : (orx.ctl.id == id_o ? 0 : -EBADMSG),
		     0, "recvmsg_both_flags_take_both_kinds");
	homa_ep_close(&other);
	homa_ep_close(&s);
}

void selection_tests(struct ktap *k, int family)
{
	test_by_id(k, family);
	test_flags(k, family);
}
