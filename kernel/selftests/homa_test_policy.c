// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_policy - what every net/ transport checks between IP and its
 * sockets, and what makes a forged packet harmless (issue 11):
 *   - the socket's filter (SO_ATTACH_FILTER; the same hook runs cgroup
 *     ingress BPF and the LSM) sees Homa packets: a drop-all filter on a
 *     server drops the request (drop_filter), which is not delivered, and
 *     once the filter is gone the client's retries get it served;
 *   - client RPC ids start at a random value per socket (the first ids of
 *     eight sockets opened one after the other are far apart);
 *   - IPv4: a broadcast destination is refused with EACCES unless the
 *     socket has SO_BROADCAST, as UDP does;
 *   - ICMP errors (sent to ourselves through a raw socket) are believed
 *     only when the Homa header they quote names a live RPC of the
 *     quoting socket: a wrong id or a wrong port is ignored (icmp_ignored);
 *     host unreachable is a soft error: the RPC goes on (icmp_soft_errors)
 *     and, when it times out, fails with EHOSTUNREACH instead of
 *     ETIMEDOUT; port unreachable quoting the right id ends it (ENOTCONN);
 *   - routes come from the peer's cache (a handful of full lookups for 50
 *     requests), and a route added meanwhile is seen at once (its MTU
 *     cuts the next message);
 *   - ICMP fragmentation needed / packet too big quoting a live RPC lowers
 *     the route's path MTU (`ip route get`) and the next message to the
 *     host is cut to fit, and so is a message already under way (what it
 *     retransmits when the peer asks, from a RESEND sent to ourselves as
 *     if from the peer); quoting another id it is ignored;
 *   - IPsec (fixture xfrm; needs xfrm_user, so not on the debug kernel): a
 *     cleartext request where an inbound policy requires ESP is dropped
 *     (drop_policy) and not delivered; without the policy it is served;
 *   - egress (fixture egress; needs cgroup2 and BPF, so not on the debug
 *     kernel): every transmitted packet belongs to its socket, so a
 *     cgroup_skb/egress program that drops everything stops the Homa
 *     requests of a socket made in that cgroup, as it stops UDP, and once
 *     it is detached the client's retries get the request served.
 *
 * Each fixture is one of those scenarios, run over IPv4 and IPv6 (the
 * variants ipv4 and ipv6; broadcast has ipv4 only). A test replays its
 * scenario up to the step it checks, in a process of its own: the steps
 * before it run as they always ran, unchecked.
 *
 * usage: homa_test_policy [--silent-peer ADDR]... [-- HARNESS-OPTIONS]
 *   e.g. homa_test_policy -- -F egress -F xfrm   (what the debug kernel has)
 *        homa_test_policy -- -f egress           (one fixture)
 * (the silent peer is an address on the lab segment that never answers,
 * one per family: the crafter's, $HOMALAB_PEER_IP4 and $HOMALAB_PEER_IP6,
 * by default).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <netinet/icmp6.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "homa_wire.h"

#define SERVER_PORT	540
#define NOBODY_PORT	4998
#define SILENT_PORT	500
#define ID_SOCKETS	8
#define EGRESS_PORT	550
#define BIG_LEN		20000
#define PMTU_GSO	1500	/* max_gso_size: one segment per skb */
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define CGROUP_DIR	CGROUP_ROOT "/homa_egress_test"

/* What the options said, and the payloads: the tests read them. */
static struct {
	const char *silent[2];	/* --silent-peer: [0] IPv4, [1] IPv6 */
	uint8_t buf[1000];	/* 0x5a */
	uint8_t big[BIG_LEN];	/* zeros */
} cfg;

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--silent-peer ADDR]... [-- HARNESS-OPTIONS]\n"
		"  fixtures: filter ids broadcast icmp route pmtu egress xfrm\n"
		"  variants: ipv4 ipv6 (-- -h: the harness's filters)\n",
		prog);
	exit(2);
}

/*
 * The silent peer of @family at SILENT_PORT in @a: --silent-peer, else
 * the lab's. 0 or -errno.
 */
static int silent_peer(int family, union homa_addr *a)
{
	const char *ip = cfg.silent[family == AF_INET6];

	if (!ip)
		ip = homa_lab_addr("PEER", family);
	if (!ip)
		return -ENOENT;
	if (homa_addr_parse(a, ip, SILENT_PORT) < 0 ||
	    a->sa.sa_family != family)
		return -EINVAL;
	return 0;
}

/* The Homa common header as our packets carry it (homa_wire.h). */
struct quoted_homa {
	uint16_t sport;
	uint16_t dport;
	uint8_t unused1[8];
	uint8_t doff;
	uint8_t type;
	uint8_t unused2[6];
	uint64_t sender_id;	/* big endian */
} __attribute__((packed));

static uint16_t inet_csum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/*
 * Sends ourselves (over loopback) an ICMP error of @type and @code (with
 * @mtu for "fragmentation needed" / "packet too big") that quotes a Homa
 * DATA packet from @src (NULL: loopback), our port @sport, to @dst with
 * sender id @id, as a router or @dst would. 0 or -errno.
 */
