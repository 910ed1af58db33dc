// SPDX-License-Identifier: GPL-2.0
/*
 * homalab_fault - makes the kernel report one defect when loaded, so that
 * each of the lab's detectors can be shown to fire. Only ever loaded inside
 * a QEMU guest.
 *
 *   fault=warn     one WARN_ON
 *   fault=leak     leaks 16 non-zero 256-byte buffers (kmemleak)
 *   fault=kasan    writes one byte past a 64-byte heap object (KASAN)
 *   fault=lockdep  takes two mutexes in both orders (lockdep)
 *   fault=none     does nothing (the control case)
 */
#include <linux/bug.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *fault = "none";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "warn, leak, kasan, lockdep or none");

#define LEAKS 16
#define LEAK_SIZE 256

/* Pointers are dropped through this so the compiler keeps the stores. */
static void *volatile sink;

static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);

static void leak(void)
{
	int i;

	for (i = 0; i < LEAKS; i++) {
		char *p = kmalloc(LEAK_SIZE, GFP_KERNEL);

		if (!p)
			return;
		memset(p, 0x5a + i, LEAK_SIZE);
		sink = p;
	}
	sink = NULL;
}

static void overflow(void)
{
	size_t n = 64;
	char *p = kmalloc(n, GFP_KERNEL);

	if (!p)
		return;
	sink = p;
	/* The index comes through a volatile so the compiler cannot see it. */
	((char *volatile)sink)[n] = 1;
	kfree(p);
}

static void abba(void)
{
	mutex_lock(&lock_a);
	mutex_lock(&lock_b);
	mutex_unlock(&lock_b);
	mutex_unlock(&lock_a);

	mutex_lock(&lock_b);
	mutex_lock(&lock_a);
	mutex_unlock(&lock_a);
	mutex_unlock(&lock_b);
}

static int __init homalab_fault_init(void)
{
	if (!strcmp(fault, "warn"))
		WARN_ON(1);
	else if (!strcmp(fault, "leak"))
		leak();
	else if (!strcmp(fault, "kasan"))
		overflow();
	else if (!strcmp(fault, "lockdep"))
		abba();
	else if (strcmp(fault, "none"))
		return -EINVAL;
	pr_info("homalab_fault: fault=%s done\n", fault);
	return 0;
}

static void __exit homalab_fault_exit(void)
{
}

module_init(homalab_fault_init);
module_exit(homalab_fault_exit);
MODULE_DESCRIPTION("Homa lab self-test: one WARN, leak, KASAN or lockdep report on load");
MODULE_LICENSE("GPL");
