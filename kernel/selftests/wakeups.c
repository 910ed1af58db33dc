// SPDX-License-Identifier: GPL-2.0
/* wakeups.c - see wakeups.h. */
#define _GNU_SOURCE
#include "wakeups.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/select.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blocked_call.h"
#include "expect.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"

#define WAKE_PORT 4101
#define SILENT_PORT 4102

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

static void test_nonblocking(struct ktap *k, struct homa_ep *x)
{
	struct homa_rx rx;
	ssize_t n;

	homa_rx_init(&rx);
	n = homa_receive(x->fd, &rx, HOMA_RECVMSG_REQUEST |
			 HOMA_RECVMSG_RESPONSE | HOMA_RECVMSG_NONBLOCKING, 0, 0);
	expect_errno(k, (int)(n < 0 ? n : 0), EAGAIN,
		     "recvmsg_nonblocking_flag_eagain");
	n = homa_receive(x->fd, &rx, HOMA_RECVMSG_REQUEST |
			 HOMA_RECVMSG_RESPONSE, 0, MSG_DONTWAIT);
	expect_errno(k, (int)(n < 0 ? n : 0), EAGAIN,
		     "recvmsg_msg_dontwait_eagain");
}

static void test_poll(struct ktap *k, int family, struct homa_ep *x)
{
	union homa_addr to_x;
	struct homa_ep y;
	struct homa_rx rx;
	uint64_t id = 0;
	bool writable = false;
	uint8_t b = 1;
	int r, err;

	r = poll_in(x->fd, 0);
	if (r != 0)
		ktap_diag(k, "poll on an idle socket: %d", r);
	ktap_result(k, r == 0, "poll_idle_socket_not_readable");
	r = select_in(x->fd, 0, &writable);
	ktap_result(k, r == 0 && writable,
		    "select_idle_socket_writable_not_readable");

	homa_addr_loopback(&to_x, family, x->port);
	err = homa_ep_open(&y, family, 0, 4);
	if (!err)
		err = homa_send_request_buf(y.fd, &to_x, &b, 1, 5, &id);
	r = err ? err : poll_in(x->fd, 5000);
	if (r != 1)
		ktap_diag(k, "poll after a request was sent: %s",
			  r < 0 ? errno_name(r) : "no POLLIN in 5 s");
	ktap_result(k, r == 1, "poll_pollin_when_request_arrives");
	r = err ? err : select_in(x->fd, 5000, NULL);
	ktap_result(k, r == 1, "select_readable_when_request_arrives");
	if (err)
		return;
	/* Serve it and let y collect the response. */
	homa_rx_init(&rx);
	if (homa_receive(x->fd, &rx, HOMA_RECVMSG_REQUEST, 0, MSG_DONTWAIT) > 0)
		homa_send_response_buf(x->fd, &rx.src, rx.ctl.id, &b, 1);
	homa_rx_init(&rx);
	homa_receive(y.fd, &rx, HOMA_RECVMSG_RESPONSE, id, 0);
	homa_rx_init(&rx);
	homa_receive(x->fd, &rx, HOMA_RECVMSG_REQUEST, 0, MSG_DONTWAIT);
	homa_ep_close(&y);
}

static void test_signal(struct ktap *k, struct homa_ep *x)
{
	struct sigaction sa;
	struct blocked_call b;
	int tries, err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;	/* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	err = blocked_call_start(&b, x->fd, HOMA_RECVMSG_REQUEST |
				 HOMA_RECVMSG_RESPONSE);
	if (err) {
		expect_errno(k, err, EINTR, "recvmsg_blocked_eintr_on_signal");
		return;
	}
	/* Signal it once it sleeps in recvmsg; a signal sent before the
	 * thread blocks is lost (no EINTR), so repeat it.
	 */
	if (!blocked_call_wait_blocked(&b, 10000))
		ktap_diag(k, "recvmsg did not block within 10 s (done %d)",
			  __atomic_load_n(&b.done, __ATOMIC_ACQUIRE));
	for (tries = 0; tries < 20 && !blocked_call_wait(&b, 200); tries++)
		pthread_kill(b.thread, SIGUSR1);
	if (!blocked_call_finish(&b)) {
		ktap_diag(k, "recvmsg still blocked after %d signals", tries);
		err = -EWOULDBLOCK;
	} else {
		err = (int)(b.result < 0 ? b.result : 0);
	}
	expect_errno(k, err, EINTR, "recvmsg_blocked_eintr_on_signal");
}

