/* SPDX-License-Identifier: BSD-2-Clause */

/* The receive buffer pool of a socket (SO_HOMA_RCVBUF).
 *
 * The application gives the socket a region of its memory; the region is
 * cut into bpages of HOMA_BPAGE_SIZE bytes. An incoming message gets whole
 * bpages for each full HOMA_BPAGE_SIZE of its length and, for the rest,
 * space in a partly used bpage shared with other small messages. A bpage
 * is free when no message uses it. The application returns the bpages of
 * a message through the next recvmsg. All pool state is protected by the
 * socket's lock.
 *
 * Ownership. A piece of a bpage (a whole bpage, or a HOMA_POOL_ALIGN-
 * aligned part of the partial bpage) belongs first to the incoming
 * message it was allocated for; recvmsg hands it to the application
 * (homa_pool_hand_off()), which gives it back through a later recvmsg
 * (homa_pool_release_user()). The pool keeps one bit per
 * HOMA_POOL_ALIGN bytes of the region: set while the application holds
 * the piece that starts there. The application can return only pieces
 * whose bit is set, each once: anything else is refused with -EINVAL
 * before the pool changes, so no user can drive a reference count below
 * what the kernel itself holds.
 */

#ifndef _HOMA_POOL_H
#define _HOMA_POOL_H

#include <linux/bits.h>
#include <linux/types.h>

/* Pieces of the partial bpage start at multiples of this. */
#define HOMA_POOL_ALIGN_SHIFT	6
#define HOMA_POOL_ALIGN		BIT(HOMA_POOL_ALIGN_SHIFT)

/**
 * struct homa_pool - the buffer pool of one socket.
 */
struct homa_pool {
	/** @region: user address of the region; 0 when there is none. */
	unsigned long region;

	/** @length: bytes in the region. */
	size_t length;

	/** @num_bpages: bpages in the region. */
	int num_bpages;

	/**
	 * @refs: for each bpage, how many pieces (held by RPCs or by the
	 * application) lie in it, plus one for the allocator's reference
	 * on @partial.
	 */
	int *refs;

	/**
	 * @user: one bit per HOMA_POOL_ALIGN bytes of the region, set while
	 * the application holds the piece that starts there. @user and
	 * @refs share one allocation, which starts at @user.
	 */
	unsigned long *user;

	/** @free_bpages: bpages whose @refs is 0. */
	int free_bpages;

	/** @partial: bpage being filled with small pieces, or -1. */
	int partial;

	/** @partial_used: bytes of @partial already handed out. */
	int partial_used;

	/** @next_scan: where the search for a free bpage starts. */
	int next_scan;
};

struct homa_rpc;
struct homa_sock;

void homa_pool_init(struct homa_pool *pool);
void *homa_pool_detach(struct homa_pool *pool);
int homa_pool_set_region(struct homa_sock *hsk, u64 start, u64 length);
int homa_pool_allocate(struct homa_pool *pool, int length, u32 *offsets,
		       int *num_bpages);
int homa_pool_release(struct homa_pool *pool, int num, const u32 *offsets);
void homa_pool_hand_off(struct homa_pool *pool, int num, const u32 *offsets);
int homa_pool_release_user(struct homa_pool *pool, int num,
			   const u32 *offsets);

#endif /* _HOMA_POOL_H */
