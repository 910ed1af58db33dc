// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_basic - what a Homa module that only has socket, bind and
 * close must already do: it is loaded, sockets open for both families,
 * ports (bound and automatic) behave, wrong input gets the right errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/homa.h>

#include "expect.h"
#include "homa_addr.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "ktap.h"

#define PORT_A 1101	/* bound on IPv4 first */
#define PORT_B 1102	/* bound on IPv6 first */
#define PORT_C 1103	/* the IPv4 socket's port at close */
#define PORT_D 1104	/* the IPv6 socket's port at close */

static bool path_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

static void test_loaded(struct ktap *k)
{
	/* Before any socket(): opening one could load the module. */
	bool metrics = path_exists("/proc/net/homa_metrics");
	bool sysctl = path_exists("/proc/sys/net/homa");

	ktap_diag(k, "/proc/net/homa_metrics %s, /proc/sys/net/homa %s",
		  metrics ? "present" : "absent",
		  sysctl ? "present" : "absent");
	ktap_result(k, metrics || sysctl, "module_loaded");
}

static void test_auto_ports(struct ktap *k, int fd4, int fd6)
{
	int p4 = homa_local_port(fd4), p6 = homa_local_port(fd6), p4b = -1;
	int fd = homa_socket(AF_INET);

	if (fd >= 0) {
		p4b = homa_local_port(fd);
		close(fd);
	}
	ktap_diag(k, "automatic ports: %d %d %d", p4, p6, p4b);
	ktap_result(k, p4 >= HOMA_MIN_DEFAULT_PORT && p4 <= 0xffff,
		    "auto_port_ipv4_at_least_0x8000");
	ktap_result(k, p6 >= HOMA_MIN_DEFAULT_PORT && p6 <= 0xffff,
		    "auto_port_ipv6_at_least_0x8000");
	ktap_result(k, p4 > 0 && p6 > 0 && p4b > 0 && p4 != p6 && p4 != p4b &&
		    p6 != p4b, "auto_ports_distinct");
}

static int bind_family(int fd, int family, uint16_t port, socklen_t len)
{
	union homa_addr a;

	homa_addr_any(&a, family, port);
	if (len == 0)
		len = homa_addr_len(&a);
	return bind(fd, &a.sa, len) < 0 ? -errno : 0;
}

/*
 * close() returns 0 whatever the protocol does, so the case also checks
 * what close must have done: @port, held by @fd (another socket of
 * @family gets EADDRINUSE before the close), can be bound by that
 * socket after it.
 */
static void close_and_rebind(struct ktap *k, int fd, int family,
			     uint16_t port, const char *name)
{
	int probe = homa_socket(family), before, err, after;

	before = probe < 0 ? probe : homa_bind_port(probe, family, port);
	err = close(fd) < 0 ? -errno : 0;
	after = probe < 0 ? probe : homa_bind_port(probe, family, port);
	if (probe >= 0)
		close(probe);
	if (before != -EADDRINUSE || err || after)
		ktap_diag(k, "%s: port %u before close: %s (want EADDRINUSE), close: %s, after: %s",
			  name, port, errno_name(before), errno_name(err),
			  errno_name(after));
	ktap_result(k, before == -EADDRINUSE && !err && !after, "%s", name);
}

static void test_bind(struct ktap *k)
{
	int a4 = homa_socket(AF_INET), b4 = homa_socket(AF_INET);
	int a6 = homa_socket(AF_INET6), b6 = homa_socket(AF_INET6);
	int c4, err;

	err = homa_bind_port(a4, AF_INET, PORT_A);
	expect_errno(k, err, 0, "bind_ipv4");
	ktap_result(k, homa_local_port(a4) == PORT_A,
		    "getsockname_reports_bound_port");
	expect_errno(k, homa_bind_port(b4, AF_INET, PORT_A), EADDRINUSE,
		     "bind_conflict_ipv4_ipv4_eaddrinuse");
	expect_errno(k, homa_bind_port(a6, AF_INET6, PORT_A), EADDRINUSE,
		     "bind_conflict_ipv4_ipv6_eaddrinuse");
	expect_errno(k, homa_bind_port(a6, AF_INET6, PORT_B), 0, "bind_ipv6");
	expect_errno(k, homa_bind_port(b6, AF_INET6, PORT_B), EADDRINUSE,
		     "bind_conflict_ipv6_ipv6_eaddrinuse");
	expect_errno(k, homa_bind_port(b4, AF_INET, PORT_B), EADDRINUSE,
		     "bind_conflict_ipv6_ipv4_eaddrinuse");
	expect_errno(k, homa_bind_port(b4, AF_INET, HOMA_MIN_DEFAULT_PORT),
		     EINVAL, "bind_port_0x8000_einval");
	/* Long enough for either family: only the family is wrong. */
	expect_errno(k, bind_family(b4, AF_INET6, PORT_B + 1,
				    sizeof(union homa_addr)), EAFNOSUPPORT,
		     "bind_ipv6_address_on_ipv4_socket_eafnosupport");
	expect_errno(k, bind_family(b6, AF_INET, PORT_B + 1,
				    sizeof(union homa_addr)), EAFNOSUPPORT,
		     "bind_ipv4_address_on_ipv6_socket_eafnosupport");
	expect_errno(k, bind_family(b6, AF_INET6, PORT_B + 1,
				    sizeof(struct sockaddr_in)), EINVAL,
		     "bind_short_ipv6_address_einval");

	/* Closing a bound socket frees its port: close_and_rebind() binds
	 * it again with another IPv4 socket (and closes that one); then the
	 * port is free for IPv6 too (one port space).
	 */
	close_and_rebind(k, a4, AF_INET, PORT_A, "close_bound_socket");
	c4 = homa_socket(AF_INET6);
	expect_errno(k, c4 < 0 ? c4 : homa_bind_port(c4, AF_INET6, PORT_A), 0,
		     "port_free_after_close");
	if (c4 >= 0)
		close(c4);
	close(b4);
	close(a6);
	close(b6);
}

