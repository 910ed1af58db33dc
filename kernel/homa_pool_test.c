// SPDX-License-Identifier: BSD-2-Clause

/* KUnit suite of the receive buffer pool (CONFIG_HOMA_KUNIT_TEST). Each
 * case gives a socket's pool a region of a few bpages and checks what
 * allocation, hand-off and the two ways back do to it, above all that a
 * call that fails changes nothing. The region is never touched: the pool
 * only does arithmetic on its offsets.
 */

#include <kunit/test.h>
#include <linux/slab.h>

#include "homa_impl.h"
#include "homa_pool.h"
#include "homa_sock.h"

#define REGION_START	0x7f0000000000ULL
#define NUM_BPAGES	4

/* A socket with a pool of NUM_BPAGES bpages, as SO_HOMA_RCVBUF makes it. */
static int homa_pool_test_init(struct kunit *test)
{
	struct homa_sock *hsk;

	hsk = kunit_kzalloc(test, sizeof(*hsk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hsk);
	spin_lock_init(&hsk->lock);
	homa_pool_init(&hsk->pool);
	KUNIT_ASSERT_EQ(test, homa_pool_set_region(hsk, REGION_START,
						   NUM_BPAGES * HOMA_BPAGE_SIZE),
			0);
	test->priv = hsk;
	return 0;
}

static void homa_pool_test_exit(struct kunit *test)
{
	struct homa_sock *hsk = test->priv;
	void *mem;

	spin_lock_bh(&hsk->lock);
	mem = homa_pool_detach(&hsk->pool);
	spin_unlock_bh(&hsk->lock);
	kvfree(mem);
}

static int alloc(struct kunit *test, int length, u32 *offsets, int *num)
{
	struct homa_sock *hsk = test->priv;
	int err;

	spin_lock_bh(&hsk->lock);
	err = homa_pool_allocate(&hsk->pool, length, offsets, num);
	spin_unlock_bh(&hsk->lock);
	return err;
}

static int release(struct kunit *test, int num, const u32 *offsets)
{
	struct homa_sock *hsk = test->priv;
	int err;

	spin_lock_bh(&hsk->lock);
	err = homa_pool_release(&hsk->pool, num, offsets);
	spin_unlock_bh(&hsk->lock);
	return err;
}

static void hand_off(struct kunit *test, int num, const u32 *offsets)
{
	struct homa_sock *hsk = test->priv;

	spin_lock_bh(&hsk->lock);
	homa_pool_hand_off(&hsk->pool, num, offsets);
	spin_unlock_bh(&hsk->lock);
}

static int release_user(struct kunit *test, int num, const u32 *offsets)
{
	struct homa_sock *hsk = test->priv;
	int err;

	spin_lock_bh(&hsk->lock);
	err = homa_pool_release_user(&hsk->pool, num, offsets);
	spin_unlock_bh(&hsk->lock);
	return err;
}

static int free_bpages(struct kunit *test)
{
	struct homa_sock *hsk = test->priv;

	return READ_ONCE(hsk->pool.free_bpages);
}

static void region_length_bounds(struct kunit *test)
{
	struct homa_sock *hsk = test->priv;

	KUNIT_EXPECT_EQ(test, homa_pool_set_region(hsk, REGION_START,
						   HOMA_BPAGE_SIZE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, homa_pool_set_region(hsk, REGION_START,
						   HOMA_MAX_REGION_LENGTH +
						   HOMA_BPAGE_SIZE),
			-EINVAL);
	/* The refused calls left the region as it was. */
	KUNIT_EXPECT_EQ(test, hsk->pool.num_bpages, NUM_BPAGES);
	KUNIT_EXPECT_EQ(test, hsk->pool.region, (unsigned long)REGION_START);
	KUNIT_EXPECT_EQ(test, free_bpages(test), NUM_BPAGES);
}

static void whole_bpages(struct kunit *test)
{
	u32 offsets[HOMA_MAX_BPAGES];
	int num;

	KUNIT_ASSERT_EQ(test, alloc(test, 2 * HOMA_BPAGE_SIZE, offsets, &num),
			0);
	KUNIT_EXPECT_EQ(test, num, 2);
	KUNIT_EXPECT_NE(test, offsets[0], offsets[1]);
	KUNIT_EXPECT_EQ(test, offsets[0] & (HOMA_BPAGE_SIZE - 1), 0);
	KUNIT_EXPECT_EQ(test, offsets[1] & (HOMA_BPAGE_SIZE - 1), 0);
	KUNIT_EXPECT_EQ(test, free_bpages(test), NUM_BPAGES - 2);
	KUNIT_EXPECT_EQ(test, release(test, num, offsets), 0);
	KUNIT_EXPECT_EQ(test, free_bpages(test), NUM_BPAGES);
}

static void small_messages_share_a_bpage(struct kunit *test)
{
	const u32 piece = ALIGN(100, HOMA_POOL_ALIGN);
	u32 a[HOMA_MAX_BPAGES], b[HOMA_MAX_BPAGES];
	int na, nb;

	KUNIT_ASSERT_EQ(test, alloc(test, 100, a, &na), 0);
	KUNIT_ASSERT_EQ(test, alloc(test, 100, b, &nb), 0);
	KUNIT_EXPECT_EQ(test, na, 1);
	KUNIT_EXPECT_EQ(test, nb, 1);
	KUNIT_EXPECT_EQ(test, a[0] >> HOMA_BPAGE_SHIFT, b[0] >> HOMA_BPAGE_SHIFT);
	/* Pieces start HOMA_POOL_ALIGN-aligned and never overlap. */
	KUNIT_EXPECT_EQ(test, b[0] - a[0], piece);
	KUNIT_EXPECT_EQ(test, free_bpages(test), NUM_BPAGES - 1);
	/* Both gone, the allocator still keeps the partial bpage. */
	KUNIT_EXPECT_EQ(test, release(test, na, a), 0);
	KUNIT_EXPECT_EQ(test, release(test, nb, b), 0);
	KUNIT_EXPECT_EQ(test, free_bpages(test), NUM_BPAGES - 1);
}

static void failed_allocation_changes_nothing(struct kunit *test)
{
	struct homa_sock *hsk = test->priv;
	u32 offsets[HOMA_MAX_BPAGES];
	int refs[NUM_BPAGES];
	int num = -1;

	KUNIT_ASSERT_EQ(test, alloc(test, 100, offsets, &num), 0);
	memcpy(refs, hsk->pool.refs, sizeof(refs));
	/* Three whole bpages and a tail too long for the partial bpage:
	 * four bpages, one more than is free.
	 */
	KUNIT_EXPECT_EQ(test, alloc(test, 4 * HOMA_BPAGE_SIZE - HOMA_POOL_ALIGN,
				    offsets, &num), -ENOMEM);
	KUNIT_EXPECT_EQ(test, num, 1);
	KUNIT_EXPECT_EQ(test, memcmp(refs, hsk->pool.refs, sizeof(refs)), 0);
	KUNIT_EXPECT_EQ(test, free_bpages(test), NUM_BPAGES - 1);
	/* Longer than any message: refused whatever is free. */
	KUNIT_EXPECT_EQ(test, alloc(test, HOMA_MAX_BPAGES * HOMA_BPAGE_SIZE + 1,
				    offsets, &num), -ENOMEM);
	KUNIT_EXPECT_EQ(test, alloc(test, 0, offsets, &num), -ENOMEM);
	KUNIT_EXPECT_EQ(test, alloc(test, -1, offsets, &num), -ENOMEM);
}

static void release_checks_every_offset_first(struct kunit *test)
{
	u32 offsets[HOMA_MAX_BPAGES];
	int num;

	KUNIT_ASSERT_EQ(test, alloc(test, 2 * HOMA_BPAGE_SIZE, offsets, &num),
			0);
	/* A bpage outside the region after a good one: neither is freed. */
	offsets[1] = NUM_BPAGES << HOMA_BPAGE_SHIFT;
	KUNIT_EXPECT_EQ(test, release(test, 2, offsets), -EINVAL);
	KUNIT_EXPECT_EQ(test, free_bpages(test), NUM_BPAGES - 2);
	KUNIT_EXPECT_EQ(test, release(test, -1, offsets), -EINVAL);
	KUNIT_EXPECT_EQ(test, release(test, HOMA_MAX_BPAGES + 1, offsets),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, free_bpages(test), NUM_BPAGES - 2);
}

static void user_returns_only_what_it_holds(struct kunit *test)
{
	u32 offsets[HOMA_MAX_BPAGES], bad[2];
	int num;

	KUNIT_ASSERT_EQ(test, alloc(test, HOMA_BPAGE_SIZE + 1000, offsets,
				    &num), 0);
	KUNIT_ASSERT_EQ(test, num, 2);
	hand_off(test, num, offsets);

	bad[0] = offsets[0] + 1;		/* not the start of a piece */
	KUNIT_EXPECT_EQ(test, release_user(test, 1, bad), -EINVAL);
	bad[0] = offsets[1] + HOMA_POOL_ALIGN;	/* aligned, not handed off */
	KUNIT_EXPECT_EQ(test, release_user(test, 1, bad), -EINVAL);
	bad[0] = NUM_BPAGES << HOMA_BPAGE_SHIFT;	/* outside the region */
	KUNIT_EXPECT_EQ(test, release_user(test, 1, bad), -EINVAL);
	bad[0] = offsets[0];			/* the same piece twice */
	bad[1] = offsets[0];
	KUNIT_EXPECT_EQ(test, release_user(test, 2, bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, free_bpages(test), NUM_BPAGES - 2);

	KUNIT_EXPECT_EQ(test, release_user(test, num, offsets), 0);
	/* Returned once; a second return is refused. */
	KUNIT_EXPECT_EQ(test, release_user(test, num, offsets), -EINVAL);
	/* The whole bpage is free again; the partial one stays the allocator's. */
	KUNIT_EXPECT_EQ(test, free_bpages(test), NUM_BPAGES - 1);
}

static void region_kept_while_in_use(struct kunit *test)
{
	struct homa_sock *hsk = test->priv;
	u32 offsets[HOMA_MAX_BPAGES];
	int num;

	KUNIT_ASSERT_EQ(test, alloc(test, HOMA_BPAGE_SIZE, offsets, &num), 0);
	KUNIT_EXPECT_EQ(test, homa_pool_set_region(hsk, REGION_START,
						   8 * HOMA_BPAGE_SIZE),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, hsk->pool.num_bpages, NUM_BPAGES);
	KUNIT_EXPECT_EQ(test, release(test, num, offsets), 0);
	KUNIT_EXPECT_EQ(test, homa_pool_set_region(hsk, REGION_START,
						   8 * HOMA_BPAGE_SIZE),
			0);
	KUNIT_EXPECT_EQ(test, hsk->pool.num_bpages, 8);
	KUNIT_EXPECT_EQ(test, free_bpages(test), 8);
}

static void no_region(struct kunit *test)
{
	struct homa_sock *hsk = test->priv;
	u32 offsets[HOMA_MAX_BPAGES] = {};
	void *mem;
	int num;

	spin_lock_bh(&hsk->lock);
	mem = homa_pool_detach(&hsk->pool);
	spin_unlock_bh(&hsk->lock);
	kvfree(mem);
	KUNIT_EXPECT_EQ(test, alloc(test, 100, offsets, &num), -ENOMEM);
	KUNIT_EXPECT_EQ(test, release(test, 1, offsets), -EINVAL);
	KUNIT_EXPECT_EQ(test, release_user(test, 1, offsets), -EINVAL);
	KUNIT_EXPECT_EQ(test, release_user(test, 0, offsets), 0);
}

static void every_bpage_then_none(struct kunit *test)
{
	u32 offsets[HOMA_MAX_BPAGES], more[HOMA_MAX_BPAGES];
	int num, n2, i, j;

	KUNIT_ASSERT_EQ(test, alloc(test, NUM_BPAGES * HOMA_BPAGE_SIZE,
				    offsets, &num), 0);
	KUNIT_EXPECT_EQ(test, num, NUM_BPAGES);
	for (i = 0; i < num; i++)
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, offsets[i], offsets[j]);
	KUNIT_EXPECT_EQ(test, free_bpages(test), 0);
	KUNIT_EXPECT_EQ(test, alloc(test, 1, more, &n2), -ENOMEM);
	KUNIT_EXPECT_EQ(test, release(test, num, offsets), 0);
	KUNIT_EXPECT_EQ(test, alloc(test, 1, more, &n2), 0);
}

static struct kunit_case homa_pool_test_cases[] = {
	KUNIT_CASE(region_length_bounds),
	KUNIT_CASE(whole_bpages),
	KUNIT_CASE(small_messages_share_a_bpage),
	KUNIT_CASE(failed_allocation_changes_nothing),
	KUNIT_CASE(release_checks_every_offset_first),
	KUNIT_CASE(user_returns_only_what_it_holds),
	KUNIT_CASE(region_kept_while_in_use),
	KUNIT_CASE(no_region),
	KUNIT_CASE(every_bpage_then_none),
	{}
};

static struct kunit_suite homa_pool_test_suite = {
	.name = "homa_pool",
	.init = homa_pool_test_init,
	.exit = homa_pool_test_exit,
	.test_cases = homa_pool_test_cases,
};

kunit_test_suite(homa_pool_test_suite);