static int send_icmp_full(int family, int type, int code, unsigned int mtu,
			  const union homa_addr *src,
			  const union homa_addr *dst, uint16_t sport,
			  uint64_t id)
{
	uint8_t pkt[8 + sizeof(struct ip6_hdr) + 60];
	struct quoted_homa *h;
	union homa_addr to;
	size_t inner, len;
	int fd, r;

	memset(pkt, 0, sizeof(pkt));
	homa_addr_loopback(&to, family, 0);
	if (family == AF_INET) {
		struct icmphdr *icmp = (struct icmphdr *)pkt;
		struct iphdr *ip = (struct iphdr *)(pkt + 8);

		inner = sizeof(*ip);
		len = 8 + inner + 60;
		icmp->type = (uint8_t)type;
		icmp->code = (uint8_t)code;
		icmp->un.frag.mtu = htons((uint16_t)mtu);
		ip->version = 4;
		ip->ihl = 5;
		ip->tot_len = htons(inner + 60);
		ip->ttl = 64;
		ip->protocol = IPPROTO_HOMA;
		ip->saddr = src ? src->in4.sin_addr.s_addr :
				  htonl(INADDR_LOOPBACK);
		ip->daddr = dst->in4.sin_addr.s_addr;
		ip->check = inet_csum(ip, inner);
		fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	} else {
		struct icmp6_hdr *icmp = (struct icmp6_hdr *)pkt;
		struct ip6_hdr *ip = (struct ip6_hdr *)(pkt + 8);

		inner = sizeof(*ip);
		len = 8 + inner + 60;
		icmp->icmp6_type = (uint8_t)type;
		icmp->icmp6_code = (uint8_t)code;
		icmp->icmp6_mtu = htonl(mtu);
		ip->ip6_flow = htonl(6u << 28);
		ip->ip6_plen = htons(60);
		ip->ip6_nxt = IPPROTO_HOMA;
		ip->ip6_hlim = 64;
		ip->ip6_src = src ? src->in6.sin6_addr : in6addr_loopback;
		ip->ip6_dst = dst->in6.sin6_addr;
		/* The kernel computes ICMPv6 checksums of raw sockets. */
		fd = socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6);
	}
	if (fd < 0)
		return -errno;
	h = (struct quoted_homa *)(pkt + 8 + inner);
	h->sport = htons(sport);
	h->dport = htons(homa_addr_port(dst));
	h->doff = 13 << 4;
	h->type = 0x10;	/* DATA */
	h->sender_id = htobe64(id);
	if (family == AF_INET)
		((struct icmphdr *)pkt)->checksum = inet_csum(pkt, len);
	r = (int)sendto(fd, pkt, len, 0, &to.sa, homa_addr_len(&to));
	r = r < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* An ICMP destination unreachable with @code: see send_icmp_full(). */
static int send_icmp(int family, int code, const union homa_addr *dst,
		     uint16_t sport, uint64_t id)
{
	return send_icmp_full(family, family == AF_INET ? ICMP_DEST_UNREACH :
					  ICMP6_DST_UNREACH,
			      code, 0, NULL, dst, sport, id);
}

/*
 * Sends ourselves, from @from as if the peer sent it (a raw IP packet with
 * that source, over loopback to our address @to), a RESEND for our RPC
 * @id toward @from, asking for [0, @length). 0 or -errno.
 */
