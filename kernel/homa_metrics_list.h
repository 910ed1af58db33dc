/* SPDX-License-Identifier: BSD-2-Clause */

/* The counters of /proc/net/homa_metrics after the per-type packet counts,
 * in the file's order, one HOMA_METRIC(name, scope) each under the text
 * that says what it counts. It is the one list: homa_metrics.h makes the
 * fields of struct homa_metrics from it, homa_metrics.c the file's lines,
 * and its texts are the counters' documentation. scope is NET (the
 * namespace's own count) or MOD (module-wide: kept in the initial
 * namespace's set with HOMA_GLOBAL_ADD(), and shown in every namespace).
 * The names are an interface (tests and the packet crafter read them):
 * never rename one.
 *
 * No include guard: included once per use, with HOMA_METRIC defined.
 */

/* packets shorter than the minimum for their type */
HOMA_METRIC(drop_short, NET);

/* packets whose type is outside 0x10..0x18 */
HOMA_METRIC(drop_bad_type, NET);

/* packets for a port without a socket (an ICMP port unreachable is sent
 * back)
 */
HOMA_METRIC(drop_unknown_socket, NET);
/* packets for a port whose socket does not take them, answered as those
 * for a port without a socket: of the other IP version than the socket's,
 * or for a server RPC at a client's (automatic) port (homa_sock_takes())
 */
HOMA_METRIC(drop_wrong_family, NET);
HOMA_METRIC(drop_not_server, NET);

/* lengths or offsets that do not fit (message length out of range, segment
 * outside the message or the packet, too many acks, ...)
 */
HOMA_METRIC(drop_malformed, NET);

/* packets for an RPC that does not exist and may not be created by them */
HOMA_METRIC(drop_unknown_rpc, NET);

/* full-Homa packets v4 ignores (GRANT, CUTOFFS, FREEZE) */
HOMA_METRIC(drop_unsupported, NET);

/* DATA whose bytes had already arrived */
HOMA_METRIC(drop_duplicate, NET);

/* DATA dropped while its message waits for space in the receive buffer pool */
HOMA_METRIC(drop_no_buffer, NET);

/* DATA for a new server RPC dropped because the socket has max_server_rpcs
 * live server RPCs, or max_server_rpcs_per_peer for that client
 */
HOMA_METRIC(drop_rpc_limit, NET);

/* server RPCs freed while waiting for buffer space, after timeout_ticks of
 * silence from the client (also counted in timeouts)
 */
HOMA_METRIC(buf_timeouts, NET);

/* DATA packets retransmitted because of a RESEND */
HOMA_METRIC(resent_packets, NET);

/* RESEND packets sent */
HOMA_METRIC(resend_requests_sent, NET);

/* RPCs aborted (clients) or freed (servers) because the peer stayed silent */
HOMA_METRIC(timeouts, NET);

/* RPCs created (client and server) */
HOMA_METRIC(rpcs_created, NET);

/* RPCs whose memory was reclaimed */
HOMA_METRIC(rpcs_freed, NET);

/* message bytes transmitted in DATA packets (first transmissions and
 * retransmissions)
 */
HOMA_METRIC(bytes_sent, NET);

/* message bytes accepted from DATA packets */
HOMA_METRIC(bytes_rcvd, NET);

/* DATA skbs of several segments cut into packets in software by
 * homa_gso_segment(), because the device could not segment them
 */
HOMA_METRIC(gso_tx_segmented, NET);

/* DATA skbs of several segments that arrived whole (over loopback, or
 * from a device that passes GSO skbs up) and were split into one DATA
 * packet per segment
 */
HOMA_METRIC(gso_rx_split, NET);

/* server RPCs that exist now (per-CPU deltas; the sum is the count) */
HOMA_METRIC(server_rpcs_live, NET);

/* client RPCs that exist now (likewise) */
HOMA_METRIC(client_rpcs_live, NET);

/* times an RPC was put on the pacer's list */
HOMA_METRIC(throttled_rpcs_added, NET);

/* the pacer's picks that took the oldest throttled message instead of the
 * shortest (pacer_fifo_every)
 */
HOMA_METRIC(pacer_fifo_picks, NET);

