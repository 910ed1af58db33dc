// SPDX-License-Identifier: GPL-2.0
/* homa_io.c - see homa_io.h. */
#include "homa_io.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

int homa_ep_open(struct homa_ep *ep, int family, uint16_t port,
		 unsigned int bpages)
{
	struct homa_rcvbuf_args args;
	union homa_addr a;
	void *p;
	int err;

	memset(ep, 0, sizeof(*ep));
	ep->fd = socket(family, SOCK_DGRAM, IPPROTO_HOMA);
	if (ep->fd < 0)
		return -errno;
	if (port) {
		homa_addr_any(&a, family, port);
		if (bind(ep->fd, &a.sa, homa_addr_len(&a)) < 0)
			goto fail;
	}
	ep->length = (size_t)bpages * HOMA_BPAGE_SIZE;
	p = mmap(NULL, ep->length, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		ep->length = 0;
		goto fail;
	}
	ep->base = p;
	args.start = (uintptr_t)ep->base;
	args.length = ep->length;
	if (setsockopt(ep->fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args,
		       sizeof(args)) < 0)
		goto fail;
	return 0;

fail:
	err = -errno;
	homa_ep_close(ep);
	return err;
}

void homa_ep_close(struct homa_ep *ep)
{
	if (ep->fd >= 0)
		close(ep->fd);
	ep->fd = -1;
	/* Unmap only after close: the kernel may write until then. */
	if (ep->base)
		munmap(ep->base, ep->length);
	ep->base = NULL;
	ep->length = 0;
}

int homa_ep_send(const struct homa_ep *ep, const union homa_addr *dst,
		 const struct iovec *iov, int iovcnt, uint64_t *id,
		 uint64_t cookie)
{
	struct homa_sendmsg_args args = {
		.id = *id,
		.completion_cookie = *id ? 0 : cookie,
	};
	struct msghdr msg = {
		.msg_name = (void *)dst,
		.msg_namelen = homa_addr_len(dst),
		.msg_iov = (struct iovec *)iov,
		.msg_iovlen = iovcnt,
		.msg_control = &args,
		.msg_controllen = 0,
	};

	if (sendmsg(ep->fd, &msg, 0) < 0)
		return -errno;
	*id = args.id;
	return 0;
}

void homa_in_init(struct homa_in *in)
{
	memset(in, 0, sizeof(*in));
	in->length = -ENOMSG;
}

ssize_t homa_ep_recv(const struct homa_ep *ep, struct homa_in *in,
		     uint32_t flags)
{
	struct msghdr msg = {
		.msg_name = &in->src,
		.msg_namelen = sizeof(in->src),
		.msg_control = &in->ctl,
		.msg_controllen = sizeof(in->ctl),
	};
	ssize_t n;

	memset(&in->ctl, 0, sizeof(in->ctl));
	in->ctl.flags = flags;
	in->ctl.num_bpages = in->ret_count;
	memcpy(in->ctl.bpage_offsets, in->ret_offsets,
	       in->ret_count * sizeof(in->ret_offsets[0]));
	n = recvmsg(ep->fd, &msg, 0);
	/* The kernel takes the bpages back whatever the outcome. */
	in->ret_count = 0;
	if (n < 0) {
		in->length = -errno;
		return in->length;
	}
	in->length = n;
	if (in->ctl.num_bpages <= HOMA_MAX_BPAGES) {
		in->ret_count = in->ctl.num_bpages;
		memcpy(in->ret_offsets, in->ctl.bpage_offsets,
		       in->ret_count * sizeof(in->ret_offsets[0]));
	}
	return n;
}

int homa_in_iov(const struct homa_ep *ep, const struct homa_in *in,
		struct iovec iov[HOMA_MAX_BPAGES])
{
	size_t left = in->length > 0 ? (size_t)in->length : 0;
	uint32_t i, n = in->ctl.num_bpages;

	if (n > HOMA_MAX_BPAGES ||
	    n != (left + HOMA_BPAGE_SIZE - 1) / HOMA_BPAGE_SIZE)
		return -EFAULT;
	for (i = 0; i < n; i++) {
		size_t len = left > HOMA_BPAGE_SIZE ? HOMA_BPAGE_SIZE : left;
		uint32_t off = in->ctl.bpage_offsets[i];

		if (off > ep->length || len > ep->length - off)
			return -EFAULT;
		iov[i].iov_base = ep->base + off;
		iov[i].iov_len = len;
		left -= len;
	}
	return (int)n;
}
