/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-homa.c - Wireshark dissector for the Homa transport protocol.
 *
 * Every offset, size and type code comes from kernel/homa_wire.h, the one
 * definition of the wire format that the kernel module and the packet
 * crafter use too.  This file only says how to show those bytes.
 *
 * Layout (as doc/README.dissector suggests):
 *   - header fields, subtrees and expert items (hf_/ett_/ei_)
 *   - RPC analysis: per-RPC state keyed by (client address and port, server
 *     address and port, rpc id), per-frame results stored with the frame
 *   - message reassembly and hand-off to the "homa.port" table and the
 *     "homa" heuristic list
 *   - the packet dissectors (IP protocol 146, and TCP "hijacking")
 *   - taps: conversation/endpoint tables and the service response time table
 *   - registration and hand-off
 */

#include <stddef.h>
#include <string.h>

#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/exceptions.h>
#include <epan/expert.h>
#include <epan/reassemble.h>
#include <epan/tap.h>
#include <epan/conversation_table.h>
#include <epan/srt_table.h>
#include <epan/ipproto.h>
#include <epan/proto_data.h>
#include <epan/to_str.h>
#include <epan/unit_strings.h>
#include <wsutil/utf8_entities.h>
#include <wsutil/pint.h>
#include <ws_version.h>

#include "homa_wire.h"
#include <linux/homa.h>

#include "packet-homa.h"

/* Offsets and sizes, all taken from homa_wire.h. */
#define OFF_COMMON(f)	((int)offsetof(struct homa_common_hdr, f))
#define OFF_DATA(f)	((int)offsetof(struct homa_data_hdr, f))
#define OFF_GRANT(f)	((int)offsetof(struct homa_grant_hdr, f))
#define OFF_RESEND(f)	((int)offsetof(struct homa_resend_hdr, f))
#define OFF_CUTOFFS(f)	((int)offsetof(struct homa_cutoffs_hdr, f))
#define OFF_ACKHDR(f)	((int)offsetof(struct homa_ack_hdr, f))
#define OFF_ACK(f)	((int)offsetof(struct homa_ack, f))
#define SIZEOF_FIELD(t, f)	((int)sizeof(((t *)0)->f))

#define COMMON_LEN	((int)sizeof(struct homa_common_hdr))
#define DATA_HDR_LEN	((int)sizeof(struct homa_data_hdr))
#define DATA_PREFIX_LEN	((int)HOMA_DATA_PREFIX_LEN)
#define SEG_HDR_LEN	((int)sizeof(struct homa_seg_hdr))
#define ACK_LEN		((int)sizeof(struct homa_ack))

void proto_register_homa(void);
void proto_reg_handoff_homa(void);

static int proto_homa = -1;
static int homa_tap = -1;

/* Common header. */
static int hf_homa_sport = -1;
static int hf_homa_dport = -1;
static int hf_homa_port = -1;
static int hf_homa_sequence = -1;
static int hf_homa_reserved_ack = -1;
static int hf_homa_type = -1;
static int hf_homa_doff = -1;
static int hf_homa_hdr_len = -1;
static int hf_homa_reserved_flags = -1;
static int hf_homa_reserved_window = -1;
static int hf_homa_checksum = -1;
static int hf_homa_reserved_urgent = -1;
static int hf_homa_tcp_urgent = -1;
static int hf_homa_sender_id = -1;
static int hf_homa_rpc_id = -1;
static int hf_homa_from_client = -1;
static int hf_homa_tcp_hijacked = -1;

/* DATA. */
static int hf_homa_data_message_length = -1;
static int hf_homa_data_incoming = -1;
static int hf_homa_data_cutoff_version = -1;
static int hf_homa_data_retransmit = -1;
static int hf_homa_data_pad = -1;
static int hf_homa_data_segment = -1;
static int hf_homa_data_num_segments = -1;
static int hf_homa_data_offset = -1;
static int hf_homa_data_length = -1;
static int hf_homa_payload = -1;

/* Acks (inside DATA and in ACK packets). */
static int hf_homa_ack = -1;
static int hf_homa_ack_client_id = -1;
static int hf_homa_ack_server_port = -1;
static int hf_homa_ack_num_acks = -1;
static int hf_homa_ack_self = -1;

/* GRANT. */
static int hf_homa_grant_offset = -1;
static int hf_homa_grant_priority = -1;
static int hf_homa_grant_resend_all = -1;

/* RESEND. */
static int hf_homa_resend_offset = -1;
static int hf_homa_resend_length = -1;
static int hf_homa_resend_priority = -1;

/* CUTOFFS. */
static int hf_homa_cutoffs_unsched_cutoff = -1;
static int hf_homa_cutoffs_version = -1;

/* Trailing bytes after a control header (padding). */
static int hf_homa_padding = -1;

/* Analysis. */
static int hf_homa_analysis = -1;
static int hf_homa_analysis_request_in = -1;
static int hf_homa_analysis_response_in = -1;
static int hf_homa_analysis_time = -1;
static int hf_homa_analysis_bytes_received = -1;
static int hf_homa_analysis_message_complete_in = -1;
static int hf_homa_analysis_hole = -1;
static int hf_homa_analysis_incomplete = -1;
static int hf_homa_analysis_acked_response_in = -1;

/* Reassembly. */
static int hf_homa_fragments = -1;
static int hf_homa_fragment = -1;
static int hf_homa_fragment_overlap = -1;
static int hf_homa_fragment_overlap_conflicts = -1;
static int hf_homa_fragment_multiple_tails = -1;
static int hf_homa_fragment_too_long_fragment = -1;
static int hf_homa_fragment_error = -1;
static int hf_homa_fragment_count = -1;
static int hf_homa_reassembled_in = -1;
static int hf_homa_reassembled_length = -1;
static int hf_homa_reassembled_data = -1;

static gint ett_homa = -1;
static gint ett_homa_common = -1;
static gint ett_homa_segment = -1;
static gint ett_homa_ack = -1;
static gint ett_homa_cutoffs = -1;
static gint ett_homa_analysis = -1;
static gint ett_homa_fragment = -1;
static gint ett_homa_fragments = -1;

static expert_field ei_homa_truncated = EI_INIT;
static expert_field ei_homa_unknown_type = EI_INIT;
static expert_field ei_homa_doff_mismatch = EI_INIT;
static expert_field ei_homa_seg_past_msg = EI_INIT;
static expert_field ei_homa_msg_too_long = EI_INIT;
static expert_field ei_homa_num_acks_over_max = EI_INIT;
static expert_field ei_homa_num_acks_over_pkt = EI_INIT;
static expert_field ei_homa_reserved_nonzero = EI_INIT;
static expert_field ei_homa_checksum_nonzero = EI_INIT;
static expert_field ei_homa_seg_use_sequence = EI_INIT;
static expert_field ei_homa_gso = EI_INIT;
static expert_field ei_homa_retransmission = EI_INIT;
static expert_field ei_homa_duplicate = EI_INIT;
static expert_field ei_homa_out_of_order = EI_INIT;
static expert_field ei_homa_hole = EI_INIT;
static expert_field ei_homa_incomplete = EI_INIT;
static expert_field ei_homa_no_response = EI_INIT;
static expert_field ei_homa_no_request = EI_INIT;
static expert_field ei_homa_msg_length_changed = EI_INIT;
static expert_field ei_homa_tcp_hijack = EI_INIT;

/* Preferences. */
static gboolean homa_analyze = TRUE;
static gboolean homa_reassemble = TRUE;
static gboolean homa_try_heuristic_first = FALSE;
static gboolean homa_tcp_hijack = FALSE;
static gboolean homa_detect_gso = TRUE;
static guint homa_gso_min_len = 1481;

static dissector_handle_t homa_handle;
static dissector_handle_t homa_tcp_handle;
static dissector_handle_t tcp_handle;
static dissector_table_t homa_port_table;
static heur_dissector_list_t homa_heur_list;

static reassembly_table homa_reassembly_table;

static const fragment_items homa_frag_items = {
	&ett_homa_fragment,
	&ett_homa_fragments,
	&hf_homa_fragments,
	&hf_homa_fragment,
	&hf_homa_fragment_overlap,
	&hf_homa_fragment_overlap_conflicts,
	&hf_homa_fragment_multiple_tails,
	&hf_homa_fragment_too_long_fragment,
	&hf_homa_fragment_error,
	&hf_homa_fragment_count,
	&hf_homa_reassembled_in,
	&hf_homa_reassembled_length,
	&hf_homa_reassembled_data,
	"Homa message segments"
};

/* The type names, from homa_wire_types.h (the one list of them). */
static const value_string homa_type_vals[] = {
#define HOMA_PACKET_TYPE(sym, name, ...)	{ sym, name },
#include "homa_wire_types.h"
#undef HOMA_PACKET_TYPE
	{ 0, NULL }
};

static const true_false_string tfs_homa_sender = {
	"Client (request direction)", "Server (response direction)"
};

/* ------------------------------------------------------------------ */
/* Header lengths by type.                                            */
/* ------------------------------------------------------------------ */

/* Header lengths and minimum lengths by type: homa_type_hdr_len() and
 * homa_type_min_len() in homa_wire.h (0 for a value that is no type).
 */

/*
 * Does a doff byte agree with the packet type?  DATA announces the bytes a
 * GSO engine replicates (the 52-byte prefix) or, without GSO, the whole
 * 56-byte header.  Other types announce their header length (as homa_doff()
 * computes it), or leave doff at 0 as v4-era senders did.
 */
static gboolean homa_doff_ok(guint type, guint8 doff)
{
	int len = (int)homa_type_hdr_len(type);

	if (!homa_type_valid(type))
		return TRUE;	/* unknown type: reported separately */
	if (type == DATA)
		return doff == homa_type_doff(DATA) ||
		       doff == homa_doff(sizeof(struct homa_data_hdr));
	/* What senders write (homa_type_doff(): saturated for headers the
	 * nibble cannot say), the header length as such (or the type's
	 * minimum, a v4 RESEND's), or v4's 0.
	 */
	return doff == 0 || doff == homa_type_doff(type) || doff == homa_doff(len) ||
	       doff == homa_doff(homa_type_min_len(type));
}

/* ------------------------------------------------------------------ */
/* RPC analysis.                                                      */
/* ------------------------------------------------------------------ */

typedef struct {
	guint32 start;
	guint32 end;	/* exclusive */
} homa_range_t;

