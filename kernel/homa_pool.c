// SPDX-License-Identifier: BSD-2-Clause

/* The receive buffer pool (see homa_pool.h). */

#include <linux/slab.h>

#include "homa_impl.h"
#include "homa_pool.h"
#include "homa_rpc.h"
#include "homa_sock.h"

/**
 * homa_pool_init() - a pool without a region.
 * @pool: the pool.
 */
void homa_pool_init(struct homa_pool *pool)
{
	memset(pool, 0, sizeof(*pool));
	pool->partial = -1;
}

/**
 * homa_pool_destroy() - release the pool's kernel memory.
 * @pool: the pool; the socket lock is held.
 */
void homa_pool_destroy(struct homa_pool *pool)
{
	kfree(pool->refs);
	homa_pool_init(pool);
}

/**
 * homa_pool_set_region() - give the pool a (new) region. A region can be
 * replaced only while none of its bpages is in use.
 * @pool:   the pool; the socket lock is held.
 * @start:  page-aligned user address.
 * @length: bytes (at least 2 bpages; checked by the caller).
 *
 * Return: 0, -EBUSY while bpages are in use, or -ENOMEM.
 */
int homa_pool_set_region(struct homa_pool *pool, unsigned long start,
			 size_t length)
{
	int num = length >> HOMA_BPAGE_SHIFT;
	int in_use;
	int *refs;

	if (pool->refs) {
		in_use = pool->num_bpages - pool->free_bpages;
		if (pool->partial >= 0 && pool->refs[pool->partial] == 1)
			in_use--;
		if (in_use > 0)
			return -EBUSY;
	}
	refs = kcalloc(num, sizeof(*refs), GFP_ATOMIC);
	if (!refs)
		return -ENOMEM;
	kfree(pool->refs);
	pool->refs = refs;
	pool->region = start;
	pool->length = length;
	pool->num_bpages = num;
	pool->free_bpages = num;
	pool->partial = -1;
	pool->partial_used = 0;
	pool->next_scan = 0;
	return 0;
}

/* Find a free bpage and take a reference on it; -1 if none. */
static int homa_pool_get_bpage(struct homa_pool *pool)
{
	int i, index;

	for (i = 0; i < pool->num_bpages; i++) {
		index = (pool->next_scan + i) % pool->num_bpages;
		if (pool->refs[index] == 0) {
			pool->refs[index] = 1;
			pool->free_bpages--;
			pool->next_scan = (index + 1) % pool->num_bpages;
			return index;
		}
	}
	return -1;
}

static void homa_pool_put_bpage(struct homa_pool *pool, int index)
{
	pool->refs[index]--;
	if (pool->refs[index] == 0)
		pool->free_bpages++;
}

/**
 * homa_pool_allocate() - find space for a message in the region.
 * @pool:       the pool; the socket lock is held.
 * @length:     bytes in the message (1..HOMA_MAX_MESSAGE_LENGTH).
 * @offsets:    filled with the offset in the region of each HOMA_BPAGE_SIZE
 *              piece of the message (the last may be a partial bpage).
 * @num_bpages: filled with the number of entries in @offsets.
 *
 * Return: 0, or -ENOMEM if the region lacks space now (or does not exist).
 */
int homa_pool_allocate(struct homa_pool *pool, int length, u32 *offsets,
		       int *num_bpages)
{
	int full = length >> HOMA_BPAGE_SHIFT;
	int tail = length & (HOMA_BPAGE_SIZE - 1);
	bool tail_fits, new_partial;
	int needed, i, index;

	if (!pool->refs || length <= 0 || full > HOMA_MAX_BPAGES ||
	    (full == HOMA_MAX_BPAGES && tail))
		return -ENOMEM;
	tail_fits = tail > 0 && pool->partial >= 0 &&
		    pool->partial_used + tail <= HOMA_BPAGE_SIZE;
	new_partial = tail > 0 && !tail_fits;
	needed = full + (new_partial ? 1 : 0);
	if (needed > pool->free_bpages)
		return -ENOMEM;

	for (i = 0; i < full; i++) {
		index = homa_pool_get_bpage(pool);
		offsets[i] = (u32)index << HOMA_BPAGE_SHIFT;
	}
	if (tail > 0) {
		if (new_partial) {
			/* The allocator keeps its own reference on the
			 * partial bpage; drop it on the old one.
			 */
			if (pool->partial >= 0)
				homa_pool_put_bpage(pool, pool->partial);
			pool->partial = homa_pool_get_bpage(pool);
			pool->partial_used = 0;
		}
		pool->refs[pool->partial]++;
		offsets[full] = ((u32)pool->partial << HOMA_BPAGE_SHIFT) +
				pool->partial_used;
		/* Keep pieces 64-byte aligned. */
		pool->partial_used += ALIGN(tail, 64);
		full++;
	}
	*num_bpages = full;
	return 0;
}

/**
 * homa_pool_release() - give bpages back (from recvmsg or a dead RPC).
 * @pool:    the pool; the socket lock is held.
 * @num:     entries in @offsets (at most HOMA_MAX_BPAGES).
 * @offsets: offsets in the region, as homa_pool_allocate() returned them.
 *
 * Every offset is checked before any is released.
 * Return: 0, or -EINVAL if an offset is outside the region or names a
 * bpage that is not in use.
 */
int homa_pool_release(struct homa_pool *pool, int num, const u32 *offsets)
{
	int i, index;

	if (num == 0)
		return 0;
	if (!pool->refs || num < 0 || num > HOMA_MAX_BPAGES)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		index = offsets[i] >> HOMA_BPAGE_SHIFT;
		if (index >= pool->num_bpages || pool->refs[index] <= 0)
			return -EINVAL;
		if (index == pool->partial && pool->refs[index] <= 1)
			return -EINVAL;
	}
	for (i = 0; i < num; i++)
		homa_pool_put_bpage(pool, offsets[i] >> HOMA_BPAGE_SHIFT);
	return 0;
}

/**
 * homa_pool_check_waiting() - give space to messages that wait for it,
 * after bpages came back. Each message that gets space is asked to resend
 * what was dropped meanwhile.
 * @hsk: the socket; its lock is held.
 */
void homa_pool_check_waiting(struct homa_sock *hsk)
{
	struct homa_rpc *rpc;

	while (!list_empty(&hsk->waiting_for_bufs)) {
		rpc = list_first_entry(&hsk->waiting_for_bufs, struct homa_rpc,
				       buf_links);
		if (homa_pool_allocate(&hsk->pool, rpc->msgin.length,
				       rpc->msgin.bpage_offsets,
				       &rpc->msgin.num_bpages))
			break;
		list_del_init(&rpc->buf_links);
		rpc->msgin.waiting_for_bufs = false;
		rpc->silent_ticks = 0;
		homa_request_retrans(rpc);
	}
}