static int send_resend_from(const union homa_addr *from,
			    const union homa_addr *to, uint16_t dport,
			    uint64_t id, uint32_t length)
{
	uint8_t pkt[sizeof(struct ip6_hdr) + sizeof(struct homa_resend_hdr)];
	int family = from->sa.sa_family;
	struct homa_resend_hdr *h;
	union homa_addr dst = *to;
	size_t iplen;
	int fd, r;

	memset(pkt, 0, sizeof(pkt));
	if (family == AF_INET) {
		struct iphdr *ip = (struct iphdr *)pkt;

		iplen = sizeof(*ip);
		ip->version = 4;
		ip->ihl = 5;
		ip->tot_len = htons(iplen + sizeof(*h));
		ip->ttl = 64;
		ip->protocol = IPPROTO_HOMA;
		ip->saddr = from->in4.sin_addr.s_addr;
		ip->daddr = to->in4.sin_addr.s_addr;
		dst.in4.sin_port = 0;
	} else {
		struct ip6_hdr *ip = (struct ip6_hdr *)pkt;

		iplen = sizeof(*ip);
		ip->ip6_flow = htonl(6u << 28);
		ip->ip6_plen = htons(sizeof(*h));
		ip->ip6_nxt = IPPROTO_HOMA;
		ip->ip6_hlim = 64;
		ip->ip6_src = from->in6.sin6_addr;
		ip->ip6_dst = to->in6.sin6_addr;
		dst.in6.sin6_port = 0;
	}
	h = (struct homa_resend_hdr *)(pkt + iplen);
	h->common.sport = htons(homa_addr_port(from));
	h->common.dport = htons(dport);
	h->common.type = RESEND;
	h->common.doff = homa_type_doff(RESEND);
	/* The peer's id for the RPC: ours with the low bit flipped. */
	h->common.sender_id = htobe64(id ^ 1);
	h->length = htonl(length);
	/* IPPROTO_RAW: the IP header is ours (the kernel sums IPv4's). */
	fd = socket(family, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0)
		return -errno;
	r = (int)sendto(fd, pkt, iplen + sizeof(*h), 0, &dst.sa,
			homa_addr_len(&dst));
	r = r < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* A request of 100 bytes from @ep to @dst; its id in @id. */
static int request(struct homa_ep *ep, const union homa_addr *dst,
		   uint64_t *id)
{
	return homa_send_request_buf(ep->fd, dst, cfg.buf, 100, 1, id);
}

/* Whether the response (or error) of RPC @id is ready: 0, or -errno. */
static int rpc_state(struct homa_ep *ep, uint64_t id, int msg_flags)
{
	struct homa_rx rx;
	ssize_t n;

	homa_rx_init(&rx);
	n = homa_receive(ep->fd, &rx, HOMA_RECVMSG_RESPONSE, id, msg_flags);
	return n < 0 ? (int)n : 0;
}

/* Whether a request waits on @srv, without waiting: 0, or -errno. */
static int request_waiting(struct homa_ep *srv)
{
	struct homa_rx rx;
	ssize_t n;

	homa_rx_init(&rx);
	n = homa_receive(srv->fd, &rx, HOMA_RECVMSG_REQUEST, 0, MSG_DONTWAIT);
	return n < 0 ? (int)n : 0;
}

/*
 * @srv takes the 100-byte request of @cli's RPC @id (waiting for it) and
 * answers it; @cli gets the response. 0 or -errno.
 */
static int serve_request(struct homa_ep *srv, struct homa_ep *cli,
			 uint64_t id)
{
	struct homa_rx rx;
	ssize_t n;
	int err;

	homa_rx_init(&rx);
	n = homa_receive(srv->fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0);
	if (n == 100)
		err = homa_send_response_buf(srv->fd, &rx.src, rx.ctl.id,
					     cfg.buf, 50);
	else
		err = n < 0 ? (int)n : -EBADMSG;
	return err ? err : rpc_state(cli, id, 0);
}

/* Closes @ep if it is open. */
static void ep_close(struct homa_ep *ep)
{
	if (ep->fd >= 0)
		homa_ep_close(ep);
}

/* Sets net.homa.@name back to @old (read before the test changed it). */
static void sysctl_restore(const char *name, long old)
{
	if (old > 0)
		homa_sysctl_set(name, old);
}

/* Runs @cmd through the shell: 0 if it exited with 0. */
static int run(struct __test_metadata *_metadata, const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		TH_LOG("'%s' failed (%d)", cmd, r);
	return r == 0 ? 0 : -EIO;
}

/*
 * A drop-all socket filter on a server, and a request to it: the filter
 * drops it (drop_filter rises), it is not delivered; once the filter is
 * detached the client asks again (RESEND), the server does not know the
 * RPC (UNKNOWN), the client sends the request again and it is served.
 */
FIXTURE(filter) {
	long old_timeout;
	long long base;		/* drop_filter before */
	struct homa_ep srv, cli;
	uint64_t id;
};

FIXTURE_VARIANT(filter) {
	int family;
};

HOMA_FAMILY_VARIANTS(filter);

static void filter_cleanup(FIXTURE_DATA(filter) *self)
{
	ep_close(&self->cli);
	ep_close(&self->srv);
	sysctl_restore("timeout_ticks", self->old_timeout);
}

FIXTURE_SETUP(filter)
{
	struct sock_filter drop = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = { .len = 1, .filter = &drop };
	union homa_addr dst;
	int err;

	self->base = homa_metric("drop_filter");
	self->old_timeout = homa_sysctl_read("timeout_ticks");
	self->srv.fd = -1;
	self->cli.fd = -1;
	/* The client must not give up while its packets are filtered. */
	err = homa_sysctl_set("timeout_ticks", 5000);
	if (!err)
		err = homa_ep_open(&self->srv, variant->family, SERVER_PORT, 4);
	if (!err)
		err = homa_ep_open(&self->cli, variant->family, 0, 4);
	if (!err)
		err = sys_err(setsockopt(self->srv.fd, SOL_SOCKET,
					 SO_ATTACH_FILTER, &prog,
					 sizeof(prog)));
	homa_addr_loopback(&dst, variant->family, SERVER_PORT);
	if (!err)
		err = request(&self->cli, &dst, &self->id);
	if (err)
		filter_cleanup(self);
	ASSERT_ERRNO(0, err) TH_LOG("filtered server and a request to it");
}

FIXTURE_TEARDOWN(filter)
{
	filter_cleanup(self);
}

/* Step 1: whether the filter dropped the request (within 5 s). */
static bool filter_dropped(FIXTURE_DATA(filter) *self)
{
	return self->base >= 0 &&
	       homa_metric_rises_to("drop_filter", self->base + 1, 5000);
}

/* Step 3: the filter detached, the request served: 0 or -errno. */
static int filter_removed_served(struct __test_metadata *_metadata,
				 FIXTURE_DATA(filter) *self)
{
	int zero = 0;

	if (setsockopt(self->srv.fd, SOL_SOCKET, SO_DETACH_FILTER, &zero,
		       sizeof(zero)))
		TH_LOG("SO_DETACH_FILTER: %s", strerror(errno));
	return serve_request(&self->srv, &self->cli, self->id);
}

TEST_F_TIMEOUT(filter, drops_request_counted, 60)
{
	EXPECT_TRUE(filter_dropped(self));
	TH_LOG("drop_filter +%lld", homa_metric("drop_filter") - self->base);
}

TEST_F_TIMEOUT(filter, filtered_request_not_delivered, 60)
{
	filter_dropped(self);
	EXPECT_ERRNO(EAGAIN, request_waiting(&self->srv));
}

TEST_F_TIMEOUT(filter, request_served_after_filter_removed, 60)
{
	filter_dropped(self);
	request_waiting(&self->srv);
	EXPECT_ERRNO(0, filter_removed_served(_metadata, self));
}

/*
 * The first client ids of sockets opened one after the other: sequential
 * ids (a global counter) differ by 2 from one socket to the next; random
 * 63-bit starts are 2^40 apart but once in 2^23.
 */
FIXTURE(ids) {
	struct homa_ep ep[ID_SOCKETS];
	uint64_t ids[ID_SOCKETS];
	int opened;
};

FIXTURE_VARIANT(ids) {
	int family;
};

HOMA_FAMILY_VARIANTS(ids);

FIXTURE_SETUP(ids)
{
	union homa_addr dst;
	int i, err = 0;

	homa_addr_loopback(&dst, variant->family, NOBODY_PORT);
	for (i = 0; i < ID_SOCKETS && !err; i++) {
		err = homa_ep_open(&self->ep[i], variant->family, 0, 0);
		if (err)
			break;
		self->opened++;
		err = request(&self->ep[i], &dst, &self->ids[i]);
	}
	ASSERT_ERRNO(0, err) TH_LOG("eight client sockets, a request each");
}

FIXTURE_TEARDOWN(ids)
{
	int i;

	for (i = 0; i < self->opened; i++)
		homa_ep_close(&self->ep[i]);
}

TEST_F_TIMEOUT(ids, first_ids_of_sockets_random_and_even, 30)
{
	int i, j;

	for (i = 0; i < ID_SOCKETS; i++) {
		TH_LOG("socket %d: first id %#llx", i,
		       (unsigned long long)self->ids[i]);
		EXPECT_NE(0, self->ids[i]);
		EXPECT_EQ(0, self->ids[i] & 1);
		for (j = 0; j < i; j++) {
			uint64_t d = self->ids[i] > self->ids[j] ?
				     self->ids[i] - self->ids[j] :
				     self->ids[j] - self->ids[i];

			EXPECT_LE(1ULL << 40, d)
				TH_LOG("sockets %d and %d", j, i);
		}
	}
}

/*
 * IPv4 broadcast destinations and SO_BROADCAST: the directed broadcast of
 * the lab's /24, $HOMALAB_BCAST_IP4 (the guests have no default route, so
 * the limited broadcast has no route at all). IPv4 only.
 */
FIXTURE(broadcast) {
	union homa_addr dst;
	struct homa_ep ep;
};

FIXTURE_VARIANT(broadcast) {
	int family;
};

FIXTURE_VARIANT_ADD(broadcast, ipv4) {
	.family = AF_INET,
};

FIXTURE_SETUP(broadcast)
{
	const char *bcast = homa_lab_addr("BCAST", variant->family);
	int err;

	self->ep.fd = -1;
	err = bcast ? homa_addr_parse(&self->dst, bcast, SILENT_PORT) :
		      -ENOENT;
	if (!err)
		err = homa_ep_open(&self->ep, variant->family, 0, 0);
	ASSERT_ERRNO(0, err) TH_LOG("client socket, broadcast address");
}

FIXTURE_TEARDOWN(broadcast)
{
	ep_close(&self->ep);
}

TEST_F_TIMEOUT(broadcast, without_so_broadcast_eacces, 30)
{
	uint64_t id = 0;

	EXPECT_ERRNO(EACCES, request(&self->ep, &self->dst, &id));
}

TEST_F_TIMEOUT(broadcast, with_so_broadcast_sent, 30)
{
	uint64_t id = 0;
	int one = 1, err;

	request(&self->ep, &self->dst, &id);
	err = sys_err(setsockopt(self->ep.fd, SOL_SOCKET, SO_BROADCAST, &one,
				 sizeof(one)));
	EXPECT_ERRNO(0, err ? err : request(&self->ep, &self->dst, &id));
}

/*
 * An RPC to the silent peer from a socket of its own: -errno of the
 * setup, else 0.
 */
static int silent_rpc(int family, const union homa_addr *silent,
		      struct homa_ep *ep, uint64_t *id)
{
	int err = homa_ep_open(ep, family, 0, 4);

	if (err)
		return err;
	err = request(ep, silent, id);
	if (err)
		homa_ep_close(ep);
	return err;
}

/*
 * ICMP errors about an RPC to the silent peer: hard errors that quote
 * what is not ours change nothing; host unreachable quoting our RPC is a
 * soft error, reported when the RPC times out; port unreachable quoting
 * an RPC (of a new socket) ends it.
 */
FIXTURE(icmp) {
	union homa_addr silent;
	long long ign, softs;	/* icmp_ignored, icmp_soft_errors before */
	int soft, port;		/* the family's ICMP codes */
	struct homa_ep ep;
	uint64_t id;
};

FIXTURE_VARIANT(icmp) {
	int family;
};

HOMA_FAMILY_VARIANTS(icmp);

FIXTURE_SETUP(icmp)
{
	int err;

	self->ep.fd = -1;
	self->soft = variant->family == AF_INET ? ICMP_HOST_UNREACH :
						  ICMP6_DST_UNREACH_ADDR;
	self->port = variant->family == AF_INET ? ICMP_PORT_UNREACH :
						  ICMP6_DST_UNREACH_NOPORT;
	self->ign = homa_metric("icmp_ignored");
	self->softs = homa_metric("icmp_soft_errors");
	err = silent_peer(variant->family, &self->silent);
	if (!err)
		err = silent_rpc(variant->family, &self->silent, &self->ep,
				 &self->id);
	ASSERT_ERRNO(0, err) TH_LOG("an RPC to the silent peer");
}

FIXTURE_TEARDOWN(icmp)
{
	ep_close(&self->ep);
}

/* Step 1: port unreachable quoting another id, then another port. */
static bool icmp_other_ignored(FIXTURE_DATA(icmp) *self, int family)
{
	int err;

	err = send_icmp(family, self->port, &self->silent, self->ep.port,
			self->id + 2);
	if (!err)
		err = send_icmp(family, self->port, &self->silent,
				(uint16_t)(self->ep.port + 1), self->id);
	return !err && self->ign >= 0 &&
	       homa_metric_rises_to("icmp_ignored", self->ign + 2, 5000) &&
	       rpc_state(&self->ep, self->id, MSG_DONTWAIT) == -EAGAIN;
}

/* Step 2: host unreachable quoting our RPC. */
static bool icmp_soft(FIXTURE_DATA(icmp) *self, int family)
{
	int err = send_icmp(family, self->soft, &self->silent, self->ep.port,
			    self->id);

	return !err && self->softs >= 0 &&
	       homa_metric_rises_to("icmp_soft_errors", self->softs + 1,
				    5000) &&
	       rpc_state(&self->ep, self->id, MSG_DONTWAIT) == -EAGAIN;
}

TEST_F_TIMEOUT(icmp, quoting_other_id_or_port_ignored, 120)
{
	EXPECT_TRUE(icmp_other_ignored(self, variant->family));
}

TEST_F_TIMEOUT(icmp, host_unreachable_is_soft_rpc_goes_on, 120)
{
	icmp_other_ignored(self, variant->family);
	EXPECT_TRUE(icmp_soft(self, variant->family));
}

TEST_F_TIMEOUT(icmp, timeout_after_soft_error_reports_ehostunreach, 120)
{
	icmp_other_ignored(self, variant->family);
	icmp_soft(self, variant->family);
	EXPECT_ERRNO(EHOSTUNREACH, rpc_state(&self->ep, self->id, 0));
}

TEST_F_TIMEOUT(icmp, port_unreachable_quoting_rpc_ends_it, 120)
{
	int err;

	icmp_other_ignored(self, variant->family);
	icmp_soft(self, variant->family);
	rpc_state(&self->ep, self->id, 0);
	homa_ep_close(&self->ep);
	/* A new socket and RPC. */
	err = silent_rpc(variant->family, &self->silent, &self->ep,
			 &self->id);
	if (!err)
		err = send_icmp(variant->family, self->port, &self->silent,
				self->ep.port, self->id);
	EXPECT_ERRNO(ENOTCONN, err ? err : rpc_state(&self->ep, self->id, 0));
}

/* The address of @a without its port, in @buf. */
static const char *addr_ip(const union homa_addr *a, char *buf, size_t len)
{
	if (a->sa.sa_family == AF_INET)
		return inet_ntop(AF_INET, &a->in4.sin_addr, buf, len);
	return inet_ntop(AF_INET6, &a->in6.sin6_addr, buf, len);
}

/* Our source address toward @dst (port 0) in @src: 0 or -errno. */
static int local_src(const union homa_addr *dst, union homa_addr *src)
{
	socklen_t len = sizeof(*src);
	int fd, err = 0;

	fd = socket(dst->sa.sa_family, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, &dst->sa, homa_addr_len(dst)) ||
	    getsockname(fd, &src->sa, &len))
		err = -errno;
	close(fd);
	return err;
}

