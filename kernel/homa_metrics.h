/* SPDX-License-Identifier: BSD-2-Clause */

/* Counters exported in /proc/net/homa_metrics, one set per network
 * namespace: each counts the packets, RPCs and peers of its namespace;
 * timer_runs, timer_ns and rcvmem_bytes are module-wide and read the same
 * in every namespace.
 *
 * The file holds one "name value" pair per line, value in decimal. The
 * names are an interface: tests and the packet crafter read them, so they
 * must stay stable. They are:
 *
 *   pkts_sent_<TYPE>        packets transmitted, per type
 *   pkts_rcvd_<TYPE>        packets received (accepted for processing), per
 *                           type; <TYPE> is one of DATA GRANT RESEND UNKNOWN
 *                           BUSY CUTOFFS FREEZE NEED_ACK ACK
 *   drop_short              packets shorter than the minimum for their type
 *   drop_bad_type           packets whose type is outside 0x10..0x18
 *   drop_unknown_socket     packets for a port without a socket (an ICMP
 *                           port unreachable is sent back)
 *   drop_malformed          lengths or offsets that do not fit (message
 *                           length out of range, segment outside the
 *                           message or the packet, too many acks, ...)
 *   drop_unknown_rpc        packets for an RPC that does not exist and may
 *                           not be created by them
 *   drop_unsupported        full-Homa packets v4 ignores (GRANT, CUTOFFS,
 *                           FREEZE)
 *   drop_duplicate          DATA whose bytes had already arrived
 *   drop_no_buffer          DATA dropped while its message waits for space
 *   drop_rpc_limit          DATA for a new server RPC dropped because the
 *                           socket has max_server_rpcs live server RPCs,
 *                           or max_server_rpcs_per_peer for that client
 *   buf_timeouts            server RPCs freed while waiting for buffer
 *                           space, after timeout_ticks of silence from the
 *                           client (also counted in timeouts)
 *                           in the receive buffer pool
 *   resent_packets          DATA packets retransmitted because of a RESEND
 *   resend_requests_sent    RESEND packets sent
 *   timeouts                RPCs aborted (clients) or freed (servers)
 *                           because the peer stayed silent
 *   rpcs_created            RPCs created (client and server)
 *   rpcs_freed              RPCs whose memory was reclaimed
 *   bytes_sent              message bytes transmitted in DATA packets
 *                           (first transmissions and retransmissions)
 *   bytes_rcvd              message bytes accepted from DATA packets
 *   server_rpcs_live        server RPCs that exist now
 *   client_rpcs_live        client RPCs that exist now
 *   throttled_rpcs_added    times an RPC was put on the pacer's list
 *   icmp_errors             RPCs aborted by a hard ICMP error (port or
 *                           protocol unreachable quoting a live RPC)
 *   acks_rcvd               acknowledgements processed (in ACK or DATA)
 *   ack_timeouts            server RPCs freed because the client sent
 *                           nothing (no ACK, no RESEND) for timeout_ticks
 *                           after the response (also counted in timeouts)
 *   peers_live              peers (hosts for which this host keeps state,
 *                           see struct homa_peer) that exist now; only
 *                           created with an RPC, never by packets that
 *                           create no state
 *   peers_freed             peers freed: idle for peer_idle_secs with no
 *                           RPC referring to them, or their network
 *                           namespace went away, or the module unloaded
 *   drop_rcvbuf             DATA with new bytes dropped because keeping it
 *                           would take its socket's receive memory (skb
 *                           truesize, sk_rmem_alloc) over sk_rcvbuf, or
 *                           all Homa sockets' over net.homa.rcvmem_max_kb
 *   drop_msg_mem            DATA with new bytes dropped because its message
 *                           already keeps HOMA_MSG_MEM_FACTOR times its
 *                           length plus HOMA_MSG_MEM_SLACK bytes of skb
 *                           truesize, or HOMA_MAX_GAPS_PER_MSG gaps
 *   rcvmem_bytes            skb truesize kept for incoming messages now,
 *                           summed over all sockets (each socket's share
 *                           is its sk_rmem_alloc)
 *   drop_not_host           packets not addressed to this host alone:
 *                           link-layer broadcast or multicast, IPv4
 *                           broadcast or multicast, IPv6 multicast
 *   drop_policy             packets refused by the IPsec (xfrm) inbound
 *                           policy (cleartext where protection is required)
 *   drop_filter             packets refused by the socket's filter
 *                           (SO_ATTACH_FILTER, cgroup ingress BPF, LSM)
 *   icmp_soft_errors        ICMP errors (host or network unreachable and
 *                           the like) kept in the RPC they name, which
 *                           goes on; it fails with that error if it then
 *                           times out
 *   icmp_ignored            ICMP errors that quote no live RPC of the
 *                           quoting socket toward that host and port, or
 *                           quote too little of the Homa header to tell
 *   resends_deferred        times an RPC due to ask for retransmission
 *                           waited for a later tick because resend_peer_limit
 *                           RPCs had asked the same peer in this tick
 *   rexmit_limited          retransmissions (answers to RESEND or
 *                           UNKNOWN) cut short: the peer had already had
 *                           rexmit_peer_kb KiB in this tick
 *   route_lookups           full route lookups for packets sent (the
 *                           others come from the peer's route cache)
 *   icmp_pmtu               ICMP fragmentation needed / packet too big
 *                           for a live RPC: the path MTU was updated
 *   timer_runs              timer ticks run
 *   timer_checks            RPCs the timer looked at (those due)
 *   timer_ns                nanoseconds the timer spent in those ticks
 *                           (checking RPCs, reaping, freeing idle peers)
 */

