/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * homa_wire.h - the Homa wire format: the one definition of the bytes.
 *
 * The kernel module, the Wireshark dissector and the packet crafter all
 * include this file (and homa_wire_types.h, which it includes), so it
 * depends on nothing beyond <linux/types.h> and, outside the kernel, C11's
 * <assert.h>, <stdbool.h> and <stddef.h>. Each fact of the format is
 * stated here once; the users derive from it and never restate it.
 * Every multi-byte field is big-endian and no structure has padding.
 */
#ifndef _HOMA_WIRE_H
#define _HOMA_WIRE_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#endif

#ifndef __KERNEL__
#ifndef __packed
#define __packed __attribute__((packed))
#endif
#endif

/**
 * enum homa_packet_type - values of &struct homa_common_hdr.type, with no
 * gap from HOMA_TYPE_MIN to HOMA_TYPE_MAX. homa_wire_types.h lists them
 * with their names and headers.
 * @DATA:          message bytes (struct homa_data_hdr).
 * @GRANT:         full Homa: permission to send more (struct homa_grant_hdr).
 * @RESEND:        ask the sender to retransmit a range (struct homa_resend_hdr).
 * @RPC_UNKNOWN:   the receiver has no RPC for this id.
 * @BUSY:          the sender is alive but has nothing to send yet.
 * @CUTOFFS:       full Homa: priority cutoffs (struct homa_cutoffs_hdr).
 * @FREEZE:        full Homa: freeze timetraces (debugging).
 * @NEED_ACK:      a server asks the client to acknowledge a response.
 * @ACK:           a client acknowledges responses (struct homa_ack_hdr).
 */
enum homa_packet_type {
	DATA		= 0x10,
	GRANT		= 0x11,
	RESEND		= 0x12,
	RPC_UNKNOWN	= 0x13,
	BUSY		= 0x14,
	CUTOFFS		= 0x15,
	FREEZE		= 0x16,
	NEED_ACK	= 0x17,
	ACK		= 0x18,
};

#define HOMA_TYPE_MIN		DATA
#define HOMA_TYPE_MAX		ACK

/* Number of packet types (codes HOMA_TYPE_MIN..HOMA_TYPE_MAX). */
#define HOMA_NUM_TYPES		(HOMA_TYPE_MAX - HOMA_TYPE_MIN + 1)

/* Largest header of any packet type, in bytes. */
#define HOMA_MAX_HEADER		90

/* Short control packets are padded up to this many bytes of Homa header. */
#define HOMA_MIN_PKT_LENGTH	26

/* Most acks one ACK packet carries. */
#define HOMA_MAX_ACKS_PER_PKT	5

/* seg.offset from a full Homa sender that means "use common.sequence". */
#define HOMA_SEG_OFFSET_USE_SEQ	0xffffffffU

/* Number of unscheduled priority cutoffs in a CUTOFFS packet (full Homa). */
#define HOMA_MAX_PRIORITIES	8

/**
 * struct homa_common_hdr - the first 28 bytes of every Homa packet.
 *
 * It is shaped like a TCP header so that NICs can apply TSO to DATA.
 */
struct homa_common_hdr {
	/** @sport: source port. */
	__be16 sport;

	/** @dport: destination port. */
	__be16 dport;

	/** @sequence: DATA: offset of the first byte (TCP seq position). */
	__be32 sequence;

	/** @ack: reserved (TCP ack bytes 0-2). */
	__u8 ack[3];

	/** @type: one of &enum homa_packet_type. */
	__u8 type;

	/** @doff: header length in 4-byte words, in the upper nibble. */
	__u8 doff;

	/** @flags: reserved (TCP flags). */
	__u8 flags;

	/** @window: reserved (TCP window). */
	__be16 window;

	/** @checksum: always 0: Homa relies on the link layer. */
	__be16 checksum;

	/** @urgent: reserved (TCP urgent pointer). */
	__be16 urgent;

	/** @sender_id: the RPC id as the sender of this packet knows it. */
	__be64 sender_id;
} __packed;

/**
 * struct homa_ack - a client's acknowledgment that a response arrived.
 */
struct homa_ack {
	/** @client_id: the client's id for the RPC; 0 means no ack. */
	__be64 client_id;

	/** @server_port: the server port of the RPC. */
	__be16 server_port;
} __packed;

/**
 * struct homa_seg_hdr - where one segment of a DATA packet belongs.
 */
struct homa_seg_hdr {
	/** @offset: offset of this segment's first byte in the message. */
	__be32 offset;
} __packed;

