// SPDX-License-Identifier: GPL-2.0
/*
 * homa_test_receivers - threads blocked in recvmsg on one socket: a ready
 * message wakes one thread, one that takes it, and not the others. A
 * thread that is woken, finds nothing and sleeps again shows in its
 * voluntary context switches, so each test reads them before and after.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/homa.h>

#include "blocked_call.h"
#include "harness.h"
#include "homa_addr.h"
#include "homa_msg.h"
#include "homa_sock.h"

#define SERVER_PORT 4201
#define WAITERS 4
#define MSG_LEN 100

FIXTURE(receivers) {
	struct homa_ep server, client;
	union homa_addr to_server;
	struct blocked_call calls[WAITERS];
	int started;
	char msg[MSG_LEN];
};

FIXTURE_VARIANT(receivers) {
	int family;
};

HOMA_FAMILY_VARIANTS(receivers);

FIXTURE_SETUP(receivers)
{
	ASSERT_ERRNO(0, homa_ep_open(&self->server, variant->family,
				     SERVER_PORT, 64));
	ASSERT_ERRNO(0, homa_ep_open(&self->client, variant->family, 0, 64));
	homa_addr_loopback(&self->to_server, variant->family, SERVER_PORT);
	memset(self->msg, 'r', sizeof(self->msg));
	self->started = 0;
}

FIXTURE_TEARDOWN(receivers)
{
	int i;

	for (i = 0; i < self->started; i++)
		blocked_call_finish(&self->calls[i]);
	homa_ep_close(&self->client);
	homa_ep_close(&self->server);
}

/* @n threads in recvmsg(@flags) on @fd, each seen asleep there. */
static void start_waiters(struct __test_metadata *_metadata,
			  FIXTURE_DATA(receivers) *self, int fd, int n,
			  uint32_t flags)
{
	int i;

	for (i = 0; i < n; i++) {
		ASSERT_ERRNO(0, blocked_call_start(&self->calls[self->started],
						   fd, flags));
		self->started++;
		ASSERT_TRUE(blocked_call_wait_blocked(&self->calls[self->started - 1],
						      5000));
	}
}

/* How many of the started calls have returned. */
static int calls_done(FIXTURE_DATA(receivers) *self)
{
	int i, n = 0;

	for (i = 0; i < self->started; i++)
		n += __atomic_load_n(&self->calls[i].done, __ATOMIC_ACQUIRE);
	return n;
}

/* Waits up to @ms until @want calls have returned; returns how many did. */
static int wait_done(FIXTURE_DATA(receivers) *self, int want, int ms)
{
	while (calls_done(self) < want && ms > 0) {
		usleep(5 * 1000);
		ms -= 5;
	}
	return calls_done(self);
}

static void read_switches(FIXTURE_DATA(receivers) *self, long *sw)
{
	int i;

	for (i = 0; i < self->started; i++)
		sw[i] = task_voluntary_switches(0, self->calls[i].tid);
}

/*
 * After one message: exactly one call returned with it, and every other
 * thread still sleeps in recvmsg and has not been woken since @before
 * (its voluntary context switches did not change).
 */
static void only_one_woke(struct __test_metadata *_metadata,
			  FIXTURE_DATA(receivers) *self, const long *before)
{
	long after[WAITERS];
	int i, woken = 0;

	ASSERT_EQ(1, wait_done(self, 1, 5000));
	/* Time for a thread woken in vain to run and sleep again. */
	usleep(300 * 1000);
	read_switches(self, after);
	for (i = 0; i < self->started; i++) {
		struct blocked_call *b = &self->calls[i];

		if (__atomic_load_n(&b->done, __ATOMIC_ACQUIRE)) {
			EXPECT_EQ(MSG_LEN, b->result);
			continue;
		}
		EXPECT_TRUE(task_sleeps_in_recvmsg(0, b->tid));
		if (after[i] != before[i]) {
			TH_LOG("thread %d (tid %d) was woken %ld time(s) for a message another took",
			       i, (int)b->tid, after[i] - before[i]);
			woken++;
		}
	}
	EXPECT_EQ(1, calls_done(self));
	EXPECT_EQ(0, woken);
}

/* Four threads wait for requests; each request wakes one of them. */
TEST_F_TIMEOUT(receivers, one_request_wakes_one_waiter, 60)
{
	long before[WAITERS];
	uint64_t id;
	int i;

	start_waiters(_metadata, self, self->server.fd, WAITERS,
		      HOMA_RECVMSG_REQUEST);
	read_switches(self, before);
	ASSERT_ERRNO(0, homa_send_request_buf(self->client.fd,
					      &self->to_server, self->msg,
					      MSG_LEN, 1, &id));
	only_one_woke(_metadata, self, before);
	/* The others take one request each. */
	for (i = 1; i < WAITERS; i++)
		ASSERT_ERRNO(0, homa_send_request_buf(self->client.fd,
						      &self->to_server,
						      self->msg, MSG_LEN, 1,
						      &id));
	EXPECT_EQ(WAITERS, wait_done(self, WAITERS, 5000));
	for (i = 0; i < WAITERS; i++)
		EXPECT_EQ(MSG_LEN, self->calls[i].result);
}

/* Four threads wait for responses; each response wakes one of them. */
TEST_F_TIMEOUT(receivers, one_response_wakes_one_waiter, 60)
{
	struct homa_rx rx[WAITERS];
	long before[WAITERS];
	uint64_t id;
	int i;

	for (i = 0; i < WAITERS; i++) {
		ASSERT_ERRNO(0, homa_send_request_buf(self->client.fd,
						      &self->to_server,
						      self->msg, MSG_LEN,
						      i + 1, &id));
		homa_rx_init(&rx[i]);
		ASSERT_EQ(MSG_LEN, homa_receive(self->server.fd, &rx[i],
						HOMA_RECVMSG_REQUEST, 0, 0));
	}
	start_waiters(_metadata, self, self->client.fd, WAITERS,
		      HOMA_RECVMSG_RESPONSE);
	read_switches(self, before);
	ASSERT_ERRNO(0, homa_send_response_buf(self->server.fd, &rx[0].src,
					       rx[0].ctl.id, self->msg,
					       MSG_LEN));
	only_one_woke(_metadata, self, before);
	for (i = 1; i < WAITERS; i++)
		ASSERT_ERRNO(0, homa_send_response_buf(self->server.fd,
						       &rx[i].src,
						       rx[i].ctl.id,
						       self->msg, MSG_LEN));
	EXPECT_EQ(WAITERS, wait_done(self, WAITERS, 5000));
}

/*
 * A socket that is client and server at once: two threads wait for
 * responses, one for requests. A request wakes the one waiting for
 * requests, and neither of the others.
 */
TEST_F_TIMEOUT(receivers, request_leaves_response_waiters_asleep, 60)
{
	long before[WAITERS];
	uint64_t id;

	start_waiters(_metadata, self, self->server.fd, 2,
		      HOMA_RECVMSG_RESPONSE);
	start_waiters(_metadata, self, self->server.fd, 1,
		      HOMA_RECVMSG_REQUEST);
	read_switches(self, before);
	ASSERT_ERRNO(0, homa_send_request_buf(self->client.fd,
					      &self->to_server, self->msg,
					      MSG_LEN, 1, &id));
	only_one_woke(_metadata, self, before);
	EXPECT_TRUE(__atomic_load_n(&self->calls[2].done, __ATOMIC_ACQUIRE));
}

TEST_HARNESS_MAIN