typedef struct {
	guint32 length;		/* message_length of the first DATA seen */
	guint32 first_frame;	/* first DATA frame of the message */
	nstime_t first_ts;
	guint32 complete_frame;	/* frame in which every byte had been seen */
	guint32 received;	/* distinct bytes seen */
	guint32 max_end;	/* highest end offset seen */
	guint nranges;
	guint maxranges;
	homa_range_t *ranges;	/* sorted, disjoint, non-adjacent */
} homa_msg_t;

typedef struct {
	address client_addr;
	address server_addr;
	guint16 client_port;
	guint16 server_port;
	guint64 rpc_id;		/* sender_id with the client bit cleared */
} homa_rpc_key_t;

typedef struct {
	homa_rpc_key_t key;
	guint32 rpc_num;	/* ordinal in the capture, from 1 */
	homa_msg_t msg[2];	/* HOMA_DIR_REQUEST, HOMA_DIR_RESPONSE */
	guint32 acked_frame;	/* first frame that acked this RPC */
} homa_rpc_t;

enum { HOMA_DIR_REQUEST = 0, HOMA_DIR_RESPONSE = 1 };

#define HOMA_AF_RETRANS		0x01
#define HOMA_AF_DUP		0x02
#define HOMA_AF_OOO		0x04
#define HOMA_AF_HOLE		0x08
#define HOMA_AF_LEN_CHANGED	0x10
#define HOMA_AF_REASSEMBLE	0x20	/* message was incomplete: reassemble it */

typedef struct {
	guint32 flags;
	guint32 hole_bytes;	/* bytes between the old max_end and this segment */
	guint32 received;	/* distinct bytes of the message after this segment */
} homa_seg_result_t;

#define HOMA_MAX_TRACKED_SEGS	64

typedef struct {
	homa_rpc_t *rpc;
	homa_rpc_t *acked[HOMA_MAX_ACKS_PER_PKT + 1];
	guint nsegs;		/* entries of @seg filled in */
	homa_seg_result_t *seg;	/* one per DATA segment (GSO: several) */
} homa_frame_data_t;

static wmem_map_t *homa_rpcs;
static guint32 homa_rpc_count;

static guint homa_rpc_key_hash(gconstpointer k)
{
	const homa_rpc_key_t *key = (const homa_rpc_key_t *)k;
	guint h = g_int64_hash(&key->rpc_id);

	h = add_address_to_hash(h, &key->client_addr);
	h = add_address_to_hash(h, &key->server_addr);
	return h ^ ((guint)key->client_port << 16) ^ key->server_port;
}

static gboolean homa_rpc_key_equal(gconstpointer a, gconstpointer b)
{
	const homa_rpc_key_t *x = (const homa_rpc_key_t *)a;
	const homa_rpc_key_t *y = (const homa_rpc_key_t *)b;

	return x->rpc_id == y->rpc_id && x->client_port == y->client_port &&
	       x->server_port == y->server_port &&
	       addresses_equal(&x->client_addr, &y->client_addr) &&
	       addresses_equal(&x->server_addr, &y->server_addr);
}

static void homa_init(void)
{
	homa_rpcs = wmem_map_new(wmem_file_scope(), homa_rpc_key_hash,
				 homa_rpc_key_equal);
	homa_rpc_count = 0;
}

static homa_rpc_t *homa_rpc_lookup(const address *client, guint16 cport,
				   const address *server, guint16 sport,
				   guint64 rpc_id, gboolean create)
{
	homa_rpc_key_t key;
	homa_rpc_t *rpc;

	/* shallow copies are enough for the lookup */
	key.client_addr = *client;
	key.server_addr = *server;
	key.client_port = cport;
	key.server_port = sport;
	key.rpc_id = rpc_id;
	rpc = (homa_rpc_t *)wmem_map_lookup(homa_rpcs, &key);
	if (rpc || !create)
		return rpc;
	rpc = wmem_new0(wmem_file_scope(), homa_rpc_t);
	copy_address_wmem(wmem_file_scope(), &rpc->key.client_addr, client);
	copy_address_wmem(wmem_file_scope(), &rpc->key.server_addr, server);
	rpc->key.client_port = cport;
	rpc->key.server_port = sport;
	rpc->key.rpc_id = rpc_id;
	rpc->rpc_num = ++homa_rpc_count;
	wmem_map_insert(homa_rpcs, &rpc->key, rpc);
	return rpc;
}

/*
 * Record [start, end) as received; return how many of those bytes had been
 * received before.
 */
static guint32 homa_msg_add_range(homa_msg_t *m, guint32 start, guint32 end)
{
	guint32 seen = 0, nstart = start, nend = end;
	guint i, j, first = 0, last = 0;
	gboolean merged = FALSE;

	for (i = 0; i < m->nranges; i++) {
		homa_range_t *r = &m->ranges[i];
		guint32 lo = MAX(r->start, start), hi = MIN(r->end, end);

		if (hi > lo)
			seen += hi - lo;
	}
	/* Ranges that overlap or touch [start, end) merge into one. */
	for (i = 0; i < m->nranges; i++) {
		homa_range_t *r = &m->ranges[i];

		if (r->end < start || r->start > end)
			continue;
		if (!merged) {
			first = i;
			merged = TRUE;
		}
		last = i;
		nstart = MIN(nstart, r->start);
		nend = MAX(nend, r->end);
	}
	if (merged) {
		m->ranges[first].start = nstart;
		m->ranges[first].end = nend;
		for (i = first + 1, j = last + 1; j < m->nranges; i++, j++)
			m->ranges[i] = m->ranges[j];
		m->nranges -= last - first;
	} else {
		if (m->nranges == m->maxranges) {
			m->maxranges = m->maxranges ? 2 * m->maxranges : 4;
			m->ranges = (homa_range_t *)wmem_realloc(wmem_file_scope(),
					m->ranges, m->maxranges * sizeof(*m->ranges));
		}
		for (i = 0; i < m->nranges && m->ranges[i].start < start; i++)
			;
		memmove(&m->ranges[i + 1], &m->ranges[i],
			(m->nranges - i) * sizeof(*m->ranges));
		m->ranges[i].start = start;
		m->ranges[i].end = end;
		m->nranges++;
	}
	m->received += (end - start) - seen;
	return seen;
}

/* Analyse one DATA segment (first pass only). */
static void homa_analyze_segment(homa_rpc_t *rpc, int dir, packet_info *pinfo,
				 guint32 msg_len, guint32 off, guint32 len,
				 gboolean retransmit, homa_seg_result_t *res)
{
	homa_msg_t *m = &rpc->msg[dir];
	guint32 end, seen;

	memset(res, 0, sizeof(*res));
	if (m->first_frame == 0) {
		m->first_frame = pinfo->num;
		m->first_ts = pinfo->abs_ts;
		m->length = msg_len;
	} else if (m->length != msg_len) {
		res->flags |= HOMA_AF_LEN_CHANGED;
	}
	if (retransmit)
		res->flags |= HOMA_AF_RETRANS;
	/*
	 * Bytes of a message that was already complete go to no reassembly
	 * (Wireshark's reassembly rejects data added after completion).
	 */
	if (m->complete_frame == 0)
		res->flags |= HOMA_AF_REASSEMBLE;
	/* Clip to the message; bytes beyond it are flagged elsewhere. */
	if (off >= m->length || len == 0) {
		res->received = m->received;
		return;
	}
	end = (m->length - off < len) ? m->length : off + len;
	if (off > m->max_end) {
		res->flags |= HOMA_AF_HOLE;
		res->hole_bytes = off - m->max_end;
	}
	seen = homa_msg_add_range(m, off, end);
	if (seen == end - off)
		res->flags |= HOMA_AF_DUP;
	else if (off < m->max_end && !retransmit)
		res->flags |= HOMA_AF_OOO;
	if (end > m->max_end)
		m->max_end = end;
	if (m->complete_frame == 0 && m->received >= m->length)
		m->complete_frame = pinfo->num;
	res->received = m->received;
}

/* ------------------------------------------------------------------ */
/* Per-packet context.                                                */
/* ------------------------------------------------------------------ */

typedef struct {
	tvbuff_t *tvb;
	packet_info *pinfo;
	proto_tree *tree;	/* the Homa subtree */
	proto_item *ti;		/* the Homa item */
	guint type;
	guint16 sport, dport;
	guint64 sender_id;
	guint64 rpc_id;
	gboolean from_client;
	gboolean hijacked;
	gboolean analyze;	/* analysis applies to this packet */
	homa_frame_data_t *fd;	/* analysis results of this frame */
	gboolean first_pass;
	wmem_strbuf_t *info;
} homa_pkt_t;

/* Add the analysis subtree common to every packet of an RPC. */
static void homa_show_rpc_links(homa_pkt_t *p, proto_tree *atree)
{
	homa_rpc_t *rpc = p->fd ? p->fd->rpc : NULL;
	homa_msg_t *req, *resp;
	proto_item *it;

	if (!rpc)
		return;
	req = &rpc->msg[HOMA_DIR_REQUEST];
	resp = &rpc->msg[HOMA_DIR_RESPONSE];
	if (req->first_frame && req->first_frame != p->pinfo->num) {
		it = proto_tree_add_uint(atree, hf_homa_analysis_request_in,
					 p->tvb, 0, 0, req->first_frame);
		proto_item_set_generated(it);
	}
	if (resp->first_frame && resp->first_frame != p->pinfo->num) {
		it = proto_tree_add_uint(atree, hf_homa_analysis_response_in,
					 p->tvb, 0, 0, resp->first_frame);
		proto_item_set_generated(it);
	}
	if (req->first_frame && resp->first_frame &&
	    p->pinfo->num >= resp->first_frame &&
	    nstime_cmp(&resp->first_ts, &req->first_ts) >= 0) {
		nstime_t delta;

		nstime_delta(&delta, &resp->first_ts, &req->first_ts);
		it = proto_tree_add_time(atree, hf_homa_analysis_time, p->tvb,
					 0, 0, &delta);
		proto_item_set_generated(it);
	}
	/* After the first pass the whole capture is known. */
	if (!p->first_pass && p->type == DATA) {
		if (p->from_client && resp->first_frame == 0) {
			it = proto_tree_add_expert(atree, p->pinfo, &ei_homa_no_response,
						   p->tvb, 0, 0);
			proto_item_set_generated(it);
		} else if (!p->from_client && req->first_frame == 0) {
			it = proto_tree_add_expert(atree, p->pinfo, &ei_homa_no_request,
						   p->tvb, 0, 0);
			proto_item_set_generated(it);
		}
	}
}

