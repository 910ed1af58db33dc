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
 *   - IPsec (--only xfrm; needs xfrm_user, so not on the debug kernel): a
 *     cleartext request where an inbound policy requires ESP is dropped
 *     (drop_policy) and not delivered; without the policy it is served;
 *   - egress (--only egress; needs cgroup2 and BPF, so not on the debug
 *     kernel): every transmitted packet belongs to its socket, so a
 *     cgroup_skb/egress program that drops everything stops the Homa
 *     requests of a socket made in that cgroup, as it stops UDP, and once
 *     it is detached the client's retries get the request served.
 *
 * usage: homa_test_policy [--family 4|6] [--silent-peer ADDR]
 *                         [--only filter|ids|broadcast|icmp|route|pmtu|
 *                                 egress|xfrm]
 * (the silent peer is an address on the lab segment that never answers:
 * the crafter's, $HOMALAB_PEER_IP4 or $HOMALAB_PEER_IP6, by default).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/filter.h>
#include <netinet/icmp6.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "expect.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"
#include "homa_wire.h"
#include "ktap.h"
#include "watchdog.h"

#define SERVER_PORT	540
#define NOBODY_PORT	4998
#define SILENT_PORT	500
#define ID_SOCKETS	8
#define EGRESS_PORT	550
#define BIG_LEN		20000
#define PMTU_GSO	1500	/* max_gso_size: one segment per skb */
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define CGROUP_DIR	CGROUP_ROOT "/homa_egress_test"

struct policy_test {
	struct ktap k;
	struct watchdog wd;
	int family;
	union homa_addr silent;		/* the silent peer, SILENT_PORT */
	uint8_t buf[1000];
	uint8_t big[BIG_LEN];
};

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--family 4|6] [--silent-peer ADDR] "
		"[--only filter|ids|broadcast|icmp|route|pmtu|egress|xfrm]\n", prog);
	exit(2);
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
static int request(struct policy_test *t, struct homa_ep *ep,
		   const union homa_addr *dst, uint64_t *id)
{
	return homa_send_request_buf(ep->fd, dst, t->buf, 100, 1, id);
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

/*
 * @srv takes the 100-byte request of @cli's RPC @id (waiting for it) and
 * answers it; @cli gets the response. 0 or -errno.
 */
static int serve_request(struct policy_test *t, struct homa_ep *srv,
			 struct homa_ep *cli, uint64_t id)
{
	struct homa_rx rx;
	ssize_t n;
	int err;

	homa_rx_init(&rx);
	n = homa_receive(srv->fd, &rx, HOMA_RECVMSG_REQUEST, 0, 0);
	if (n == 100)
		err = homa_send_response_buf(srv->fd, &rx.src, rx.ctl.id,
					     t->buf, 50);
	else
		err = n < 0 ? (int)n : -EBADMSG;
	return err ? err : rpc_state(cli, id, 0);
}

/* A drop-all socket filter on the server; the client's retries. */
static void filter_tests(struct policy_test *t)
{
	struct sock_filter drop = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = { .len = 1, .filter = &drop };
	long long base = homa_metric("drop_filter");
	long old_timeout = homa_sysctl_read("timeout_ticks");
	struct homa_ep srv, cli;
	union homa_addr dst;
	struct homa_rx rx;
	uint64_t id = 0;
	int err, zero = 0;
	ssize_t n;

	watchdog_arm(&t->wd, 60, "socket_filter");
	/* The client must not give up while its packets are filtered. */
	err = homa_sysctl_set("timeout_ticks", 5000);
	if (!err)
		err = homa_ep_open(&srv, t->family, SERVER_PORT, 4);
	if (!err)
		err = homa_ep_open(&cli, t->family, 0, 4);
	if (!err && setsockopt(srv.fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
			       sizeof(prog)))
		err = -errno;
	homa_addr_loopback(&dst, t->family, SERVER_PORT);
	if (!err)
		err = request(t, &cli, &dst, &id);
	if (!expect_errno(&t->k, err, 0, "setup_filtered_server_and_request"))
		goto out;
	ktap_result(&t->k, base >= 0 &&
		    homa_metric_rises_to("drop_filter", base + 1, 5000),
		    "filter_drops_request_counted");
	homa_rx_init(&rx);
	n = homa_receive(srv.fd, &rx, HOMA_RECVMSG_REQUEST, 0, MSG_DONTWAIT);
	expect_errno(&t->k, n < 0 ? (int)n : 0, EAGAIN,
		     "filtered_request_not_delivered");
	ktap_diag(&t->k, "drop_filter +%lld", homa_metric("drop_filter") - base);
	if (setsockopt(srv.fd, SOL_SOCKET, SO_DETACH_FILTER, &zero,
		       sizeof(zero)))
		ktap_diag(&t->k, "SO_DETACH_FILTER: %s", strerror(errno));
	/* The client asks again (RESEND), the server does not know the RPC
	 * (UNKNOWN), the client sends the request again.
	 */
	err = serve_request(t, &srv, &cli, id);
	expect_errno(&t->k, err, 0, "request_served_after_filter_removed");
	homa_ep_close(&cli);
	homa_ep_close(&srv);
out:
	if (old_timeout > 0)
		homa_sysctl_set("timeout_ticks", old_timeout);
	watchdog_disarm(&t->wd);
}

/* The first client ids of sockets opened one after the other. */
static void id_tests(struct policy_test *t)
{
	uint64_t ids[ID_SOCKETS];
	struct homa_ep ep[ID_SOCKETS];
	int i, j, opened = 0, err = 0;
	union homa_addr dst;
	bool ok = true;

	watchdog_arm(&t->wd, 30, "ids");
	homa_addr_loopback(&dst, t->family, NOBODY_PORT);
	for (i = 0; i < ID_SOCKETS && !err; i++) {
		err = homa_ep_open(&ep[i], t->family, 0, 0);
		if (err)
			break;
		opened++;
		err = request(t, &ep[i], &dst, &ids[i]);
	}
	if (!expect_errno(&t->k, err, 0, "setup_eight_client_sockets"))
		goto out;
	/* Sequential ids (a global counter) differ by 2 from one socket to
	 * the next; random 63-bit starts are 2^40 apart but once in 2^23.
	 */
	for (i = 0; i < ID_SOCKETS; i++) {
		ktap_diag(&t->k, "socket %d: first id %#llx", i,
			  (unsigned long long)ids[i]);
		if (ids[i] == 0 || (ids[i] & 1))
			ok = false;
		for (j = 0; j < i; j++) {
			uint64_t d = ids[i] > ids[j] ? ids[i] - ids[j] :
						       ids[j] - ids[i];

			if (d < (1ULL << 40))
				ok = false;
		}
	}
	ktap_result(&t->k, ok, "first_ids_of_sockets_random_and_even");
out:
	for (i = 0; i < opened; i++)
		homa_ep_close(&ep[i]);
	watchdog_disarm(&t->wd);
}

/*
 * IPv4 broadcast destinations and SO_BROADCAST: the directed broadcast of
 * the lab's /24, $HOMALAB_BCAST_IP4 (the guests have no default route, so
 * the limited broadcast has no route at all).
 */
static void broadcast_tests(struct policy_test *t)
{
	const char *bcast = homa_lab_addr("BCAST", AF_INET);
	union homa_addr dst;
	struct homa_ep ep;
	uint64_t id = 0;
	int one = 1, err;

	watchdog_arm(&t->wd, 30, "broadcast");
	err = bcast ? homa_addr_parse(&dst, bcast, SILENT_PORT) : -ENOENT;
	if (!err)
		err = homa_ep_open(&ep, AF_INET, 0, 0);
	if (!expect_errno(&t->k, err, 0, "setup_client_socket"))
		goto out;
	expect_errno(&t->k, request(t, &ep, &dst, &id), EACCES,
		     "broadcast_without_so_broadcast_eacces");
	if (setsockopt(ep.fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof(one)))
		err = -errno;
	expect_errno(&t->k, err ? err : request(t, &ep, &dst, &id), 0,
		     "broadcast_with_so_broadcast_sent");
	homa_ep_close(&ep);
out:
	watchdog_disarm(&t->wd);
}

/*
 * An RPC to the silent peer from a socket of its own and an ICMP error
 * about it: -errno of the setup, else 0 and the ICMP sent.
 */
static int icmp_setup(struct policy_test *t, struct homa_ep *ep,
		      uint64_t *id)
{
	int err = homa_ep_open(ep, t->family, 0, 4);

	if (err)
		return err;
	err = request(t, ep, &t->silent, id);
	if (err)
		homa_ep_close(ep);
	return err;
}

static void icmp_tests(struct policy_test *t)
{
	int soft = t->family == AF_INET ? ICMP_HOST_UNREACH :
					  ICMP6_DST_UNREACH_ADDR;
	int port = t->family == AF_INET ? ICMP_PORT_UNREACH :
					  ICMP6_DST_UNREACH_NOPORT;
	long long ign = homa_metric("icmp_ignored");
	long long softs = homa_metric("icmp_soft_errors");
	struct homa_ep ep;
	uint64_t id = 0;
	int err;

	watchdog_arm(&t->wd, 120, "icmp");
	err = icmp_setup(t, &ep, &id);
	if (!expect_errno(&t->k, err, 0, "setup_rpc_to_silent_peer"))
		goto out;
	/* Hard errors that quote what is not ours change nothing. */
	err = send_icmp(t->family, port, &t->silent, ep.port, id + 2);
	if (!err)
		err = send_icmp(t->family, port, &t->silent,
				(uint16_t)(ep.port + 1), id);
	ktap_result(&t->k, !err && ign >= 0 &&
		    homa_metric_rises_to("icmp_ignored", ign + 2, 5000) &&
		    rpc_state(&ep, id, MSG_DONTWAIT) == -EAGAIN,
		    "icmp_quoting_other_id_or_port_ignored");
	/* Host unreachable quoting our RPC: a soft error. */
	err = send_icmp(t->family, soft, &t->silent, ep.port, id);
	ktap_result(&t->k, !err && softs >= 0 &&
		    homa_metric_rises_to("icmp_soft_errors", softs + 1, 5000) &&
		    rpc_state(&ep, id, MSG_DONTWAIT) == -EAGAIN,
		    "host_unreachable_is_soft_rpc_goes_on");
	/* ... reported when the RPC times out. */
	expect_errno(&t->k, rpc_state(&ep, id, 0), EHOSTUNREACH,
		     "timeout_after_soft_error_reports_ehostunreach");
	homa_ep_close(&ep);

	/* Port unreachable quoting our RPC ends it. */
	err = icmp_setup(t, &ep, &id);
	if (!err)
		err = send_icmp(t->family, port, &t->silent, ep.port, id);
	expect_errno(&t->k, err ? err : rpc_state(&ep, id, 0), ENOTCONN,
		     "port_unreachable_quoting_rpc_ends_it");
	if (!err)
		homa_ep_close(&ep);
out:
	watchdog_disarm(&t->wd);
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

/* Runs @cmd through the shell: 0 if it exited with 0. */
static int run(struct policy_test *t, const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		ktap_diag(&t->k, "'%s' failed (%d)", cmd, r);
	return r == 0 ? 0 : -EIO;
}

/* Segments of a BIG_LEN message on an @mtu path. */
static long long big_segments(const struct policy_test *t, int mtu)
{
	int seg = mtu - (t->family == AF_INET ? 20 : 40) -
		  (int)sizeof(struct homa_data_hdr);

	return (BIG_LEN + seg - 1) / seg;
}

/*
 * Sends a BIG_LEN request from @ep to the silent peer with one segment per
 * skb (its id in @id): whether the DATA packets handed to IP are exactly
 * as many as segments of an @mtu path hold.
 */
static bool sent_for_mtu(struct policy_test *t, struct homa_ep *ep,
			 int mtu, uint64_t *id)
{
	long long want = big_segments(t, mtu);
	long long base = homa_metric("pkts_sent_DATA");
	long long got;

	if (base < 0 || homa_send_request_buf(ep->fd, &t->silent, t->big,
					      BIG_LEN, 1, id))
		return false;
	homa_metric_rises_to("pkts_sent_DATA", base + want, 5000);
	usleep(200 * 1000);
	got = homa_metric("pkts_sent_DATA") - base;
	ktap_diag(&t->k, "%d-byte path MTU: %lld DATA packets (want %lld)",
		  mtu, got, want);
	return got == want;
}

/*
 * Routes come from the peer's cache (route_lookups counts the full
 * lookups): 50 requests to one host need a handful, not one or more
 * each; a route added meanwhile (with its own MTU) is seen at once.
 */
static void route_tests(struct policy_test *t)
{
	long old_gso = homa_sysctl_read("max_gso_size");
	char addr[INET6_ADDRSTRLEN], cmd[160];
	long long base = -1;
	int v = t->family == AF_INET ? 4 : 6;
	int mtu = t->family == AF_INET ? 900 : 1300;
	struct homa_ep ep;
	long long lookups;
	uint64_t id = 0;
	int i, err;

	watchdog_arm(&t->wd, 60, "route");
	err = homa_ep_open(&ep, t->family, 0, 0);
	if (!err)
		err = homa_sysctl_set("max_gso_size", PMTU_GSO);
	/* The peer's first request fills its cache; a cache entry set in
	 * the jiffy the cache was made counts as stale (dst_cache), so the
	 * others wait for the next one.
	 */
	if (!err)
		err = request(t, &ep, &t->silent, &id);
	usleep(20 * 1000);
	base = homa_metric("route_lookups");
	for (i = 0; i < 50 && !err; i++)
		err = request(t, &ep, &t->silent, &id);
	if (!expect_errno(&t->k, err, 0, "setup_50_requests_to_one_host"))
		goto out;
	lookups = homa_metric("route_lookups") - base;
	ktap_diag(&t->k, "50 requests: %lld full route lookups", lookups);
	ktap_result(&t->k, base >= 0 && lookups <= 4,
		    "route_cache_serves_repeated_sends");
	addr_ip(&t->silent, addr, sizeof(addr));
	snprintf(cmd, sizeof(cmd), "/sbin/ip -%d route add %s dev eth0 mtu %d",
		 v, addr, mtu);
	err = run(t, cmd);
	ktap_result(&t->k, !err && sent_for_mtu(t, &ep, mtu, &id),
		    "route_added_meanwhile_seen_through_cache");
	snprintf(cmd, sizeof(cmd), "/sbin/ip -%d route del %s dev eth0", v,
		 addr);
	if (!err)
		run(t, cmd);
	homa_ep_close(&ep);
out:
	if (old_gso > 0)
		homa_sysctl_set("max_gso_size", old_gso);
	watchdog_disarm(&t->wd);
}

/*
 * ICMP fragmentation needed / packet too big quoting a live RPC lowers the
 * route's path MTU, and the next message to that host is cut to fit, as
 * is one that was under way: asked for all of it (a RESEND from the
 * peer), it retransmits as many segments as the new path MTU needs.
 * Quoting another id it is ignored and changes nothing.
 */
static void pmtu_tests(struct policy_test *t)
{
	int type = t->family == AF_INET ? ICMP_DEST_UNREACH :
					  ICMP6_PACKET_TOO_BIG;
	int code = t->family == AF_INET ? ICMP_FRAG_NEEDED : 0;
	int mtu = t->family == AF_INET ? 1000 : 1280;
	long old_timeout = homa_sysctl_read("timeout_ticks");
	long long ign = homa_metric("icmp_ignored");
	long long pmtu = homa_metric("icmp_pmtu");
	long old_gso = homa_sysctl_read("max_gso_size");
	long long resent, want;
	uint64_t id = 0, big = 0;
	union homa_addr src;
	struct homa_ep ep;
	int err;

	watchdog_arm(&t->wd, 60, "pmtu");
	err = local_src(&t->silent, &src);
	if (!err)
		err = homa_sysctl_set("max_gso_size", PMTU_GSO);
	/* The RPCs to the silent peer must live through the whole group. */
	if (!err)
		err = homa_sysctl_set("timeout_ticks", 5000);
	if (!err)
		err = icmp_setup(t, &ep, &id);
	/* A message under way before the path MTU drops, at the link's. */
	if (!err && !sent_for_mtu(t, &ep, 1500, &big)) {
		homa_ep_close(&ep);
		err = -EIO;
	}
	if (!expect_errno(&t->k, err, 0, "setup_rpc_to_silent_peer"))
		goto out;
	/* An id that no RPC of ours has (ids go up by 2 per socket). */
	err = send_icmp_full(t->family, type, code, mtu, &src, &t->silent,
			     ep.port, big + 1000);
	ktap_result(&t->k, !err && ign >= 0 &&
		    homa_metric_rises_to("icmp_ignored", ign + 1, 5000) &&
		    route_mtu(&t->silent) != mtu,
		    "too_big_quoting_other_id_ignored");
	err = send_icmp_full(t->family, type, code, mtu, &src, &t->silent,
			     ep.port, id);
	ktap_result(&t->k, !err && pmtu >= 0 &&
		    homa_metric_rises_to("icmp_pmtu", pmtu + 1, 5000) &&
		    route_mtu(&t->silent) == mtu,
		    "too_big_quoting_rpc_lowers_route_mtu");
	ktap_result(&t->k, sent_for_mtu(t, &ep, mtu, &id),
		    "next_message_cut_to_path_mtu");
	want = big_segments(t, mtu);
	resent = homa_metric("resent_packets");
	err = send_resend_from(&t->silent, &src, ep.port, big, BIG_LEN);
	ktap_result(&t->k, !err && resent >= 0 &&
		    homa_metric_rises_to("resent_packets", resent + want,
					 5000) &&
		    !usleep(200 * 1000) &&
		    homa_metric("resent_packets") - resent == want,
		    "message_under_way_recut_to_path_mtu");
	ktap_diag(&t->k, "%d-byte path MTU: %lld segments retransmitted "
		  "(want %lld; %lld at the link MTU)", mtu,
		  homa_metric("resent_packets") - resent, want,
		  big_segments(t, 1500));
	homa_ep_close(&ep);
	/* Forget the exception: later runs start from the link MTU. */
	run(t, t->family == AF_INET ? "/sbin/ip -4 route flush cache" :
				      "/sbin/ip -6 route flush cache");
out:
	if (old_gso > 0)
		homa_sysctl_set("max_gso_size", old_gso);
	if (old_timeout > 0)
		homa_sysctl_set("timeout_ticks", old_timeout);
	watchdog_disarm(&t->wd);
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
 * the debug kernel lacks.
 */
static void xfrm_tests(struct policy_test *t)
{
	const char *lo = t->family == AF_INET ? "127.0.0.1" : "::1";
	long long base = homa_metric("drop_policy");
	long old_timeout = homa_sysctl_read("timeout_ticks");
	int v = t->family == AF_INET ? 4 : 6;
	char add[256], del[160], nopol[64];
	struct homa_ep srv, cli;
	int old_nopol;
	union homa_addr dst;
	struct homa_rx rx;
	uint64_t id = 0;
	bool have = false;
	ssize_t n;
	int err;

	watchdog_arm(&t->wd, 60, "xfrm");
	snprintf(add, sizeof(add),
		 "/sbin/ip -%d xfrm policy add src %s dst %s proto %d dir in "
		 "tmpl proto esp mode transport level required", v, lo, lo,
		 IPPROTO_HOMA);
	snprintf(del, sizeof(del),
		 "/sbin/ip -%d xfrm policy del src %s dst %s proto %d dir in",
		 v, lo, lo, IPPROTO_HOMA);
	/* Loopback skips inbound policy checks (disable_policy): turn that
	 * off, or the policy would not apply to what we send ourselves. The
	 * client must not give up while its packets are refused.
	 */
	snprintf(nopol, sizeof(nopol), "/proc/sys/net/ipv%d/conf/lo/disable_policy",
		 v);
	old_nopol = read_char(nopol);
	err = write_file(nopol, "0");
	if (!err)
		err = homa_sysctl_set("timeout_ticks", 5000);
	if (!err)
		err = homa_ep_open(&srv, t->family, SERVER_PORT, 4);
	if (!err)
		err = homa_ep_open(&cli, t->family, 0, 4);
	if (!err)
		err = run(t, add);
	have = !err;
	homa_addr_loopback(&dst, t->family, SERVER_PORT);
	if (!err)
		err = request(t, &cli, &dst, &id);
	if (!expect_errno(&t->k, err, 0, "setup_esp_required_policy_and_request"))
		goto out;
	ktap_result(&t->k, base >= 0 &&
		    homa_metric_rises_to("drop_policy", base + 1, 5000),
		    "cleartext_request_dropped_by_policy");
	homa_rx_init(&rx);
	n = homa_receive(srv.fd, &rx, HOMA_RECVMSG_REQUEST, 0, MSG_DONTWAIT);
	expect_errno(&t->k, n < 0 ? (int)n : 0, EAGAIN,
		     "refused_request_not_delivered");
	ktap_diag(&t->k, "drop_policy +%lld", homa_metric("drop_policy") - base);
	have = run(t, del) != 0;
	err = serve_request(t, &srv, &cli, id);
	expect_errno(&t->k, err, 0, "request_served_after_policy_removed");
	homa_ep_close(&cli);
	homa_ep_close(&srv);
out:
	if (have)
		run(t, del);
	if (old_nopol == '1')
		write_file(nopol, "1");
	if (old_timeout > 0)
		homa_sysctl_set("timeout_ticks", old_timeout);
	watchdog_disarm(&t->wd);
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

/* cgroup egress BPF sees Homa's packets (they belong to their socket). */
static void egress_tests(struct policy_test *t)
{
	long old_timeout = homa_sysctl_read("timeout_ticks");
	int cg = -1, prog_fd = -1, udp = -1, err;
	struct homa_ep srv, cli;
	union homa_addr dst;
	struct homa_rx rx;
	uint64_t id = 0;
	bool arrived;

	watchdog_arm(&t->wd, 60, "egress");
	memset(&cli, 0, sizeof(cli));
	memset(&srv, 0, sizeof(srv));
	cli.fd = -1;
	srv.fd = -1;
	/* The server's socket is made outside the cgroup: its packets pass. */
	err = homa_sysctl_set("timeout_ticks", 5000);
	if (!err)
		err = homa_ep_open(&srv, t->family, EGRESS_PORT, 4);
	if (!err) {
		cg = drop_all_egress_cgroup(&prog_fd);
		err = cg < 0 ? cg : join_cgroup(CGROUP_DIR);
	}
	/* Sockets made now belong to the cgroup. */
	if (!err)
		err = homa_ep_open(&cli, t->family, 0, 4);
	if (!err) {
		udp = socket(t->family, SOCK_DGRAM, 0);
		err = udp < 0 ? -errno : 0;
	}
	homa_addr_loopback(&dst, t->family, EGRESS_PORT);
	if (!expect_errno(&t->k, err, 0, "setup_cgroup_with_drop_all_egress"))
		goto out;
	/* UDP first: the program works. */
	err = (int)sendto(udp, t->buf, 10, 0, &dst.sa, homa_addr_len(&dst));
	expect_errno(&t->k, err < 0 ? -errno : 0, EPERM,
		     "udp_send_in_cgroup_dropped_eperm");
	err = request(t, &cli, &dst, &id);
	arrived = !err && request_arrives(&srv, 500, &rx);
	ktap_result(&t->k, !err && !arrived,
		    "homa_request_in_cgroup_dropped_by_egress_program");
	err = detach_egress(cg, prog_fd);
	if (!err && !arrived)
		arrived = request_arrives(&srv, 20000, &rx);
	if (!err && arrived)
		err = homa_send_response_buf(srv.fd, &rx.src, rx.ctl.id,
					     t->buf, 50);
	if (!err)
		err = arrived ? rpc_state(&cli, id, 0) : -ETIMEDOUT;
	expect_errno(&t->k, err, 0, "request_served_after_program_detached");
out:
	if (udp >= 0)
		close(udp);
	if (cli.fd > 0)
		homa_ep_close(&cli);
	if (cg >= 0 || prog_fd >= 0) {
		join_cgroup(CGROUP_ROOT);
		if (prog_fd >= 0)
			close(prog_fd);
		if (cg >= 0)
			close(cg);
		rmdir(CGROUP_DIR);
	}
	if (srv.fd > 0)
		homa_ep_close(&srv);
	if (old_timeout > 0)
		homa_sysctl_set("timeout_ticks", old_timeout);
	watchdog_disarm(&t->wd);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "silent-peer", required_argument, NULL, 's' },
		{ "only", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct group {
		const char *name;
		void (*run)(struct policy_test *t);
		int cases;
		bool v4_only;
		bool on_request;	/* only with --only */
	} groups[] = {
		{ "filter", filter_tests, 4, false, false },
		{ "ids", id_tests, 2, false, false },
		{ "broadcast", broadcast_tests, 3, true, false },
		{ "icmp", icmp_tests, 5, false, false },
		{ "route", route_tests, 3, false, false },
		{ "pmtu", pmtu_tests, 5, false, false },
		{ "egress", egress_tests, 4, false, true },
		{ "xfrm", xfrm_tests, 4, false, true },
	};
	static struct policy_test t;
	const char *silent = NULL, *only = NULL;
	int c, i, plan = 0;
	bool sel[sizeof(groups) / sizeof(groups[0])];

	t.family = AF_INET;
	while ((c = getopt_long(argc, argv, "f:s:", opts, NULL)) != -1) {
		if (c == 'f')
			t.family = homa_family_parse(optarg);
		else if (c == 's')
			silent = optarg;
		else if (c == 'o')
			only = optarg;
		else
			usage(argv[0]);
	}
	if (t.family < 0)
		usage(argv[0]);
	if (!silent)
		silent = homa_lab_addr("PEER", t.family);
	if (!silent)
		return 2;
	if (homa_addr_parse(&t.silent, silent, SILENT_PORT) < 0 ||
	    t.silent.sa.sa_family != t.family)
		usage(argv[0]);
	memset(t.buf, 0x5a, sizeof(t.buf));

	for (i = 0; i < (int)(sizeof(groups) / sizeof(groups[0])); i++) {
		sel[i] = only ? strcmp(only, groups[i].name) == 0 :
				!groups[i].on_request;
		sel[i] = sel[i] && (!groups[i].v4_only || t.family == AF_INET);
		if (sel[i])
			plan += groups[i].cases;
	}
	if (only && plan == 0)
		usage(argv[0]);
	ktap_start(&t.k, plan);
	ktap_diag(&t.k, "IPv%d, silent peer %s", t.family == AF_INET ? 4 : 6,
		  silent);
	watchdog_start(&t.wd, &t.k);
	for (i = 0; i < (int)(sizeof(groups) / sizeof(groups[0])); i++)
		if (sel[i])
			groups[i].run(&t);
	watchdog_stop(&t.wd);
	return ktap_finish(&t.k);
}
