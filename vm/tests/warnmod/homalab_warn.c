// SPDX-License-Identifier: GPL-2.0
/*
 * homalab_warn - triggers one WARN_ON when loaded, so that the lab's splat
 * detection can be tested. Only ever loaded inside a QEMU guest.
 */
#include <linux/bug.h>
#include <linux/module.h>

static bool fire = true;
module_param(fire, bool, 0444);
MODULE_PARM_DESC(fire, "WARN on load (default yes)");

static int __init homalab_warn_init(void)
{
	WARN_ON(fire);
	return 0;
}

static void __exit homalab_warn_exit(void)
{
}

module_init(homalab_warn_init);
module_exit(homalab_warn_exit);
MODULE_DESCRIPTION("Homa lab self-test: WARN_ON at load");
MODULE_LICENSE("GPL");
