/* SPDX-License-Identifier: GPL-2.0 */
/*
 * homa_io.h - a Homa socket with its receive buffer region
 * (SO_HOMA_RCVBUF), and sendmsg/recvmsg with the Homa control structs.
 * Functions return >= 0 on success and -errno on failure.
 */
#ifndef BENCH_HOMA_IO_H
#define BENCH_HOMA_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <linux/homa.h>

#include "homa_addr.h"

/* A Homa socket and the page-aligned region its messages arrive in. */
struct homa_ep {
	int fd;
	uint8_t *base;
	size_t length;
};

/*
 * Opens a Homa socket of @family, binds it to @port unless 0 and maps
 * a region of @bpages bpages for it.
 */
int homa_ep_open(struct homa_ep *ep, int family, uint16_t port,
		 unsigned int bpages);
void homa_ep_close(struct homa_ep *ep);

/*
 * Sends a message to @dst. *@id == 0: a new request (the kernel's id is
 * stored in *@id, @cookie comes back with the response); otherwise the
 * response to request *@id.
 */
int homa_ep_send(const struct homa_ep *ep, const union homa_addr *dst,
		 const struct iovec *iov, int iovcnt, uint64_t *id,
		 uint64_t cookie);

/*
 * The last message received and the bpages to give back with the next
 * receive: one per thread that receives.
 */
struct homa_in {
	struct homa_recvmsg_args ctl;
	union homa_addr src;
	ssize_t length;
	uint32_t ret_count;
	uint32_t ret_offsets[HOMA_MAX_BPAGES];
};

void homa_in_init(struct homa_in *in);

/*
 * Receives one message matching @flags (HOMA_RECVMSG_*), any id, and
 * hands back the previous message's bpages. Returns its length or
 * -errno; after a failed client RPC in->ctl.id and completion_cookie
 * still say which RPC failed.
 */
ssize_t homa_ep_recv(const struct homa_ep *ep, struct homa_in *in,
		     uint32_t flags);

/*
 * Describes the received message as iovecs into the region (one per
 * bpage). Returns the count, or -EFAULT if a bpage lies outside it.
 */
int homa_in_iov(const struct homa_ep *ep, const struct homa_in *in,
		struct iovec iov[HOMA_MAX_BPAGES]);

#endif /* BENCH_HOMA_IO_H */