/**
 * struct homa_data_hdr - header of a DATA packet; the payload follows it.
 *
 * A GSO skb holds several segments: everything before @seg is replicated
 * in each packet, and each packet's @seg says where its bytes belong.
 */
struct homa_data_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;

	/** @message_length: length of the whole message in bytes. */
	__be32 message_length;

	/** @incoming: full Homa: bytes the receiver granted; reserved in v4. */
	__be32 incoming;

	/** @ack: a piggy-backed ack of an earlier RPC; client_id 0 if none. */
	struct homa_ack ack;

	/** @cutoff_version: full Homa; reserved in v4. */
	__be16 cutoff_version;

	/** @retransmit: 1 when this packet answers a RESEND. */
	__u8 retransmit;

	/** @pad: reserved. */
	__u8 pad[3];

	/** @seg: the segment this packet carries. */
	struct homa_seg_hdr seg;
} __packed;

/* Bytes of a DATA header that every segment of a GSO skb repeats. */
#define HOMA_DATA_PREFIX_LEN	(sizeof(struct homa_data_hdr) - \
				 sizeof(struct homa_seg_hdr))

/**
 * struct homa_grant_hdr - full Homa: permission to send up to @offset.
 */
struct homa_grant_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;

	/** @offset: the sender may send bytes below this offset. */
	__be32 offset;

	/** @priority: priority level for the granted bytes. */
	__u8 priority;

	/** @resend_all: non-zero: resend everything sent so far. */
	__u8 resend_all;
} __packed;

/**
 * struct homa_resend_hdr - ask the sender to retransmit a range.
 *
 * v4 receivers accept 36 bytes (no @priority); the full module wants 37,
 * so senders transmit all of it with @priority 0.
 */
struct homa_resend_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;

	/** @offset: first byte to retransmit. */
	__be32 offset;

	/** @length: number of bytes to retransmit; 0 asks for nothing. */
	__be32 length;

	/** @priority: full Homa: priority for the retransmitted packets. */
	__u8 priority;
} __packed;

/* Shortest RESEND a receiver accepts (the v4 layout, without priority). */
#define HOMA_RESEND_V4_LEN	(sizeof(struct homa_resend_hdr) - 1)

/**
 * struct homa_rpc_unknown_hdr - the receiver has no RPC with this id.
 */
struct homa_rpc_unknown_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;
} __packed;

/**
 * struct homa_busy_hdr - the sender is alive but has nothing to send.
 */
struct homa_busy_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;
} __packed;

/**
 * struct homa_cutoffs_hdr - full Homa: new unscheduled priority cutoffs.
 */
struct homa_cutoffs_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;

	/** @unsched_cutoffs: message-length limit for each priority. */
	__be32 unsched_cutoffs[HOMA_MAX_PRIORITIES];

	/** @cutoff_version: version of these cutoffs. */
	__be16 cutoff_version;
} __packed;

/**
 * struct homa_freeze_hdr - full Homa: freeze the timetrace (debugging).
 */
struct homa_freeze_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;
} __packed;

/**
 * struct homa_need_ack_hdr - a server asks the client to ack a response.
 */
struct homa_need_ack_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;
} __packed;

/**
 * struct homa_ack_hdr - a client acknowledges one or more responses.
 */
struct homa_ack_hdr {
	/** @common: the common header. */
	struct homa_common_hdr common;

	/** @num_acks: number of valid entries in @acks. */
	__be16 num_acks;

	/** @acks: the acknowledged RPCs. */
	struct homa_ack acks[HOMA_MAX_ACKS_PER_PKT];
} __packed;

/**
 * homa_doff() - the doff byte for a header of @len bytes.
 * @len: header length in bytes (a multiple of 4 rounds down).
 *
 * Return: the doff byte; @len must fit (see HOMA_DOFF_MAX_LEN).
 */
static inline __u8 homa_doff(unsigned int len)
{
	return (__u8)((len >> 2) << 4);
}

/**
 * homa_doff_bytes() - header length in bytes that a doff byte announces.
 * @doff: the doff byte of a common header.
 *
 * Return: bytes.
 */
static inline unsigned int homa_doff_bytes(__u8 doff)
{
	return (unsigned int)(doff >> 4) << 2;
}

/* Longest header a doff nibble can announce (an ACK's 80 bytes cannot). */
#define HOMA_DOFF_MAX_LEN	60