static void test_sockopts(struct ktap *k, int fd)
{
	struct homa_rcvbuf_args args;
	socklen_t len = sizeof(args);
	int v = 1, err;

	err = setsockopt(fd, IPPROTO_UDP, SO_HOMA_RCVBUF, &args,
			 sizeof(args)) < 0 ? -errno : 0;
	expect_errno(k, err, ENOPROTOOPT, "setsockopt_wrong_level_enoprotoopt");
	err = setsockopt(fd, IPPROTO_HOMA, 99, &v, sizeof(v)) < 0 ? -errno : 0;
	expect_errno(k, err, ENOPROTOOPT,
		     "setsockopt_unknown_option_enoprotoopt");
	err = getsockopt(fd, IPPROTO_UDP, SO_HOMA_RCVBUF, &args, &len) < 0
		? -errno : 0;
	expect_errno(k, err, ENOPROTOOPT, "getsockopt_wrong_level_enoprotoopt");
	len = sizeof(args);
	err = getsockopt(fd, IPPROTO_HOMA, 99, &args, &len) < 0 ? -errno : 0;
	expect_errno(k, err, ENOPROTOOPT,
		     "getsockopt_unknown_option_enoprotoopt");
}

/*
 * Every parameter of the series' defaults is a sysctl with those defaults
 * (no test changed them yet); values outside a parameter's range give
 * EINVAL and leave it as it was; a value in range is taken.
 */
static void test_sysctls(struct ktap *k)
{
	/* Parameters with range cases have @below, @above and @ok. */
	static const struct {
		const char *name;
		long def;
		const char *below, *above, *ok;
	} p[] = {
		{ "resend_ticks", 5, "0", "1000001", "7" },
		{ "timeout_ticks", 100, "1", "1000001", "150" },
		{ "link_mbps", 25000, "0", "10000001", "10000" },
		{ "max_gso_size", 10000, "1099", "65001", "2000" },
		/* Ours, not the series' (issue 10): server RPC limits. */
		{ "max_server_rpcs", 4096, "0", "10000001", "5000" },
		{ "max_server_rpcs_per_peer", 512, "0", "10000001", "600" },
		{ .name = "resend_interval", .def = 5 },
		{ .name = "request_ack_ticks", .def = 2 },
		{ .name = "reap_limit", .def = 10 },
		{ .name = "dead_buffs_limit", .def = 5000 },
		{ .name = "max_nic_queue_ns", .def = 5000 },
		{ .name = "throttle_min_bytes", .def = 200 },
	};
	bool defaults = true;
	size_t i;

	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (homa_sysctl_read(p[i].name) != p[i].def) {
			ktap_diag(k, "net.homa.%s = %ld, expected %ld",
				  p[i].name, homa_sysctl_read(p[i].name),
				  p[i].def);
			defaults = false;
		}
	ktap_result(k, defaults, "sysctls_exist_with_series_defaults");
	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		long before = homa_sysctl_read(p[i].name);
		int lo, hi, in;
		bool kept, taken;

		if (!p[i].ok)
			continue;
		lo = homa_sysctl_write(p[i].name, p[i].below);
		hi = homa_sysctl_write(p[i].name, p[i].above);
		kept = homa_sysctl_read(p[i].name) == before;
		in = homa_sysctl_write(p[i].name, p[i].ok);
		taken = homa_sysctl_read(p[i].name) == atol(p[i].ok);
		homa_sysctl_set(p[i].name, before);
		if (lo != -EINVAL || hi != -EINVAL || !kept)
			ktap_diag(k, "%s: %s gave %d, %s gave %d, value kept %d",
				  p[i].name, p[i].below, lo, p[i].above, hi,
				  kept);
		ktap_result(k, lo == -EINVAL && hi == -EINVAL && kept &&
			    in == 0 && taken && homa_sysctl_read(p[i].name) == before,
			    "sysctl_%s_range_checked", p[i].name);
	}
}

int main(void)
{
	struct ktap k;
	int fd4, fd6;

	ktap_start(&k, 32);
	test_loaded(&k);
	test_sysctls(&k);
	fd4 = homa_socket(AF_INET);
	expect_errno(&k, fd4, 0, "socket_ipv4");
	fd6 = homa_socket(AF_INET6);
	expect_errno(&k, fd6, 0, "socket_ipv6");
	test_auto_ports(&k, fd4, fd6);
	test_bind(&k);
	test_sockopts(&k, fd4 >= 0 ? fd4 : fd6);
	/* Give them ports to check after the close (their automatic ports
	 * cannot be bound explicitly).
	 */
	if (fd4 >= 0 && homa_bind_port(fd4, AF_INET, PORT_C))
		ktap_diag(&k, "binding the IPv4 socket to %d failed", PORT_C);
	if (fd6 >= 0 && homa_bind_port(fd6, AF_INET6, PORT_D))
		ktap_diag(&k, "binding the IPv6 socket to %d failed", PORT_D);
	close_and_rebind(&k, fd4, AF_INET, PORT_C, "close_ipv4");
	close_and_rebind(&k, fd6, AF_INET6, PORT_D, "close_ipv6");
	return ktap_finish(&k);
}