/* The MTU `ip route get` reports toward @dst (a route exception, or the
 * route's own mtu), 0 if none, -1 on error.
 */
static int route_mtu(const union homa_addr *dst)
{
	char addr[INET6_ADDRSTRLEN], cmd[128], line[512], *p;
	int mtu = 0;
	FILE *f;

	addr_ip(dst, addr, sizeof(addr));
	snprintf(cmd, sizeof(cmd), "/sbin/ip -%d route get %s 2>&1",
		 dst->sa.sa_family == AF_INET ? 4 : 6, addr);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, " mtu ");
		if (p)
			mtu = atoi(p + 5);
	}
	return pclose(f) == 0 ? mtu : -1;
}

/* Segments of a BIG_LEN message on an @mtu path. */
static long long big_segments(int family, int mtu)
{
	int seg = mtu - (family == AF_INET ? 20 : 40) -
		  (int)sizeof(struct homa_data_hdr);

	return (BIG_LEN + seg - 1) / seg;
}

/*
 * Sends a BIG_LEN request from @ep to @dst with one segment per skb (its
 * id in @id): whether the DATA packets handed to IP are exactly as many
 * as segments of an @mtu path hold.
 */
static bool sent_for_mtu(struct __test_metadata *_metadata,
			 struct homa_ep *ep, const union homa_addr *dst,
			 int mtu, uint64_t *id)
{
	long long want = big_segments(dst->sa.sa_family, mtu);
	long long base = homa_metric("pkts_sent_DATA");
	long long got;

	if (base < 0 || homa_send_request_buf(ep->fd, dst, cfg.big, BIG_LEN,
					      1, id))
		return false;
	homa_metric_rises_to("pkts_sent_DATA", base + want, 5000);
	usleep(200 * 1000);
	got = homa_metric("pkts_sent_DATA") - base;
	TH_LOG("%d-byte path MTU: %lld DATA packets (want %lld)", mtu, got,
	       want);
	return got == want;
}

