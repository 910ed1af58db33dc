// SPDX-License-Identifier: BSD-2-Clause
/* hp_spec.c - build frames from KEY=VALUE pairs. */
#include "hp_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "homa_wire.h"
#include "linux/homa.h"
#include "hp_field.h"
#include "hp_util.h"
#include "hp_wrap.h"

const char *const hp_spec_keys[] = {
	"family", "msg-size", "msg-seed", "msg-data", "seg-size", "order",
	"payload-len", "truncate", "truncate-frame", "poke", "reply", "gso",
	"icmp", NULL,
};

int hp_spec_key_known(const char *key)
{
	for (const char *const *k = hp_spec_keys; *k; k++)
		if (strcmp(*k, key) == 0)
			return 1;
	return hp_field_known(key);
}

/* struct spec - the special keys, parsed. */
struct spec {
	unsigned int type;
	uint64_t msg_size, msg_seed, seg_size, payload_len;
	const char *msg_data, *order;
	int64_t truncate, truncate_frame;
	int64_t poke_off;
	uint64_t poke_val;
	uint64_t reply, gso;
	int icmp;
};

static int num(const char *key, const char *val, uint64_t max, uint64_t *out,
	       char *err, size_t errlen)
{
	if (hp_parse_u64(val, max, out) == 0)
		return 0;
	snprintf(err, errlen, "bad value '%s' for %s: want a number 0..%llu",
		 val, key, (unsigned long long)max);
	return -1;
}

static int parse_special(struct hp_addrs *a, struct spec *s,
			 const struct hp_kv *kv, char *err, size_t errlen)
{
	const char *k = kv->key, *v = kv->val;
	uint64_t x;

	if (strcmp(k, "family") == 0) {
		if (strcmp(v, "4") && strcmp(v, "6")) {
			snprintf(err, errlen, "bad family '%s': want 4 or 6", v);
			return -1;
		}
		a->family = v[0] - '0';
	} else if (strcmp(k, "type") == 0) {
		if (hp_type_parse(v, &s->type)) {
			snprintf(err, errlen, "bad type '%s': want DATA GRANT "
				 "RESEND UNKNOWN BUSY CUTOFFS FREEZE NEED_ACK "
				 "ACK or 0..255", v);
			return -1;
		}
	} else if (strcmp(k, "msg-size") == 0) {
		return num(k, v, HP_FRAME_MAX * 256ull, &s->msg_size, err, errlen);
	} else if (strcmp(k, "msg-seed") == 0) {
		return num(k, v, UINT64_MAX, &s->msg_seed, err, errlen);
	} else if (strcmp(k, "msg-data") == 0) {
		s->msg_data = v;
	} else if (strcmp(k, "seg-size") == 0) {
		if (num(k, v, HP_FRAME_MAX - 14 - 40 -
			sizeof(struct homa_data_hdr), &s->seg_size, err, errlen))
			return -1;
		if (!s->seg_size) {
			snprintf(err, errlen, "bad value '0' for seg-size: "
				 "want at least 1");
			return -1;
		}
	} else if (strcmp(k, "order") == 0) {
		s->order = v;
	} else if (strcmp(k, "payload-len") == 0) {
		return num(k, v, HP_FRAME_MAX, &s->payload_len, err, errlen);
	} else if (strcmp(k, "truncate") == 0) {
		if (num(k, v, HP_FRAME_MAX, &x, err, errlen))
			return -1;
		s->truncate = (int64_t)x;
	} else if (strcmp(k, "truncate-frame") == 0) {
		if (num(k, v, HP_FRAME_MAX, &x, err, errlen))
			return -1;
		s->truncate_frame = (int64_t)x;
	} else if (strcmp(k, "poke") == 0) {
		char off[16];
		const char *colon = strchr(v, ':');
		uint64_t o;

		if (!colon || (size_t)(colon - v) >= sizeof(off))
			goto bad_poke;
		memcpy(off, v, (size_t)(colon - v));
		off[colon - v] = 0;
		if (hp_parse_u64(off, HOMA_MAX_HEADER - 1, &o) ||
		    hp_parse_u64(colon + 1, 255, &s->poke_val))
			goto bad_poke;
		s->poke_off = (int64_t)o;
	} else if (strcmp(k, "reply") == 0) {
		return num(k, v, 1, &s->reply, err, errlen);
	} else if (strcmp(k, "gso") == 0) {
		return num(k, v, 1, &s->gso, err, errlen);
	} else if (strcmp(k, "icmp") == 0) {
		if (strcmp(v, "port-unreachable")) {
			snprintf(err, errlen, "bad value '%s' for icmp: want "
				 "port-unreachable", v);
			return -1;
		}
		s->icmp = 1;
	}
	return 0;
bad_poke:
	snprintf(err, errlen, "bad value '%s' for poke: want OFFSET:BYTE with "
		 "OFFSET 0..%d and BYTE 0..255", v, HOMA_MAX_HEADER - 1);
	return -1;
}

/* Set every plain field of @kv on @f ("type" was applied by init). */
static int apply_fields(struct hp_frame *f, const struct hp_kv *kv, size_t n,
			char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		if (!hp_field_known(kv[i].key) || strcmp(kv[i].key, "type") == 0)
			continue;
		if (hp_field_set(f, kv[i].key, kv[i].val, err, errlen))
			return -1;
	}
	return 0;
}

static void put(struct hp_frame *f, const char *name, uint64_t v)
{
	const struct hp_field_def *d = hp_field_lookup(f, name, NULL);

	if (d)
		hp_field_put(f, d, v);
}