static void homa_show_seg_analysis(homa_pkt_t *p, proto_tree *atree,
				   const homa_seg_result_t *res, int dir)
{
	homa_msg_t *m = &p->fd->rpc->msg[dir];
	proto_item *it;

	it = proto_tree_add_uint_format_value(atree,
			hf_homa_analysis_bytes_received, p->tvb, 0, 0,
			res->received, "%u of %u bytes", res->received, m->length);
	proto_item_set_generated(it);
	if (m->complete_frame) {
		it = proto_tree_add_uint(atree, hf_homa_analysis_message_complete_in,
					 p->tvb, 0, 0, m->complete_frame);
		proto_item_set_generated(it);
	} else if (!p->first_pass) {
		it = proto_tree_add_uint_format_value(atree,
				hf_homa_analysis_incomplete, p->tvb, 0, 0,
				m->length - m->received,
				"%u of %u bytes never seen in the capture",
				m->length - m->received, m->length);
		proto_item_set_generated(it);
		expert_add_info(p->pinfo, it, &ei_homa_incomplete);
	}
	if (res->flags & HOMA_AF_RETRANS) {
		it = proto_tree_add_expert(atree, p->pinfo, &ei_homa_retransmission,
					   p->tvb, 0, 0);
		proto_item_set_generated(it);
	}
	if (res->flags & HOMA_AF_DUP) {
		it = proto_tree_add_expert(atree, p->pinfo, &ei_homa_duplicate,
					   p->tvb, 0, 0);
		proto_item_set_generated(it);
	}
	if (res->flags & HOMA_AF_OOO) {
		it = proto_tree_add_expert(atree, p->pinfo, &ei_homa_out_of_order,
					   p->tvb, 0, 0);
		proto_item_set_generated(it);
	}
	if (res->flags & HOMA_AF_HOLE) {
		it = proto_tree_add_uint(atree, hf_homa_analysis_hole, p->tvb,
					 0, 0, res->hole_bytes);
		proto_item_set_generated(it);
		expert_add_info_format(p->pinfo, it, &ei_homa_hole,
			"Previous segment(s) not captured: %u bytes before this one never seen so far",
			res->hole_bytes);
	}
	if (res->flags & HOMA_AF_LEN_CHANGED)
		expert_add_info(p->pinfo, p->ti, &ei_homa_msg_length_changed);
}

/* ------------------------------------------------------------------ */
/* Reserved fields.                                                   */
/* ------------------------------------------------------------------ */

static void homa_check_reserved(homa_pkt_t *p, proto_item *it, guint64 value,
				const char *what)
{
	if (value != 0)
		expert_add_info_format(p->pinfo, it, &ei_homa_reserved_nonzero,
			"Reserved field %s is not zero (0x%" G_GINT64_MODIFIER "x); receivers ignore it",
			what, value);
}

/* ------------------------------------------------------------------ */
/* Payload hand-off.                                                  */
/* ------------------------------------------------------------------ */

static void homa_hand_off(homa_pkt_t *p, tvbuff_t *msg_tvb, proto_tree *tree)
{
	homa_message_info_t mi;
	heur_dtbl_entry_t *hdtbl_entry;
	guint16 server_port = p->from_client ? p->dport : p->sport;
	guint16 client_port = p->from_client ? p->sport : p->dport;

	mi.rpc_id = p->rpc_id;
	mi.is_request = p->from_client;
	mi.server_port = server_port;
	mi.client_port = client_port;

	if (homa_try_heuristic_first &&
	    dissector_try_heuristic(homa_heur_list, msg_tvb, p->pinfo, tree,
				    &hdtbl_entry, &mi))
		return;
	if (dissector_try_uint_new(homa_port_table, server_port, msg_tvb,
				   p->pinfo, tree, TRUE, &mi))
		return;
	if (!homa_try_heuristic_first &&
	    dissector_try_heuristic(homa_heur_list, msg_tvb, p->pinfo, tree,
				    &hdtbl_entry, &mi))
		return;
	call_data_dissector(msg_tvb, p->pinfo, tree);
}

/* ------------------------------------------------------------------ */
/* Type-specific dissection.                                          */
/* ------------------------------------------------------------------ */

static void homa_dissect_ack_entry(homa_pkt_t *p, proto_tree *tree, int off,
				   const char *label, guint index,
				   homa_rpc_t **acked_slot)
{
	proto_tree *atree;
	proto_item *ai;
	guint64 client_id;
	guint32 server_port;

	ai = proto_tree_add_none_format(tree, hf_homa_ack, p->tvb, off, ACK_LEN,
					 "%s", label);
	atree = proto_item_add_subtree(ai, ett_homa_ack);
	proto_tree_add_item_ret_uint64(atree, hf_homa_ack_client_id, p->tvb,
				       off + OFF_ACK(client_id),
				       SIZEOF_FIELD(struct homa_ack, client_id),
				       ENC_BIG_ENDIAN, &client_id);
	proto_tree_add_item_ret_uint(atree, hf_homa_ack_server_port, p->tvb,
				     off + OFF_ACK(server_port),
				     SIZEOF_FIELD(struct homa_ack, server_port),
				     ENC_BIG_ENDIAN, &server_port);
	if (index)
		proto_item_append_text(ai, " %u", index);
	if (client_id == 0) {
		proto_item_append_text(ai, ": none");
		return;
	}
	proto_item_append_text(ai, ": RPC %" G_GINT64_MODIFIER "u, server port %u",
			       client_id, server_port);

	/* The client sends acks: it is the source of this packet. */
	if (p->analyze && acked_slot) {
		homa_rpc_t *rpc;

		if (p->first_pass) {
			rpc = homa_rpc_lookup(&p->pinfo->src, p->sport,
					      &p->pinfo->dst, (guint16)server_port,
					      client_id & ~(guint64)1, FALSE);
			*acked_slot = rpc;
			if (rpc && rpc->acked_frame == 0)
				rpc->acked_frame = p->pinfo->num;
		}
		rpc = *acked_slot;
		if (rpc && rpc->msg[HOMA_DIR_RESPONSE].first_frame) {
			proto_item *it = proto_tree_add_uint(atree,
					hf_homa_analysis_acked_response_in, p->tvb,
					0, 0, rpc->msg[HOMA_DIR_RESPONSE].first_frame);
			proto_item_set_generated(it);
		}
	}
}

/*
 * A GSO DATA packet: the 52-byte prefix, then segments of
 * [seg header][data], all of the same size but the last.  Find that data
 * size: the smallest one for which every following segment header holds
 * the expected offset.  Returns 0 for a packet of one segment.
 */
static guint homa_find_gso_seg_len(tvbuff_t *tvb, guint32 first_off)
{
	guint caplen = tvb_captured_length(tvb);
	const guint8 *b;
	guint len, pos, k;

	if (caplen != tvb_reported_length(tvb) || caplen < (guint)homa_gso_min_len ||
	    caplen < (guint)DATA_HDR_LEN + 2 * (SEG_HDR_LEN + 1))
		return 0;
	b = tvb_get_ptr(tvb, 0, caplen);
	for (len = 1; DATA_HDR_LEN + len + SEG_HDR_LEN < caplen; len++) {
		pos = DATA_HDR_LEN + len;
		if (pntoh32(b + pos) != first_off + len)
			continue;
		/* Check every following segment. */
		for (k = 2, pos += SEG_HDR_LEN + len; pos + SEG_HDR_LEN < caplen;
		     k++, pos += SEG_HDR_LEN + len) {
			if (pntoh32(b + pos) != first_off + k * len)
				break;
		}
		if (pos + SEG_HDR_LEN >= caplen)
			return len;
	}
	return 0;
}

