// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_autoload - run with the Homa module NOT loaded: socket()
 * with IPPROTO_HOMA must load it through its module alias
 * (net-pf-N-proto-146-type-2).
 *
 * The first socket of the program loads the module, so only the first
 * variant that runs sees it unloaded: run one family at a time, with the
 * module unloaded before each (lab/module_autoload.sh):
 *
 *   homa_test_autoload -v ipv4; rmmod homa; homa_test_autoload -v ipv6
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/stat.h>

#include <linux/homa.h>

#include "harness.h"
#include "homa_addr.h"
#include "homa_sock.h"

#define MODULE_DIR "/sys/module/homa"

static bool module_present(void)
{
	struct stat st;

	return stat(MODULE_DIR, &st) == 0;
}

/*
 * The variant's family is the one whose socket() comes first, and so the
 * one whose module alias must load Homa.
 */
FIXTURE(autoload) {
	int fd;
};

FIXTURE_VARIANT(autoload) {
	int family;
};

HOMA_FAMILY_VARIANTS(autoload);

FIXTURE_SETUP(autoload)
{
	self->fd = -1;
}

FIXTURE_TEARDOWN(autoload)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Nothing has loaded the module yet (the lab boots with --no-load). */
TEST_F(autoload, module_not_loaded_before_socket)
{
	EXPECT_FALSE(module_present());
}

/*
 * The first socket: it is made (the module loaded by its alias), the
 * module is in /sys/module afterwards, and that very socket works (it got
 * an automatic port). Three cases before, one now: all three are about
 * the socket that loaded the module, which a later test cannot reach.
 */
TEST_F(autoload, socket_loads_module)
{
	bool before = module_present();
	int port;

	self->fd = homa_socket(variant->family);
	TH_LOG("first socket of family %s; %s present before it",
	       variant->family == AF_INET ? "AF_INET" : "AF_INET6",
	       before ? "module" : "module not");
	ASSERT_ERRNO(0, self->fd);
	EXPECT_TRUE(module_present()) TH_LOG(MODULE_DIR " absent");
	port = homa_local_port(self->fd);
	TH_LOG("autoloaded socket's port: %d", port);
	EXPECT_GE(port, HOMA_MIN_DEFAULT_PORT);
}

/* Once loaded, the module serves the other family too. */
TEST_F(autoload, socket_other_family_after_autoload)
{
	self->fd = homa_socket(variant->family == AF_INET ? AF_INET6 : AF_INET);
	EXPECT_ERRNO(0, self->fd);
}

TEST_HARNESS_MAIN
