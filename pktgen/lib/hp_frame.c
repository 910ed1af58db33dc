// SPDX-License-Identifier: BSD-2-Clause
/* hp_frame.c - build Ethernet + IP + Homa frames with sane defaults. */
#include "hp_frame.h"

#include <arpa/inet.h>
#include <net/ethernet.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>

#include "homa_wire.h"
#include "linux/homa.h"
#include "hp_util.h"

void hp_addrs_default(struct hp_addrs *a)
{
	memset(a, 0, sizeof(*a));
	a->family = 4;
	hp_parse_mac(HP_DEFAULT_PEER_MAC, a->smac);
	hp_parse_mac(HP_DEFAULT_GUEST_MAC, a->dmac);
	inet_pton(AF_INET, HP_DEFAULT_PEER_IP4, a->sip4);
	inet_pton(AF_INET, HP_DEFAULT_GUEST_IP4, a->dip4);
	inet_pton(AF_INET6, HP_DEFAULT_PEER_IP6, a->sip6);
	inet_pton(AF_INET6, HP_DEFAULT_GUEST_IP6, a->dip6);
}

static int env_addr(const char *name, int kind, uint8_t *out,
		    char *bad, size_t badlen)
{
	const char *v = getenv(name);
	int ok;

	if (!v || !*v)
		return 0;
	if (kind == 0)
		ok = hp_parse_mac(v, out) == 0;
	else
		ok = inet_pton(kind == 4 ? AF_INET : AF_INET6, v, out) == 1;
	if (!ok) {
		snprintf(bad, badlen, "%s", name);
		return -1;
	}
	return 0;
}

int hp_addrs_from_env(struct hp_addrs *a, int guest, char *bad,
		      size_t badlen)
{
	char n[3][32];

	snprintf(n[0], sizeof(n[0]), "HOMALAB_G%d_MAC", guest);
	snprintf(n[1], sizeof(n[1]), "HOMALAB_G%d_IP4", guest);
	snprintf(n[2], sizeof(n[2]), "HOMALAB_G%d_IP6", guest);
	return env_addr(n[0], 0, a->dmac, bad, badlen) ||
	       env_addr(n[1], 4, a->dip4, bad, badlen) ||
	       env_addr(n[2], 6, a->dip6, bad, badlen) ||
	       env_addr("HOMALAB_PEER_MAC", 0, a->smac, bad, badlen) ||
	       env_addr("HOMALAB_PEER_IP4", 4, a->sip4, bad, badlen) ||
	       env_addr("HOMALAB_PEER_IP6", 6, a->sip6, bad, badlen) ? -1 : 0;
}

static void swap_bytes(uint8_t *x, uint8_t *y, size_t n)
{
	uint8_t t[16];

	memcpy(t, x, n);
	memcpy(x, y, n);
	memcpy(y, t, n);
}

void hp_addrs_reverse(struct hp_addrs *a)
{
	swap_bytes(a->smac, a->dmac, 6);
	swap_bytes(a->sip4, a->dip4, 4);
	swap_bytes(a->sip6, a->dip6, 16);
}

size_t hp_type_hdr_len(unsigned int type)
{
	size_t len = homa_type_hdr_len(type);

	/* A value that is no type gets the common header alone. */
	return len ? len : sizeof(struct homa_common_hdr);
}

uint8_t hp_default_doff(unsigned int type)
{
	if (!homa_type_valid(type))
		return homa_doff(sizeof(struct homa_common_hdr));
	return homa_type_doff(type);
}

const char *hp_type_name(unsigned int type)
{
	return homa_type_name(type);
}

/* The types' names in enum homa_packet_type (RPC_UNKNOWN for UNKNOWN). */
static const char *const type_syms[HOMA_NUM_TYPES] = {
#define HOMA_PACKET_TYPE(sym, ...)	[(sym) - HOMA_TYPE_MIN] = #sym,
#include "homa_wire_types.h"
#undef HOMA_PACKET_TYPE
};

int hp_type_parse(const char *s, unsigned int *type)
{
	uint64_t v;

	for (unsigned int t = HOMA_TYPE_MIN; t <= HOMA_TYPE_MAX; t++) {
		if (strcasecmp(s, homa_type_name(t)) == 0 ||
		    strcasecmp(s, type_syms[t - HOMA_TYPE_MIN]) == 0) {
			*type = t;
			return 0;
		}
	}
	if (hp_parse_u64(s, 0xff, &v) == 0) {
		*type = (unsigned int)v;
		return 0;
	}
	return -1;
}