static void homa_dissect_data(homa_pkt_t *p)
{
	tvbuff_t *tvb = p->tvb;
	proto_tree *tree = p->tree;
	proto_item *it;
	guint32 msg_len, incoming, cutoff_version, retransmit, pad, sequence;
	guint reported = tvb_reported_length(tvb);
	guint seg_data_len, nsegs, i;
	int off, dir = p->from_client ? HOMA_DIR_REQUEST : HOMA_DIR_RESPONSE;
	guint32 first_seg_off = 0, last_seg_end = 0;
	gboolean len_ok;

	sequence = tvb_get_ntohl(tvb, OFF_COMMON(sequence));
	it = proto_tree_add_item_ret_uint(tree, hf_homa_data_message_length, tvb,
			OFF_DATA(message_length),
			SIZEOF_FIELD(struct homa_data_hdr, message_length),
			ENC_BIG_ENDIAN, &msg_len);
	len_ok = msg_len > 0 && msg_len <= HOMA_MAX_MESSAGE_LENGTH;
	if (!len_ok)
		expert_add_info_format(p->pinfo, it, &ei_homa_msg_too_long,
			"Message length %u is outside 1..%u (HOMA_MAX_MESSAGE_LENGTH)",
			msg_len, HOMA_MAX_MESSAGE_LENGTH);
	proto_tree_add_item_ret_uint(tree, hf_homa_data_incoming, tvb,
			OFF_DATA(incoming),
			SIZEOF_FIELD(struct homa_data_hdr, incoming),
			ENC_BIG_ENDIAN, &incoming);
	homa_dissect_ack_entry(p, tree, OFF_DATA(ack), "Piggy-backed ack", 0,
			       p->fd ? &p->fd->acked[0] : NULL);
	proto_tree_add_item_ret_uint(tree, hf_homa_data_cutoff_version, tvb,
			OFF_DATA(cutoff_version),
			SIZEOF_FIELD(struct homa_data_hdr, cutoff_version),
			ENC_BIG_ENDIAN, &cutoff_version);
	proto_tree_add_item_ret_uint(tree, hf_homa_data_retransmit, tvb,
			OFF_DATA(retransmit),
			SIZEOF_FIELD(struct homa_data_hdr, retransmit),
			ENC_BIG_ENDIAN, &retransmit);
	it = proto_tree_add_item_ret_uint(tree, hf_homa_data_pad, tvb,
			OFF_DATA(pad), SIZEOF_FIELD(struct homa_data_hdr, pad),
			ENC_BIG_ENDIAN, &pad);
	homa_check_reserved(p, it, pad, "pad");

	/* The first segment header must be there (throws otherwise). */
	first_seg_off = tvb_get_ntohl(tvb, OFF_DATA(seg));
	if (first_seg_off == HOMA_SEG_OFFSET_USE_SEQ)
		first_seg_off = sequence;

	seg_data_len = homa_detect_gso ? homa_find_gso_seg_len(tvb, first_seg_off) : 0;
	if (seg_data_len) {
		nsegs = (reported - DATA_PREFIX_LEN + SEG_HDR_LEN + seg_data_len - 1) /
			(SEG_HDR_LEN + seg_data_len);
		it = proto_tree_add_uint(tree, hf_homa_data_num_segments, tvb, 0, 0, nsegs);
		proto_item_set_generated(it);
		expert_add_info_format(p->pinfo, it, &ei_homa_gso,
			"Multi-segment (GSO/TSO) DATA: %u segments of up to %u bytes",
			nsegs, seg_data_len);
	} else {
		nsegs = 1;
	}

	if (p->fd && p->first_pass && !p->fd->seg)
		p->fd->seg = wmem_alloc0_array(wmem_file_scope(), homa_seg_result_t,
					       MIN(nsegs, HOMA_MAX_TRACKED_SEGS));

	off = DATA_PREFIX_LEN;
	for (i = 0; i < nsegs; i++) {
		proto_tree *stree;
		proto_item *sti;
		guint32 raw, seg_off, seg_len;
		guint remaining;
		homa_seg_result_t *res = NULL;

		remaining = reported > (guint)(off + SEG_HDR_LEN) ?
			    reported - (guint)(off + SEG_HDR_LEN) : 0;
		seg_len = (seg_data_len && remaining > seg_data_len) ? seg_data_len : remaining;
		sti = proto_tree_add_none_format(tree, hf_homa_data_segment, tvb, off,
				SEG_HDR_LEN + (int)seg_len, "Segment %u", i + 1);
		stree = proto_item_add_subtree(sti, ett_homa_segment);
		raw = tvb_get_ntohl(tvb, off + (int)offsetof(struct homa_seg_hdr, offset));
		seg_off = (raw == HOMA_SEG_OFFSET_USE_SEQ) ? sequence : raw;
		it = proto_tree_add_uint(stree, hf_homa_data_offset, tvb, off,
					 SEG_HDR_LEN, seg_off);
		if (raw == HOMA_SEG_OFFSET_USE_SEQ) {
			proto_item_append_text(it, " (seg.offset 0xffffffff: taken from sequence)");
			expert_add_info(p->pinfo, it, &ei_homa_seg_use_sequence);
		}
		it = proto_tree_add_uint(stree, hf_homa_data_length, tvb,
					 off + SEG_HDR_LEN, (int)seg_len, seg_len);
		proto_item_set_generated(it);
		proto_item_append_text(sti, ": offset %u, %u bytes", seg_off, seg_len);
		if ((guint64)seg_off + seg_len > msg_len)
			expert_add_info_format(p->pinfo, sti, &ei_homa_seg_past_msg,
				"Segment [%u, %" G_GINT64_MODIFIER "u) runs past the message length %u",
				seg_off, (guint64)seg_off + seg_len, msg_len);
		if (i == 0)
			first_seg_off = seg_off;
		last_seg_end = seg_off + seg_len;

		/* Analysis and reassembly. */
		if (p->fd && p->fd->seg && i < HOMA_MAX_TRACKED_SEGS) {
			res = &p->fd->seg[i];
			if (p->first_pass) {
				homa_analyze_segment(p->fd->rpc, dir, p->pinfo,
						     msg_len, seg_off, seg_len,
						     retransmit != 0, res);
				p->fd->nsegs = i + 1;
			}
			if (i < p->fd->nsegs && homa_analyze) {
				proto_tree *atree;
				proto_item *ati;

				ati = proto_tree_add_none_format(stree, hf_homa_analysis,
						tvb, 0, 0, "Segment analysis");
				atree = proto_item_add_subtree(ati, ett_homa_analysis);
				proto_item_set_generated(ati);
				homa_show_seg_analysis(p, atree, res, dir);
			}
		}

		if (seg_len > 0) {
			gboolean handed = FALSE;

			if (p->pinfo->flags.in_error_pkt) {
				/* quoted in an ICMP error: bytes only, no hand-off */
			} else if (seg_off == 0 && seg_len == msg_len && nsegs == 1 &&
			    len_ok &&
			    tvb_bytes_exist(tvb, off + SEG_HDR_LEN, (int)seg_len)) {
				/* the whole message in one segment */
				proto_tree_add_item(stree, hf_homa_payload, tvb,
						    off + SEG_HDR_LEN, (int)seg_len, ENC_NA);
				homa_hand_off(p, tvb_new_subset_length(tvb,
						off + SEG_HDR_LEN, (int)seg_len),
					      proto_tree_get_root(tree));
				handed = TRUE;
			} else if (homa_reassemble && p->fd && len_ok &&
			    i < p->fd->nsegs &&
			    !(p->fd->seg[i].flags & HOMA_AF_REASSEMBLE)) {
				homa_msg_t *m = &p->fd->rpc->msg[dir];

				if (m->complete_frame) {
					it = proto_tree_add_uint(stree, hf_homa_reassembled_in,
							tvb, 0, 0, m->complete_frame);
					proto_item_set_generated(it);
				}
			} else if (homa_reassemble && p->fd && len_ok &&
			    i < p->fd->nsegs &&
			    (guint64)seg_off + seg_len <= msg_len &&
			    tvb_bytes_exist(tvb, off + SEG_HDR_LEN, (int)seg_len)) {
				fragment_head *fh;
				guint32 id = p->fd->rpc->rpc_num * 2 + (guint32)dir;
				tvbuff_t *msg_tvb;

				p->pinfo->fragmented = TRUE;
				fh = fragment_add(&homa_reassembly_table, tvb,
						  off + SEG_HDR_LEN, p->pinfo, id,
						  NULL, seg_off, seg_len,
						  seg_off + seg_len < msg_len);
				if (fh && (fh->flags & FD_DEFRAGMENTED) &&
				    fh->reassembled_in == p->pinfo->num &&
				    i == nsegs - 1) {
					/* complete in this frame: show the whole message once */
					msg_tvb = process_reassembled_data(tvb,
							off + SEG_HDR_LEN, p->pinfo,
							"Reassembled Homa message", fh,
							&homa_frag_items, NULL, stree);
					if (msg_tvb) {
						proto_tree_add_item(stree, hf_homa_payload, tvb,
								    off + SEG_HDR_LEN, (int)seg_len, ENC_NA);
						homa_hand_off(p, msg_tvb, proto_tree_get_root(tree));
						handed = TRUE;
					}
				} else if (fh && fh->reassembled_in != p->pinfo->num) {
					it = proto_tree_add_uint(stree, hf_homa_reassembled_in,
							tvb, 0, 0, fh->reassembled_in);
					proto_item_set_generated(it);
				}
			}
			if (!handed)
				proto_tree_add_item(stree, hf_homa_payload, tvb,
						    off + SEG_HDR_LEN, (int)seg_len, ENC_NA);
		}
		off += SEG_HDR_LEN + (int)seg_len;
	}

	/* Info column. */
	if (nsegs == 1)
		wmem_strbuf_append_printf(p->info, " %s %u+%u of %u",
				p->from_client ? "request" : "response",
				first_seg_off, last_seg_end - first_seg_off, msg_len);
	else
		wmem_strbuf_append_printf(p->info, " %s %u segs %u..%u of %u",
				p->from_client ? "request" : "response", nsegs,
				first_seg_off, last_seg_end, msg_len);
	if (retransmit)
		wmem_strbuf_append(p->info, " [RETRANSMIT]");
	if (tvb_get_ntoh64(tvb, OFF_DATA(ack) + OFF_ACK(client_id)) != 0)
		wmem_strbuf_append(p->info, " +ack");
}

static void homa_dissect_grant(homa_pkt_t *p)
{
	guint32 offset, priority, resend_all;

	proto_tree_add_item_ret_uint(p->tree, hf_homa_grant_offset, p->tvb,
			OFF_GRANT(offset), SIZEOF_FIELD(struct homa_grant_hdr, offset),
			ENC_BIG_ENDIAN, &offset);
	proto_tree_add_item_ret_uint(p->tree, hf_homa_grant_priority, p->tvb,
			OFF_GRANT(priority), SIZEOF_FIELD(struct homa_grant_hdr, priority),
			ENC_BIG_ENDIAN, &priority);
	proto_tree_add_item_ret_uint(p->tree, hf_homa_grant_resend_all, p->tvb,
			OFF_GRANT(resend_all),
			SIZEOF_FIELD(struct homa_grant_hdr, resend_all),
			ENC_BIG_ENDIAN, &resend_all);
	wmem_strbuf_append_printf(p->info, " up to %u prio %u%s", offset, priority,
				  resend_all ? " [RESEND ALL]" : "");
}

static void homa_dissect_resend(homa_pkt_t *p)
{
	guint32 offset, length, priority = 0;
	gboolean has_prio;

	proto_tree_add_item_ret_uint(p->tree, hf_homa_resend_offset, p->tvb,
			OFF_RESEND(offset), SIZEOF_FIELD(struct homa_resend_hdr, offset),
			ENC_BIG_ENDIAN, &offset);
	proto_tree_add_item_ret_uint(p->tree, hf_homa_resend_length, p->tvb,
			OFF_RESEND(length), SIZEOF_FIELD(struct homa_resend_hdr, length),
			ENC_BIG_ENDIAN, &length);
	/* v4 senders stop before priority; the full module sends it. */
	has_prio = tvb_reported_length(p->tvb) >= sizeof(struct homa_resend_hdr);
	if (has_prio)
		proto_tree_add_item_ret_uint(p->tree, hf_homa_resend_priority, p->tvb,
				OFF_RESEND(priority),
				SIZEOF_FIELD(struct homa_resend_hdr, priority),
				ENC_BIG_ENDIAN, &priority);
	if (length == 0)
		wmem_strbuf_append_printf(p->info, " %u+0 (nothing)", offset);
	else
		wmem_strbuf_append_printf(p->info, " %u..%" G_GINT64_MODIFIER "u (%u bytes)",
					  offset, (guint64)offset + length, length);
	if (has_prio)
		wmem_strbuf_append_printf(p->info, " prio %u", priority);
}

static void homa_dissect_cutoffs(homa_pkt_t *p)
{
	proto_tree *ctree;
	guint32 version, c;
	int i;

	ctree = proto_tree_add_subtree(p->tree, p->tvb, OFF_CUTOFFS(unsched_cutoffs),
			SIZEOF_FIELD(struct homa_cutoffs_hdr, unsched_cutoffs),
			ett_homa_cutoffs, NULL, "Unscheduled cutoffs");
	for (i = 0; i < HOMA_MAX_PRIORITIES; i++) {
		proto_item *it;

		it = proto_tree_add_item_ret_uint(ctree, hf_homa_cutoffs_unsched_cutoff,
				p->tvb, OFF_CUTOFFS(unsched_cutoffs) + i * 4, 4,
				ENC_BIG_ENDIAN, &c);
		proto_item_prepend_text(it, "[%d] ", i);
	}
	proto_tree_add_item_ret_uint(p->tree, hf_homa_cutoffs_version, p->tvb,
			OFF_CUTOFFS(cutoff_version),
			SIZEOF_FIELD(struct homa_cutoffs_hdr, cutoff_version),
			ENC_BIG_ENDIAN, &version);
	wmem_strbuf_append_printf(p->info, " version %u", version);
}

