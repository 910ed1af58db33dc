// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_basic - what a Homa module that only has socket, bind and
 * close must already do: it is loaded, sockets open for both families,
 * ports (bound and automatic) behave, wrong input gets the right errno.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <linux/homa.h>

#include "harness.h"
#include "homa_addr.h"
#include "homa_sock.h"
#include "homa_sysctl.h"

#define PORT_A 1101	/* bound on IPv4 first */
#define PORT_B 1102	/* bound on IPv6 first */
#define PORT_C 1103	/* the IPv4 socket's port at close */
#define PORT_D 1104	/* the IPv6 socket's port at close */

static bool path_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

/* The lab loads the module before any test: it is there. */
TEST(module_loaded)
{
	bool metrics = path_exists("/proc/net/homa_metrics");
	bool sysctl = path_exists("/proc/sys/net/homa");

	TH_LOG("/proc/net/homa_metrics %s, /proc/sys/net/homa %s",
	       metrics ? "present" : "absent", sysctl ? "present" : "absent");
	EXPECT_TRUE(metrics || sysctl);
}

/* Every parameter of the series' defaults is a sysctl with that default
 * (no test changed them yet).
 */
static const struct {
	const char *name;
	long def;
} defaults[] = {
	{ "resend_ticks", 5 },
	{ "timeout_ticks", 100 },
	{ "link_mbps", 25000 },
	{ "max_gso_size", 10000 },
	/* Ours, not the series' (issue 10): server RPC limits. */
	{ "max_server_rpcs", 4096 },
	{ "max_server_rpcs_per_peer", 512 },
	{ "resend_interval", 5 },
	{ "request_ack_ticks", 2 },
	{ "reap_limit", 10 },
	{ "dead_buffs_limit", 5000 },
	{ "max_nic_queue_ns", 5000 },
	{ "throttle_min_bytes", 200 },
};

TEST(sysctls_exist_with_series_defaults)
{
	size_t i;

	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		long v = homa_sysctl_read(defaults[i].name);

		if (v != defaults[i].def)
			TH_LOG("net.homa.%s = %ld, expected %ld",
			       defaults[i].name, v, defaults[i].def);
		EXPECT_EQ(defaults[i].def, v);
	}
}

/*
 * A value outside the parameter's range gives EINVAL and leaves it as it
 * was, on either side; a value in range is taken. The value before is
 * put back.
 */
static void range_checked(struct __test_metadata *_metadata, const char *name,
			  const char *below, const char *above, const char *ok)
{
	long before = homa_sysctl_read(name);

	ASSERT_GE(before, 0) TH_LOG("net.homa.%s unreadable", name);
	EXPECT_ERRNO(EINVAL, homa_sysctl_write(name, below));
	EXPECT_ERRNO(EINVAL, homa_sysctl_write(name, above));
	EXPECT_EQ(before, homa_sysctl_read(name));
	EXPECT_ERRNO(0, homa_sysctl_write(name, ok));
	EXPECT_EQ(atol(ok), homa_sysctl_read(name));
	EXPECT_ERRNO(0, homa_sysctl_set(name, before));
	EXPECT_EQ(before, homa_sysctl_read(name));
}

TEST(sysctl_resend_ticks_range_checked)
{
	range_checked(_metadata, "resend_ticks", "0", "1000001", "7");
}

TEST(sysctl_timeout_ticks_range_checked)
{
	range_checked(_metadata, "timeout_ticks", "1", "1000001", "150");
}

TEST(sysctl_link_mbps_range_checked)
{
	range_checked(_metadata, "link_mbps", "0", "10000001", "10000");
}

TEST(sysctl_max_gso_size_range_checked)
{
	range_checked(_metadata, "max_gso_size", "1099", "65001", "2000");
}

TEST(sysctl_max_server_rpcs_range_checked)
{
	range_checked(_metadata, "max_server_rpcs", "0", "10000001", "5000");
}

TEST(sysctl_max_server_rpcs_per_peer_range_checked)
{
	range_checked(_metadata, "max_server_rpcs_per_peer", "0", "10000001",
		      "600");
}

TEST(socket_ipv4)
{
	int fd = homa_socket(AF_INET);

	EXPECT_ERRNO(0, fd);
	if (fd >= 0)
		close(fd);
}

TEST(socket_ipv6)
{
	int fd = homa_socket(AF_INET6);

	EXPECT_ERRNO(0, fd);
	if (fd >= 0)
		close(fd);
}

/* Sockets that never called bind() get automatic ports. */
FIXTURE(auto_ports) {
	int fd4, fd6, fd4b;
	int p4, p6, p4b;
};