#ifndef _HOMA_METRICS_H
#define _HOMA_METRICS_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "homa_wire.h"

#define HOMA_NUM_TYPES	(HOMA_TYPE_MAX - HOMA_TYPE_MIN + 1)

/**
 * struct homa_metrics - per-CPU counters; the comment at the top of this
 * file gives the meaning of each.
 */
struct homa_metrics {
	/** @pkts_sent: packets sent, indexed by type - DATA. */
	u64 pkts_sent[HOMA_NUM_TYPES];
	/** @pkts_rcvd: packets received, indexed by type - DATA. */
	u64 pkts_rcvd[HOMA_NUM_TYPES];
	/** @drop_short: see above. */
	u64 drop_short;
	/** @drop_bad_type: see above. */
	u64 drop_bad_type;
	/** @drop_unknown_socket: see above. */
	u64 drop_unknown_socket;
	/** @drop_malformed: see above. */
	u64 drop_malformed;
	/** @drop_unknown_rpc: see above. */
	u64 drop_unknown_rpc;
	/** @drop_unsupported: see above. */
	u64 drop_unsupported;
	/** @drop_duplicate: see above. */
	u64 drop_duplicate;
	/** @drop_no_buffer: see above. */
	u64 drop_no_buffer;
	/** @drop_rpc_limit: see above. */
	u64 drop_rpc_limit;
	/** @buf_timeouts: see above. */
	u64 buf_timeouts;
	/** @resent_packets: see above. */
	u64 resent_packets;
	/** @resend_requests_sent: see above. */
	u64 resend_requests_sent;
	/** @timeouts: see above. */
	u64 timeouts;
	/** @rpcs_created: see above. */
	u64 rpcs_created;
	/** @rpcs_freed: see above. */
	u64 rpcs_freed;
	/** @bytes_sent: see above. */
	u64 bytes_sent;
	/** @bytes_rcvd: see above. */
	u64 bytes_rcvd;
	/** @server_rpcs_live: see above (per-CPU deltas; may be negative). */
	s64 server_rpcs_live;
	/** @client_rpcs_live: see above (per-CPU deltas; may be negative). */
	s64 client_rpcs_live;
	/** @throttled_rpcs_added: see above. */
	u64 throttled_rpcs_added;
	/** @icmp_errors: see above. */
	u64 icmp_errors;
	/** @acks_rcvd: see above. */
	u64 acks_rcvd;
	/** @ack_timeouts: see above. */
	u64 ack_timeouts;
	/** @peers_live: see above (per-CPU deltas; may be negative). */
	s64 peers_live;
	/** @peers_freed: see above. */
	u64 peers_freed;
	/** @drop_rcvbuf: see above. */
	u64 drop_rcvbuf;
	/** @drop_msg_mem: see above. */
	u64 drop_msg_mem;
	/** @rcvmem_bytes: see above (per-CPU deltas; may be negative). */
	s64 rcvmem_bytes;
	/** @drop_not_host: see above. */
	u64 drop_not_host;
	/** @drop_policy: see above. */
	u64 drop_policy;
	/** @drop_filter: see above. */
	u64 drop_filter;
	/** @icmp_soft_errors: see above. */
	u64 icmp_soft_errors;
	/** @icmp_ignored: see above. */
	u64 icmp_ignored;
	/** @resends_deferred: see above. */
	u64 resends_deferred;
	/** @rexmit_limited: see above. */
	u64 rexmit_limited;
	/** @route_lookups: see above. */
	u64 route_lookups;
	/** @icmp_pmtu: see above. */
	u64 icmp_pmtu;
	/** @timer_runs: see above. */
	u64 timer_runs;
	/** @timer_checks: see above. */
	u64 timer_checks;
	/** @timer_ns: see above. */
	u64 timer_ns;
};

struct homa_net;

/*
 * Add to a counter of namespace @hnet (struct homa_net) from any context
 * (preemption-safe per-CPU add).
 */
#define HOMA_ADD(hnet, field, n) this_cpu_add((hnet)->metrics[0].field, (n))
#define HOMA_INC(hnet, field)	HOMA_ADD(hnet, field, 1)

/*
 * The module-wide counters (timer_runs and timer_ns, of the one timer
 * thread, and rcvmem_bytes, of the receive memory all namespaces share)
 * are kept in the initial namespace's set; every namespace's file shows
 * them from there.
 */
#define HOMA_GLOBAL_ADD(field, n) HOMA_ADD(homa_net(&init_net), field, (n))

int homa_metrics_net_init(struct homa_net *hnet);
void homa_metrics_net_exit(struct homa_net *hnet);

#endif /* _HOMA_METRICS_H */
