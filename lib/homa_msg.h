/* SPDX-License-Identifier: GPL-2.0 */
/*
 * homa_msg.h - sendmsg/recvmsg wrappers for Homa programs, and
 * access to a received message that lies in bpages of the region.
 * Functions return a value >= 0 on success and -errno on failure.
 */
#ifndef HOMA_USER_MSG_H
#define HOMA_USER_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <linux/homa.h>

#include "homa_addr.h"
#include "homa_sock.h"

/* Sends a request; the kernel's new RPC id is stored in @id. */
int homa_send_request(int fd, const union homa_addr *dst,
		      const struct iovec *iov, int iovcnt, uint64_t cookie,
		      uint64_t *id);

/* Sends the response to request @id from @dst. */
int homa_send_response(int fd, const union homa_addr *dst, uint64_t id,
		       const struct iovec *iov, int iovcnt);

/* One-buffer forms of the above. */
int homa_send_request_buf(int fd, const union homa_addr *dst,
			  const void *buf, size_t len, uint64_t cookie,
			  uint64_t *id);
int homa_send_response_buf(int fd, const union homa_addr *dst, uint64_t id,
			   const void *buf, size_t len);

/*
 * Receive state of one socket user: the last message received and the
 * bpages to hand back to the kernel with the next receive.
 */
struct homa_rx {
	struct homa_recvmsg_args ctl;	/* as the kernel returned it */
	union homa_addr src;		/* the peer */
	ssize_t length;			/* message length or -errno */
	uint32_t ret_count;		/* bpages to return next time */
	uint32_t ret_offsets[HOMA_MAX_BPAGES];
};

void homa_rx_init(struct homa_rx *rx);

/*
 * Receives one message (recvmsg with @flags and @id), handing back the
 * bpages in rx->ret_*. On success the new message's bpages become the
 * ones returned next time (set rx->ret_count = 0 to keep them).
 * @msg_flags is passed to recvmsg (e.g. MSG_DONTWAIT).
 * Returns the message length or -errno.
 */
ssize_t homa_receive(int fd, struct homa_rx *rx, uint32_t flags,
		     uint64_t id, int msg_flags);

/*
 * homa_receive() without blocking (MSG_DONTWAIT), tried every 2 ms until
 * it gives something other than EAGAIN or @ms have passed. Returns the
 * message length or -errno (-EAGAIN when nothing came in time).
 */
ssize_t homa_receive_within(int fd, struct homa_rx *rx, uint32_t flags,
			    uint64_t id, int ms);

/*
 * HOMAIOCABORT on @fd (reserved fields 0): client RPC @id, or every
 * client RPC of the socket when @id is 0, ends with @error, which
 * recvmsg then reports for it; @error 0 frees the RPC instead. Returns 0
 * or -errno.
 */
int homa_abort(int fd, uint64_t id, int error);

/* Bytes of the message that bpage @i holds. */
size_t homa_rx_chunk_len(const struct homa_rx *rx, uint32_t i);

/*
 * Describes the received message with iovecs into the region (one per
 * bpage). Returns the count, or -EFAULT if a bpage lies outside @r or
 * the bpage count does not fit the length.
 */
int homa_rx_iov(const struct homa_region *r, const struct homa_rx *rx,
		struct iovec iov[HOMA_MAX_BPAGES]);

/* Copies the received message out of the region into @dst. */
int homa_rx_copy(const struct homa_region *r, const struct homa_rx *rx,
		 void *dst, size_t dst_len);

/* Bpages a message of @length bytes needs. */
static inline uint32_t homa_bpages_for(size_t length)
{
	return (uint32_t)((length + HOMA_BPAGE_SIZE - 1) >> HOMA_BPAGE_SHIFT);
}

#endif /* HOMA_USER_MSG_H */