/*
 * Routes come from the peer's cache (route_lookups counts the full
 * lookups): 50 requests to one host need a handful, not one or more
 * each; a route added meanwhile (with its own MTU) is seen at once.
 */
FIXTURE(route) {
	union homa_addr silent;
	long old_gso;
	struct homa_ep ep;
	uint64_t id;
	long long base;		/* route_lookups before 50 requests */
	bool added;		/* the route with its own MTU */
	char addr[INET6_ADDRSTRLEN];
};

FIXTURE_VARIANT(route) {
	int family;
};

HOMA_FAMILY_VARIANTS(route);

static void route_cleanup(struct __test_metadata *_metadata,
			  FIXTURE_DATA(route) *self, int family)
{
	char cmd[160];

	if (self->added) {
		snprintf(cmd, sizeof(cmd), "/sbin/ip -%d route del %s dev eth0",
			 family == AF_INET ? 4 : 6, self->addr);
		run(_metadata, cmd);
		self->added = false;
	}
	ep_close(&self->ep);
	sysctl_restore("max_gso_size", self->old_gso);
}

FIXTURE_SETUP(route)
{
	int i, err;

	self->old_gso = homa_sysctl_read("max_gso_size");
	self->base = -1;
	self->ep.fd = -1;
	err = silent_peer(variant->family, &self->silent);
	if (!err)
		err = homa_ep_open(&self->ep, variant->family, 0, 0);
	if (!err)
		err = homa_sysctl_set("max_gso_size", PMTU_GSO);
	/* The peer's first request fills its cache; a cache entry set in
	 * the jiffy the cache was made counts as stale (dst_cache), so the
	 * others wait for the next one.
	 */
	if (!err)
		err = request(&self->ep, &self->silent, &self->id);
	usleep(20 * 1000);
	self->base = homa_metric("route_lookups");
	for (i = 0; i < 50 && !err; i++)
		err = request(&self->ep, &self->silent, &self->id);
	if (err)
		route_cleanup(_metadata, self, variant->family);
	ASSERT_ERRNO(0, err) TH_LOG("50 requests to one host");
	addr_ip(&self->silent, self->addr, sizeof(self->addr));
}

FIXTURE_TEARDOWN(route)
{
	route_cleanup(_metadata, self, variant->family);
}

TEST_F_TIMEOUT(route, cache_serves_repeated_sends, 60)
{
	long long lookups = homa_metric("route_lookups") - self->base;

	TH_LOG("50 requests: %lld full route lookups", lookups);
	EXPECT_LE(0, self->base);
	EXPECT_GE(4, lookups);
}

