// SPDX-License-Identifier: GPL-2.0
/* homa_sock.c - see homa_sock.h. */
#define _GNU_SOURCE
#include "homa_sock.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int homa_socket(int family)
{
	int fd = socket(family, SOCK_DGRAM, IPPROTO_HOMA);

	return fd < 0 ? -errno : fd;
}

int homa_bind_port(int fd, int family, uint16_t port)
{
	union homa_addr a;

	homa_addr_any(&a, family, port);
	if (bind(fd, &a.sa, homa_addr_len(&a)) < 0)
		return -errno;
	return 0;
}

int homa_local_port(int fd)
{
	union homa_addr a;
	socklen_t len = sizeof(a);

	memset(&a, 0, sizeof(a));
	if (getsockname(fd, &a.sa, &len) < 0)
		return -errno;
	if (a.sa.sa_family != AF_INET && a.sa.sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	return homa_addr_port(&a);
}

int homa_region_map(struct homa_region *r, unsigned int bpages)
{
	void *p;

	r->length = (size_t)bpages * HOMA_BPAGE_SIZE;
	p = mmap(NULL, r->length, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		r->base = NULL;
		r->length = 0;
		return -errno;
	}
	r->base = p;
	return 0;
}

void homa_region_unmap(struct homa_region *r)
{
	if (r->base)
		munmap(r->base, r->length);
	r->base = NULL;
	r->length = 0;
}

int homa_region_attach(int fd, const struct homa_region *r)
{
	struct homa_rcvbuf_args args = {
		.start = (uintptr_t)r->base,
		.length = r->length,
	};

	if (setsockopt(fd, IPPROTO_HOMA, SO_HOMA_RCVBUF, &args,
		       sizeof(args)) < 0)
		return -errno;
	return 0;
}

int homa_ep_open(struct homa_ep *ep, int family, uint16_t port,
		 unsigned int bpages)
{
	int err;

	memset(ep, 0, sizeof(*ep));
	ep->family = family;
	ep->fd = homa_socket(family);
	if (ep->fd < 0)
		return ep->fd;
	if (port != 0) {
		err = homa_bind_port(ep->fd, family, port);
		if (err)
			goto fail;
	}
	err = homa_local_port(ep->fd);
	if (err < 0)
		goto fail;
	ep->port = (uint16_t)err;
	if (bpages != 0) {
		err = homa_region_map(&ep->region, bpages);
		if (err)
			goto fail;
		err = homa_region_attach(ep->fd, &ep->region);
		if (err)
			goto fail;
	}
	return 0;

fail:
	homa_ep_close(ep);
	return err;
}

void homa_ep_close(struct homa_ep *ep)
{
	if (ep->fd >= 0)
		close(ep->fd);
	ep->fd = -1;
	/* Unmap only after close: the kernel may write until then. */
	homa_region_unmap(&ep->region);
}
