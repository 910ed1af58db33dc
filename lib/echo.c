// SPDX-License-Identifier: GPL-2.0
/* echo.c - see echo.h. */
#define _GNU_SOURCE
#include "echo.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

ssize_t echo_once(struct homa_ep *ep, struct homa_rx *rx, int delay_ms)
{
	struct timespec delay = { delay_ms / 1000, delay_ms % 1000 * 1000000L };
	struct iovec iov[HOMA_MAX_BPAGES];
	ssize_t len;
	int n, err;

	len = homa_receive(ep->fd, rx, HOMA_RECVMSG_REQUEST, 0, 0);
	if (len < 0)
		return len;
	if (delay_ms > 0)
		nanosleep(&delay, NULL);
	n = homa_rx_iov(&ep->region, rx, iov);
	if (n < 0)
		return n;
	err = homa_send_response(ep->fd, &rx->src, rx->ctl.id, iov, n);
	if (err)
		return err;
	return len;
}

int echo_error_is_final(int err)
{
	return err == ESHUTDOWN || err == EBADF || err == ENOTSOCK ||
	       err == EINVAL || err == EFAULT;
}

int echo_serve(struct homa_ep *ep, long *served, long *errors,
	       atomic_llong *last_ms)
{
	struct homa_rx rx;
	struct timespec ts;
	ssize_t r;

	homa_rx_init(&rx);
	for (;;) {
		r = echo_once(ep, &rx, 0);
		if (r >= 0) {
			(*served)++;
			if (last_ms) {
				clock_gettime(CLOCK_MONOTONIC, &ts);
				atomic_store(last_ms, ts.tv_sec * 1000LL +
					     ts.tv_nsec / 1000000);
			}
			continue;
		}
		if (echo_error_is_final((int)-r))
			return (int)-r;
		if (errors)
			(*errors)++;
	}
}

static void *echo_thread_main(void *arg)
{
	struct echo_thread *t = arg;

	t->last_err = echo_serve(&t->ep, &t->served, &t->errors, NULL);
	return NULL;
}

int echo_thread_start(struct echo_thread *t, int family, uint16_t port,
		      unsigned int bpages)
{
	int err;

	memset(t, 0, sizeof(*t));
	err = homa_ep_open(&t->ep, family, port, bpages);
	if (err)
		return err;
	err = pthread_create(&t->thread, NULL, echo_thread_main, t);
	if (err) {
		homa_ep_close(&t->ep);
		return -err;
	}
	return 0;
}

void echo_thread_stop(struct echo_thread *t)
{
	shutdown(t->ep.fd, SHUT_RDWR);
	pthread_join(t->thread, NULL);
	homa_ep_close(&t->ep);
}