TEST_F_TIMEOUT(route, added_meanwhile_seen_through_cache, 60)
{
	int mtu = variant->family == AF_INET ? 900 : 1300;
	char cmd[160];
	int err;

	snprintf(cmd, sizeof(cmd), "/sbin/ip -%d route add %s dev eth0 mtu %d",
		 variant->family == AF_INET ? 4 : 6, self->addr, mtu);
	err = run(_metadata, cmd);
	self->added = !err;
	EXPECT_ERRNO(0, err);
	EXPECT_TRUE(!err && sent_for_mtu(_metadata, &self->ep, &self->silent,
					 mtu, &self->id));
}

/*
 * ICMP fragmentation needed / packet too big quoting a live RPC lowers the
 * route's path MTU, and the next message to that host is cut to fit, as
 * is one that was under way: asked for all of it (a RESEND from the
 * peer), it retransmits as many segments as the new path MTU needs.
 * Quoting another id it is ignored and changes nothing.
 */
FIXTURE(pmtu) {
	union homa_addr silent, src;
	long old_timeout, old_gso;
	long long ign, pmtu;	/* icmp_ignored, icmp_pmtu before */
	int type, code, mtu;	/* the family's ICMP and its new MTU */
	struct homa_ep ep;
	uint64_t id;		/* a small RPC to the silent peer */
	uint64_t big;		/* a BIG_LEN one, under way */
};

FIXTURE_VARIANT(pmtu) {
	int family;
};

HOMA_FAMILY_VARIANTS(pmtu);

static void pmtu_restore(FIXTURE_DATA(pmtu) *self)
{
	sysctl_restore("max_gso_size", self->old_gso);
	sysctl_restore("timeout_ticks", self->old_timeout);
}

FIXTURE_SETUP(pmtu)
{
	int family = variant->family;
	int err;

	self->type = family == AF_INET ? ICMP_DEST_UNREACH :
					 ICMP6_PACKET_TOO_BIG;
	self->code = family == AF_INET ? ICMP_FRAG_NEEDED : 0;
	self->mtu = family == AF_INET ? 1000 : 1280;
	self->old_timeout = homa_sysctl_read("timeout_ticks");
	self->ign = homa_metric("icmp_ignored");
	self->pmtu = homa_metric("icmp_pmtu");
	self->old_gso = homa_sysctl_read("max_gso_size");
	self->ep.fd = -1;
	err = silent_peer(family, &self->silent);
	if (!err)
		err = local_src(&self->silent, &self->src);
	if (!err)
		err = homa_sysctl_set("max_gso_size", PMTU_GSO);
	/* The RPCs to the silent peer must live through the whole test. */
	if (!err)
		err = homa_sysctl_set("timeout_ticks", 5000);
	if (!err)
		err = silent_rpc(family, &self->silent, &self->ep, &self->id);
	/* A message under way before the path MTU drops, at the link's. */
	if (!err && !sent_for_mtu(_metadata, &self->ep, &self->silent, 1500,
				  &self->big)) {
		homa_ep_close(&self->ep);
		err = -EIO;
	}
	if (err)
		pmtu_restore(self);
	ASSERT_ERRNO(0, err)
		TH_LOG("an RPC to the silent peer, a message under way");
}

FIXTURE_TEARDOWN(pmtu)
{
	ep_close(&self->ep);
	/* Forget the exception: later tests start from the link MTU. */
	run(_metadata, variant->family == AF_INET ?
		       "/sbin/ip -4 route flush cache" :
		       "/sbin/ip -6 route flush cache");
	pmtu_restore(self);
}

/* Step 1: too big quoting an id that no RPC of ours has (ids go up by 2
 * per socket).
 */
static bool pmtu_other_id_ignored(FIXTURE_DATA(pmtu) *self, int family)
{
	int err = send_icmp_full(family, self->type, self->code, self->mtu,
				 &self->src, &self->silent, self->ep.port,
				 self->big + 1000);

	return !err && self->ign >= 0 &&
	       homa_metric_rises_to("icmp_ignored", self->ign + 1, 5000) &&
	       route_mtu(&self->silent) != self->mtu;
}

/* Step 2: too big quoting our RPC. */
static bool pmtu_lowered(FIXTURE_DATA(pmtu) *self, int family)
{
	int err = send_icmp_full(family, self->type, self->code, self->mtu,
				 &self->src, &self->silent, self->ep.port,
				 self->id);

	return !err && self->pmtu >= 0 &&
	       homa_metric_rises_to("icmp_pmtu", self->pmtu + 1, 5000) &&
	       route_mtu(&self->silent) == self->mtu;
}

TEST_F_TIMEOUT(pmtu, too_big_quoting_other_id_ignored, 60)
{
	EXPECT_TRUE(pmtu_other_id_ignored(self, variant->family));
}

TEST_F_TIMEOUT(pmtu, too_big_quoting_rpc_lowers_route_mtu, 60)
{
	pmtu_other_id_ignored(self, variant->family);
	EXPECT_TRUE(pmtu_lowered(self, variant->family));
}

TEST_F_TIMEOUT(pmtu, next_message_cut_to_path_mtu, 60)
{
	pmtu_other_id_ignored(self, variant->family);
	pmtu_lowered(self, variant->family);
	EXPECT_TRUE(sent_for_mtu(_metadata, &self->ep, &self->silent,
				 self->mtu, &self->id));
}

TEST_F_TIMEOUT(pmtu, message_under_way_recut_to_path_mtu, 60)
{
	int family = variant->family;
	long long resent, want;
	int err;

	pmtu_other_id_ignored(self, family);
	pmtu_lowered(self, family);
	sent_for_mtu(_metadata, &self->ep, &self->silent, self->mtu,
		     &self->id);
	want = big_segments(family, self->mtu);
	resent = homa_metric("resent_packets");
	err = send_resend_from(&self->silent, &self->src, self->ep.port,
			       self->big, BIG_LEN);
	EXPECT_ERRNO(0, err);
	EXPECT_LE(0, resent);
	EXPECT_TRUE(!err && resent >= 0 &&
		    homa_metric_rises_to("resent_packets", resent + want,
					 5000));
	usleep(200 * 1000);
	EXPECT_EQ(want, homa_metric("resent_packets") - resent);
	TH_LOG("%d-byte path MTU: %lld segments retransmitted (want %lld; %lld at the link MTU)",
	       self->mtu, homa_metric("resent_packets") - resent, want,
	       big_segments(family, 1500));
}