FIXTURE_SETUP(auto_ports)
{
	self->fd4 = homa_socket(AF_INET);
	self->fd6 = homa_socket(AF_INET6);
	self->fd4b = homa_socket(AF_INET);
	ASSERT_ERRNO(0, self->fd4);
	ASSERT_ERRNO(0, self->fd6);
	ASSERT_ERRNO(0, self->fd4b);
	self->p4 = homa_local_port(self->fd4);
	self->p6 = homa_local_port(self->fd6);
	self->p4b = homa_local_port(self->fd4b);
	TH_LOG("automatic ports: %d %d %d", self->p4, self->p6, self->p4b);
}

FIXTURE_TEARDOWN(auto_ports)
{
	close(self->fd4);
	close(self->fd6);
	close(self->fd4b);
}

TEST_F(auto_ports, ipv4_at_least_0x8000)
{
	EXPECT_GE(self->p4, HOMA_MIN_DEFAULT_PORT);
	EXPECT_LE(self->p4, 0xffff);
}

TEST_F(auto_ports, ipv6_at_least_0x8000)
{
	EXPECT_GE(self->p6, HOMA_MIN_DEFAULT_PORT);
	EXPECT_LE(self->p6, 0xffff);
}

TEST_F(auto_ports, distinct)
{
	EXPECT_GT(self->p4, 0);
	EXPECT_GT(self->p6, 0);
	EXPECT_GT(self->p4b, 0);
	EXPECT_NE(self->p4, self->p6);
	EXPECT_NE(self->p4, self->p4b);
	EXPECT_NE(self->p6, self->p4b);
}

static int bind_family(int fd, int family, uint16_t port, socklen_t len)
{
	union homa_addr a;

	homa_addr_any(&a, family, port);
	return sys_err(bind(fd, &a.sa, len));
}

/*
 * close() returns 0 whatever the protocol does, so the check is also on
 * what close must have done: @port, held by @fd (another socket of
 * @family gets EADDRINUSE before the close), can be bound by that socket
 * after it.
 */
static void close_and_rebind(struct __test_metadata *_metadata, int fd,
			     int family, uint16_t port)
{
	int probe = homa_socket(family);

	ASSERT_ERRNO(0, probe);
	EXPECT_ERRNO(EADDRINUSE, homa_bind_port(probe, family, port));
	EXPECT_ERRNO(0, sys_err(close(fd)));
	EXPECT_ERRNO(0, homa_bind_port(probe, family, port));
	close(probe);
}

/* Two sockets of each family, none bound yet; one port space for both. */
FIXTURE(bind) {
	int a4, b4, a6, b6;
};

FIXTURE_SETUP(bind)
{
	self->a4 = homa_socket(AF_INET);
	self->b4 = homa_socket(AF_INET);
	self->a6 = homa_socket(AF_INET6);
	self->b6 = homa_socket(AF_INET6);
	ASSERT_ERRNO(0, self->a4);
	ASSERT_ERRNO(0, self->b4);
	ASSERT_ERRNO(0, self->a6);
	ASSERT_ERRNO(0, self->b6);
}

FIXTURE_TEARDOWN(bind)
{
	close(self->a4);
	close(self->b4);
	close(self->a6);
	close(self->b6);
}

TEST_F(bind, ipv4)
{
	EXPECT_ERRNO(0, homa_bind_port(self->a4, AF_INET, PORT_A));
}

TEST_F(bind, getsockname_reports_bound_port)
{
	ASSERT_ERRNO(0, homa_bind_port(self->a4, AF_INET, PORT_A));
	EXPECT_EQ(PORT_A, homa_local_port(self->a4));
}

TEST_F(bind, conflict_ipv4_ipv4_eaddrinuse)
{
	ASSERT_ERRNO(0, homa_bind_port(self->a4, AF_INET, PORT_A));
	EXPECT_ERRNO(EADDRINUSE, homa_bind_port(self->b4, AF_INET, PORT_A));
}

TEST_F(bind, conflict_ipv4_ipv6_eaddrinuse)
{
	ASSERT_ERRNO(0, homa_bind_port(self->a4, AF_INET, PORT_A));
	EXPECT_ERRNO(EADDRINUSE, homa_bind_port(self->a6, AF_INET6, PORT_A));
}

TEST_F(bind, ipv6)
{
	EXPECT_ERRNO(0, homa_bind_port(self->a6, AF_INET6, PORT_B));
}

