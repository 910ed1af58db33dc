// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_delivery - which socket takes an incoming packet. The port
 * space is shared by both families, but a socket takes packets of its own
 * IP version only, and only a server socket (bound to a port below
 * HOMA_MIN_DEFAULT_PORT) takes requests; anything else is answered as a
 * packet for a port with no socket (ICMP port unreachable: the sender's
 * RPC ends with ENOTCONN). The last test is what the second rule is for:
 * requests that a client never reads cannot take its buffer pool, so its
 * own responses still arrive.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/homa.h>

#include "echo.h"
#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "homa_sysctl.h"

#define SERVER_PORT 4301
#define MSG_LEN 100
#define CLIENT_BPAGES 4
/* Flood requests of half the client's pool each: twice the pool. */
#define FLOOD 4
#define HALF_POOL (CLIENT_BPAGES / 2 * HOMA_BPAGE_SIZE - 1000)
/* The client's own response: as big as its whole pool allows. */
#define WHOLE_POOL (CLIENT_BPAGES * HOMA_BPAGE_SIZE - 1000)
/* ICMP comes back over loopback at once; TCG can be slow. */
#define WAIT_MS 5000

FIXTURE(delivery) {
	struct homa_ep server, client;
	struct homa_rx rx;
	char msg[MSG_LEN];
};

FIXTURE_VARIANT(delivery) {
	int family;
};

HOMA_FAMILY_VARIANTS(delivery);

static int other_family(int family)
{
	return family == AF_INET ? AF_INET6 : AF_INET;
}

FIXTURE_SETUP(delivery)
{
	ASSERT_ERRNO(0, homa_ep_open(&self->server, variant->family,
				     SERVER_PORT, 64));
	ASSERT_ERRNO(0, homa_ep_open(&self->client, variant->family, 0,
				     CLIENT_BPAGES));
	homa_rx_init(&self->rx);
	memset(self->msg, 'd', sizeof(self->msg));
}

FIXTURE_TEARDOWN(delivery)
{
	homa_ep_close(&self->client);
	homa_ep_close(&self->server);
}

/*
 * A request from @from to @to: it must end with ENOTCONN (ICMP port
 * unreachable) within WAIT_MS, and @to must have no request.
 */
static void refused(struct __test_metadata *_metadata, struct homa_ep *from,
		    const union homa_addr *to, struct homa_ep *at)
{
	struct homa_rx rx;
	uint64_t id;

	homa_rx_init(&rx);
	ASSERT_ERRNO(0, homa_send_request_buf(from->fd, to, "refused", 7, 1,
					      &id));
	EXPECT_ERRNO(ENOTCONN, (int)homa_receive_within(from->fd, &rx,
							 HOMA_RECVMSG_RESPONSE,
							 id, WAIT_MS));
	EXPECT_ERRNO(EAGAIN, (int)homa_receive(at->fd, &rx,
					       HOMA_RECVMSG_REQUEST |
					       HOMA_RECVMSG_NONBLOCKING, 0,
					       0));
}

/*
 * A socket of the other family sends to the server's port over its own
 * loopback: the server does not get the request (it could not answer an
 * address of the other family), the sender learns there is no socket.
 */
TEST_F_TIMEOUT(delivery, other_family_is_port_unreachable, 60)
{
	long long before = homa_metric("drop_wrong_family");
	struct homa_ep other;
	union homa_addr to;

	ASSERT_ERRNO(0, homa_ep_open(&other, other_family(variant->family), 0,
				     4));
	homa_addr_loopback(&to, other_family(variant->family), SERVER_PORT);
	refused(_metadata, &other, &to, &self->server);
	EXPECT_LE(before + 1, homa_metric("drop_wrong_family"));
	homa_ep_close(&other);
}

/* A socket that never bound a port is a client: requests to it are refused. */
TEST_F_TIMEOUT(delivery, client_port_refuses_requests, 60)
{
	long long before = homa_metric("drop_not_server");
	union homa_addr to;
	int port = homa_local_port(self->client.fd);

	ASSERT_LE(HOMA_MIN_DEFAULT_PORT, port);
	homa_addr_loopback(&to, variant->family, (uint16_t)port);
	refused(_metadata, &self->server, &to, &self->client);
	EXPECT_LE(before + 1, homa_metric("drop_not_server"));
}

/* Its requests and responses still work both ways. */
TEST_F_TIMEOUT(delivery, server_port_takes_both, 60)
{
	struct homa_rx req;
	union homa_addr to;
	uint64_t id;

	homa_rx_init(&req);
	homa_addr_loopback(&to, variant->family, SERVER_PORT);
	ASSERT_ERRNO(0, homa_send_request_buf(self->client.fd, &to, self->msg,
					      MSG_LEN, 1, &id));
	ASSERT_EQ(MSG_LEN, homa_receive_within(self->server.fd, &req,
					       HOMA_RECVMSG_REQUEST, 0,
					       WAIT_MS));
	ASSERT_ERRNO(0, homa_send_response_buf(self->server.fd, &req.src,
					       req.ctl.id, self->msg,
					       MSG_LEN));
	EXPECT_EQ(MSG_LEN, homa_receive_within(self->client.fd, &self->rx,
					       HOMA_RECVMSG_RESPONSE, id,
					       WAIT_MS));
}

/*
 * Another socket sends the client FLOOD requests, each half its pool; the
 * client, which reads responses only, then asks an echo server for a
 * message as big as its whole pool, and must get it back.
 */
TEST_F_TIMEOUT(delivery, unread_requests_cannot_starve_client, 90)
{
	static char big[WHOLE_POOL];
	struct echo_thread echo;
	union homa_addr to;
	uint64_t id;
	int i, port = homa_local_port(self->client.fd);

	memset(big, 'q', sizeof(big));
	homa_addr_loopback(&to, variant->family, (uint16_t)port);
	for (i = 0; i < FLOOD; i++)
		ASSERT_ERRNO(0, homa_send_request_buf(self->server.fd, &to, big,
						      HALF_POOL, i, &id));
	ASSERT_ERRNO(0, echo_thread_start(&echo, variant->family,
					  SERVER_PORT + 1, 64));
	homa_addr_loopback(&to, variant->family, SERVER_PORT + 1);
	ASSERT_ERRNO(0, homa_send_request_buf(self->client.fd, &to, big,
					      WHOLE_POOL, 7, &id));
	EXPECT_EQ(WHOLE_POOL,
		  homa_receive_within(self->client.fd, &self->rx,
				      HOMA_RECVMSG_RESPONSE, id, WAIT_MS));
	echo_thread_stop(&echo);
}

TEST_HARNESS_MAIN