/* Writes @text to @path: 0 or -errno. */
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

/* The first character of the file at @path, or -1. */
static int read_char(const char *path)
{
	char c;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, &c, 1);
	close(fd);
	return n == 1 ? c : -1;
}

/*
 * IPsec: with an inbound policy that requires ESP for Homa over loopback,
 * a cleartext request is dropped by Homa's policy check (drop_policy) and
 * not delivered; once the policy is gone the client's retries get it
 * served. (Homa is registered with no_policy, so IP leaves this check to
 * it; without it the policy would be bypassed.) Needs xfrm_user, which
 * the debug kernel lacks: run with -- -F xfrm there.
 */
FIXTURE(xfrm) {
	long old_timeout;
	long long base;		/* drop_policy before */
	int old_nopol;		/* lo's disable_policy before, or -1 */
	bool have;		/* the policy is in place */
	char del[160], nopol[64];
	struct homa_ep srv, cli;
	uint64_t id;
};

FIXTURE_VARIANT(xfrm) {
	int family;
};

HOMA_FAMILY_VARIANTS(xfrm);

static void xfrm_cleanup(struct __test_metadata *_metadata,
			 FIXTURE_DATA(xfrm) *self)
{
	ep_close(&self->cli);
	ep_close(&self->srv);
	if (self->have)
		run(_metadata, self->del);
	self->have = false;
	if (self->old_nopol == '1')
		write_file(self->nopol, "1");
	sysctl_restore("timeout_ticks", self->old_timeout);
}

FIXTURE_SETUP(xfrm)
{
	const char *lo = variant->family == AF_INET ? "127.0.0.1" : "::1";
	int v = variant->family == AF_INET ? 4 : 6;
	union homa_addr dst;
	char add[256];
	int err;

	self->base = homa_metric("drop_policy");
	self->old_timeout = homa_sysctl_read("timeout_ticks");
	self->srv.fd = -1;
	self->cli.fd = -1;
	snprintf(add, sizeof(add),
		 "/sbin/ip -%d xfrm policy add src %s dst %s proto %d dir in "
		 "tmpl proto esp mode transport level required", v, lo, lo,
		 IPPROTO_HOMA);
	snprintf(self->del, sizeof(self->del),
		 "/sbin/ip -%d xfrm policy del src %s dst %s proto %d dir in",
		 v, lo, lo, IPPROTO_HOMA);
	/* Loopback skips inbound policy checks (disable_policy): turn that
	 * off, or the policy would not apply to what we send ourselves. The
	 * client must not give up while its packets are refused.
	 */
	snprintf(self->nopol, sizeof(self->nopol),
		 "/proc/sys/net/ipv%d/conf/lo/disable_policy", v);
	self->old_nopol = read_char(self->nopol);
	err = write_file(self->nopol, "0");
	if (!err)
		err = homa_sysctl_set("timeout_ticks", 5000);
	if (!err)
		err = homa_ep_open(&self->srv, variant->family, SERVER_PORT, 4);
	if (!err)
		err = homa_ep_open(&self->cli, variant->family, 0, 4);
	if (!err)
		err = run(_metadata, add);
	self->have = !err;
	homa_addr_loopback(&dst, variant->family, SERVER_PORT);
	if (!err)
		err = request(&self->cli, &dst, &self->id);
	if (err)
		xfrm_cleanup(_metadata, self);
	ASSERT_ERRNO(0, err) TH_LOG("ESP required by policy, and a request");
}

FIXTURE_TEARDOWN(xfrm)
{
	xfrm_cleanup(_metadata, self);
}

/* Step 1: whether the policy check dropped the request (within 5 s). */
static bool xfrm_dropped(FIXTURE_DATA(xfrm) *self)
{
	return self->base >= 0 &&
	       homa_metric_rises_to("drop_policy", self->base + 1, 5000);
}

TEST_F_TIMEOUT(xfrm, cleartext_request_dropped_by_policy, 60)
{
	EXPECT_TRUE(xfrm_dropped(self));
	TH_LOG("drop_policy +%lld", homa_metric("drop_policy") - self->base);
}

TEST_F_TIMEOUT(xfrm, refused_request_not_delivered, 60)
{
	xfrm_dropped(self);
	EXPECT_ERRNO(EAGAIN, request_waiting(&self->srv));
}

TEST_F_TIMEOUT(xfrm, request_served_after_policy_removed, 60)
{
	xfrm_dropped(self);
	request_waiting(&self->srv);
	self->have = run(_metadata, self->del) != 0;
	EXPECT_ERRNO(0, serve_request(&self->srv, &self->cli, self->id));
}

/* Moves this process into the cgroup at @dir. */
static int join_cgroup(const char *dir)
{
	char path[128], pid[24];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	return write_file(path, pid);
}

/*
 * A cgroup_skb program that drops every packet ("r0 = 0; exit"), attached
 * to the egress of a new cgroup: the cgroup's fd, or -errno. The program
 * stays loaded while attached.
 */
static int drop_all_egress_cgroup(int *prog_fd)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	int cg, err;

	if (mkdir(CGROUP_ROOT, 0755) && errno != EEXIST)
		return -errno;
	if (mount("none", CGROUP_ROOT, "cgroup2", 0, NULL) && errno != EBUSY)
		return -errno;
	if (mkdir(CGROUP_DIR, 0755) && errno != EEXIST)
		return -errno;
	cg = open(CGROUP_DIR, O_RDONLY | O_DIRECTORY);
	if (cg < 0)
		return -errno;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_SKB;
	attr.expected_attach_type = BPF_CGROUP_INET_EGRESS;
	attr.insns = (uint64_t)(uintptr_t)insns;
	attr.insn_cnt = 2;
	attr.license = (uint64_t)(uintptr_t)"GPL";
	*prog_fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (*prog_fd < 0) {
		err = -errno;
		*prog_fd = -1;
		close(cg);
		return err;
	}
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cg;
	attr.attach_bpf_fd = (uint32_t)*prog_fd;
	attr.attach_type = BPF_CGROUP_INET_EGRESS;
	if (syscall(SYS_bpf, BPF_PROG_ATTACH, &attr, sizeof(attr))) {
		err = -errno;
		close(*prog_fd);
		*prog_fd = -1;
		close(cg);
		return err;
	}
	return cg;
}

