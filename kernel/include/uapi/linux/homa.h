/* SPDX-License-Identifier: BSD-2-Clause WITH Linux-syscall-note */
/*
 * homa.h - the user API of the Homa transport protocol.
 *
 * Compatible with the December 2024 (v4) series; pointers in structures
 * are carried as __u64 so the layout is the same for every ABI.
 */
#ifndef _UAPI_LINUX_HOMA_H
#define _UAPI_LINUX_HOMA_H

#include <linux/types.h>
#include <linux/ioctl.h>
#ifndef __KERNEL__
#include <sys/socket.h>
#endif

/* IANA-assigned IP protocol number for Homa. */
#ifndef IPPROTO_HOMA
#define IPPROTO_HOMA		146
#endif

/* Largest message Homa carries, in bytes. */
#define HOMA_MAX_MESSAGE_LENGTH	1000000

/* Receive buffers are handed out in bpages of this size. */
#define HOMA_BPAGE_SHIFT	16
#define HOMA_BPAGE_SIZE		(1 << HOMA_BPAGE_SHIFT)

/*
 * Longest buffer region SO_HOMA_RCVBUF accepts, in bytes (1 GiB, 16384
 * bpages): bpage offsets are 32 bits, and the kernel keeps per-bpage
 * state for the whole region. A longer region is refused with EINVAL.
 */
#define HOMA_MAX_REGION_LENGTH	(1ULL << 30)

/* Most bpages one message can occupy. */
#define HOMA_MAX_BPAGES		((HOMA_MAX_MESSAGE_LENGTH + HOMA_BPAGE_SIZE - 1) \
				 >> HOMA_BPAGE_SHIFT)

/* Ports below this are for bind(); automatic ports are at or above it. */
#define HOMA_MIN_DEFAULT_PORT	0x8000

/**
 * struct homa_sendmsg_args - msg_control of sendmsg on a Homa socket.
 *
 * msg_control points at this structure in user memory and msg_controllen
 * must be 0.
 */
struct homa_sendmsg_args {
	/**
	 * @id: 0 starts a new request and the kernel writes its id here;
	 * otherwise the (odd) id of the request this message answers. A
	 * response to an RPC that no longer exists is dropped without error.
	 */
	__u64 id;

	/**
	 * @completion_cookie: requests only: returned by recvmsg with the
	 * response, or with the RPC's error if it fails.
	 */
	__u64 completion_cookie;
};

/**
 * struct homa_recvmsg_args - msg_control of recvmsg on a Homa socket.
 *
 * msg_controllen must be exactly sizeof(struct homa_recvmsg_args).
 */
struct homa_recvmsg_args {
	/**
	 * @id: in: 0 for any message that @flags allow, else the (even) id
	 * of one of this socket's client RPCs; out: the RPC received.
	 */
	__u64 id;

	/**
	 * @completion_cookie: out: the cookie of a received response or
	 * failed client RPC; 0 for a request.
	 */
	__u64 completion_cookie;

	/** @flags: HOMA_RECVMSG_* bits. */
	__u32 flags;

	/**
	 * @num_bpages: in: bpages returned to the pool (taken back even if
	 * the call then fails); out: bpages that hold the received message.
	 */
	__u32 num_bpages;

	/** @bpage_offsets: offsets of those bpages in the buffer region. */
	__u32 bpage_offsets[HOMA_MAX_BPAGES];
};

/* Flag bits of homa_recvmsg_args.flags. */
#define HOMA_RECVMSG_REQUEST		0x01
#define HOMA_RECVMSG_RESPONSE		0x02
#define HOMA_RECVMSG_NONBLOCKING	0x04
#define HOMA_RECVMSG_VALID_FLAGS	0x07

/* Socket option (level IPPROTO_HOMA) that sets the receive buffer region. */
#define SO_HOMA_RCVBUF			10

/**
 * struct homa_rcvbuf_args - argument of SO_HOMA_RCVBUF.
 */
struct homa_rcvbuf_args {
	/** @start: page-aligned address of the region in user space. */
	__u64 start;

	/**
	 * @length: size of the region in bytes, at least 2 bpages and at
	 * most HOMA_MAX_REGION_LENGTH; bytes past the last whole bpage are
	 * not used.
	 */
	__u64 length;
};

/**
 * struct homa_abort_args - argument of HOMAIOCABORT.
 */
struct homa_abort_args {
	/** @id: the RPC to abort, or 0 for every client RPC of the socket. */
	__u64 id;

	/**
	 * @error: 0 frees the RPC(s); else (1 to 4095) recvmsg reports this
	 * errno for each.
	 */
	int error;

	/** @_pad1: reserved, must be 0. */
	int _pad1;

	/** @_pad2: reserved, must be 0. */
	__u64 _pad2[2];
};

#define HOMAIOCABORT		_IOWR(0x89, 0xe3, struct homa_abort_args)

#endif /* _UAPI_LINUX_HOMA_H */