static void homa_dissect_ackpkt(homa_pkt_t *p)
{
	proto_item *it;
	guint32 num_acks, holds, i, shown;
	guint reported = tvb_reported_length(p->tvb);
	int first = OFF_ACKHDR(acks);

	it = proto_tree_add_item_ret_uint(p->tree, hf_homa_ack_num_acks, p->tvb,
			OFF_ACKHDR(num_acks), SIZEOF_FIELD(struct homa_ack_hdr, num_acks),
			ENC_BIG_ENDIAN, &num_acks);
	holds = reported > (guint)first ? (reported - (guint)first) / ACK_LEN : 0;
	if (holds > HOMA_MAX_ACKS_PER_PKT)
		holds = HOMA_MAX_ACKS_PER_PKT;
	if (num_acks > HOMA_MAX_ACKS_PER_PKT)
		expert_add_info_format(p->pinfo, it, &ei_homa_num_acks_over_max,
			"num_acks %u is over HOMA_MAX_ACKS_PER_PKT (%d)",
			num_acks, HOMA_MAX_ACKS_PER_PKT);
	else if (num_acks > holds)
		expert_add_info_format(p->pinfo, it, &ei_homa_num_acks_over_pkt,
			"num_acks %u is more than the %u entries this packet holds",
			num_acks, holds);
	shown = MIN(num_acks, (guint32)HOMA_MAX_ACKS_PER_PKT);
	/* The RPC named in the common header is acknowledged too. */
	it = proto_tree_add_uint64(p->tree, hf_homa_ack_self, p->tvb,
			OFF_COMMON(sender_id), SIZEOF_FIELD(struct homa_common_hdr, sender_id),
			p->rpc_id);
	proto_item_set_generated(it);
	if (p->fd && p->fd->rpc) {
		homa_rpc_t *rpc = p->fd->rpc;

		if (p->first_pass && rpc->acked_frame == 0)
			rpc->acked_frame = p->pinfo->num;
		if (rpc->msg[HOMA_DIR_RESPONSE].first_frame) {
			it = proto_tree_add_uint(p->tree, hf_homa_analysis_acked_response_in,
					p->tvb, 0, 0, rpc->msg[HOMA_DIR_RESPONSE].first_frame);
			proto_item_set_generated(it);
		}
	}
	if (num_acks == 0)
		wmem_strbuf_append(p->info, " acks it");
	else
		wmem_strbuf_append_printf(p->info, " acks it and %u more", num_acks);
	/* Entries past the packet's end throw: the packet is malformed. */
	for (i = 0; i < shown; i++)
		homa_dissect_ack_entry(p, p->tree, first + (int)i * ACK_LEN, "Ack",
				       i + 1, p->fd ? &p->fd->acked[i + 1] : NULL);
}

/* ------------------------------------------------------------------ */
/* The packet dissector.                                              */
/* ------------------------------------------------------------------ */

static void homa_queue_tap(homa_pkt_t *p)
{
	homa_tap_info_t *ti;

	if (p->pinfo->flags.in_error_pkt)
		return;
	ti = wmem_new0(p->pinfo->pool, homa_tap_info_t);
	ti->type = (guint8)p->type;
	ti->sport = p->sport;
	ti->dport = p->dport;
	ti->rpc_id = p->rpc_id;
	ti->from_client = p->from_client;
	ti->payload_len = tvb_reported_length(p->tvb);
	if (p->fd && p->fd->rpc && p->type == DATA && !p->from_client) {
		homa_rpc_t *rpc = p->fd->rpc;

		if (rpc->msg[HOMA_DIR_RESPONSE].first_frame == p->pinfo->num &&
		    rpc->msg[HOMA_DIR_REQUEST].first_frame != 0) {
			ti->first_response = TRUE;
			ti->req_time = rpc->msg[HOMA_DIR_REQUEST].first_ts;
			ti->req_length = rpc->msg[HOMA_DIR_REQUEST].length;
		}
	}
	tap_queue_packet(homa_tap, p->pinfo, ti);
}

