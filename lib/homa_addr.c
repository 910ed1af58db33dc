// SPDX-License-Identifier: GPL-2.0
/* homa_addr.c - see homa_addr.h. */
#define _GNU_SOURCE
#include "homa_addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int homa_addr_parse(union homa_addr *a, const char *ip, uint16_t port)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, ip, &a->in4.sin_addr) == 1) {
		a->in4.sin_family = AF_INET;
		a->in4.sin_port = htons(port);
		return 0;
	}
	if (inet_pton(AF_INET6, ip, &a->in6.sin6_addr) == 1) {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = htons(port);
		return 0;
	}
	return -EINVAL;
}

const char *homa_lab_addr(const char *host, int family)
{
	const char *value;
	char name[64];

	snprintf(name, sizeof(name), "HOMALAB_%s_IP%d", host,
		 family == AF_INET6 ? 6 : 4);
	value = getenv(name);
	if (!value || !*value) {
		fprintf(stderr, "%s is not set: run this under vm/lab, or set it\n",
			name);
		return NULL;
	}
	return value;
}

const char *homa_lab_nth_addr(const char *host, int family, int k, char *buf,
			      size_t len)
{
	const char *base = homa_lab_addr(host, family);
	unsigned char a[16];
	int af = family == AF_INET6 ? AF_INET6 : AF_INET;
	int last = af == AF_INET6 ? 15 : 3;

	if (!base)
		return NULL;
	if (k < 1 || k > 254 || inet_pton(af, base, a) != 1 || a[last]) {
		fprintf(stderr, "no address %d in the lab's %s block (base '%s')\n",
			k, host, base);
		return NULL;
	}
	a[last] = (unsigned char)k;
	return inet_ntop(af, a, buf, (socklen_t)len) ? buf : NULL;
}

void homa_addr_loopback(union homa_addr *a, int family, uint16_t port)
{
	homa_addr_parse(a, family == AF_INET6 ? "::1" : "127.0.0.1", port);
}

void homa_addr_any(union homa_addr *a, int family, uint16_t port)
{
	homa_addr_parse(a, family == AF_INET6 ? "::" : "0.0.0.0", port);
}

socklen_t homa_addr_len(const union homa_addr *a)
{
	return a->sa.sa_family == AF_INET6 ? sizeof(a->in6) : sizeof(a->in4);
}

uint16_t homa_addr_port(const union homa_addr *a)
{
	return ntohs(a->sa.sa_family == AF_INET6 ? a->in6.sin6_port
						 : a->in4.sin_port);
}

bool homa_addr_equal(const union homa_addr *a, const union homa_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET6)
		return a->in6.sin6_port == b->in6.sin6_port &&
		       memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr,
			      sizeof(a->in6.sin6_addr)) == 0;
	return a->in4.sin_port == b->in4.sin_port &&
	       a->in4.sin_addr.s_addr == b->in4.sin_addr.s_addr;
}

const char *homa_addr_str(const union homa_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (a->sa.sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &a->in6.sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, homa_addr_port(a));
	} else if (a->sa.sa_family == AF_INET) {
		inet_ntop(AF_INET, &a->in4.sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, homa_addr_port(a));
	} else {
		snprintf(buf, len, "(family %d)", a->sa.sa_family);
	}
	return buf;
}

int homa_family_parse(const char *s)
{
	if (strcmp(s, "4") == 0 || strcmp(s, "inet") == 0 ||
	    strcmp(s, "ipv4") == 0)
		return AF_INET;
	if (strcmp(s, "6") == 0 || strcmp(s, "inet6") == 0 ||
	    strcmp(s, "ipv6") == 0)
		return AF_INET6;
	return -1;
}
