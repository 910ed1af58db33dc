// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_many - 1,000 outstanding requests from one socket to four
 * server sockets (threads of this program), every response matched by
 * id and completion cookie and checked byte for byte; then sockets that
 * act as client and server at once (one talking to itself, two talking
 * to each other). Client ids are even and step by 2. Last, which message
 * recvmsg picks by id and by flags (selection.c).
 *
 * Usage: homa_test_many [--family 4|6] [--count N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dual_role.h"
#include "selection.h"
#include "echo.h"
#include "expect.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "ktap.h"
#include "payload.h"
#include "watchdog.h"

#define NUM_SERVERS 4
#define SERVER_PORT0 2001
#define COOKIE_TAG 0xc0c0000000000000ULL

struct many_state {
	int family;
	int count;
	struct echo_thread servers[NUM_SERVERS];
	union homa_addr server_addr[NUM_SERVERS];
	struct homa_ep client;
	uint64_t *ids;
	size_t *sizes;
	char *seen;
	uint8_t *buf;
};

static size_t request_size(int i)
{
	if (i % 97 == 0)
		return 70000 + (size_t)i;	/* more than one bpage */
	return 1 + ((size_t)i * 131) % 4000;
}

static bool start_servers(struct ktap *k, struct many_state *s)
{
	int i, err = 0;

	for (i = 0; i < NUM_SERVERS && !err; i++) {
		err = echo_thread_start(&s->servers[i], s->family,
					SERVER_PORT0 + i, 64);
		homa_addr_loopback(&s->server_addr[i], s->family,
				   SERVER_PORT0 + i);
	}
	if (err)
		ktap_diag(k, "server %d: %s", i - 1, errno_name(err));
	return expect_errno(k, err, 0, "start_%d_server_sockets",
			    NUM_SERVERS);
}

static void send_all(struct ktap *k, struct many_state *s)
{
	int i, err = 0;
	bool ids_ok = true, ids_exact = true;

	for (i = 0; i < s->count && !err; i++) {
		s->sizes[i] = request_size(i);
		payload_fill(s->buf, s->sizes[i], (uint64_t)i + 1, 0);
		err = homa_send_request_buf(s->client.fd,
					    &s->server_addr[i % NUM_SERVERS],
					    s->buf, s->sizes[i],
					    COOKIE_TAG | (uint64_t)i, &s->ids[i]);
		if (err)
			ktap_diag(k, "request %d: %s", i, errno_name(err));
		else if (s->ids[i] == 0 || (s->ids[i] & 1) ||
			 (i > 0 && s->ids[i] <= s->ids[i - 1]))
			ids_ok = false;
		/*
		 * Ids come from one counter for the whole module, so while
		 * no other socket sends they step by exactly 2.
		 */
		if (!err && s->ids[i] != s->ids[0] + 2 * (uint64_t)i)
			ids_exact = false;
	}
	expect_errno(k, err, 0, "send_%d_requests", s->count);
	if (!ids_ok || !ids_exact)
		ktap_diag(k, "first ids: %llu %llu %llu",
			  (unsigned long long)s->ids[0],
			  (unsigned long long)s->ids[1],
			  (unsigned long long)s->ids[2]);
	ktap_result(k, !err && ids_ok, "request_ids_even_and_increasing");
	ktap_result(k, !err && ids_exact, "request_ids_step_by_2");
}

/* Checks one response; returns NULL when good, else what is wrong. */
static const char *check_response(struct many_state *s,
				  const struct homa_rx *rx, int *index)
{
	uint64_t cookie = rx->ctl.completion_cookie;
	struct iovec iov[HOMA_MAX_BPAGES];
	int i, n;

	*index = -1;
	if ((cookie & ~0xffffffffULL) != COOKIE_TAG ||
	    (cookie & 0xffffffffULL) >= (uint64_t)s->count)
		return "unknown completion cookie";
	i = (int)(cookie & 0xffffffffULL);
	*index = i;
	if (rx->ctl.id != s->ids[i])
		return "id does not match the cookie's request";
	if (s->seen[i])
		return "second response for one request";
	s->seen[i] = 1;
	if ((size_t)rx->length != s->sizes[i])
		return "wrong length";
	if (!homa_addr_equal(&rx->src, &s->server_addr[i % NUM_SERVERS]))
		return "response from the wrong server";
	n = homa_rx_iov(&s->client.region, rx, iov);
	if (n < 0)
		return "bpages outside the region";
	if (payload_check_iov(iov, n, (uint64_t)i + 1) >= 0)
		return "payload differs";
	return NULL;
}

static void receive_all(struct ktap *k, struct many_state *s)
{
	int got = 0, bad = 0, err = 0, i, index;
	struct homa_rx rx;
	const char *why;
	ssize_t n;

	homa_rx_init(&rx);
	while (got < s->count) {
		n = homa_receive(s->client.fd, &rx, HOMA_RECVMSG_RESPONSE, 0, 0);
		if (n < 0) {
			err = (int)n;
			ktap_diag(k, "recvmsg after %d responses: %s (id %llu)",
				  got, errno_name(err),
				  (unsigned long long)rx.ctl.id);
			break;
		}
		got++;
		why = check_response(s, &rx, &index);
		if (why && bad++ < 5)
			ktap_diag(k, "response id %llu (request %d, %zd bytes): %s",
				  (unsigned long long)rx.ctl.id, index,
				  rx.length, why);
	}
	ktap_result(k, got == s->count, "receive_%d_responses", s->count);
	ktap_result(k, got == s->count && bad == 0,
		    "responses_match_id_cookie_and_payload");
	for (i = 0; i < s->count && s->seen[i]; i++)
		;
	ktap_result(k, i == s->count, "every_request_answered_once");
	n = homa_receive(s->client.fd, &rx, HOMA_RECVMSG_RESPONSE, 0,
			 MSG_DONTWAIT);
	expect_errno(k, (int)(n < 0 ? n : 0), EAGAIN,
		     "no_response_beyond_the_requests");
}

static void stop_servers(struct ktap *k, struct many_state *s)
{
	long expected = s->count / NUM_SERVERS, served[NUM_SERVERS];
	bool ok = true;
	int i;

	for (i = 0; i < NUM_SERVERS; i++) {
		echo_thread_stop(&s->servers[i]);
		served[i] = s->servers[i].served;
		if (served[i] < expected || s->servers[i].errors ||
		    s->servers[i].last_err != ESHUTDOWN)
			ok = false;
	}
	if (!ok)
		for (i = 0; i < NUM_SERVERS; i++)
			ktap_diag(k, "server %d: served %ld, errors %ld, ended with %s",
				  i, served[i], s->servers[i].errors,
				  errno_name(s->servers[i].last_err));
	ktap_result(k, ok, "servers_served_their_share_and_ended_by_shutdown");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "family", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct many_state s = { .family = AF_INET, .count = 1000 };
	struct watchdog wd;
	struct ktap k;
	int c, err;

	while ((c = getopt_long(argc, argv, "f:n:", opts, NULL)) != -1) {
		if (c == 'f')
			s.family = homa_family_parse(optarg);
		else if (c == 'n')
			s.count = atoi(optarg);
		if ((c != 'f' && c != 'n') || s.family < 0 || s.count < 4) {
			fprintf(stderr, "usage: %s [--family 4|6] [--count N]\n",
				argv[0]);
			return 2;
		}
	}
	ktap_start(&k, 10 + DUAL_ROLE_CASES + SELECTION_CASES);
	watchdog_start(&wd, &k);
	s.ids = calloc(s.count, sizeof(*s.ids));
	s.sizes = calloc(s.count, sizeof(*s.sizes));
	s.seen = calloc(s.count, 1);
	s.buf = malloc(request_size(0) + 4 * HOMA_BPAGE_SIZE);
	if (!s.ids || !s.sizes || !s.seen || !s.buf)
		return 1;

	watchdog_arm(&wd, 30, "start_servers");
	if (!start_servers(&k, &s))
		return ktap_finish(&k);
	err = homa_ep_open(&s.client, s.family, 0, 1024);
	if (!expect_errno(&k, err, 0, "client_socket"))
		return ktap_finish(&k);
	watchdog_arm(&wd, 120, "send_requests");
	send_all(&k, &s);
	watchdog_arm(&wd, 240, "receive_responses");
	receive_all(&k, &s);
	watchdog_arm(&wd, 30, "stop_servers");
	stop_servers(&k, &s);
	homa_ep_close(&s.client);

	watchdog_arm(&wd, 180, "dual_role");
	dual_role_tests(&k, s.family);
	watchdog_arm(&wd, 60, "selection");
	selection_tests(&k, s.family);
	watchdog_stop(&wd);
	free(s.ids);
	free(s.sizes);
	free(s.seen);
	free(s.buf);
	return ktap_finish(&k);
}
