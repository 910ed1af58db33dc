// SPDX-License-Identifier: BSD-2-Clause

/* The receive buffer pool (see homa_pool.h). */

#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/slab.h>

#include "homa_impl.h"
#include "homa_pool.h"
#include "homa_sock.h"

/* The pool is its socket's (struct homa_sock.pool), guarded by its lock. */
static void homa_pool_assert_locked(struct homa_pool *pool)
{
	lockdep_assert_held(&container_of(pool, struct homa_sock, pool)->lock);
}

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
 * homa_pool_detach() - take the pool's kernel memory away from it; the
 * pool is left without a region.
 * @pool: the pool; the socket lock is held.
 *
 * Return: what the caller must kvfree() once the lock is released.
 */
void *homa_pool_detach(struct homa_pool *pool)
{
	void *mem = pool->user;

	homa_pool_assert_locked(pool);
	homa_pool_init(pool);
	return mem;
}

/* Bpages in use by messages or by the application (not the allocator). */
static int homa_pool_in_use(const struct homa_pool *pool)
{
	int in_use;

	if (!pool->refs)
		return 0;
	in_use = pool->num_bpages - pool->free_bpages;
	if (pool->partial >= 0 && pool->refs[pool->partial] == 1)
		in_use--;
	return in_use;
}

/**
 * homa_pool_set_region() - give the socket's pool a (new) region. A region
 * can be replaced only while none of its bpages is in use. The caller
 * then gives space to messages that waited for it
 * (homa_rpc_check_waiting()).
 * @hsk:    the socket; its lock is not held (this function sleeps).
 * @start:  page-aligned user address (checked by the caller).
 * @length: bytes, 2 bpages to HOMA_MAX_REGION_LENGTH.
 *
 * The pool's memory is allocated before the socket lock is taken and is
 * charged to the caller's memory cgroup; the old memory is freed after
 * the lock is released.
 *
 * Return: 0, -EINVAL for a length out of range, -ENOMEM, -EBUSY while
 * bpages are in use, or -ESHUTDOWN.
 */
int homa_pool_set_region(struct homa_sock *hsk, u64 start, u64 length)
{
	struct homa_pool *pool = &hsk->pool;
	size_t user_bytes;
	void *mem;
	int num, err;

	if (length < 2 * HOMA_BPAGE_SIZE || length > HOMA_MAX_REGION_LENGTH)
		return -EINVAL;
	num = length >> HOMA_BPAGE_SHIFT;
	user_bytes = BITS_TO_LONGS((size_t)num << (HOMA_BPAGE_SHIFT -
						   HOMA_POOL_ALIGN_SHIFT)) *
		     sizeof(unsigned long);
	mem = kvzalloc(user_bytes + num * sizeof(int), GFP_KERNEL_ACCOUNT);
	if (!mem)
		return -ENOMEM;

	spin_lock_bh(&hsk->lock);
	if (hsk->shutdown) {
		err = -ESHUTDOWN;
	} else if (homa_pool_in_use(pool) > 0) {
		err = -EBUSY;
	} else {
		swap(mem, pool->user);
		pool->refs = (int *)((char *)pool->user + user_bytes);
		pool->region = start;
		pool->length = length;
		pool->num_bpages = num;
		pool->free_bpages = num;
		pool->partial = -1;
		pool->partial_used = 0;
		pool->next_scan = 0;
		err = 0;
	}
	spin_unlock_bh(&hsk->lock);
	kvfree(mem);
	return err;
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
	if (WARN_ON_ONCE(pool->refs[index] <= 0))
		return;
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
 * Return: 0, or -ENOMEM if the region lacks space now (or does not exist),
 * or if the pool's free count disagrees with its bpages (a bug: warned
 * about once, and the pool is left as it was).
 */
