// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_autoload - run with the Homa module NOT loaded: socket()
 * with IPPROTO_HOMA must load it through its module alias
 * (net-pf-N-proto-146-type-2).
 *
 * Usage: homa_test_autoload [--family 4|6]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/homa.h>

#include "expect.h"
#include "homa_addr.h"
#include "homa_sock.h"
#include "ktap.h"

#define MODULE_DIR "/sys/module/homa"

static bool module_present(void)
{
	struct stat st;

	return stat(MODULE_DIR, &st) == 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	int family = AF_INET, other, c, fd, fd2, port;
	struct ktap k;

	while ((c = getopt_long(argc, argv, "f:", opts, NULL)) != -1) {
		if (c == 'f')
			family = homa_family_parse(optarg);
		if (c != 'f' || family < 0) {
			fprintf(stderr, "usage: %s [--family 4|6]\n", argv[0]);
			return 2;
		}
	}
	other = family == AF_INET ? AF_INET6 : AF_INET;

	ktap_start(&k, 5);
	ktap_diag(&k, "first socket of family %s",
		  family == AF_INET ? "AF_INET" : "AF_INET6");
	ktap_result(&k, !module_present(),
		    "module_not_loaded_before_socket");
	fd = homa_socket(family);
	expect_errno(&k, fd, 0, "socket_loads_module");
	ktap_result(&k, module_present(), "sys_module_homa_present");
	port = fd >= 0 ? homa_local_port(fd) : fd;
	ktap_result(&k, port >= HOMA_MIN_DEFAULT_PORT,
		    "autoloaded_socket_has_port");
	fd2 = homa_socket(other);
	expect_errno(&k, fd2, 0, "socket_other_family_after_autoload");
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
	return ktap_finish(&k);
}
