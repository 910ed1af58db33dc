/* SPDX-License-Identifier: GPL-2.0 */
/*
 * server.h - the server mode: echoes every request it gets, over Homa
 * (one socket, several threads receiving) and over TCP (a thread per
 * connection) on the same port number, until killed.
 */
#ifndef BENCH_SERVER_H
#define BENCH_SERVER_H

#include "homa_sock.h"
#include "opts.h"

/* Homa echo thread body; @arg is the shared struct homa_ep. */
void *homa_server_main(void *arg);

/* TCP accept loop; @arg is the listening fd (cast from intptr_t). */
void *tcp_server_main(void *arg);

/* Starts both and waits forever; returns 1 if they cannot start. */
int server_main(const struct server_opts *o);

#endif /* BENCH_SERVER_H */
