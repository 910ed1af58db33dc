// SPDX-License-Identifier: BSD-2-Clause
/*
 * abi_layout - checks the user API and wire structures against the sizes and
 * offsets the v4 series defined (FACTS.md), from userspace, with the same
 * headers the module, the dissector and the crafter include.
 */
#include <stddef.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include <linux/homa.h>
#include "homa_wire.h"

struct check {
	const char *what;
	size_t got;
	size_t want;
};

#define CHECK(expr, value) { #expr, (size_t)(expr), (size_t)(value) }

int main(void)
{
	const struct check checks[] = {
		CHECK(IPPROTO_HOMA, 146),
		CHECK(HOMA_MAX_MESSAGE_LENGTH, 1000000),
		CHECK(HOMA_BPAGE_SIZE, 65536),
		CHECK(HOMA_MAX_BPAGES, 16),
		CHECK(HOMA_MIN_DEFAULT_PORT, 0x8000),
		CHECK(sizeof(struct homa_sendmsg_args), 16),
		CHECK(sizeof(struct homa_recvmsg_args), 88),
		CHECK(offsetof(struct homa_recvmsg_args, flags), 16),
		CHECK(offsetof(struct homa_recvmsg_args, num_bpages), 20),
		CHECK(offsetof(struct homa_recvmsg_args, bpage_offsets), 24),
		CHECK(HOMA_RECVMSG_REQUEST, 1),
		CHECK(HOMA_RECVMSG_RESPONSE, 2),
		CHECK(HOMA_RECVMSG_NONBLOCKING, 4),
		CHECK(HOMA_RECVMSG_VALID_FLAGS, 7),
		CHECK(SO_HOMA_RCVBUF, 10),
		CHECK(sizeof(struct homa_rcvbuf_args), 16),
		CHECK(sizeof(struct homa_abort_args), 32),
		CHECK(HOMAIOCABORT, _IOWR(0x89, 0xe3, struct homa_abort_args)),
		CHECK(sizeof(struct homa_common_hdr), 28),
		CHECK(offsetof(struct homa_common_hdr, sequence), 4),
		CHECK(offsetof(struct homa_common_hdr, type), 11),
		CHECK(offsetof(struct homa_common_hdr, doff), 12),
		CHECK(offsetof(struct homa_common_hdr, checksum), 16),
		CHECK(offsetof(struct homa_common_hdr, sender_id), 20),
		CHECK(sizeof(struct homa_ack), 10),
		CHECK(sizeof(struct homa_data_hdr), 56),
		CHECK(offsetof(struct homa_data_hdr, message_length), 28),
		CHECK(offsetof(struct homa_data_hdr, incoming), 32),
		CHECK(offsetof(struct homa_data_hdr, ack), 36),
		CHECK(offsetof(struct homa_data_hdr, cutoff_version), 46),
		CHECK(offsetof(struct homa_data_hdr, retransmit), 48),
		CHECK(offsetof(struct homa_data_hdr, seg), 52),
		CHECK(sizeof(struct homa_grant_hdr), 34),
		CHECK(sizeof(struct homa_resend_hdr), 37),
		CHECK(HOMA_MIN_LEN_RESEND, 36),
		CHECK(sizeof(struct homa_cutoffs_hdr), 62),
		CHECK(offsetof(struct homa_cutoffs_hdr, cutoff_version), 60),
		CHECK(sizeof(struct homa_ack_hdr), 80),
		CHECK(offsetof(struct homa_ack_hdr, acks), 30),
		CHECK(DATA, 0x10), CHECK(GRANT, 0x11), CHECK(RESEND, 0x12),
		CHECK(RPC_UNKNOWN, 0x13), CHECK(BUSY, 0x14), CHECK(CUTOFFS, 0x15),
		CHECK(FREEZE, 0x16), CHECK(NEED_ACK, 0x17), CHECK(ACK, 0x18),
		CHECK(HOMA_MAX_ACKS_PER_PKT, 5), CHECK(HOMA_MAX_HEADER, 90),
		CHECK(HOMA_MIN_PKT_LENGTH, 26),
		CHECK(homa_doff(56), 0xe0), CHECK(homa_doff_bytes(0xe0), 56),
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