static int detach_egress(int cg, int prog_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)cg;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_INET_EGRESS;
	return syscall(SYS_bpf, BPF_PROG_DETACH, &attr, sizeof(attr)) ? -errno :
									 0;
}

/* Whether a request reaches @srv within @ms (polled, not received). */
static bool request_arrives(struct homa_ep *srv, int ms, struct homa_rx *rx)
{
	ssize_t n;
	int i;

	for (i = 0; i < ms / 10; i++) {
		homa_rx_init(rx);
		n = homa_receive(srv->fd, rx, HOMA_RECVMSG_REQUEST, 0,
				 MSG_DONTWAIT);
		if (n >= 0)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * cgroup egress BPF sees Homa's packets (they belong to their socket): a
 * drop-all program on a cgroup stops the UDP datagrams and the Homa
 * requests of sockets made in it; once it is detached the client's
 * retries get the request served. Needs cgroup2 and BPF, which the debug
 * kernel lacks: run with -- -F egress there.
 */
FIXTURE(egress) {
	long old_timeout;
	int cg, prog_fd, udp;
	struct homa_ep srv, cli;
	union homa_addr dst;
	uint64_t id;
	bool arrived;		/* the Homa request reached the server */
	struct homa_rx rx;	/* ... there */
};

FIXTURE_VARIANT(egress) {
	int family;
};

HOMA_FAMILY_VARIANTS(egress);

static void egress_cleanup(FIXTURE_DATA(egress) *self)
{
	if (self->udp >= 0)
		close(self->udp);
	self->udp = -1;
	ep_close(&self->cli);
	if (self->cg >= 0 || self->prog_fd >= 0) {
		join_cgroup(CGROUP_ROOT);
		if (self->prog_fd >= 0)
			close(self->prog_fd);
		if (self->cg >= 0)
			close(self->cg);
		self->prog_fd = -1;
		self->cg = -1;
		rmdir(CGROUP_DIR);
	}
	ep_close(&self->srv);
	sysctl_restore("timeout_ticks", self->old_timeout);
}

FIXTURE_SETUP(egress)
{
	int err;

	self->old_timeout = homa_sysctl_read("timeout_ticks");
	self->cg = -1;
	self->prog_fd = -1;
	self->udp = -1;
	self->srv.fd = -1;
	self->cli.fd = -1;
	/* The server's socket is made outside the cgroup: its packets pass. */
	err = homa_sysctl_set("timeout_ticks", 5000);
	if (!err)
		err = homa_ep_open(&self->srv, variant->family, EGRESS_PORT, 4);
	if (!err) {
		self->cg = drop_all_egress_cgroup(&self->prog_fd);
		err = self->cg < 0 ? self->cg : join_cgroup(CGROUP_DIR);
	}
	/* Sockets made now belong to the cgroup. */
	if (!err)
		err = homa_ep_open(&self->cli, variant->family, 0, 4);
	if (!err) {
		self->udp = socket(variant->family, SOCK_DGRAM, 0);
		err = self->udp < 0 ? -errno : 0;
	}
	homa_addr_loopback(&self->dst, variant->family, EGRESS_PORT);
	if (err)
		egress_cleanup(self);
	ASSERT_ERRNO(0, err) TH_LOG("cgroup with a drop-all egress program");
}

FIXTURE_TEARDOWN(egress)
{
	egress_cleanup(self);
}

/* Step 1: a UDP datagram from the cgroup: 0 or -errno (EPERM: dropped). */
static int egress_udp(FIXTURE_DATA(egress) *self)
{
	return sys_err((int)sendto(self->udp, cfg.buf, 10, 0, &self->dst.sa,
				   homa_addr_len(&self->dst)));
}

/* Step 2: a Homa request from the cgroup, looked for for 500 ms. */
static int egress_request(FIXTURE_DATA(egress) *self)
{
	int err = request(&self->cli, &self->dst, &self->id);

	self->arrived = !err && request_arrives(&self->srv, 500, &self->rx);
	return err;
}

TEST_F_TIMEOUT(egress, udp_send_in_cgroup_dropped_eperm, 60)
{
	EXPECT_ERRNO(EPERM, egress_udp(self));
}

TEST_F_TIMEOUT(egress, homa_request_in_cgroup_dropped_by_egress_program, 60)
{
	int err;

	egress_udp(self);
	err = egress_request(self);
	EXPECT_ERRNO(0, err);
	EXPECT_FALSE(self->arrived);
}

TEST_F_TIMEOUT(egress, request_served_after_program_detached, 60)
{
	int err;

	egress_udp(self);
	egress_request(self);
	err = detach_egress(self->cg, self->prog_fd);
	if (!err && !self->arrived)
		self->arrived = request_arrives(&self->srv, 20000, &self->rx);
	if (!err && self->arrived)
		err = homa_send_response_buf(self->srv.fd, &self->rx.src,
					     self->rx.ctl.id, cfg.buf, 50);
	if (!err)
		err = self->arrived ? rpc_state(&self->cli, self->id, 0) :
				      -ETIMEDOUT;
	EXPECT_ERRNO(0, err);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "silent-peer", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	union homa_addr a;
	int c;

	while ((c = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		if (c != 's' || homa_addr_parse(&a, optarg, SILENT_PORT) < 0)
			usage(argv[0]);
		cfg.silent[a.sa.sa_family == AF_INET6] = optarg;
	}
	memset(cfg.buf, 0x5a, sizeof(cfg.buf));
	return homa_harness_run(argc, argv, optind);
}