int homa_pool_allocate(struct homa_pool *pool, int length, u32 *offsets,
		       int *num_bpages)
{
	int full = length >> HOMA_BPAGE_SHIFT;
	int tail = length & (HOMA_BPAGE_SIZE - 1);
	int taken[HOMA_MAX_BPAGES];
	bool tail_fits, new_partial;
	int needed, i, index;

	homa_pool_assert_locked(pool);
	if (!pool->refs || length <= 0 || full > HOMA_MAX_BPAGES ||
	    (full == HOMA_MAX_BPAGES && tail))
		return -ENOMEM;
	tail_fits = tail > 0 && pool->partial >= 0 &&
		    pool->partial_used + tail <= HOMA_BPAGE_SIZE;
	new_partial = tail > 0 && !tail_fits;
	needed = full + (new_partial ? 1 : 0);
	if (needed > pool->free_bpages)
		return -ENOMEM;

	/* Take every bpage first, so that nothing changes on failure. */
	for (i = 0; i < needed; i++) {
		index = homa_pool_get_bpage(pool);
		if (WARN_ON_ONCE(index < 0)) {
			while (i-- > 0)
				homa_pool_put_bpage(pool, taken[i]);
			return -ENOMEM;
		}
		taken[i] = index;
	}
	for (i = 0; i < full; i++)
		offsets[i] = (u32)taken[i] << HOMA_BPAGE_SHIFT;
	if (tail > 0) {
		if (new_partial) {
			/* The allocator keeps its own reference on the
			 * partial bpage; drop it on the old one.
			 */
			if (pool->partial >= 0)
				homa_pool_put_bpage(pool, pool->partial);
			pool->partial = taken[full];
			pool->partial_used = 0;
		}
		pool->refs[pool->partial]++;
		offsets[full] = ((u32)pool->partial << HOMA_BPAGE_SHIFT) +
				pool->partial_used;
		/* Keep pieces HOMA_POOL_ALIGN-aligned. */
		pool->partial_used += ALIGN(tail, HOMA_POOL_ALIGN);
		full++;
	}
	*num_bpages = full;
	return 0;
}

/**
 * homa_pool_release() - give back the bpages of a message that the
 * application never received (a dead RPC).
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
	u32 index;
	int i;

	homa_pool_assert_locked(pool);
	if (num == 0)
		return 0;
	if (!pool->refs || num < 0 || num > HOMA_MAX_BPAGES)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		index = offsets[i] >> HOMA_BPAGE_SHIFT;
		if (index >= (u32)pool->num_bpages || pool->refs[index] <= 0)
			return -EINVAL;
		if (index == pool->partial && pool->refs[index] <= 1)
			return -EINVAL;
	}
	for (i = 0; i < num; i++)
		homa_pool_put_bpage(pool, offsets[i] >> HOMA_BPAGE_SHIFT);
	return 0;
}

/**
 * homa_pool_hand_off() - the bpages of a received message now belong to
 * the application, which returns them with homa_pool_release_user().
 * @pool:    the pool; the socket lock is held.
 * @num:     entries in @offsets.
 * @offsets: the message's offsets, as homa_pool_allocate() returned them.
 */
void homa_pool_hand_off(struct homa_pool *pool, int num, const u32 *offsets)
{
	u32 off;
	int i;

	homa_pool_assert_locked(pool);
	for (i = 0; i < num; i++) {
		off = offsets[i];
		if (WARN_ON_ONCE(!pool->user ||
				 (off >> HOMA_BPAGE_SHIFT) >=
				 (u32)pool->num_bpages ||
				 (off & (HOMA_POOL_ALIGN - 1))))
			continue;
		/* Pieces are disjoint: nobody else can hold this one. */
		WARN_ON_ONCE(__test_and_set_bit(off >> HOMA_POOL_ALIGN_SHIFT,
						pool->user));
	}
}

/**
 * homa_pool_release_user() - the application gives bpages back (recvmsg's
 * bpage_offsets[]).
 * @pool:    the pool; the socket lock is held.
 * @num:     entries in @offsets (at most HOMA_MAX_BPAGES).
 * @offsets: offsets in the region (user input).
 *
 * Every offset must start a piece that the application holds: one that
 * recvmsg handed to it and that it has not returned since, named once
 * in @offsets. All are checked before any is released.
 *
 * Return: 0, or -EINVAL (and nothing changes) if an offset is unaligned,
 * outside the region, not held by the application, or given twice.
 */
int homa_pool_release_user(struct homa_pool *pool, int num,
			   const u32 *offsets)
{
	u32 off;
	int i, j;

	homa_pool_assert_locked(pool);
	if (num == 0)
		return 0;
	if (!pool->user || num < 0 || num > HOMA_MAX_BPAGES)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		off = offsets[i];
		if ((off & (HOMA_POOL_ALIGN - 1)) ||
		    (off >> HOMA_BPAGE_SHIFT) >= (u32)pool->num_bpages ||
		    !test_bit(off >> HOMA_POOL_ALIGN_SHIFT, pool->user))
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (offsets[j] == off)
				return -EINVAL;
	}
	for (i = 0; i < num; i++) {
		__clear_bit(offsets[i] >> HOMA_POOL_ALIGN_SHIFT, pool->user);
		homa_pool_put_bpage(pool, offsets[i] >> HOMA_BPAGE_SHIFT);
	}
	return 0;
}
