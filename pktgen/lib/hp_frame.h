/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hp_frame.h - one Ethernet + IPv4/IPv6 + Homa frame, built from homa_wire.h.
 *
 * A frame is plain bytes plus the offsets of its layers. Build it with
 * hp_frame_init() (sane defaults for a packet type), change any field with
 * hp_field_set() (hp_field.h), append payload, then hp_frame_finalize()
 * recomputes the IP length and IPv4 checksum unless a test set them itself.
 */
#ifndef HP_FRAME_H
#define HP_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* Largest frame we build or read (jumbo Ethernet). */
#define HP_FRAME_MAX	9216

/* Lock bits: derived fields a caller set explicitly; finalize keeps them. */
#define HP_LOCK_IPLEN	0x1u
#define HP_LOCK_IPCSUM	0x2u

/* The "crafter" identity and guest 0 of the lab (vm/README.md). */
#define HP_DEFAULT_PEER_MAC	"02:48:4f:4d:41:64"
#define HP_DEFAULT_GUEST_MAC	"52:54:00:48:00:00"
#define HP_DEFAULT_PEER_IP4	"198.18.0.100"
#define HP_DEFAULT_GUEST_IP4	"198.18.0.11"
#define HP_DEFAULT_PEER_IP6	"2001:db8::100"
#define HP_DEFAULT_GUEST_IP6	"2001:db8::11"

/**
 * struct hp_addrs - who talks to whom.
 * @family: 4 or 6.
 * @smac/@dmac: Ethernet source and destination.
 * @sip4/@dip4, @sip6/@dip6: addresses of both families (network order);
 * the frame uses the pair of @family.
 */
struct hp_addrs {
	int family;
	uint8_t smac[6], dmac[6];
	uint8_t sip4[4], dip4[4];
	uint8_t sip6[16], dip6[16];
};

/**
 * struct hp_frame - a frame and where its layers start.
 * @len: bytes in @buf.
 * @cap: bytes @buf can hold: HP_FRAME_MAX for a frame being built or
 *	parsed, @len for a list's copy (struct hp_list stores each frame at
 *	its length, so a list of 100,000 small frames is not 100,000 x 9 KiB);
 *	everything that lengthens a frame checks it.
 * @l3: offset of the IP header; @l4: offset of the Homa header.
 * @family: 4 or 6.
 * @lock: HP_LOCK_* bits.
 */
struct hp_frame {
	size_t len, cap;
	size_t l3, l4;
	int family;
	unsigned int lock;
	/* 2 bytes so that the IP header (buf + 14) is 4-byte aligned. */
	uint8_t headroom[2];
	uint8_t buf[HP_FRAME_MAX];
};

_Static_assert((offsetof(struct hp_frame, buf) + 14) % 8 == 0,
	       "IP header of a frame is aligned");

/* Fill @a with the lab defaults: peer -> guest 0, IPv4. */
void hp_addrs_default(struct hp_addrs *a);

/*
 * Override @a from the lab's environment when set: HOMALAB_G<guest>_MAC,
 * _IP4, _IP6 (destination) and HOMALAB_PEER_MAC, _IP4, _IP6 (source).
 * Returns -1 with the variable's name copied into @bad (@badlen bytes)
 * if one is malformed.
 */
int hp_addrs_from_env(struct hp_addrs *a, int guest, char *bad,
		      size_t badlen);

/* Swap source and destination (MACs and both address families). */
void hp_addrs_reverse(struct hp_addrs *a);

/* Natural header length of Homa @type (e.g. 56 for DATA); 28 if unknown. */
size_t hp_type_hdr_len(unsigned int type);

/*
 * Default doff of @type: DATA announces HOMA_DATA_PREFIX_LEN (52) like the
 * module and upstream; other types their header length, saturated at 60.
 */
uint8_t hp_default_doff(unsigned int type);

/**
 * hp_frame_init() - Ethernet + IP + a zeroed Homa header of @type.
 * The header has its natural length, doff hp_default_doff(), and for DATA
 * the message length 0. Returns 0.
 */
int hp_frame_init(struct hp_frame *f, const struct hp_addrs *a,
		  unsigned int type);

/* Append @n payload bytes; -1 if the frame would exceed HP_FRAME_MAX. */
int hp_frame_append(struct hp_frame *f, const void *data, size_t n);

/* Bytes of Homa header + payload after l4 (0 if cut before l4). */
size_t hp_frame_l4_len(const struct hp_frame *f);

/* Cut the Homa part to @n bytes (IP length follows on finalize). */
int hp_frame_truncate_l4(struct hp_frame *f, size_t n);

/* Cut the whole frame to @n bytes, no fix-ups (IP header stays as is). */
int hp_frame_truncate_raw(struct hp_frame *f, size_t n);

/* Recompute IP length and IPv4 checksum unless locked. */
void hp_frame_finalize(struct hp_frame *f);

/* RFC 1071 Internet checksum of @len bytes. */
uint16_t hp_inet_csum(const void *data, size_t len);

/* Homa type name ("DATA", "NEED_ACK", ...) or NULL if not a Homa type. */
const char *hp_type_name(unsigned int type);

/* Parse a type name (any case, "UNKNOWN" or "RPC_UNKNOWN") or number. */
int hp_type_parse(const char *s, unsigned int *type);

#endif /* HP_FRAME_H */