/* skb truesize of DATA handed to IP and not yet released by the devices
 * now (the queue below Homa that the pacer keeps under max_tx_queue_kb),
 * all namespaces
 */
HOMA_METRIC(tx_queued_bytes, MOD);

/* times the pacer waited HOMA_PACER_STALL for a transmit completion that
 * did not come, and sent anyway
 */
HOMA_METRIC(pacer_stalls, MOD);

/* RPCs aborted by a hard ICMP error (port or protocol unreachable quoting a
 * live RPC)
 */
HOMA_METRIC(icmp_errors, NET);

/* acknowledgements processed (in ACK or DATA) */
HOMA_METRIC(acks_rcvd, NET);

/* server RPCs freed because the client sent nothing (no ACK, no RESEND) for
 * timeout_ticks after the response (also counted in timeouts)
 */
HOMA_METRIC(ack_timeouts, NET);

/* peers (hosts for which this host keeps state, see struct homa_peer) that
 * exist now; only created with an RPC, never by packets that create no state
 */
HOMA_METRIC(peers_live, NET);

/* peers freed: idle for peer_idle_secs with no RPC referring to them, or
 * their network namespace went away
 */
HOMA_METRIC(peers_freed, NET);

/* DATA with new bytes dropped because keeping it would take its socket's
 * receive memory (skb truesize, sk_rmem_alloc) over sk_rcvbuf, or all Homa
 * sockets' over net.homa.rcvmem_max_kb
 */
HOMA_METRIC(drop_rcvbuf, NET);

/* DATA with new bytes dropped because its message already keeps
 * HOMA_MSG_MEM_FACTOR times its length plus HOMA_MSG_MEM_SLACK bytes of skb
 * truesize, or HOMA_MAX_GAPS_PER_MSG gaps
 */
HOMA_METRIC(drop_msg_mem, NET);

/* skb truesize kept for incoming messages now, summed over all sockets of
 * all namespaces (each socket's share is its sk_rmem_alloc)
 */
HOMA_METRIC(rcvmem_bytes, MOD);

/* packets not addressed to this host alone: link-layer broadcast or
 * multicast, IPv4 broadcast or multicast, IPv6 multicast
 */
HOMA_METRIC(drop_not_host, NET);

/* packets refused by the IPsec (xfrm) inbound policy (cleartext where
 * protection is required)
 */
HOMA_METRIC(drop_policy, NET);

/* packets refused by the socket's filter (SO_ATTACH_FILTER, cgroup ingress
 * BPF, LSM)
 */
HOMA_METRIC(drop_filter, NET);

/* ICMP errors (host or network unreachable and the like) kept in the RPC
 * they name, which goes on; it fails with that error if it then times out
 */
HOMA_METRIC(icmp_soft_errors, NET);

/* ICMP errors that quote no live RPC of the quoting socket toward that host
 * and port, or quote too little of the Homa header to tell
 */
HOMA_METRIC(icmp_ignored, NET);

/* times an RPC due to ask for retransmission waited for a later tick because
 * resend_peer_limit RPCs had asked the same peer in this tick, or had asked
 * it and had no answer yet
 */
HOMA_METRIC(resends_deferred, NET);

/* of those, the times the reason was the RPCs waiting for an answer to
 * their RESEND (resend_peer_limit of those the peer said BUSY to, four times
 * that of the others)
 */
HOMA_METRIC(resends_unanswered_wait, NET);

/* retransmissions (answers to RESEND or UNKNOWN) cut short: the peer had
 * already had rexmit_peer_kb KiB in this tick
 */
HOMA_METRIC(rexmit_limited, NET);

/* full route lookups for packets sent (the others come from the peer's route
 * cache)
 */
HOMA_METRIC(route_lookups, NET);

/* ICMP fragmentation needed / packet too big for a live RPC: the path MTU
 * was updated
 */
HOMA_METRIC(icmp_pmtu, NET);

/* timer ticks run */
HOMA_METRIC(timer_runs, MOD);

/* RPCs the timer looked at (those due) */
HOMA_METRIC(timer_checks, NET);

/* nanoseconds the timer spent in those ticks (checking RPCs, reaping,
 * freeing idle peers)
 */
HOMA_METRIC(timer_ns, MOD);
