// SPDX-License-Identifier: BSD-2-Clause
/* hp_wrap.c - GSO frames from segments, ICMP errors quoting a packet. */
#include "hp_wrap.h"

#include <arpa/inet.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "homa_wire.h"

int hp_gso_pack(struct hp_list *l, char *err, size_t errlen)
{
	const size_t hdr = sizeof(struct homa_data_hdr);
	const size_t seg = offsetof(struct homa_data_hdr, seg);
	struct hp_frame *g;
	struct hp_list one;

	for (size_t i = 0; i < l->n; i++) {
		const struct hp_frame *f = l->v[i];

		if (f->len < f->l4 + hdr || f->buf[f->l4 +
		    offsetof(struct homa_common_hdr, type)] != DATA) {
			snprintf(err, errlen, "gso=1 needs whole DATA segments");
			return -1;
		}
	}
	if (l->n < 2)
		return 0;
	g = malloc(sizeof(*g));
	if (!g)
		goto oom;
	memcpy(g, l->v[0], offsetof(struct hp_frame, buf) + l->v[0]->len);
	g->cap = HP_FRAME_MAX;
	for (size_t i = 1; i < l->n; i++) {
		const struct hp_frame *f = l->v[i];

		if (hp_frame_append(g, f->buf + f->l4 + seg, hdr - seg) ||
		    hp_frame_append(g, f->buf + f->l4 + hdr, f->len - f->l4 - hdr)) {
			free(g);
			snprintf(err, errlen, "gso=1: %zu segments do not fit "
				 "one frame of %d bytes", l->n, HP_FRAME_MAX);
			return -1;
		}
	}
	hp_frame_finalize(g);
	hp_list_init(&one);
	if (hp_list_push(&one, g)) {
		free(g);
		goto oom;
	}
	free(g);
	hp_list_free(l);
	*l = one;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* ICMPv6 checksum: the pseudo-header (addresses, length, next header). */
static uint16_t icmp6_csum(const struct hp_frame *f)
{
	size_t len = f->len - f->l4;
	uint8_t *tmp = malloc(40 + len);
	uint16_t c;

	if (!tmp)
		return 0;
	memset(tmp, 0, 40);
	memcpy(tmp, f->buf + f->l3 + 8, 32);
	tmp[34] = (uint8_t)(len >> 8);
	tmp[35] = (uint8_t)len;
	tmp[39] = IPPROTO_ICMPV6;
	memcpy(tmp + 40, f->buf + f->l4, len);
	c = hp_inet_csum(tmp, 40 + len);
	free(tmp);
	return c;
}

int hp_icmp_port_unreachable(const struct hp_frame *in, struct hp_frame *out,
			     char *err, size_t errlen)
{
	const uint8_t *ip = in->buf + in->l3;
	struct hp_addrs a;
	uint8_t icmp[8] = { 0 };
	uint16_t c;
	int v6 = in->family == 6;

	if (in->len < in->l3 + (v6 ? 40u : 20u)) {
		snprintf(err, errlen, "icmp=: the packet has no whole IP header");
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.family = in->family;
	memcpy(a.smac, in->buf + 6, 6);		/* from the destination... */
	memcpy(a.dmac, in->buf, 6);		/* ...back to the source */
	if (v6) {
		memcpy(a.sip6, ip + 24, 16);
		memcpy(a.dip6, ip + 8, 16);
	} else {
		memcpy(a.sip4, ip + 16, 4);
		memcpy(a.dip4, ip + 12, 4);
	}
	hp_frame_init(out, &a, 0);
	out->len = out->l4;
	if (v6)
		out->buf[out->l3 + offsetof(struct ip6_hdr, ip6_nxt)] = IPPROTO_ICMPV6;
	else
		out->buf[out->l3 + offsetof(struct iphdr, protocol)] = IPPROTO_ICMP;
	icmp[0] = v6 ? 1 : 3;	/* destination unreachable */
	icmp[1] = v6 ? 4 : 3;	/* port unreachable */
	if (hp_frame_append(out, icmp, sizeof(icmp)) ||
	    hp_frame_append(out, ip, in->len - in->l3)) {
		snprintf(err, errlen, "icmp=: the quoted packet is too big");
		return -1;
	}
	hp_frame_finalize(out);
	c = v6 ? icmp6_csum(out) : hp_inet_csum(out->buf + out->l4,
						 out->len - out->l4);
	out->buf[out->l4 + 2] = (uint8_t)(c >> 8);
	out->buf[out->l4 + 3] = (uint8_t)c;
	return 0;
}