static int dissect_homa_common(tvbuff_t *tvb, packet_info *pinfo,
			       proto_tree *tree, gboolean hijacked)
{
	homa_pkt_t pkt, *p = &pkt;
	proto_item *it;
	proto_tree *ctree;
	guint32 sport, dport, type, doff, v;
	guint reported = tvb_reported_length(tvb);
	int min_len;

	memset(p, 0, sizeof(*p));
	p->tvb = tvb;
	p->pinfo = pinfo;
	p->hijacked = hijacked;
	p->first_pass = !PINFO_FD_VISITED(pinfo);
	p->info = wmem_strbuf_new(pinfo->pool, "");

	col_set_str(pinfo->cinfo, COL_PROTOCOL, hijacked ? "Homa/TCP" : "Homa");
	col_clear(pinfo->cinfo, COL_INFO);

	p->ti = proto_tree_add_item(tree, proto_homa, tvb, 0, -1, ENC_NA);
	p->tree = proto_item_add_subtree(p->ti, ett_homa);

	if (reported < (guint)COMMON_LEN) {
		col_add_fstr(pinfo->cinfo, COL_INFO, "Truncated Homa header (%u of %d bytes)",
			     reported, COMMON_LEN);
		expert_add_info_format(pinfo, p->ti, &ei_homa_truncated,
			"Truncated common header: %u bytes, %d needed", reported, COMMON_LEN);
	}

	if (hijacked) {
		it = proto_tree_add_boolean(p->tree, hf_homa_tcp_hijacked, tvb, 0, 0, TRUE);
		proto_item_set_generated(it);
		expert_add_info(pinfo, it, &ei_homa_tcp_hijack);
	}

	ctree = proto_tree_add_subtree(p->tree, tvb, 0, MIN((int)reported, COMMON_LEN),
				       ett_homa_common, NULL, "Common header");
	proto_tree_add_item_ret_uint(ctree, hf_homa_sport, tvb, OFF_COMMON(sport),
			SIZEOF_FIELD(struct homa_common_hdr, sport), ENC_BIG_ENDIAN, &sport);
	proto_tree_add_item_ret_uint(ctree, hf_homa_dport, tvb, OFF_COMMON(dport),
			SIZEOF_FIELD(struct homa_common_hdr, dport), ENC_BIG_ENDIAN, &dport);
	it = proto_tree_add_item(ctree, hf_homa_port, tvb, OFF_COMMON(sport),
				 SIZEOF_FIELD(struct homa_common_hdr, sport), ENC_BIG_ENDIAN);
	proto_item_set_hidden(it);
	it = proto_tree_add_item(ctree, hf_homa_port, tvb, OFF_COMMON(dport),
				 SIZEOF_FIELD(struct homa_common_hdr, dport), ENC_BIG_ENDIAN);
	proto_item_set_hidden(it);
	p->sport = (guint16)sport;
	p->dport = (guint16)dport;
	pinfo->srcport = sport;
	pinfo->destport = dport;
	col_add_fstr(pinfo->cinfo, COL_INFO, "%u " UTF8_RIGHTWARDS_ARROW " %u", sport, dport);
	if (reported < (guint)COMMON_LEN)
		col_append_str(pinfo->cinfo, COL_INFO, " [TRUNCATED]");

	proto_tree_add_item(ctree, hf_homa_sequence, tvb, OFF_COMMON(sequence),
			SIZEOF_FIELD(struct homa_common_hdr, sequence), ENC_BIG_ENDIAN);
	it = proto_tree_add_item_ret_uint(ctree, hf_homa_reserved_ack, tvb, OFF_COMMON(ack),
			SIZEOF_FIELD(struct homa_common_hdr, ack), ENC_BIG_ENDIAN, &v);
	homa_check_reserved(p, it, v, "ack");
	it = proto_tree_add_item_ret_uint(ctree, hf_homa_type, tvb, OFF_COMMON(type),
			SIZEOF_FIELD(struct homa_common_hdr, type), ENC_BIG_ENDIAN, &type);
	p->type = type;
	if (!homa_type_valid(type)) {
		expert_add_info_format(pinfo, it, &ei_homa_unknown_type,
			"Unknown packet type 0x%02x (known: 0x%02x..0x%02x)",
			type, HOMA_TYPE_MIN, HOMA_TYPE_MAX);
		col_prepend_fstr(pinfo->cinfo, COL_INFO, "Unknown type 0x%02x ", type);
	} else {
		col_prepend_fstr(pinfo->cinfo, COL_INFO, "%s ",
				 val_to_str_const(type, homa_type_vals, "?"));
	}

	it = proto_tree_add_item_ret_uint(ctree, hf_homa_doff, tvb, OFF_COMMON(doff),
			SIZEOF_FIELD(struct homa_common_hdr, doff), ENC_BIG_ENDIAN, &doff);
	{
		proto_item *hl = proto_tree_add_uint(ctree, hf_homa_hdr_len, tvb,
				OFF_COMMON(doff), 1, homa_doff_bytes(doff));

		proto_item_set_generated(hl);
	}
	if (!homa_doff_ok(type, (guint8)doff))
		expert_add_info_format(pinfo, it, &ei_homa_doff_mismatch,
			"doff 0x%02x (%u bytes) disagrees with a %s packet (header %d bytes)",
			doff, homa_doff_bytes(doff),
			val_to_str_const(type, homa_type_vals, "?"),
			homa_type_hdr_len(type));
	it = proto_tree_add_item_ret_uint(ctree, hf_homa_reserved_flags, tvb, OFF_COMMON(flags),
			SIZEOF_FIELD(struct homa_common_hdr, flags), ENC_BIG_ENDIAN, &v);
	if (!hijacked)
		homa_check_reserved(p, it, v, "flags");
	it = proto_tree_add_item_ret_uint(ctree, hf_homa_reserved_window, tvb, OFF_COMMON(window),
			SIZEOF_FIELD(struct homa_common_hdr, window), ENC_BIG_ENDIAN, &v);
	homa_check_reserved(p, it, v, "window");
	it = proto_tree_add_item_ret_uint(ctree, hf_homa_checksum, tvb, OFF_COMMON(checksum),
			SIZEOF_FIELD(struct homa_common_hdr, checksum), ENC_BIG_ENDIAN, &v);
	if (v != 0 && !hijacked)
		expert_add_info(pinfo, it, &ei_homa_checksum_nonzero);
	if (hijacked) {
		proto_tree_add_item(ctree, hf_homa_tcp_urgent, tvb, OFF_COMMON(urgent),
				    SIZEOF_FIELD(struct homa_common_hdr, urgent), ENC_BIG_ENDIAN);
	} else {
		it = proto_tree_add_item_ret_uint(ctree, hf_homa_reserved_urgent, tvb,
				OFF_COMMON(urgent),
				SIZEOF_FIELD(struct homa_common_hdr, urgent), ENC_BIG_ENDIAN, &v);
		homa_check_reserved(p, it, v, "urgent");
	}
	proto_tree_add_item_ret_uint64(ctree, hf_homa_sender_id, tvb, OFF_COMMON(sender_id),
			SIZEOF_FIELD(struct homa_common_hdr, sender_id), ENC_BIG_ENDIAN,
			&p->sender_id);
	p->rpc_id = p->sender_id & ~(guint64)1;
	p->from_client = (p->sender_id & 1) == 0;
	it = proto_tree_add_uint64(p->tree, hf_homa_rpc_id, tvb, OFF_COMMON(sender_id),
				   SIZEOF_FIELD(struct homa_common_hdr, sender_id), p->rpc_id);
	proto_item_set_generated(it);
	it = proto_tree_add_boolean(p->tree, hf_homa_from_client, tvb, OFF_COMMON(sender_id),
				    SIZEOF_FIELD(struct homa_common_hdr, sender_id), p->from_client);
	proto_item_set_generated(it);

	proto_item_append_text(p->ti, ", %s, Src Port: %u, Dst Port: %u, RPC %" G_GINT64_MODIFIER "u (%s)",
			       val_to_str(type, homa_type_vals, "type 0x%02x"), sport, dport,
			       p->rpc_id, p->from_client ? "from client" : "from server");
	col_append_fstr(pinfo->cinfo, COL_INFO, " id %" G_GINT64_MODIFIER "u", p->rpc_id);
	if (type != DATA)
		col_append_str(pinfo->cinfo, COL_INFO,
			       p->from_client ? " from client" : " from server");

	/* Analysis state: one RPC per (client, server, id). */
	p->analyze = (homa_analyze || homa_reassemble) && !pinfo->flags.in_error_pkt &&
		     homa_type_valid(type);
	if (p->analyze) {
		p->fd = (homa_frame_data_t *)p_get_proto_data(wmem_file_scope(), pinfo,
							      proto_homa, 0);
		if (!p->fd && p->first_pass) {
			p->fd = wmem_new0(wmem_file_scope(), homa_frame_data_t);
			if (p->from_client)
				p->fd->rpc = homa_rpc_lookup(&pinfo->src, p->sport,
						&pinfo->dst, p->dport, p->rpc_id, TRUE);
			else
				p->fd->rpc = homa_rpc_lookup(&pinfo->dst, p->dport,
						&pinfo->src, p->sport, p->rpc_id, TRUE);
			p_add_proto_data(wmem_file_scope(), pinfo, proto_homa, 0, p->fd);
			/* The message's first frame, known before the tap runs. */
			if (type == DATA && tvb_bytes_exist(tvb, OFF_DATA(message_length), 4)) {
				homa_msg_t *m = &p->fd->rpc->msg[p->from_client ?
						HOMA_DIR_REQUEST : HOMA_DIR_RESPONSE];

				if (m->first_frame == 0) {
					m->first_frame = pinfo->num;
					m->first_ts = pinfo->abs_ts;
					m->length = tvb_get_ntohl(tvb, OFF_DATA(message_length));
				}
			}
		}
	}

	min_len = homa_type_min_len(type);
	if (min_len && reported < (guint)min_len && reported >= (guint)COMMON_LEN) {
		expert_add_info_format(pinfo, p->ti, &ei_homa_truncated,
			"Truncated %s header: %u bytes, %d needed",
			val_to_str_const(type, homa_type_vals, "?"), reported, min_len);
		col_append_str(pinfo->cinfo, COL_INFO, " [TRUNCATED]");
	}

	/* Queue the tap before anything below can throw. */
	homa_queue_tap(p);

	/* The rest of the Info column is built while decoding. */
	switch (type) {
	case DATA:
		homa_dissect_data(p);
		break;
	case GRANT:
		homa_dissect_grant(p);
		break;
	case RESEND:
		homa_dissect_resend(p);
		break;
	case CUTOFFS:
		homa_dissect_cutoffs(p);
		break;
	case ACK:
		homa_dissect_ackpkt(p);
		break;
	default:
		break;	/* UNKNOWN, BUSY, FREEZE, NEED_ACK: common header only */
	}
	col_append_str(pinfo->cinfo, COL_INFO, wmem_strbuf_get_str(p->info));

	if (p->fd && p->fd->rpc && homa_analyze) {
		proto_tree *atree;
		proto_item *ati;

		ati = proto_tree_add_none_format(p->tree, hf_homa_analysis, tvb, 0, 0,
						 "RPC analysis");
		atree = proto_item_add_subtree(ati, ett_homa_analysis);
		proto_item_set_generated(ati);
		homa_show_rpc_links(p, atree);
		if (p->fd->nsegs) {
			guint32 fl = 0;
			guint i;

			for (i = 0; i < p->fd->nsegs; i++)
				fl |= p->fd->seg[i].flags;
			if (fl & HOMA_AF_RETRANS)
				col_append_str(pinfo->cinfo, COL_INFO, " [Retransmission]");
			if (fl & HOMA_AF_DUP)
				col_append_str(pinfo->cinfo, COL_INFO, " [Duplicate]");
			if (fl & HOMA_AF_OOO)
				col_append_str(pinfo->cinfo, COL_INFO, " [Out-of-order]");
			if (fl & HOMA_AF_HOLE)
				col_append_str(pinfo->cinfo, COL_INFO, " [Previous segment not captured]");
		}
	}

	/* Bytes after a control header: padding (or garbage). */
	if (type != DATA && homa_type_valid(type)) {
		int hl = homa_type_hdr_len(type);

		/* A packet shorter than the whole header (a v4 RESEND)
		 * holds its type's minimum.
		 */
		if (reported < (guint)hl)
			hl = min_len;
		if (reported > (guint)hl)
			proto_tree_add_item(p->tree, hf_homa_padding, tvb, hl, -1, ENC_NA);
	}
	proto_item_set_len(p->ti, (gint)MIN(reported, tvb_captured_length(tvb)));
	/*
	 * A header shorter than its type needs is malformed even when nothing
	 * above read past the end (e.g. an ACK with num_acks 0 cut at 40 bytes).
	 */
	if (min_len && reported < (guint)min_len)
		THROW(ReportedBoundsError);
	return (int)tvb_captured_length(tvb);
}

static int dissect_homa(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			void *data _U_)
{
	return dissect_homa_common(tvb, pinfo, tree, FALSE);
}

/*
 * TCP hijacking: the full upstream module can send Homa with IP protocol
 * TCP so that NICs apply TSO; such packets carry urgent pointer
 * HOMA_TCP_URGENT.
 * When the preference is on, this sits in front of TCP: Homa-looking
 * packets are Homa, everything else goes to TCP unchanged.
 */
static gboolean homa_looks_hijacked(tvbuff_t *tvb)
{
	guint8 type;

	if (tvb_captured_length(tvb) < (guint)COMMON_LEN)
		return FALSE;
	if (tvb_get_ntohs(tvb, OFF_COMMON(urgent)) != HOMA_TCP_URGENT)
		return FALSE;
	type = tvb_get_guint8(tvb, OFF_COMMON(type));
	return homa_type_valid(type);
}

static int dissect_homa_or_tcp(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			       void *data)
{
	if (homa_tcp_hijack && homa_looks_hijacked(tvb))
		return dissect_homa_common(tvb, pinfo, tree, TRUE);
	if (tcp_handle)
		return call_dissector_with_data(tcp_handle, tvb, pinfo, tree, data);
	return call_data_dissector(tvb, pinfo, tree);
}

/* ------------------------------------------------------------------ */
/* Conversation and endpoint tables.                                  */
/* ------------------------------------------------------------------ */

static const char *homa_conv_get_filter_type(conv_item_t *conv, conv_filter_type_e filter)
{
	gboolean v6 = conv->src_address.type == AT_IPv6;

	switch (filter) {
	case CONV_FT_SRC_PORT:	return "homa.sport";
	case CONV_FT_DST_PORT:	return "homa.dport";
	case CONV_FT_ANY_PORT:	return "homa.port";
	case CONV_FT_SRC_ADDRESS:
		return conv->src_address.type == AT_IPv4 ? "ip.src" : v6 ? "ipv6.src" : CONV_FILTER_INVALID;
	case CONV_FT_DST_ADDRESS:
		return conv->src_address.type == AT_IPv4 ? "ip.dst" : v6 ? "ipv6.dst" : CONV_FILTER_INVALID;
	case CONV_FT_ANY_ADDRESS:
		return conv->src_address.type == AT_IPv4 ? "ip.addr" : v6 ? "ipv6.addr" : CONV_FILTER_INVALID;
	default:
		return CONV_FILTER_INVALID;
	}
}

static ct_dissector_info_t homa_ct_dissector_info = { &homa_conv_get_filter_type };

static const char *homa_endpoint_get_filter_type(endpoint_item_t *endpoint,
						 conv_filter_type_e filter)
{
	if (filter == CONV_FT_SRC_PORT || filter == CONV_FT_DST_PORT ||
	    filter == CONV_FT_ANY_PORT)
		return "homa.port";
	if (filter == CONV_FT_SRC_ADDRESS || filter == CONV_FT_DST_ADDRESS ||
	    filter == CONV_FT_ANY_ADDRESS) {
		if (endpoint->myaddress.type == AT_IPv4)
			return "ip.addr";
		if (endpoint->myaddress.type == AT_IPv6)
			return "ipv6.addr";
	}
	return CONV_FILTER_INVALID;
}

static et_dissector_info_t homa_endpoint_dissector_info = { &homa_endpoint_get_filter_type };