static void test_shutdown(struct ktap *k, int family, struct homa_ep *x)
{
	union homa_addr to_x;
	struct blocked_call b;
	uint8_t byte = 1;
	uint64_t id = 0;
	int err, r;

	err = blocked_call_start(&b, x->fd, HOMA_RECVMSG_REQUEST |
				 HOMA_RECVMSG_RESPONSE);
	if (!err) {
		/* Shut down only once the call really sleeps in recvmsg:
		 * a call that starts after the shutdown gets ESHUTDOWN too,
		 * without testing the wakeup.
		 */
		bool blocked = blocked_call_wait_blocked(&b, 10000);
		char wchan[64];

		if (blocked)
			ktap_diag(k, "recvmsg sleeps (wchan %s); shutting down",
				  task_wchan(0, b.tid, wchan, sizeof(wchan)));
		else if (blocked_call_wait(&b, 0))
			ktap_diag(k, "recvmsg returned before shutdown: %s",
				  errno_name((int)b.result));
		else
			ktap_diag(k, "recvmsg did not block within 10 s");
		shutdown(x->fd, SHUT_RDWR);
		blocked_call_wait(&b, 5000);
		if (!blocked_call_finish(&b)) {
			err = -EWOULDBLOCK;
			ktap_diag(k, "recvmsg still blocked 5 s after shutdown");
		} else if (!blocked) {
			err = -ETIME;	/* not the case this is about */
		} else {
			err = (int)(b.result < 0 ? b.result : 0);
		}
	}
	expect_errno(k, err, ESHUTDOWN, "recvmsg_blocked_eshutdown_on_shutdown");
	r = poll_in(x->fd, 0);
	ktap_result(k, r == 1, "poll_pollin_after_shutdown");
	{
		struct homa_rx rx;
		ssize_t n;

		homa_rx_init(&rx);
		n = homa_receive(x->fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0);
		expect_errno(k, (int)(n < 0 ? n : 0), ESHUTDOWN,
			     "recvmsg_after_shutdown_eshutdown");
	}
	homa_addr_loopback(&to_x, family, WAKE_PORT);
	expect_errno(k, homa_send_request_buf(x->fd, &to_x, &byte, 1, 1, &id),
		     ESHUTDOWN, "sendmsg_after_shutdown_eshutdown");
}

/*
 * Requests nobody answers, then both ends close: close() returns 0, every
 * client and server RPC of the two sockets is freed (the live metrics
 * fall back to their values before) and the server's port can be bound
 * again.
 */
/*
 * Waits (up to 5 s) until the live-RPC metrics stay put for 300 ms, so
 * that RPCs of earlier cases that are still being freed do not count.
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

static void test_close_in_flight(struct ktap *k, int family)
{
	long long cl0, sv0, cl1 = -1, sv1 = -1;
	bool rose = false, fell = false;
	struct homa_ep srv, cli;
	union homa_addr to_srv;
	int err, i, rebind = -1, fd;
	uint8_t *buf;
	uint64_t id;

	live_metrics_settle(&cl0, &sv0);
	buf = calloc(1, 200000);
	err = buf ? homa_ep_open(&srv, family, SILENT_PORT, 8) : -ENOMEM;
	if (!err) {
		err = homa_ep_open(&cli, family, 0, 8);
		if (err)
			homa_ep_close(&srv);
	}
	if (!err) {
		homa_addr_loopback(&to_srv, family, SILENT_PORT);
		for (i = 0; i < 5 && !err; i++)
			err = homa_send_request_buf(cli.fd, &to_srv, buf,
						    i == 0 ? 200000 : 100 * i,
						    i, &id);
		/* All five are live at both ends before the close. */
		rose = !err &&
		       homa_metric_rises_to("client_rpcs_live", cl0 + 5,
					    20000) &&
		       homa_metric_rises_to("server_rpcs_live", sv0 + 5,
					    20000);
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
	}
	free(buf);
	ktap_diag(k, "close in flight: %s; live client RPCs %lld -> %lld -> %lld, server %lld -> %lld -> %lld (before, in flight, after close); rebinding port %d: %s",
		  errno_name(err), cl0, cl1, homa_metric("client_rpcs_live"),
		  sv0, sv1, homa_metric("server_rpcs_live"), SILENT_PORT,
		  errno_name(rebind));
	ktap_result(k, !err && rose && fell && rebind == 0,
		    "close_with_rpcs_in_flight");
}

void wakeup_tests(struct ktap *k, int family)
{
	struct homa_ep x;
	int err;

	err = homa_ep_open(&x, family, WAKE_PORT, 4);
	if (!expect_errno(k, err, 0, "wakeup_socket")) {
		for (err = 1; err < WAKEUP_CASES; err++)
			ktap_result(k, false, "wakeup_case_%d", err);
		return;
	}
	test_nonblocking(k, &x);
	test_poll(k, family, &x);
	test_signal(k, &x);
	test_shutdown(k, family, &x);
	homa_ep_close(&x);
	test_close_in_flight(k, family);
}
