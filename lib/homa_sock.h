/* SPDX-License-Identifier: GPL-2.0 */
/*
 * homa_sock.h - Homa socket set-up for Homa programs: open, bind,
 * local port, and the receive buffer region (SO_HOMA_RCVBUF).
 * Functions return 0 (or a value) on success and -errno on failure.
 */
#ifndef HOMA_USER_SOCK_H
#define HOMA_USER_SOCK_H

#include <stddef.h>
#include <stdint.h>

#include <linux/homa.h>

#include "homa_addr.h"

/* A page-aligned anonymous mapping handed to the kernel as bpages. */
struct homa_region {
	uint8_t *base;
	size_t length;
};

/* A socket with its family, port and (optional) buffer region. */
struct homa_ep {
	int fd;
	int family;
	uint16_t port;
	struct homa_region region;
};

/* socket(family, SOCK_DGRAM, IPPROTO_HOMA): fd or -errno. */
int homa_socket(int family);

/* Binds @fd to @port on the wildcard address of @family. */
int homa_bind_port(int fd, int family, uint16_t port);

/* The socket's port from getsockname(), or -errno. */
int homa_local_port(int fd);

/* Maps @bpages bpages (zeroed, page-aligned). */
int homa_region_map(struct homa_region *r, unsigned int bpages);
void homa_region_unmap(struct homa_region *r);

/* setsockopt(SO_HOMA_RCVBUF) with the region. */
int homa_region_attach(int fd, const struct homa_region *r);

/*
 * Opens a socket of @family, binds it to @port unless 0 (then the port
 * is automatic), and gives it a region of @bpages bpages unless 0.
 */
int homa_ep_open(struct homa_ep *ep, int family, uint16_t port,
		 unsigned int bpages);
void homa_ep_close(struct homa_ep *ep);

/* True when the region holds [@off, @off + @len). */
static inline int homa_region_holds(const struct homa_region *r,
				    uint64_t off, uint64_t len)
{
	return off <= r->length && len <= r->length - off;
}

#endif /* HOMA_USER_SOCK_H */