int hp_frame_init(struct hp_frame *f, const struct hp_addrs *a,
		  unsigned int type)
{
	struct ether_header *eth = (struct ether_header *)f->buf;
	struct homa_common_hdr *h;
	size_t hlen = hp_type_hdr_len(type);

	memset(f, 0, offsetof(struct hp_frame, buf));
	f->cap = HP_FRAME_MAX;
	memset(f->buf, 0, 14 + 40 + HOMA_MAX_HEADER);
	memcpy(eth->ether_dhost, a->dmac, 6);
	memcpy(eth->ether_shost, a->smac, 6);
	f->family = a->family;
	f->l3 = sizeof(*eth);
	if (a->family == 6) {
		struct ip6_hdr *ip6 = (struct ip6_hdr *)(f->buf + f->l3);

		eth->ether_type = htons(ETHERTYPE_IPV6);
		ip6->ip6_flow = htonl(0x60000000u);
		ip6->ip6_nxt = IPPROTO_HOMA;
		ip6->ip6_hlim = 64;
		memcpy(&ip6->ip6_src, a->sip6, 16);
		memcpy(&ip6->ip6_dst, a->dip6, 16);
		f->l4 = f->l3 + sizeof(*ip6);
	} else {
		struct iphdr *ip = (struct iphdr *)(f->buf + f->l3);

		eth->ether_type = htons(ETHERTYPE_IP);
		ip->version = 4;
		ip->ihl = sizeof(*ip) / 4;
		ip->frag_off = htons(IP_DF);
		ip->ttl = 64;
		ip->protocol = IPPROTO_HOMA;
		memcpy(&ip->saddr, a->sip4, 4);
		memcpy(&ip->daddr, a->dip4, 4);
		f->l4 = f->l3 + sizeof(*ip);
	}
	h = (struct homa_common_hdr *)(f->buf + f->l4);
	h->type = (uint8_t)type;
	h->doff = hp_default_doff(type);
	f->len = f->l4 + hlen;
	hp_frame_finalize(f);
	return 0;
}

int hp_frame_append(struct hp_frame *f, const void *data, size_t n)
{
	if (n > f->cap - f->len)
		return -1;
	if (data)
		memcpy(f->buf + f->len, data, n);
	else
		memset(f->buf + f->len, 0, n);
	f->len += n;
	return 0;
}

size_t hp_frame_l4_len(const struct hp_frame *f)
{
	return f->len > f->l4 ? f->len - f->l4 : 0;
}

int hp_frame_truncate_l4(struct hp_frame *f, size_t n)
{
	if (n > hp_frame_l4_len(f))
		return -1;
	f->len = f->l4 + n;
	return 0;
}

int hp_frame_truncate_raw(struct hp_frame *f, size_t n)
{
	if (n > f->len)
		return -1;
	f->len = n;
	f->lock |= HP_LOCK_IPLEN | HP_LOCK_IPCSUM;
	return 0;
}

uint16_t hp_inet_csum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (; len > 1; p += 2, len -= 2)
		sum += (uint32_t)(p[0] << 8 | p[1]);
	if (len)
		sum += (uint32_t)(p[0] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void hp_frame_finalize(struct hp_frame *f)
{
	size_t l4len = hp_frame_l4_len(f);

	if (f->family == 6) {
		struct ip6_hdr *ip6 = (struct ip6_hdr *)(f->buf + f->l3);

		if (!(f->lock & HP_LOCK_IPLEN) && f->len >= f->l4)
			ip6->ip6_plen = htons((uint16_t)l4len);
		return;
	}
	struct iphdr *ip = (struct iphdr *)(f->buf + f->l3);

	if (f->len < f->l4)
		return;
	if (!(f->lock & HP_LOCK_IPLEN))
		ip->tot_len = htons((uint16_t)(f->len - f->l3));
	if (!(f->lock & HP_LOCK_IPCSUM)) {
		uint16_t c;

		ip->check = 0;
		c = hp_inet_csum(ip, (size_t)ip->ihl * 4 <= f->l4 - f->l3 ?
				 (size_t)ip->ihl * 4 : f->l4 - f->l3);
		ip->check = htons(c);
	}
}