static tap_packet_status homa_conversation_packet(void *pct, packet_info *pinfo,
		epan_dissect_t *edt _U_, const void *vip, tap_flags_t flags)
{
	conv_hash_t *hash = (conv_hash_t *)pct;
	const homa_tap_info_t *ti = (const homa_tap_info_t *)vip;

	hash->flags = flags;
	add_conversation_table_data(hash, &pinfo->src, &pinfo->dst, ti->sport, ti->dport,
				    1, pinfo->fd->pkt_len, &pinfo->rel_ts, &pinfo->abs_ts,
				    &homa_ct_dissector_info, CONVERSATION_NONE);
	return TAP_PACKET_REDRAW;
}

static tap_packet_status homa_endpoint_packet(void *pit, packet_info *pinfo,
		epan_dissect_t *edt _U_, const void *vip, tap_flags_t flags)
{
	conv_hash_t *hash = (conv_hash_t *)pit;
	const homa_tap_info_t *ti = (const homa_tap_info_t *)vip;

	hash->flags = flags;
	add_endpoint_table_data(hash, &pinfo->src, ti->sport, TRUE, 1,
				pinfo->fd->pkt_len, &homa_endpoint_dissector_info,
				CONVERSATION_NONE);
	add_endpoint_table_data(hash, &pinfo->dst, ti->dport, FALSE, 1,
				pinfo->fd->pkt_len, &homa_endpoint_dissector_info,
				CONVERSATION_NONE);
	return TAP_PACKET_REDRAW;
}

/* ------------------------------------------------------------------ */
/* Service response time: first request DATA to first response DATA.  */
/* ------------------------------------------------------------------ */

#define HOMA_SRT_ROWS 3

static int homa_srt_row(guint32 req_length)
{
	if (req_length <= 1400)
		return 0;
	if (req_length <= 65536)
		return 1;
	return 2;
}

static void homa_srt_init(struct register_srt *srt _U_, GArray *srt_array)
{
	srt_stat_table *t = init_srt_table("Homa RPC response time", NULL, srt_array,
					   HOMA_SRT_ROWS, "Request size", NULL, NULL);

	init_srt_table_row(t, 0, "request <= 1400 B");
	init_srt_table_row(t, 1, "request <= 64 KiB");
	init_srt_table_row(t, 2, "request > 64 KiB");
}

static tap_packet_status homa_srt_packet(void *pss, packet_info *pinfo,
		epan_dissect_t *edt _U_, const void *prv, tap_flags_t flags _U_)
{
	srt_data_t *data = (srt_data_t *)pss;
	const homa_tap_info_t *ti = (const homa_tap_info_t *)prv;
	srt_stat_table *t;

	if (!ti->first_response)
		return TAP_PACKET_DONT_REDRAW;
	t = g_array_index(data->srt_array, srt_stat_table *, 0);
	add_srt_table_data(t, homa_srt_row(ti->req_length), &ti->req_time, pinfo);
	return TAP_PACKET_REDRAW;
}

/* ------------------------------------------------------------------ */
/* Registration.                                                      */
/* ------------------------------------------------------------------ */

static void homa_prefs_apply(void)
{
	if (!homa_tcp_handle)
		return;
	if (homa_tcp_hijack) {
		if (!tcp_handle)
			tcp_handle = find_dissector("tcp");
		dissector_change_uint("ip.proto", IP_PROTO_TCP, homa_tcp_handle);
	} else {
		dissector_reset_uint("ip.proto", IP_PROTO_TCP);
	}
}

