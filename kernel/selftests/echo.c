// SPDX-License-Identifier: GPL-2.0
/* echo.c - see echo.h. */
#define _GNU_SOURCE
#include "echo.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

ssize_t echo_once(struct homa_ep *ep, struct homa_rx *rx)
{
	struct iovec iov[HOMA_MAX_BPAGES];
	ssize_t len;
	int n, err;

	len = homa_receive(ep->fd, rx, HOMA_RECVMSG_REQUEST, 0, 0);
	if (len < 0)
		return len;
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

static void *echo_thread_main(void *arg)
{
	struct echo_thread *t = arg;
	struct homa_rx rx;
	ssize_t r;

	homa_rx_init(&rx);
	for (;;) {
		r = echo_once(&t->ep, &rx);
		if (r >= 0) {
			t->served++;
			continue;
		}
		t->last_err = (int)-r;
		if (echo_error_is_final(t->last_err))
			break;
		t->errors++;
	}
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