TEST_F(bind, conflict_ipv6_ipv6_eaddrinuse)
{
	ASSERT_ERRNO(0, homa_bind_port(self->a6, AF_INET6, PORT_B));
	EXPECT_ERRNO(EADDRINUSE, homa_bind_port(self->b6, AF_INET6, PORT_B));
}

TEST_F(bind, conflict_ipv6_ipv4_eaddrinuse)
{
	ASSERT_ERRNO(0, homa_bind_port(self->a6, AF_INET6, PORT_B));
	EXPECT_ERRNO(EADDRINUSE, homa_bind_port(self->b4, AF_INET, PORT_B));
}

TEST_F(bind, port_0x8000_einval)
{
	EXPECT_ERRNO(EINVAL, homa_bind_port(self->b4, AF_INET,
					    HOMA_MIN_DEFAULT_PORT));
}

/* The address is long enough for either family: only the family is wrong. */
TEST_F(bind, ipv6_address_on_ipv4_socket_eafnosupport)
{
	EXPECT_ERRNO(EAFNOSUPPORT, bind_family(self->b4, AF_INET6, PORT_B + 1,
					       sizeof(union homa_addr)));
}

TEST_F(bind, ipv4_address_on_ipv6_socket_eafnosupport)
{
	EXPECT_ERRNO(EAFNOSUPPORT, bind_family(self->b6, AF_INET, PORT_B + 1,
					       sizeof(union homa_addr)));
}

TEST_F(bind, short_ipv6_address_einval)
{
	EXPECT_ERRNO(EINVAL, bind_family(self->b6, AF_INET6, PORT_B + 1,
					 sizeof(struct sockaddr_in)));
}

/* Closing a bound socket frees its port, for the same family... */
TEST_F(bind, close_bound_socket)
{
	ASSERT_ERRNO(0, homa_bind_port(self->a4, AF_INET, PORT_A));
	close_and_rebind(_metadata, self->a4, AF_INET, PORT_A);
	self->a4 = -1;
}

/* ...and for the other one (one port space). */
TEST_F(bind, port_free_after_close)
{
	ASSERT_ERRNO(0, homa_bind_port(self->a4, AF_INET, PORT_A));
	ASSERT_ERRNO(0, sys_err(close(self->a4)));
	self->a4 = -1;
	EXPECT_ERRNO(0, homa_bind_port(self->a6, AF_INET6, PORT_A));
}

/* Options Homa does not have, or at a level that is not Homa's. */
FIXTURE(sockopt) {
	int fd;
	struct homa_rcvbuf_args args;
	socklen_t len;
};

FIXTURE_SETUP(sockopt)
{
	self->fd = homa_socket(AF_INET);
	ASSERT_ERRNO(0, self->fd);
	memset(&self->args, 0, sizeof(self->args));
	self->len = sizeof(self->args);
}

FIXTURE_TEARDOWN(sockopt)
{
	close(self->fd);
}

TEST_F(sockopt, set_wrong_level_enoprotoopt)
{
	EXPECT_ERRNO(ENOPROTOOPT,
		     sys_err(setsockopt(self->fd, IPPROTO_UDP, SO_HOMA_RCVBUF,
					&self->args, self->len)));
}

TEST_F(sockopt, set_unknown_option_enoprotoopt)
{
	int v = 1;

	EXPECT_ERRNO(ENOPROTOOPT, sys_err(setsockopt(self->fd, IPPROTO_HOMA,
						     99, &v, sizeof(v))));
}

TEST_F(sockopt, get_wrong_level_enoprotoopt)
{
	EXPECT_ERRNO(ENOPROTOOPT,
		     sys_err(getsockopt(self->fd, IPPROTO_UDP, SO_HOMA_RCVBUF,
					&self->args, &self->len)));
}

TEST_F(sockopt, get_unknown_option_enoprotoopt)
{
	EXPECT_ERRNO(ENOPROTOOPT,
		     sys_err(getsockopt(self->fd, IPPROTO_HOMA, 99,
					&self->args, &self->len)));
}

/* A socket of each family, bound, then closed: its port is free again. */
TEST(close_ipv4)
{
	int fd = homa_socket(AF_INET);

	ASSERT_ERRNO(0, fd);
	ASSERT_ERRNO(0, homa_bind_port(fd, AF_INET, PORT_C));
	close_and_rebind(_metadata, fd, AF_INET, PORT_C);
}

TEST(close_ipv6)
{
	int fd = homa_socket(AF_INET6);

	ASSERT_ERRNO(0, fd);
	ASSERT_ERRNO(0, homa_bind_port(fd, AF_INET6, PORT_D));
	close_and_rebind(_metadata, fd, AF_INET6, PORT_D);
}

TEST_HARNESS_MAIN
