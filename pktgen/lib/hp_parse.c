// SPDX-License-Identifier: BSD-2-Clause
/* hp_parse.c - locate the layers of received frames and describe them. */
#include "hp_parse.h"

#include <arpa/inet.h>
#include <net/ethernet.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <stdio.h>
#include <string.h>

#include "homa_wire.h"
#include "linux/homa.h"
#include "hp_field.h"

enum hp_parse_result hp_frame_from_bytes(struct hp_frame *f,
					 const uint8_t *data, size_t len)
{
	uint16_t et;

	memset(f, 0, offsetof(struct hp_frame, buf));
	f->cap = HP_FRAME_MAX;
	if (len > HP_FRAME_MAX)
		return HP_PARSE_TOOBIG;
	memcpy(f->buf, data, len);
	f->len = len;
	f->lock = HP_LOCK_IPLEN | HP_LOCK_IPCSUM;
	if (len < sizeof(struct ether_header))
		return HP_PARSE_OTHER;
	et = (uint16_t)(data[12] << 8 | data[13]);
	f->l3 = sizeof(struct ether_header);
	if (et == ETHERTYPE_IP && len >= f->l3 + sizeof(struct iphdr)) {
		const struct iphdr *ip = (const void *)(f->buf + f->l3);

		f->family = 4;
		f->l4 = f->l3 + (size_t)ip->ihl * 4;
		return ip->version == 4 && ip->ihl >= 5 &&
		       ip->protocol == IPPROTO_HOMA ? HP_PARSE_HOMA
						    : HP_PARSE_OTHER;
	}
	if (et == ETHERTYPE_IPV6 && len >= f->l3 + sizeof(struct ip6_hdr)) {
		const struct ip6_hdr *ip6 = (const void *)(f->buf + f->l3);

		f->family = 6;
		f->l4 = f->l3 + sizeof(*ip6);
		return ip6->ip6_nxt == IPPROTO_HOMA ? HP_PARSE_HOMA
						    : HP_PARSE_OTHER;
	}
	f->l4 = len;
	return HP_PARSE_OTHER;
}

int hp_frame_type(const struct hp_frame *f)
{
	size_t pos = f->l4 + offsetof(struct homa_common_hdr, type);

	return f->family && pos < f->len ? f->buf[pos] : -1;
}

size_t hp_frame_payload(const struct hp_frame *f, const uint8_t **p)
{
	int type = hp_frame_type(f);
	size_t h = f->l4 + hp_type_hdr_len(type < 0 ? 0 : (unsigned int)type);

	*p = f->buf + h;
	return f->len > h ? f->len - h : 0;
}

static void addr_str(const struct hp_frame *f, int dst, char *s, size_t n)
{
	if (f->family == 4)
		inet_ntop(AF_INET, f->buf + f->l3 +
			  (dst ? offsetof(struct iphdr, daddr)
			       : offsetof(struct iphdr, saddr)), s, (socklen_t)n);
	else
		inet_ntop(AF_INET6, f->buf + f->l3 +
			  (dst ? offsetof(struct ip6_hdr, ip6_dst)
			       : offsetof(struct ip6_hdr, ip6_src)), s, (socklen_t)n);
}

/* Append " name value" for each numeric field present. */
static size_t add_fields(const struct hp_frame *f, char *out, size_t n,
			 size_t pos, const char *const *names)
{
	uint64_t v;

	for (; *names && pos < n; names++)
		if (hp_field_get(f, *names, &v) == 0)
			pos += (size_t)snprintf(out + pos, n - pos, " %s %llu",
						*names, (unsigned long long)v);
	return pos;
}

void hp_frame_describe(const struct hp_frame *f, char *out, size_t n)
{
	static const char *const data_f[] = { "msglen", "offset", NULL };
	static const char *const resend_f[] = { "offset", "length", NULL };
	static const char *const grant_f[] = { "offset", "priority", NULL };
	static const char *const ack_f[] = { "num_acks", NULL };
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	int type = hp_frame_type(f);
	const char *tn;
	uint64_t sp = 0, dp = 0, id = 0, rtx = 0;
	unsigned int proto;
	size_t pos;

	if (!f->family || f->len < f->l4 || f->l4 <= f->l3 ||
	    f->len < f->l3 + (f->family == 4 ? sizeof(struct iphdr)
					     : sizeof(struct ip6_hdr))) {
		snprintf(out, n, "non-IP frame, %zu bytes", f->len);
		return;
	}
	addr_str(f, 0, s, sizeof(s));
	addr_str(f, 1, d, sizeof(d));
	pos = (size_t)snprintf(out, n, "IPv%d %s > %s:", f->family, s, d);
	proto = f->buf[f->l3 + (f->family == 4 ? offsetof(struct iphdr, protocol)
					       : offsetof(struct ip6_hdr, ip6_nxt))];
	if (proto != IPPROTO_HOMA) {
		if ((proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6) &&
		    f->len >= f->l4 + 2)
			snprintf(out + pos, n - pos, " ICMP%s type %u code %u",
				 f->family == 6 ? "v6" : "", f->buf[f->l4],
				 f->buf[f->l4 + 1]);
		else
			snprintf(out + pos, n - pos, " protocol %u, %zu bytes",
				 proto, hp_frame_l4_len(f));
		return;
	}
	if (type < 0) {
		snprintf(out + pos, n - pos, " Homa header cut at %zu bytes",
			 hp_frame_l4_len(f));
		return;
	}
	tn = hp_type_name((unsigned int)type);
	hp_field_get(f, "sport", &sp);
	hp_field_get(f, "dport", &dp);
	hp_field_get(f, "id", &id);
	if (tn)
		pos += (size_t)snprintf(out + pos, n - pos, " %s", tn);
	else
		pos += (size_t)snprintf(out + pos, n - pos, " type 0x%02x", type);
	pos += (size_t)snprintf(out + pos, n - pos, " %llu > %llu id %llu",
				(unsigned long long)sp, (unsigned long long)dp,
				(unsigned long long)id);
	if (type == DATA) {
		const uint8_t *p;

		uint64_t off = 0, seq = 0;

		pos = add_fields(f, out, n, pos, data_f);
		if (hp_field_get(f, "offset", &off) == 0 &&
		    hp_field_get(f, "seq", &seq) == 0 && off != seq && pos < n)
			pos += (size_t)snprintf(out + pos, n - pos, " seq %llu",
						(unsigned long long)seq);
		if (pos < n)
			pos += (size_t)snprintf(out + pos, n - pos, " len %zu",
						hp_frame_payload(f, &p));
		if (hp_field_get(f, "retransmit", &rtx) == 0 && rtx && pos < n)
			pos += (size_t)snprintf(out + pos, n - pos, " rtx");
	} else if (type == RESEND) {
		pos = add_fields(f, out, n, pos, resend_f);
	} else if (type == GRANT) {
		pos = add_fields(f, out, n, pos, grant_f);
	} else if (type == ACK) {
		pos = add_fields(f, out, n, pos, ack_f);
	}
	if (pos < n && hp_frame_l4_len(f) < hp_type_hdr_len((unsigned int)type))
		snprintf(out + pos, n - pos, " (header cut at %zu bytes)",
			 hp_frame_l4_len(f));
}