/*
 * Urgent pointer of a Homa packet carried in a TCP header (the full Homa
 * "TCP hijacking" mode): how a receiver tells it from real TCP.
 */
#define HOMA_TCP_URGENT		0xb97d

/**
 * struct homa_type_info - what homa_wire_types.h says of one packet type.
 */
struct homa_type_info {
	/** @name: the type's name. */
	const char *name;

	/** @hdr_len: length of its whole header in bytes. */
	__u8 hdr_len;

	/**
	 * @min_len: shortest packet of the type a receiver takes; 0 for
	 * @hdr_len.
	 */
	__u8 min_len;
};

/**
 * homa_type_valid() - is a type byte one of the packet types?
 * @type: the type byte of a common header.
 *
 * Return: true for HOMA_TYPE_MIN..HOMA_TYPE_MAX.
 */
static inline bool homa_type_valid(unsigned int type)
{
	return type >= HOMA_TYPE_MIN && type <= HOMA_TYPE_MAX;
}

/**
 * homa_type_info() - the homa_wire_types.h entry of a packet type.
 * @type: the type byte of a common header.
 *
 * Return: the entry, or NULL for a value that is no packet type.
 */
static inline const struct homa_type_info *homa_type_info(unsigned int type)
{
	static const struct homa_type_info info[HOMA_NUM_TYPES] = {
#define HOMA_PACKET_TYPE(sym, name, hdr, min)				\
		[(sym) - HOMA_TYPE_MIN] = { name, sizeof(hdr), min },
#include "homa_wire_types.h"
#undef HOMA_PACKET_TYPE
	};

	if (!homa_type_valid(type))
		return NULL;
	return &info[type - HOMA_TYPE_MIN];
}

/**
 * homa_type_hdr_len() - full header length of a packet type.
 * @type: the type byte of a common header.
 *
 * Return: bytes, or 0 for a value that is no packet type.
 */
static inline unsigned int homa_type_hdr_len(unsigned int type)
{
	const struct homa_type_info *t = homa_type_info(type);

	return t ? t->hdr_len : 0;
}

/**
 * homa_type_min_len() - shortest packet of a type that a receiver takes:
 * its whole header, except for RESEND, which v4 senders send without the
 * priority byte.
 * @type: the type byte of a common header.
 *
 * Return: bytes, or 0 for a value that is no packet type.
 */
static inline unsigned int homa_type_min_len(unsigned int type)
{
	const struct homa_type_info *t = homa_type_info(type);

	if (!t)
		return 0;
	return t->min_len ? t->min_len : t->hdr_len;
}

/**
 * homa_type_name() - the name of a packet type.
 * @type: the type byte of a common header.
 *
 * Return: the name (RPC_UNKNOWN is "UNKNOWN"), or NULL.
 */
static inline const char *homa_type_name(unsigned int type)
{
	const struct homa_type_info *t = homa_type_info(type);

	return t ? t->name : NULL;
}

/**
 * homa_type_doff() - the doff byte a sender writes for a packet type:
 * for DATA the bytes every GSO segment repeats (HOMA_DATA_PREFIX_LEN),
 * for the others the header, saturated at HOMA_DOFF_MAX_LEN.
 * @type: the type byte of a common header.
 *
 * Return: the doff byte (0 for a value that is no packet type).
 */
static inline __u8 homa_type_doff(unsigned int type)
{
	unsigned int len = homa_type_hdr_len(type);

	if (type == DATA)
		return homa_doff(HOMA_DATA_PREFIX_LEN);
	return homa_doff(len < HOMA_DOFF_MAX_LEN ? len : HOMA_DOFF_MAX_LEN);
}

/*
 * The numbers themselves (sizes, offsets, codes, lengths by type) are
 * checked against the spec in one place, kernel/tests/abi_layout.c. Here,
 * in every build, what the code above relies on: homa_wire_types.h lists
 * each type once (twice would repeat an enumerator below) and as many as
 * HOMA_TYPE_MIN..HOMA_TYPE_MAX has codes, so none is missing from
 * homa_type_info()'s table (one outside the range is an index out of its
 * bounds).
 */
enum homa_type_list_check {
#define HOMA_PACKET_TYPE(sym, ...)	HOMA_LISTED_##sym,
#include "homa_wire_types.h"
#undef HOMA_PACKET_TYPE
	HOMA_LISTED_TYPES
};

static_assert(HOMA_LISTED_TYPES == HOMA_NUM_TYPES,
	      "homa_wire_types.h lists every type once");

#endif /* _HOMA_WIRE_H */