/* Segments or a single control packet, before order/truncation. */
static int make_frames(const struct hp_addrs *a, const struct spec *s,
		       const struct hp_kv *kv, size_t n, struct hp_list *out,
		       char *err, size_t errlen)
{
	struct hp_frame *f = malloc(sizeof(*f));
	uint8_t *msg = NULL;
	size_t first = out->n;
	int ret = -1;

	if (!f)
		goto oom;
	hp_frame_init(f, a, s->type);
	put(f, "sport", HP_DEFAULT_SPORT);
	put(f, "dport", HP_DEFAULT_DPORT);
	put(f, "id", HP_DEFAULT_ID);
	if (apply_fields(f, kv, n, err, errlen))
		goto out;
	if (s->type == DATA) {
		size_t len = s->msg_data ? strlen(s->msg_data) : s->msg_size;

		msg = malloc(len ? len : 1);
		if (!msg)
			goto oom;
		if (s->msg_data)
			memcpy(msg, s->msg_data, len);
		else
			hp_msg_pattern(msg, len, s->msg_seed);
		if (hp_msg_segments(out, f, msg, (uint32_t)len,
				    (uint32_t)s->seg_size) < 0)
			goto oom;
		/* The user's fields win over what segmentation computed. */
		for (size_t i = first; i < out->n; i++)
			if (apply_fields(out->v[i], kv, n, err, errlen))
				goto out;
	} else {
		if (hp_frame_append(f, NULL, s->payload_len) ||
		    hp_list_push(out, f))
			goto oom;
	}
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "frame too big or out of memory");
out:
	free(msg);
	free(f);
	return ret;
}

/* Append to @out the ICMP port unreachable that quotes @f. */
static int push_icmp(struct hp_list *out, const struct hp_frame *f,
		     char *err, size_t errlen)
{
	struct hp_frame *e = malloc(sizeof(*e));
	int r = -1;

	if (!e)
		snprintf(err, errlen, "out of memory");
	else if (hp_icmp_port_unreachable(f, e, err, errlen) == 0) {
		r = hp_list_push(out, e);
		if (r)
			snprintf(err, errlen, "out of memory");
	}
	free(e);
	return r;
}

int hp_spec_build(const struct hp_addrs *addrs, const struct hp_kv *kv,
		  size_t n, struct hp_list *out, char *err, size_t errlen)
{
	struct spec s = {
		.type = DATA, .msg_size = HP_DEFAULT_MSG_SIZE, .msg_seed = 1,
		.seg_size = HP_DEFAULT_SEG_SIZE, .truncate = -1,
		.truncate_frame = -1, .poke_off = -1,
	};
	struct hp_addrs a = *addrs;
	struct hp_list tmp;
	size_t *idx = NULL;
	int m;

	for (size_t i = 0; i < n; i++) {
		if (!hp_spec_key_known(kv[i].key)) {
			snprintf(err, errlen, "unknown key '%s' (see "
				 "homa-pktgen --list-fields)", kv[i].key);
			return -1;
		}
		if (parse_special(&a, &s, &kv[i], err, errlen))
			return -1;
	}
	if (s.gso && s.type != DATA) {
		snprintf(err, errlen, "gso=1 needs type DATA");
		return -1;
	}
	if (s.reply)
		hp_addrs_reverse(&a);
	hp_list_init(&tmp);
	if (make_frames(&a, &s, kv, n, &tmp, err, errlen))
		goto fail;
	if (s.order) {
		idx = calloc(tmp.n * 4 + 64, sizeof(*idx));
		m = idx ? hp_order_parse(s.order, tmp.n, idx, tmp.n * 4 + 64) : -1;
		if (m < 0 || hp_list_select(&tmp, idx, (size_t)m)) {
			snprintf(err, errlen, "bad order '%s' for %zu segments: "
				 "want I,J,... (0..%zu), reverse, shuffle:SEED, "
				 "drop:I, dup:I or all", s.order, tmp.n,
				 tmp.n ? tmp.n - 1 : 0);
			goto fail;
		}
	}
	if (s.gso && hp_gso_pack(&tmp, err, errlen))
		goto fail;
	for (size_t i = 0; i < tmp.n; i++) {
		struct hp_frame *f = tmp.v[i];

		if (s.poke_off >= 0) {
			if (f->l4 + (size_t)s.poke_off >= f->len) {
				snprintf(err, errlen, "poke offset %lld is past "
					 "the frame", (long long)s.poke_off);
				goto fail;
			}
			f->buf[f->l4 + (size_t)s.poke_off] = (uint8_t)s.poke_val;
		}
		if (s.truncate >= 0 &&
		    hp_frame_truncate_l4(f, (size_t)s.truncate)) {
			snprintf(err, errlen, "truncate=%lld is longer than the "
				 "Homa part (%zu bytes)", (long long)s.truncate,
				 hp_frame_l4_len(f));
			goto fail;
		}
		hp_frame_finalize(f);
		if (s.truncate_frame >= 0 &&
		    hp_frame_truncate_raw(f, (size_t)s.truncate_frame)) {
			snprintf(err, errlen, "truncate-frame=%lld is longer than "
				 "the frame (%zu bytes)",
				 (long long)s.truncate_frame, f->len);
			goto fail;
		}
		if (s.icmp && push_icmp(out, f, err, errlen))
			goto fail;
		if (!s.icmp && hp_list_push(out, f)) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	hp_list_free(&tmp);
	free(idx);
	return 0;
fail:
	hp_list_free(&tmp);
	free(idx);
	return -1;
}
