/* SPDX-License-Identifier: BSD-2-Clause */

/* The Homa packet types, the one list of them, in the order of their
 * codes (&enum homa_packet_type in homa_wire.h, which includes this file,
 * gives each its code): one HOMA_PACKET_TYPE(sym, name, hdr, min) each.
 *   sym:  the type's constant in &enum homa_packet_type;
 *   name: as the spec, the dissector, the crafter and /proc/net/homa_metrics
 *         write it (RPC_UNKNOWN is "UNKNOWN");
 *   hdr:  the struct of its whole header;
 *   min:  the shortest packet of the type a receiver takes, or 0 for the
 *         whole header (RESEND: v4 senders leave out the priority byte).
 * GRANT, CUTOFFS and FREEZE belong to full Homa: v4 never sends them.
 *
 * No include guard: included once per use, with HOMA_PACKET_TYPE defined.
 */

HOMA_PACKET_TYPE(DATA, "DATA", struct homa_data_hdr, 0)
HOMA_PACKET_TYPE(GRANT, "GRANT", struct homa_grant_hdr, 0)
HOMA_PACKET_TYPE(RESEND, "RESEND", struct homa_resend_hdr, HOMA_RESEND_V4_LEN)
HOMA_PACKET_TYPE(RPC_UNKNOWN, "UNKNOWN", struct homa_rpc_unknown_hdr, 0)
HOMA_PACKET_TYPE(BUSY, "BUSY", struct homa_busy_hdr, 0)
HOMA_PACKET_TYPE(CUTOFFS, "CUTOFFS", struct homa_cutoffs_hdr, 0)
HOMA_PACKET_TYPE(FREEZE, "FREEZE", struct homa_freeze_hdr, 0)
HOMA_PACKET_TYPE(NEED_ACK, "NEED_ACK", struct homa_need_ack_hdr, 0)
HOMA_PACKET_TYPE(ACK, "ACK", struct homa_ack_hdr, 0)
