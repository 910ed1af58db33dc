// SPDX-License-Identifier: BSD-2-Clause
/* hp_field.c - the field table and reading/writing/matching fields. */
#include "hp_field.h"

#include <arpa/inet.h>
#include <net/ethernet.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <stdio.h>
#include <string.h>

#include "homa_wire.h"
#include "hp_util.h"

#define T(x)	((uint16_t)(1u << ((x) - HOMA_TYPE_MIN)))
#define T_ANY	0

_Static_assert(HOMA_NUM_TYPES <= 16, "hp_field_def.types has a bit a type");

#define FLD(name, layer, st, mem, types, kind, lock, help) \
	{ name, layer, offsetof(st, mem), sizeof(((st *)0)->mem), types, \
	  kind, lock, help }
#define HOMA(name, st, mem, types, help) \
	FLD(name, HP_L_HOMA, st, mem, types, HP_K_UINT, 0, help)
#define ACKN(i) \
	HOMA("acks[" #i "].id", struct homa_ack_hdr, acks[i].client_id, \
	     T(ACK), "ACK: client id of entry " #i), \
	HOMA("acks[" #i "].port", struct homa_ack_hdr, acks[i].server_port, \
	     T(ACK), "ACK: server port of entry " #i)
#define CUTN(i) \
	HOMA("cutoffs[" #i "]", struct homa_cutoffs_hdr, unsched_cutoffs[i], \
	     T(CUTOFFS), "CUTOFFS: unscheduled cutoff " #i)

/* The help of "type": the type names, from homa_wire_types.h. */
static const char type_help[] = "packet type:"
#define HOMA_PACKET_TYPE(sym, name, ...)	" " name
#include "homa_wire_types.h"
#undef HOMA_PACKET_TYPE
	" or a number";

static const struct hp_field_def fields[] = {
	FLD("eth.dst", HP_L_ETH, struct ether_header, ether_dhost, T_ANY,
	    HP_K_MAC, 0, "Ethernet destination MAC"),
	FLD("eth.src", HP_L_ETH, struct ether_header, ether_shost, T_ANY,
	    HP_K_MAC, 0, "Ethernet source MAC"),
	FLD("eth.type", HP_L_ETH, struct ether_header, ether_type, T_ANY,
	    HP_K_UINT, 0, "EtherType"),
	{ "ip.vhl", HP_L_IP4, 0, 1, T_ANY, HP_K_UINT, HP_LOCK_IPCSUM,
	  "IPv4 version and header length byte" },
	FLD("ip.tos", HP_L_IP4, struct iphdr, tos, T_ANY, HP_K_UINT, 0,
	    "IPv4 type of service"),
	FLD("ip.len", HP_L_IP4, struct iphdr, tot_len, T_ANY, HP_K_UINT,
	    HP_LOCK_IPLEN, "IPv4 total length (default: computed)"),
	FLD("ip.id", HP_L_IP4, struct iphdr, id, T_ANY, HP_K_UINT, 0,
	    "IPv4 identification"),
	FLD("ip.frag", HP_L_IP4, struct iphdr, frag_off, T_ANY, HP_K_UINT, 0,
	    "IPv4 flags and fragment offset (default DF)"),
	FLD("ip.ttl", HP_L_IP4, struct iphdr, ttl, T_ANY, HP_K_UINT, 0,
	    "IPv4 time to live"),
	FLD("ip.proto", HP_L_IP4, struct iphdr, protocol, T_ANY, HP_K_UINT, 0,
	    "IPv4 protocol (default 146)"),
	FLD("ip.csum", HP_L_IP4, struct iphdr, check, T_ANY, HP_K_UINT,
	    HP_LOCK_IPCSUM, "IPv4 header checksum (default: computed)"),
	FLD("ip.src", HP_L_IP4, struct iphdr, saddr, T_ANY, HP_K_IP4, 0,
	    "IPv4 source address"),
	FLD("ip.dst", HP_L_IP4, struct iphdr, daddr, T_ANY, HP_K_IP4, 0,
	    "IPv4 destination address"),
	FLD("ip6.flow", HP_L_IP6, struct ip6_hdr, ip6_flow, T_ANY, HP_K_UINT, 0,
	    "IPv6 version, class and flow label word"),
	FLD("ip6.plen", HP_L_IP6, struct ip6_hdr, ip6_plen, T_ANY, HP_K_UINT,
	    HP_LOCK_IPLEN, "IPv6 payload length (default: computed)"),
	FLD("ip6.nxt", HP_L_IP6, struct ip6_hdr, ip6_nxt, T_ANY, HP_K_UINT, 0,
	    "IPv6 next header (default 146)"),
	FLD("ip6.hlim", HP_L_IP6, struct ip6_hdr, ip6_hlim, T_ANY, HP_K_UINT, 0,
	    "IPv6 hop limit"),
	FLD("ip6.src", HP_L_IP6, struct ip6_hdr, ip6_src, T_ANY, HP_K_IP6, 0,
	    "IPv6 source address"),
	FLD("ip6.dst", HP_L_IP6, struct ip6_hdr, ip6_dst, T_ANY, HP_K_IP6, 0,
	    "IPv6 destination address"),
	/* Family-neutral aliases. */
	FLD("src", HP_L_IP4, struct iphdr, saddr, T_ANY, HP_K_IP4, 0,
	    "source address of the frame's family"),
	FLD("src", HP_L_IP6, struct ip6_hdr, ip6_src, T_ANY, HP_K_IP6, 0, NULL),
	FLD("dst", HP_L_IP4, struct iphdr, daddr, T_ANY, HP_K_IP4, 0,
	    "destination address of the frame's family"),
	FLD("dst", HP_L_IP6, struct ip6_hdr, ip6_dst, T_ANY, HP_K_IP6, 0, NULL),
	/* Common header. */
	HOMA("sport", struct homa_common_hdr, sport, T_ANY, "Homa source port"),
	HOMA("dport", struct homa_common_hdr, dport, T_ANY,
	     "Homa destination port"),
	HOMA("seq", struct homa_common_hdr, sequence, T_ANY,
	     "common.sequence (DATA: segment offset)"),
	HOMA("common.ack", struct homa_common_hdr, ack, T_ANY,
	     "reserved 3 bytes (TCP ack)"),
	FLD("type", HP_L_HOMA, struct homa_common_hdr, type, T_ANY, HP_K_TYPE,
	    0, type_help),
	HOMA("doff", struct homa_common_hdr, doff, T_ANY,
	     "header words << 4 (default: the type's header length)"),
	HOMA("flags", struct homa_common_hdr, flags, T_ANY, "reserved flags"),
	HOMA("window", struct homa_common_hdr, window, T_ANY, "reserved window"),
	HOMA("checksum", struct homa_common_hdr, checksum, T_ANY,
	     "Homa checksum (0)"),
	HOMA("urgent", struct homa_common_hdr, urgent, T_ANY, "reserved urgent"),
	HOMA("id", struct homa_common_hdr, sender_id, T_ANY,
	     "sender_id: RPC id as the sender knows it (even: from client)"),
	/* DATA */
	HOMA("msglen", struct homa_data_hdr, message_length, T(DATA),
	     "DATA: message length"),
	HOMA("incoming", struct homa_data_hdr, incoming, T(DATA),
	     "DATA: granted bytes (reserved in v4)"),
	HOMA("ack.id", struct homa_data_hdr, ack.client_id, T(DATA),
	     "DATA: piggy-backed ack client id"),
	HOMA("ack.port", struct homa_data_hdr, ack.server_port, T(DATA),
	     "DATA: piggy-backed ack server port"),
	HOMA("cutoff_version", struct homa_data_hdr, cutoff_version, T(DATA),
	     "DATA: cutoff version (reserved in v4)"),
	HOMA("retransmit", struct homa_data_hdr, retransmit, T(DATA),
	     "DATA: 1 = answers a RESEND"),
	HOMA("pad", struct homa_data_hdr, pad, T(DATA), "DATA: reserved 3 bytes"),
	HOMA("offset", struct homa_data_hdr, seg.offset, T(DATA),
	     "DATA: seg.offset; GRANT/RESEND: offset"),
	/* GRANT */
	HOMA("offset", struct homa_grant_hdr, offset, T(GRANT), NULL),
	HOMA("priority", struct homa_grant_hdr, priority, T(GRANT),
	     "GRANT/RESEND: priority"),
	HOMA("resend_all", struct homa_grant_hdr, resend_all, T(GRANT),
	     "GRANT: resend everything"),
	/* RESEND */
	HOMA("offset", struct homa_resend_hdr, offset, T(RESEND), NULL),
	HOMA("length", struct homa_resend_hdr, length, T(RESEND),
	     "RESEND: bytes to retransmit"),
	HOMA("priority", struct homa_resend_hdr, priority, T(RESEND), NULL),
	/* CUTOFFS */
	CUTN(0), CUTN(1), CUTN(2), CUTN(3), CUTN(4), CUTN(5), CUTN(6), CUTN(7),
	HOMA("cutoff_version", struct homa_cutoffs_hdr, cutoff_version,
	     T(CUTOFFS), NULL),
	/* ACK */
	HOMA("num_acks", struct homa_ack_hdr, num_acks, T(ACK),
	     "ACK: number of entries (0..5)"),
	ACKN(0), ACKN(1), ACKN(2), ACKN(3), ACKN(4),
};

size_t hp_field_count(void)
{
	return sizeof(fields) / sizeof(fields[0]);
}

const struct hp_field_def *hp_field_at(size_t i)
{
	return i < hp_field_count() ? &fields[i] : NULL;
}

int hp_field_known(const char *name)
{
	for (size_t i = 0; i < hp_field_count(); i++)
		if (strcmp(fields[i].name, name) == 0)
			return 1;
	return 0;
}

static size_t layer_base(const struct hp_frame *f, enum hp_layer l)
{
	switch (l) {
	case HP_L_ETH:	return 0;
	case HP_L_IP4:
	case HP_L_IP6:	return f->l3;
	default:	return f->l4;
	}
}

const struct hp_field_def *hp_field_lookup(const struct hp_frame *f,
					   const char *name, const char **why)
{
	int type = f->len > f->l4 + offsetof(struct homa_common_hdr, type) ?
		   f->buf[f->l4 + offsetof(struct homa_common_hdr, type)] : -1;
	const char *reason = "no such field (see --list-fields)";

	for (size_t i = 0; i < hp_field_count(); i++) {
		const struct hp_field_def *d = &fields[i];

		if (strcmp(d->name, name) != 0)
			continue;
		if ((d->layer == HP_L_IP4 && f->family != 4) ||
		    (d->layer == HP_L_IP6 && f->family != 6)) {
			reason = "field of the other IP family";
			continue;
		}
		if (d->types && (!homa_type_valid(type) ||
				 !(d->types & T(type)))) {
			reason = "field does not exist in this packet type";
			continue;
		}
		return d;
	}
	if (why)
		*why = reason;
	return NULL;
}

int hp_field_put(struct hp_frame *f, const struct hp_field_def *d, uint64_t v)
{
	size_t pos = layer_base(f, d->layer) + d->off;

	if (pos + d->size > f->cap)
		return -1;
	for (int i = d->size - 1; i >= 0; i--) {
		f->buf[pos + (size_t)i] = (uint8_t)v;
		v >>= 8;
	}
	if (pos + d->size > f->len)
		f->len = pos + d->size;
	f->lock |= d->lock;
	return 0;
}

static int get_raw(const struct hp_frame *f, const struct hp_field_def *d,
		   uint64_t *v)
{
	size_t pos = layer_base(f, d->layer) + d->off;

	if (pos + d->size > f->len)
		return -1;
	*v = 0;
	for (unsigned int i = 0; i < d->size && i < 8; i++)
		*v = *v << 8 | f->buf[pos + i];
	return 0;
}

int hp_field_get(const struct hp_frame *f, const char *name, uint64_t *v)
{
	const struct hp_field_def *d = hp_field_lookup(f, name, NULL);

	if (!d || d->kind == HP_K_MAC || d->kind == HP_K_IP4 ||
	    d->kind == HP_K_IP6)
		return -1;
	return get_raw(f, d, v);
}

/* Parse @value for @d into bytes (addresses) or a number. */
static int parse_value(const struct hp_field_def *d, const char *value,
		       uint8_t bytes[16], uint64_t *num)
{
	unsigned int t;

	switch (d->kind) {
	case HP_K_MAC:
		return hp_parse_mac(value, bytes);
	case HP_K_IP4:
		return inet_pton(AF_INET, value, bytes) == 1 ? 0 : -1;
	case HP_K_IP6:
		return inet_pton(AF_INET6, value, bytes) == 1 ? 0 : -1;
	case HP_K_TYPE:
		if (hp_type_parse(value, &t))
			return -1;
		*num = t;
		return 0;
	default:
		return hp_parse_u64(value, d->size >= 8 ? UINT64_MAX :
				    (1ull << (8 * d->size)) - 1, num);
	}
}

static const char *kind_hint(const struct hp_field_def *d)
{
	static const char *const hints[] = {
		[HP_K_UINT] = "a number that fits the field",
		[HP_K_MAC] = "a MAC address aa:bb:cc:dd:ee:ff",
		[HP_K_IP4] = "an IPv4 address",
		[HP_K_IP6] = "an IPv6 address",
		[HP_K_TYPE] = "a packet type name or number 0..255",
	};
	return hints[d->kind];
}

int hp_field_set(struct hp_frame *f, const char *name, const char *value,
		 char *err, size_t errlen)
{
	const char *why = NULL;
	const struct hp_field_def *d = hp_field_lookup(f, name, &why);
	uint8_t bytes[16];
	uint64_t num = 0;

	if (!d) {
		snprintf(err, errlen, "field '%s': %s", name, why);
		return -1;
	}
	if (parse_value(d, value, bytes, &num)) {
		snprintf(err, errlen, "bad value '%s' for field '%s': want %s",
			 value, name, kind_hint(d));
		return -1;
	}
	size_t pos = layer_base(f, d->layer) + d->off;

	if (pos + d->size > f->cap) {
		snprintf(err, errlen, "field '%s' lies past the frame's end",
			 name);
		return -1;
	}
	if (d->kind == HP_K_UINT || d->kind == HP_K_TYPE)
		return hp_field_put(f, d, num);
	memcpy(f->buf + pos, bytes, d->size);
	if (pos + d->size > f->len)
		f->len = pos + d->size;
	f->lock |= d->lock;
	return 0;
}

/* One alternative of a match: "*", "A..B" or a single value. */
static int match_one(const struct hp_frame *f, const struct hp_field_def *d,
		     const char *alt, char *err, size_t errlen)
{
	const char *dots = strstr(alt, "..");
	uint8_t want[16];
	uint64_t have = 0, lo = 0, hi = 0;

	if (strcmp(alt, "*") == 0)
		return 1;
	if (d->kind != HP_K_UINT && d->kind != HP_K_TYPE) {
		if (parse_value(d, alt, want, &lo))
			goto bad;
		return memcmp(f->buf + layer_base(f, d->layer) + d->off, want,
			      d->size) == 0;
	}
	if (dots) {
		char a[64];
		size_t n = (size_t)(dots - alt);

		if (n >= sizeof(a))
			goto bad;
		memcpy(a, alt, n);
		a[n] = 0;
		if (parse_value(d, a, want, &lo) ||
		    parse_value(d, dots + 2, want, &hi))
			goto bad;
	} else {
		if (parse_value(d, alt, want, &lo))
			goto bad;
		hi = lo;
	}
	get_raw(f, d, &have);
	return have >= lo && have <= hi;
bad:
	snprintf(err, errlen, "bad match value '%s' for field '%s': want %s",
		 alt, d->name, kind_hint(d));
	return -1;
}

int hp_field_match(const struct hp_frame *f, const char *name,
		   const char *value, char *err, size_t errlen)
{
	const struct hp_field_def *d = hp_field_lookup(f, name, NULL);
	char buf[256];
	char *save = NULL, *alt;
	int any = 0;

	if (!hp_field_known(name)) {
		snprintf(err, errlen, "unknown field '%s'", name);
		return -1;
	}
	if (!d || layer_base(f, d->layer) + d->off + d->size > f->len)
		return 0;
	if (strlen(value) >= sizeof(buf)) {
		snprintf(err, errlen, "match value too long for '%s'", name);
		return -1;
	}
	strcpy(buf, value);
	for (alt = strtok_r(buf, "|", &save); alt;
	     alt = strtok_r(NULL, "|", &save)) {
		int r = match_one(f, d, alt, err, errlen);

		if (r < 0)
			return -1;
		any |= r;
	}
	return any;
}
