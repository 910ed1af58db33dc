// SPDX-License-Identifier: BSD-2-Clause
/*
 * abi_layout - checks the user API and wire structures against the sizes and
 * offsets the v4 series defined (shared/spec/FACTS.md), from userspace, with
 * the same headers the module, the dissector and the crafter include.
 *
 * Every expected number below is written by hand from FACTS.md, never
 * computed from the headers: the offset and the size of every field of every
 * structure (nested ones too), and the size of every structure.  So swapping
 * any two fields (sport/dport, RESEND offset/length, homa_ack
 * client_id/server_port, GRANT priority/resend_all...) moves at least one
 * field away from its pinned offset and fails here.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/homa.h>
#include "homa_wire.h"

struct check {
	const char *what;
	size_t got;
	size_t want;
};

#define CHECK(expr, value) { #expr, (size_t)(expr), (size_t)(value) }
#define MEMBER_SIZE(type, member) sizeof(((type *)0)->member)
/* FIELD(type, member, offset, size): two checks, its offset and its size. */
#define FIELD(type, member, off, size) \
	{ "offsetof(" #type ", " #member ")", offsetof(type, member), (off) }, \
	{ "sizeof(" #type "." #member ")", MEMBER_SIZE(type, member), (size) }
/* TYPE(sym, name, hdr_len, min_len, doff): five checks of a packet type. */
#define TYPE(sym, name, hdr, min, doff) \
	CHECK(name_is(homa_type_name(sym), name), 1), \
	CHECK(homa_type_valid(sym), 1), \
	CHECK(homa_type_hdr_len(sym), hdr), CHECK(homa_type_min_len(sym), min), \
	CHECK(homa_type_doff(sym), doff)
/* NOT_A_TYPE(value): three checks that @value is no packet type. */
#define NOT_A_TYPE(v) \
	CHECK(homa_type_valid(v), 0), CHECK(homa_type_name(v) == NULL, 1), \
	CHECK(homa_type_hdr_len(v) + homa_type_min_len(v) + homa_type_doff(v), 0)

static int name_is(const char *got, const char *want)
{
	return got && strcmp(got, want) == 0;
}

int main(void)
{
	const struct check checks[] = {
		/* User API (include/uapi/linux/homa.h). */
		CHECK(IPPROTO_HOMA, 146),
		CHECK(HOMA_MAX_MESSAGE_LENGTH, 1000000),
		CHECK(HOMA_BPAGE_SHIFT, 16),
		CHECK(HOMA_BPAGE_SIZE, 65536),
		CHECK(HOMA_MAX_BPAGES, 16),
		CHECK(HOMA_MIN_DEFAULT_PORT, 0x8000),
		CHECK(sizeof(struct homa_sendmsg_args), 16),
		FIELD(struct homa_sendmsg_args, id, 0, 8),
		FIELD(struct homa_sendmsg_args, completion_cookie, 8, 8),
		CHECK(sizeof(struct homa_recvmsg_args), 88),
		FIELD(struct homa_recvmsg_args, id, 0, 8),
		FIELD(struct homa_recvmsg_args, completion_cookie, 8, 8),
		FIELD(struct homa_recvmsg_args, flags, 16, 4),
		FIELD(struct homa_recvmsg_args, num_bpages, 20, 4),
		FIELD(struct homa_recvmsg_args, bpage_offsets, 24, 64),
		FIELD(struct homa_recvmsg_args, bpage_offsets[0], 24, 4),
		FIELD(struct homa_recvmsg_args, bpage_offsets[15], 84, 4),
		CHECK(HOMA_RECVMSG_REQUEST, 1),
		CHECK(HOMA_RECVMSG_RESPONSE, 2),
		CHECK(HOMA_RECVMSG_NONBLOCKING, 4),
		CHECK(HOMA_RECVMSG_VALID_FLAGS, 7),
		CHECK(SO_HOMA_RCVBUF, 10),
		CHECK(sizeof(struct homa_rcvbuf_args), 16),
		FIELD(struct homa_rcvbuf_args, start, 0, 8),
		FIELD(struct homa_rcvbuf_args, length, 8, 8),
		CHECK(sizeof(struct homa_abort_args), 32),
		FIELD(struct homa_abort_args, id, 0, 8),
		FIELD(struct homa_abort_args, error, 8, 4),
		FIELD(struct homa_abort_args, _pad1, 12, 4),
		FIELD(struct homa_abort_args, _pad2, 16, 16),
		CHECK(HOMAIOCABORT, _IOWR(0x89, 0xe3, struct homa_abort_args)),
		/* Numbers checked by hand: _IOWR = dir 3 << 30 | size 32 << 16. */
		CHECK(HOMAIOCABORT, 0xc02089e3),

		/* Common header, 28 bytes. */
		CHECK(sizeof(struct homa_common_hdr), 28),
		FIELD(struct homa_common_hdr, sport, 0, 2),
		FIELD(struct homa_common_hdr, dport, 2, 2),
		FIELD(struct homa_common_hdr, sequence, 4, 4),
		FIELD(struct homa_common_hdr, ack, 8, 3),
		FIELD(struct homa_common_hdr, type, 11, 1),
		FIELD(struct homa_common_hdr, doff, 12, 1),
		FIELD(struct homa_common_hdr, flags, 13, 1),
		FIELD(struct homa_common_hdr, window, 14, 2),
		FIELD(struct homa_common_hdr, checksum, 16, 2),
		FIELD(struct homa_common_hdr, urgent, 18, 2),
		FIELD(struct homa_common_hdr, sender_id, 20, 8),

		/* struct homa_ack, 10 bytes: client_id (8), server_port (2). */
		CHECK(sizeof(struct homa_ack), 10),
		FIELD(struct homa_ack, client_id, 0, 8),
		FIELD(struct homa_ack, server_port, 8, 2),

		/* seg header: offset (4). */
		CHECK(sizeof(struct homa_seg_hdr), 4),
		FIELD(struct homa_seg_hdr, offset, 0, 4),

		/* DATA, 56 bytes. */
		CHECK(sizeof(struct homa_data_hdr), 56),
		FIELD(struct homa_data_hdr, common, 0, 28),
		FIELD(struct homa_data_hdr, common.sport, 0, 2),
		FIELD(struct homa_data_hdr, common.sequence, 4, 4),
		FIELD(struct homa_data_hdr, common.sender_id, 20, 8),
		FIELD(struct homa_data_hdr, message_length, 28, 4),
		FIELD(struct homa_data_hdr, incoming, 32, 4),
		FIELD(struct homa_data_hdr, ack, 36, 10),
		FIELD(struct homa_data_hdr, ack.client_id, 36, 8),
		FIELD(struct homa_data_hdr, ack.server_port, 44, 2),
		FIELD(struct homa_data_hdr, cutoff_version, 46, 2),
		FIELD(struct homa_data_hdr, retransmit, 48, 1),
		FIELD(struct homa_data_hdr, pad, 49, 3),
		FIELD(struct homa_data_hdr, seg, 52, 4),
		FIELD(struct homa_data_hdr, seg.offset, 52, 4),
		CHECK(HOMA_DATA_PREFIX_LEN, 52),

		/* GRANT, 34 bytes: offset (4), priority (1), resend_all (1). */
		CHECK(sizeof(struct homa_grant_hdr), 34),
		FIELD(struct homa_grant_hdr, common, 0, 28),
		FIELD(struct homa_grant_hdr, offset, 28, 4),
		FIELD(struct homa_grant_hdr, priority, 32, 1),
		FIELD(struct homa_grant_hdr, resend_all, 33, 1),

		/* RESEND: offset (4), length (4), then full Homa's priority (1). */
		CHECK(sizeof(struct homa_resend_hdr), 37),
		FIELD(struct homa_resend_hdr, common, 0, 28),
		FIELD(struct homa_resend_hdr, offset, 28, 4),
		FIELD(struct homa_resend_hdr, length, 32, 4),
		FIELD(struct homa_resend_hdr, priority, 36, 1),
		CHECK(HOMA_RESEND_V4_LEN, 36),

		/* Common header only, 28 bytes. */
		CHECK(sizeof(struct homa_rpc_unknown_hdr), 28),
		FIELD(struct homa_rpc_unknown_hdr, common, 0, 28),
		CHECK(sizeof(struct homa_busy_hdr), 28),
		FIELD(struct homa_busy_hdr, common, 0, 28),
		CHECK(sizeof(struct homa_freeze_hdr), 28),
		FIELD(struct homa_freeze_hdr, common, 0, 28),
		CHECK(sizeof(struct homa_need_ack_hdr), 28),
		FIELD(struct homa_need_ack_hdr, common, 0, 28),

		/* CUTOFFS, 62 bytes: unsched_cutoffs[8] (4 each), cutoff_version (2). */
		CHECK(HOMA_MAX_PRIORITIES, 8),
		CHECK(sizeof(struct homa_cutoffs_hdr), 62),
		FIELD(struct homa_cutoffs_hdr, common, 0, 28),
		FIELD(struct homa_cutoffs_hdr, unsched_cutoffs, 28, 32),
		FIELD(struct homa_cutoffs_hdr, unsched_cutoffs[0], 28, 4),
		FIELD(struct homa_cutoffs_hdr, unsched_cutoffs[7], 56, 4),
		FIELD(struct homa_cutoffs_hdr, cutoff_version, 60, 2),

		/* ACK, 80 bytes: num_acks (2), acks[5] (10 each). */
		CHECK(sizeof(struct homa_ack_hdr), 80),
		FIELD(struct homa_ack_hdr, common, 0, 28),
		FIELD(struct homa_ack_hdr, num_acks, 28, 2),
		FIELD(struct homa_ack_hdr, acks, 30, 50),
		FIELD(struct homa_ack_hdr, acks[0].client_id, 30, 8),
		FIELD(struct homa_ack_hdr, acks[0].server_port, 38, 2),
		FIELD(struct homa_ack_hdr, acks[1].client_id, 40, 8),
		FIELD(struct homa_ack_hdr, acks[4].server_port, 78, 2),

		/* Type codes and limits. */
		CHECK(DATA, 0x10), CHECK(GRANT, 0x11), CHECK(RESEND, 0x12),
		CHECK(RPC_UNKNOWN, 0x13), CHECK(BUSY, 0x14), CHECK(CUTOFFS, 0x15),
		CHECK(FREEZE, 0x16), CHECK(NEED_ACK, 0x17), CHECK(ACK, 0x18),
		CHECK(HOMA_TYPE_MIN, 0x10), CHECK(HOMA_TYPE_MAX, 0x18),
		CHECK(HOMA_MAX_ACKS_PER_PKT, 5), CHECK(HOMA_MAX_HEADER, 90),
		CHECK(HOMA_MIN_PKT_LENGTH, 26),
		CHECK(HOMA_SEG_OFFSET_USE_SEQ, 0xffffffffU),
		CHECK(HOMA_NUM_TYPES, 9), CHECK(HOMA_TCP_URGENT, 0xb97d),
		/* doff: header bytes / 4 in the upper nibble. */
		CHECK(homa_doff(56), 0xe0), CHECK(homa_doff(52), 0xd0),
		CHECK(homa_doff(36), 0x90), CHECK(homa_doff_bytes(0xe0), 56),
		CHECK(homa_doff_bytes(0xd0), 52), CHECK(HOMA_DOFF_MAX_LEN, 60),
		CHECK(homa_doff_bytes(0xf0), 60),
		/*
		 * By type (HOMA_PACKET_TYPES): name, header length, minimum
		 * length a receiver accepts, and the doff a sender writes
		 * (DATA: the 52-byte prefix; over 60 bytes: 60).
		 */
		TYPE(DATA, "DATA", 56, 56, 0xd0),
		TYPE(GRANT, "GRANT", 34, 34, 0x80),
		TYPE(RESEND, "RESEND", 37, 36, 0x90),
		TYPE(RPC_UNKNOWN, "UNKNOWN", 28, 28, 0x70),
		TYPE(BUSY, "BUSY", 28, 28, 0x70),
		TYPE(CUTOFFS, "CUTOFFS", 62, 62, 0xf0),
		TYPE(FREEZE, "FREEZE", 28, 28, 0x70),
		TYPE(NEED_ACK, "NEED_ACK", 28, 28, 0x70),
		TYPE(ACK, "ACK", 80, 80, 0xf0),
		/* Values outside 0x10..0x18 are no type. */
		NOT_A_TYPE(0), NOT_A_TYPE(0x0f), NOT_A_TYPE(0x19), NOT_A_TYPE(0xff),
	};
	size_t n = sizeof(checks) / sizeof(checks[0]);
	int failed = 0;

	printf("KTAP version 1\n1..%zu\n", n);
	for (size_t i = 0; i < n; i++) {
		int ok = checks[i].got == checks[i].want;

		printf("%sok %zu %s\n", ok ? "" : "not ", i + 1, checks[i].what);
		if (!ok) {
			printf("# got %zu, want %zu\n", checks[i].got, checks[i].want);
			failed = 1;
		}
	}
	return failed;
}
