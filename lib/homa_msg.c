// SPDX-License-Identifier: GPL-2.0
/* homa_msg.c - see homa_msg.h. */
#define _GNU_SOURCE
#include "homa_msg.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * One sendmsg() of a Homa message: @args says which (id 0: a new request,
 * whose id the kernel writes back into @args; else the response to that
 * id). 0 or -errno.
 */
static int send_message(int fd, const union homa_addr *dst,
			const struct iovec *iov, int iovcnt,
			struct homa_sendmsg_args *args)
{
	struct msghdr msg = {
		.msg_name = (void *)dst,
		.msg_namelen = homa_addr_len(dst),
		.msg_iov = (struct iovec *)iov,
		.msg_iovlen = iovcnt,
		.msg_control = args,
		.msg_controllen = 0,
	};

	return sendmsg(fd, &msg, 0) < 0 ? -errno : 0;
}

int homa_send_request(int fd, const union homa_addr *dst,
		      const struct iovec *iov, int iovcnt, uint64_t cookie,
		      uint64_t *id)
{
	struct homa_sendmsg_args args = { .id = 0, .completion_cookie = cookie };
	int err = send_message(fd, dst, iov, iovcnt, &args);

	if (!err && id)
		*id = args.id;
	return err;
}

int homa_send_response(int fd, const union homa_addr *dst, uint64_t id,
		       const struct iovec *iov, int iovcnt)
{
	struct homa_sendmsg_args args = { .id = id, .completion_cookie = 0 };

	return send_message(fd, dst, iov, iovcnt, &args);
}

int homa_send_request_buf(int fd, const union homa_addr *dst,
			  const void *buf, size_t len, uint64_t cookie,
			  uint64_t *id)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return homa_send_request(fd, dst, &iov, 1, cookie, id);
}

int homa_send_response_buf(int fd, const union homa_addr *dst, uint64_t id,
			   const void *buf, size_t len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return homa_send_response(fd, dst, id, &iov, 1);
}

void homa_rx_init(struct homa_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
	rx->length = -ENOMSG;
}

ssize_t homa_receive(int fd, struct homa_rx *rx, uint32_t flags,
		     uint64_t id, int msg_flags)
{
	struct msghdr msg = {
		.msg_name = &rx->src,
		.msg_namelen = sizeof(rx->src),
		.msg_control = &rx->ctl,
		.msg_controllen = sizeof(rx->ctl),
	};
	ssize_t n;

	memset(&rx->ctl, 0, sizeof(rx->ctl));
	memset(&rx->src, 0, sizeof(rx->src));
	rx->ctl.id = id;
	rx->ctl.flags = flags;
	rx->ctl.num_bpages = rx->ret_count;
	memcpy(rx->ctl.bpage_offsets, rx->ret_offsets,
	       sizeof(rx->ret_offsets));
	n = recvmsg(fd, &msg, msg_flags);
	/*
	 * The kernel takes the returned bpages back before it waits, so
	 * they are gone whatever the outcome.
	 */
	rx->ret_count = 0;
	if (n < 0) {
		rx->length = -errno;
		return rx->length;
	}
	rx->length = n;
	if (rx->ctl.num_bpages <= HOMA_MAX_BPAGES) {
		rx->ret_count = rx->ctl.num_bpages;
		memcpy(rx->ret_offsets, rx->ctl.bpage_offsets,
		       sizeof(rx->ret_offsets));
	}
	return n;
}

ssize_t homa_receive_within(int fd, struct homa_rx *rx, uint32_t flags,
			    uint64_t id, int ms)
{
	long long end = now_ms() + ms;
	ssize_t n;

	for (;;) {
		n = homa_receive(fd, rx, flags, id, MSG_DONTWAIT);
		if (n != -EAGAIN || now_ms() >= end)
			return n;
		usleep(2000);
	}
}

int homa_abort(int fd, uint64_t id, int error)
{
	struct homa_abort_args a = { .id = id, .error = error };

	return ioctl(fd, HOMAIOCABORT, &a) ? -errno : 0;
}

size_t homa_rx_chunk_len(const struct homa_rx *rx, uint32_t i)
{
	size_t start = (size_t)i << HOMA_BPAGE_SHIFT;

	if (rx->length <= 0 || start >= (size_t)rx->length)
		return 0;
	if ((size_t)rx->length - start > HOMA_BPAGE_SIZE)
		return HOMA_BPAGE_SIZE;
	return (size_t)rx->length - start;
}

int homa_rx_iov(const struct homa_region *r, const struct homa_rx *rx,
		struct iovec iov[HOMA_MAX_BPAGES])
{
	uint32_t n = rx->ctl.num_bpages, i;

	if (rx->length < 0 || n > HOMA_MAX_BPAGES ||
	    n != homa_bpages_for((size_t)rx->length))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		size_t len = homa_rx_chunk_len(rx, i);
		uint32_t off = rx->ctl.bpage_offsets[i];

		if (!homa_region_holds(r, off, len))
			return -EFAULT;
		iov[i].iov_base = r->base + off;
		iov[i].iov_len = len;
	}
	return (int)n;
}

int homa_rx_copy(const struct homa_region *r, const struct homa_rx *rx,
		 void *dst, size_t dst_len)
{
	struct iovec iov[HOMA_MAX_BPAGES];
	uint8_t *p = dst;
	int n, i;

	n = homa_rx_iov(r, rx, iov);
	if (n < 0)
		return n;
	if ((size_t)rx->length > dst_len)
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	return 0;
}