void proto_register_homa(void)
{
	static hf_register_info hf[] = {
		{ &hf_homa_sport, { "Source Port", "homa.sport", FT_UINT16, BASE_DEC,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_dport, { "Destination Port", "homa.dport", FT_UINT16, BASE_DEC,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_port, { "Source or Destination Port", "homa.port", FT_UINT16,
			BASE_DEC, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_sequence, { "Sequence", "homa.sequence", FT_UINT32, BASE_DEC,
			NULL, 0x0, "DATA: offset of the packet's first byte (TCP sequence position)",
			HFILL } },
		{ &hf_homa_reserved_ack, { "Reserved (ack)", "homa.reserved.ack", FT_UINT24,
			BASE_HEX, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_type, { "Type", "homa.type", FT_UINT8, BASE_HEX,
			VALS(homa_type_vals), 0x0, NULL, HFILL } },
		{ &hf_homa_doff, { "Data offset (doff)", "homa.doff", FT_UINT8, BASE_HEX,
			NULL, 0x0, "Header length in 4-byte words, in the upper nibble", HFILL } },
		{ &hf_homa_hdr_len, { "Header length (from doff)", "homa.hdr_len", FT_UINT32,
			BASE_DEC|BASE_UNIT_STRING, &units_byte_bytes, 0x0, NULL, HFILL } },
		{ &hf_homa_reserved_flags, { "Reserved (flags)", "homa.reserved.flags",
			FT_UINT8, BASE_HEX, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_reserved_window, { "Reserved (window)", "homa.reserved.window",
			FT_UINT16, BASE_HEX, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_checksum, { "Checksum", "homa.checksum", FT_UINT16, BASE_HEX,
			NULL, 0x0, "Always 0: Homa relies on the link layer", HFILL } },
		{ &hf_homa_reserved_urgent, { "Reserved (urgent)", "homa.reserved.urgent",
			FT_UINT16, BASE_HEX, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_tcp_urgent, { "TCP urgent pointer (hijack marker)",
			"homa.tcp_urgent", FT_UINT16, BASE_HEX, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_sender_id, { "Sender ID", "homa.sender_id", FT_UINT64, BASE_DEC,
			NULL, 0x0, "RPC id as the sender of this packet knows it", HFILL } },
		{ &hf_homa_rpc_id, { "RPC ID", "homa.rpc_id", FT_UINT64, BASE_DEC, NULL, 0x0,
			"Sender ID with the client bit cleared: equal in both directions",
			HFILL } },
		{ &hf_homa_from_client, { "Sent by", "homa.from_client", FT_BOOLEAN,
			BASE_NONE, TFS(&tfs_homa_sender), 0x0,
			"True when the sender is the RPC's client (even sender ID)", HFILL } },
		{ &hf_homa_tcp_hijacked, { "Carried in a TCP header (hijacked)",
			"homa.tcp_hijacked", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },

		{ &hf_homa_data_message_length, { "Message length", "homa.data.message_length",
			FT_UINT32, BASE_DEC, NULL, 0x0, "Length of the whole message", HFILL } },
		{ &hf_homa_data_incoming, { "Incoming", "homa.data.incoming", FT_UINT32,
			BASE_DEC, NULL, 0x0, "Full Homa: bytes granted; reserved in v4", HFILL } },
		{ &hf_homa_data_cutoff_version, { "Cutoff version", "homa.data.cutoff_version",
			FT_UINT16, BASE_DEC, NULL, 0x0, "Full Homa; reserved in v4", HFILL } },
		{ &hf_homa_data_retransmit, { "Retransmit", "homa.data.retransmit", FT_UINT8,
			BASE_DEC, NULL, 0x0, "1 when sent because of a RESEND", HFILL } },
		{ &hf_homa_data_pad, { "Reserved (pad)", "homa.data.pad", FT_UINT24, BASE_HEX,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_data_segment, { "Segment", "homa.data.segment", FT_NONE, BASE_NONE,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_data_num_segments, { "Segments in this packet",
			"homa.data.num_segments", FT_UINT32, BASE_DEC, NULL, 0x0,
			"More than 1 for a GSO/TSO packet captured on the sender", HFILL } },
		{ &hf_homa_data_offset, { "Segment offset", "homa.data.offset", FT_UINT32,
			BASE_DEC, NULL, 0x0, "Offset of the segment's data in the message",
			HFILL } },
		{ &hf_homa_data_length, { "Segment length", "homa.data.length", FT_UINT32,
			BASE_DEC, NULL, 0x0, "Bytes of message data in the segment", HFILL } },
		{ &hf_homa_payload, { "Payload", "homa.payload", FT_BYTES, BASE_NONE, NULL,
			0x0, NULL, HFILL } },

		{ &hf_homa_ack, { "Ack", "homa.ack", FT_NONE, BASE_NONE, NULL, 0x0, NULL,
			HFILL } },
		{ &hf_homa_ack_client_id, { "Acked client ID", "homa.ack.client_id",
			FT_UINT64, BASE_DEC, NULL, 0x0, "0 means no ack", HFILL } },
		{ &hf_homa_ack_server_port, { "Acked server port", "homa.ack.server_port",
			FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_ack_self, { "Acknowledges RPC (from the common header)",
			"homa.ack.self", FT_UINT64, BASE_DEC, NULL, 0x0,
			"An ACK packet also acknowledges the RPC its sender_id names", HFILL } },
		{ &hf_homa_ack_num_acks, { "Number of acks", "homa.ack.num_acks", FT_UINT16,
			BASE_DEC, NULL, 0x0, NULL, HFILL } },

		{ &hf_homa_grant_offset, { "Granted up to", "homa.grant.offset", FT_UINT32,
			BASE_DEC, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_grant_priority, { "Priority", "homa.grant.priority", FT_UINT8,
			BASE_DEC, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_grant_resend_all, { "Resend all", "homa.grant.resend_all",
			FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL } },

		{ &hf_homa_resend_offset, { "Resend offset", "homa.resend.offset", FT_UINT32,
			BASE_DEC, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_resend_length, { "Resend length", "homa.resend.length", FT_UINT32,
			BASE_DEC, NULL, 0x0, "0 asks for nothing", HFILL } },
		{ &hf_homa_resend_priority, { "Priority", "homa.resend.priority", FT_UINT8,
			BASE_DEC, NULL, 0x0, "Full Homa; absent from 36-byte v4 RESENDs", HFILL } },

		{ &hf_homa_cutoffs_unsched_cutoff, { "Unscheduled cutoff",
			"homa.cutoffs.unsched_cutoff", FT_UINT32, BASE_DEC, NULL, 0x0, NULL,
			HFILL } },
		{ &hf_homa_cutoffs_version, { "Cutoff version", "homa.cutoffs.version",
			FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },

		{ &hf_homa_padding, { "Padding", "homa.padding", FT_BYTES, BASE_NONE, NULL,
			0x0, "Bytes after the header of a control packet", HFILL } },

		{ &hf_homa_analysis, { "RPC analysis", "homa.analysis", FT_NONE, BASE_NONE,
			NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_analysis_request_in, { "Request in", "homa.analysis.request_in",
			FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0,
			"First DATA frame of this RPC's request", HFILL } },
		{ &hf_homa_analysis_response_in, { "Response in", "homa.analysis.response_in",
			FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0,
			"First DATA frame of this RPC's response", HFILL } },
		{ &hf_homa_analysis_time, { "Response time", "homa.analysis.time",
			FT_RELATIVE_TIME, BASE_NONE, NULL, 0x0,
			"From the request's first DATA to the response's first DATA", HFILL } },
		{ &hf_homa_analysis_bytes_received, { "Message bytes seen so far",
			"homa.analysis.bytes_received", FT_UINT32, BASE_DEC, NULL, 0x0, NULL,
			HFILL } },
		{ &hf_homa_analysis_message_complete_in, { "Message complete in",
			"homa.analysis.message_complete_in", FT_FRAMENUM, BASE_NONE, NULL, 0x0,
			"Frame after which every byte of the message had been seen", HFILL } },
		{ &hf_homa_analysis_hole, { "Bytes not captured before this segment",
			"homa.analysis.hole", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_analysis_incomplete, { "Message incomplete",
			"homa.analysis.incomplete", FT_UINT32, BASE_DEC, NULL, 0x0,
			"Bytes of the message never seen in the whole capture", HFILL } },
		{ &hf_homa_analysis_acked_response_in, { "Acked RPC's response in",
			"homa.analysis.acked_response_in", FT_FRAMENUM, BASE_NONE,
			FRAMENUM_TYPE(FT_FRAMENUM_ACK), 0x0, NULL, HFILL } },

		{ &hf_homa_fragments, { "Message segments", "homa.segments", FT_NONE,
			BASE_NONE, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_fragment, { "Message segment", "homa.segment", FT_FRAMENUM,
			BASE_NONE, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_fragment_overlap, { "Segment overlap", "homa.segment.overlap",
			FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_fragment_overlap_conflicts, { "Conflicting data in overlap",
			"homa.segment.overlap.conflict", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL,
			HFILL } },
		{ &hf_homa_fragment_multiple_tails, { "Multiple tail segments",
			"homa.segment.multipletails", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL,
			HFILL } },
		{ &hf_homa_fragment_too_long_fragment, { "Segment too long",
			"homa.segment.toolongfragment", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL,
			HFILL } },
		{ &hf_homa_fragment_error, { "Reassembly error", "homa.segment.error",
			FT_FRAMENUM, BASE_NONE, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_fragment_count, { "Segment count", "homa.segment.count",
			FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_reassembled_in, { "Reassembled message in frame",
			"homa.reassembled_in", FT_FRAMENUM, BASE_NONE, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_reassembled_length, { "Reassembled message length",
			"homa.reassembled.length", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
		{ &hf_homa_reassembled_data, { "Reassembled message", "homa.reassembled.data",
			FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	};

	static gint *ett[] = {
		&ett_homa,
		&ett_homa_common,
		&ett_homa_segment,
		&ett_homa_ack,
		&ett_homa_cutoffs,
		&ett_homa_analysis,
		&ett_homa_fragment,
		&ett_homa_fragments,
	};

	static ei_register_info ei[] = {
		{ &ei_homa_truncated, { "homa.truncated", PI_MALFORMED, PI_ERROR,
			"Truncated Homa header", EXPFILL } },
		{ &ei_homa_unknown_type, { "homa.type.unknown", PI_PROTOCOL, PI_WARN,
			"Unknown packet type", EXPFILL } },
		{ &ei_homa_doff_mismatch, { "homa.doff.mismatch", PI_PROTOCOL, PI_WARN,
			"doff disagrees with the packet type", EXPFILL } },
		{ &ei_homa_seg_past_msg, { "homa.data.past_message", PI_PROTOCOL, PI_ERROR,
			"Segment runs past the message length", EXPFILL } },
		{ &ei_homa_msg_too_long, { "homa.data.message_length.invalid", PI_PROTOCOL,
			PI_ERROR, "Message length over HOMA_MAX_MESSAGE_LENGTH or 0", EXPFILL } },
		{ &ei_homa_num_acks_over_max, { "homa.ack.num_acks.over_max", PI_PROTOCOL,
			PI_ERROR, "num_acks over HOMA_MAX_ACKS_PER_PKT", EXPFILL } },
		{ &ei_homa_num_acks_over_pkt, { "homa.ack.num_acks.over_packet", PI_PROTOCOL,
			PI_ERROR, "num_acks over what the packet holds", EXPFILL } },
		{ &ei_homa_reserved_nonzero, { "homa.reserved.nonzero", PI_PROTOCOL, PI_NOTE,
			"Reserved field is not zero", EXPFILL } },
		{ &ei_homa_checksum_nonzero, { "homa.checksum.nonzero", PI_PROTOCOL, PI_NOTE,
			"Checksum is not zero (Homa does not use it)", EXPFILL } },
		{ &ei_homa_seg_use_sequence, { "homa.data.offset.from_sequence", PI_PROTOCOL,
			PI_CHAT, "seg.offset is 0xffffffff: offset taken from sequence", EXPFILL } },
		{ &ei_homa_gso, { "homa.data.gso", PI_PROTOCOL, PI_CHAT,
			"Multi-segment (GSO/TSO) DATA", EXPFILL } },
		{ &ei_homa_retransmission, { "homa.analysis.retransmission", PI_SEQUENCE,
			PI_NOTE, "Retransmitted DATA (answer to a RESEND)", EXPFILL } },
		{ &ei_homa_duplicate, { "homa.analysis.duplicate", PI_SEQUENCE, PI_NOTE,
			"Duplicate segment: all its bytes were seen before", EXPFILL } },
		{ &ei_homa_out_of_order, { "homa.analysis.out_of_order", PI_SEQUENCE, PI_WARN,
			"Out-of-order segment", EXPFILL } },
		{ &ei_homa_hole, { "homa.analysis.lost_segment", PI_SEQUENCE, PI_WARN,
			"Previous segment(s) not captured", EXPFILL } },
		{ &ei_homa_incomplete, { "homa.analysis.incomplete_message", PI_SEQUENCE, PI_WARN,
			"Message never complete in the capture", EXPFILL } },
		{ &ei_homa_no_response, { "homa.analysis.no_response", PI_SEQUENCE, PI_NOTE,
			"No response to this request in the capture", EXPFILL } },
		{ &ei_homa_no_request, { "homa.analysis.no_request", PI_SEQUENCE, PI_NOTE,
			"No request for this response in the capture", EXPFILL } },
		{ &ei_homa_msg_length_changed, { "homa.analysis.message_length_changed",
			PI_PROTOCOL, PI_WARN,
			"Message length differs from earlier DATA of the same message", EXPFILL } },
		{ &ei_homa_tcp_hijack, { "homa.tcp_hijack", PI_PROTOCOL, PI_CHAT,
			"Homa carried with IP protocol TCP (urgent pointer "
			G_STRINGIFY(HOMA_TCP_URGENT) ")", EXPFILL } },
	};

	module_t *homa_module;
	expert_module_t *expert_homa;

	proto_homa = proto_register_protocol("Homa Transport Protocol", "Homa", "homa");
	proto_register_field_array(proto_homa, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	expert_homa = expert_register_protocol(proto_homa);
	expert_register_field_array(expert_homa, ei, array_length(ei));

	homa_module = prefs_register_protocol(proto_homa, homa_prefs_apply);
	prefs_register_bool_preference(homa_module, "analyze_rpcs",
		"Analyze RPCs",
		"Pair requests with responses, measure response times, and flag "
		"retransmitted, duplicate, out-of-order and missing segments",
		&homa_analyze);
	prefs_register_bool_preference(homa_module, "reassemble",
		"Reassemble messages",
		"Reassemble the segments of a message and hand the whole message to "
		"the sub-dissector registered for the server port (homa.port table) "
		"or to a heuristic sub-dissector",
		&homa_reassemble);
	prefs_register_bool_preference(homa_module, "try_heuristic_first",
		"Try heuristic sub-dissectors first",
		"Try heuristic sub-dissectors before the one registered for the port",
		&homa_try_heuristic_first);
	prefs_register_bool_preference(homa_module, "tcp_hijack",
		"Decode Homa carried as TCP (hijacking)",
		"Decode TCP packets whose urgent pointer is " G_STRINGIFY(HOMA_TCP_URGENT)
		" and whose type byte "
		"is a Homa type as Homa, as the full upstream module sends them for "
		"NIC offloads",
		&homa_tcp_hijack);
	prefs_register_bool_preference(homa_module, "detect_gso",
		"Detect multi-segment (GSO/TSO) DATA",
		"Split DATA packets captured on the sender before segmentation into "
		"their segments",
		&homa_detect_gso);
	prefs_register_uint_preference(homa_module, "gso_min_len",
		"Smallest Homa packet checked for GSO",
		"DATA packets (Homa header included) shorter than this are taken as one "
		"segment; with a 1500-byte MTU no segment on the wire is longer than 1480 "
		"bytes. Lower it for captures of GSO packets on links with a smaller MTU",
		10, &homa_gso_min_len);

	homa_handle = register_dissector("homa", dissect_homa, proto_homa);
	homa_tcp_handle = register_dissector("homa_tcp", dissect_homa_or_tcp, proto_homa);

	homa_port_table = register_dissector_table("homa.port", "Homa server port",
			proto_homa, FT_UINT16, BASE_DEC);
	homa_heur_list = register_heur_dissector_list("homa", proto_homa);

	reassembly_table_register(&homa_reassembly_table,
				  &addresses_ports_reassembly_table_functions);
	register_init_routine(homa_init);

	homa_tap = register_tap("homa");
	register_conversation_table(proto_homa, FALSE, homa_conversation_packet,
				    homa_endpoint_packet);
	register_srt_table(proto_homa, NULL, 1, homa_srt_packet, homa_srt_init, NULL);
}

void proto_reg_handoff_homa(void)
{
	/* Adds a "homa.ip.proto" preference and Decode As for other numbers. */
	dissector_add_uint_with_preference("ip.proto", IPPROTO_HOMA, homa_handle);
	tcp_handle = find_dissector("tcp");
	homa_prefs_apply();
}

/* ------------------------------------------------------------------ */
/* Plugin entry points (Wireshark 4.0).                               */
/* ------------------------------------------------------------------ */

#ifndef HOMA_PLUGIN_VERSION
#define HOMA_PLUGIN_VERSION "0.1.0"
#endif

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = HOMA_PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC void plugin_register(void);

void plugin_register(void)
{
	static proto_plugin plug_homa;

	plug_homa.register_protoinfo = proto_register_homa;
	plug_homa.register_handoff = proto_reg_handoff_homa;
	proto_register_plugin(&plug_homa);
}
