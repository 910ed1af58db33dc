/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcp_io.h - TCP connections (TCP_NODELAY) carrying length-prefixed
 * messages: a 4-byte big-endian length, then that many bytes.
 * Functions return >= 0 on success and -errno on failure (-EPIPE when
 * the peer closed the connection).
 */
#ifndef BENCH_TCP_IO_H
#define BENCH_TCP_IO_H

#include <stddef.h>
#include <stdint.h>

#include "homa_addr.h"

/* Connects to @dst; the fd or -errno. */
int tcp_connect(const union homa_addr *dst);

/* A listening socket on @port of every address of @family. */
int tcp_listen(int family, uint16_t port);

/* Sets TCP_NODELAY. */
int tcp_nodelay(int fd);

/* Sends one message: header and @len bytes of @buf. */
int tcp_send_msg(int fd, const void *buf, size_t len);

/* Reads a message header; the length or -errno. */
long tcp_recv_len(int fd);

/* Reads exactly @len bytes. */
int tcp_read_full(int fd, void *buf, size_t len);

#endif /* BENCH_TCP_IO_H */
