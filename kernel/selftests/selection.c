// SPDX-License-Identifier: GPL-2.0
/* selection.c - see selection.h. */
#define _GNU_SOURCE
#include "selection.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
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
static bool wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 5000) == 1 && (p.revents & POLLIN);
}

/*
 * Receives one message with @flags (and @id), waiting up to 5 s for one
 * that matches, without ever blocking in the kernel (MSG_DONTWAIT, so a
 * kernel that ignores the selection cannot hang the test).
 */
static ssize_t recv_within(int fd, struct homa_rx *rx, uint32_t flags,
			   uint64_t id)
{
	ssize_t n;
	int i;

	for (i = 0; i < 500; i++) {
		n = homa_receive(fd, rx, flags, id, MSG_DONTWAIT);
		if (n != -EAGAIN)
			return n;
		usleep(10 * 1000);
	}
	return -ETIMEDOUT;
}

/*
 * Responses to A and B are both ready; asking for B returns B. A's
 * response is made ready first (the only message, so readable means it
 * is there), then B is sent: a kernel that ignored the id would hand
 * out A, the older one.
 */
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
	if (!err && !wait_readable(cli.fd))
		err = -ETIMEDOUT;
	if (!err)
		err = homa_send_request_buf(cli.fd, &server, buf, 10, 0xb, &b);
	if (!err) {
		homa_rx_init(&rx);
		n1 = recv_within(cli.fd, &rx, HOMA_RECVMSG_RESPONSE, b);
		if (n1 >= 0 && (n1 != 10 || rx.ctl.id != b ||
				rx.ctl.completion_cookie != 0xb))
			n1 = -EBADMSG;
		n2 = recv_within(cli.fd, &rx, HOMA_RECVMSG_RESPONSE, a);
		if (n2 >= 0 && (n2 != 1000 || rx.ctl.id != a ||
				rx.ctl.completion_cookie != 0xa))
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

/* Sockets s (client and server at once) and other (its peer). */
struct dual {
	struct homa_ep s, other;
	union homa_addr to_s, to_other;
	uint64_t id_s;		/* s's request to other (its response) */
	uint64_t id_o;		/* other's request to s */
};

/*
 * s sends a request; other takes it and answers: s's response is on its
 * way (ready in s once s is readable, if nothing else is queued).
 */
static int queue_response(struct dual *d)
{
	uint8_t byte = 7;
	struct homa_rx rx;
	ssize_t n;
	int err;

	err = homa_send_request_buf(d->s.fd, &d->to_other, &byte, 1, 1,
				    &d->id_s);
	if (err)
		return err;
	homa_rx_init(&rx);
	n = recv_within(d->other.fd, &rx, HOMA_RECVMSG_REQUEST, 0);
	if (n < 0)
		return (int)n;
	return homa_send_response_buf(d->other.fd, &rx.src, rx.ctl.id, &byte,
				      1);
}

/* other sends s a request. */
static int queue_request(struct dual *d)
{
	uint8_t byte = 8;

	return homa_send_request_buf(d->other.fd, &d->to_s, &byte, 1, 2,
				     &d->id_o);
}

/* What s received: 'q' other's request, 'r' the response, '?' else. */
static char kind(const struct dual *d, ssize_t n, const struct homa_rx *rx)
{
	if (n != 1)
		return '?';
	if (rx->ctl.id == d->id_s && rx->ctl.completion_cookie == 1)
		return 'r';
	if ((rx->ctl.id & 1) && rx->ctl.id != d->id_s)
		return 'q';
	return '?';
}

/*
 * Ends a round: s answers the request it took (@req, if any) and other
 * collects that response, so no RPC is left for the next round.
 */
static void finish_round(struct dual *d, const struct homa_rx *req)
{
	uint8_t byte = 9;
	struct homa_rx rx;

	if (req)
		homa_send_response_buf(d->s.fd, &req->src, req->ctl.id, &byte,
				       1);
	homa_rx_init(&rx);
	recv_within(d->other.fd, &rx, HOMA_RECVMSG_RESPONSE, d->id_o);
}

/*
 * A socket that is client and server at once, with a request and a
 * response both queued; each case receives with one kind of flag and
 * then shows that the message of the other kind is still queued.
 * @first: which is queued first ('q' or 'r'): the one a kernel that
 * ignored the flags would hand out, so the flag under test must skip it.
 * @flags1, @flags2: the flags of the two receives. With one flag in
 * @flags1, a receive with it first, while only the other kind is queued,
 * must find nothing ('-'). Stores what the receives got in @got ("-rq":
 * nothing, the response, then the request). Returns 0 or -errno
 * (-EEXIST when a message was left over).
 */
static int flags_round(struct dual *d, char first, uint32_t flags1,
		       uint32_t flags2, char got[4])
{
	struct homa_rx rx, req;
	bool have_req = false;
	ssize_t n;
	int err;

	memset(got, 0, 4);
	homa_rx_init(&rx);
	homa_rx_init(&req);
	/* The first is the only message: readable means it is queued. */
	err = first == 'q' ? queue_request(d) : queue_response(d);
	if (!err && !wait_readable(d->s.fd))
		err = -ETIMEDOUT;
	if (err)
		return err;
	/* One flag: with only the other kind queued, nothing to take. */
	if (flags1 != (HOMA_RECVMSG_REQUEST | HOMA_RECVMSG_RESPONSE)) {
		n = homa_receive(d->s.fd, &rx, flags1, 0, MSG_DONTWAIT);
		got[0] = n == -EAGAIN ? '-' : kind(d, n, &rx);
		if (got[0] == 'q') {
			req = rx;
			have_req = true;
		}
		got++;
	}
	err = first == 'q' ? queue_response(d) : queue_request(d);
	if (err)
		return err;
	n = recv_within(d->s.fd, &rx, flags1, 0);
	got[0] = kind(d, n, &rx);
	if (got[0] == 'q') {
		req = rx;
		have_req = true;
	}
	/* The other kind: queued before the first receive (one flag), or
	 * perhaps still on its way (both flags: the first took either).
	 */
	if (flags2 == (HOMA_RECVMSG_REQUEST | HOMA_RECVMSG_RESPONSE))
		n = recv_within(d->s.fd, &rx, flags2, 0);
	else
		n = homa_receive(d->s.fd, &rx, flags2, 0, MSG_DONTWAIT);
	got[1] = n == -EAGAIN ? '-' : kind(d, n, &rx);
	if (got[1] == 'q') {
		req = rx;
		have_req = true;
	}
	finish_round(d, have_req ? &req : NULL);
	/* Hand back the last bpage; nothing may be left for s. */
	n = homa_receive(d->s.fd, &rx, HOMA_RECVMSG_REQUEST |
			 HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
	return n == -EAGAIN ? 0 : -EEXIST;
}

static void test_flags(struct ktap *k, int family)
{
	static const char *const names[3] = {
		"recvmsg_response_flag_leaves_requests",
		"recvmsg_request_flag_leaves_responses",
		"recvmsg_both_flags_take_both_kinds",
	};
	const uint32_t rq = HOMA_RECVMSG_REQUEST, rs = HOMA_RECVMSG_RESPONSE;
	struct dual d;
	char got[4];
	int err, i;

	memset(&d, 0, sizeof(d));
	err = homa_ep_open(&d.s, family, SEL_DUAL_PORT, 8);
	if (!err) {
		err = homa_ep_open(&d.other, family, SEL_DUAL_PORT + 1, 8);
		if (err)
			homa_ep_close(&d.s);
	}
	if (err) {
		for (i = 0; i < 3; i++)
			expect_errno(k, err, 0, "%s", names[i]);
		return;
	}
	homa_addr_loopback(&d.to_s, family, SEL_DUAL_PORT);
	homa_addr_loopback(&d.to_other, family, SEL_DUAL_PORT + 1);

	/* Request queued first; RESPONSE takes the response, and the
	 * request is still there for REQUEST.
	 */
	err = flags_round(&d, 'q', rs, rq, got);
	ktap_diag(k, "request queued, RESPONSE; response queued too, RESPONSE then REQUEST: got \"%s\" (want \"-rq\"), %s",
		  got, errno_name(err));
	ktap_result(k, !err && strcmp(got, "-rq") == 0, "%s", names[0]);

	/* Response queued first; REQUEST takes the request, and the
	 * response is still there for RESPONSE.
	 */
	err = flags_round(&d, 'r', rq, rs, got);
	ktap_diag(k, "response queued, REQUEST; request queued too, REQUEST then RESPONSE: got \"%s\" (want \"-qr\"), %s",
		  got, errno_name(err));
	ktap_result(k, !err && strcmp(got, "-qr") == 0, "%s", names[1]);

	/* One of each queued; both flags twice take both (either order). */
	err = flags_round(&d, 'r', rq | rs, rq | rs, got);
	ktap_diag(k, "one of each queued, both flags twice: got \"%s\" (want \"rq\" or \"qr\"), %s",
		  got, errno_name(err));
	ktap_result(k, !err && (strcmp(got, "rq") == 0 ||
				strcmp(got, "qr") == 0), "%s", names[2]);
	homa_ep_close(&d.other);
	homa_ep_close(&d.s);
}

void selection_tests(struct ktap *k, int family)
{
	test_by_id(k, family);
	test_flags(k, family);
}
