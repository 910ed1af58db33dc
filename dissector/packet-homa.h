/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet-homa.h - what the Homa dissector shares with sub-dissectors and
 * tap listeners.
 */
#ifndef PACKET_HOMA_H
#define PACKET_HOMA_H

#include <glib.h>
#include <wsutil/nstime.h>

/*
 * Passed as "data" to sub-dissectors of the "homa.port" table and the
 * "homa" heuristic list with each complete message.
 */
typedef struct {
	guint64 rpc_id;		/* id with the client bit cleared */
	gboolean is_request;	/* TRUE: request (client to server) */
	guint16 server_port;
	guint16 client_port;
} homa_message_info_t;

/* Queued on the "homa" tap once per Homa packet. */
typedef struct {
	guint8 type;
	guint16 sport;
	guint16 dport;
	guint64 rpc_id;
	gboolean from_client;
	guint32 payload_len;	/* Homa bytes (header and data) */
	/* Set on the first DATA frame of a response whose request was seen. */
	gboolean first_response;
	nstime_t req_time;	/* absolute time of the request's first DATA */
	guint32 req_length;	/* request message length */
} homa_tap_info_t;

#endif /* PACKET_HOMA_H */
