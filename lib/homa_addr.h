/* SPDX-License-Identifier: GPL-2.0 */
/* homa_addr.h - IPv4/IPv6 socket addresses for Homa programs. */
#ifndef HOMA_USER_ADDR_H
#define HOMA_USER_ADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

union homa_addr {
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
};

/* Parses a numeric IPv4 or IPv6 address. Returns 0 or -EINVAL. */
int homa_addr_parse(union homa_addr *a, const char *ip, uint16_t port);

/* 127.0.0.1 or ::1. */
void homa_addr_loopback(union homa_addr *a, int family, uint16_t port);

/* INADDR_ANY or in6addr_any (for bind). */
void homa_addr_any(union homa_addr *a, int family, uint16_t port);

socklen_t homa_addr_len(const union homa_addr *a);
uint16_t homa_addr_port(const union homa_addr *a);

/* Same family, address and port. */
bool homa_addr_equal(const union homa_addr *a, const union homa_addr *b);

/* "ip:port" or "[ip]:port" into @buf; returns @buf. */
const char *homa_addr_str(const union homa_addr *a, char *buf, size_t len);

/*
 * The lab's address of @host ("G0", "G1", "PEER", "UNUSED", "BCAST",
 * "SPOOF", "LOCAL") for @family: the value of HOMALAB_<host>_IP4 or _IP6,
 * which vm/lab exports to every guest command (vm/README.md). Returns
 * NULL, after saying on stderr which variable is missing, outside a lab
 * run.
 */
const char *homa_lab_addr(const char *host, int family);

/*
 * The @k-th address (1-based) of the lab's block @host ("SPOOF": sources
 * the guests route to the crafter; "LOCAL": for extra addresses on a
 * guest's lo), as text in @buf: the block's base address plus @k. Returns
 * @buf, or NULL (said on stderr) outside a lab run or for @k out of
 * 1..254.
 */
const char *homa_lab_nth_addr(const char *host, int family, int k, char *buf,
			      size_t len);

/* Parses "4" or "6" (or "inet"/"inet6"); returns AF_INET, AF_INET6 or -1. */
int homa_family_parse(const char *s);

#endif /* HOMA_USER_ADDR_H */
