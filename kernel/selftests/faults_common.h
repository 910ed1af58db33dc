/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faults_common.h - what the fault programs (homa_test_loss,
 * homa_test_stress, homa_test_peer_failure, homa_test_lifecycle) share:
 * the clock, the lab's peer addresses, memory their forked tests share,
 * and the client threads of the random-loss and stress runs.
 *
 * No KTAP here: the programs report through harness.h.
 */
#ifndef HOMA_SELFTEST_FAULTS_COMMON_H
#define HOMA_SELFTEST_FAULTS_COMMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "homa_addr.h"

/* CLOCK_MONOTONIC in milliseconds and in microseconds. */
long long faults_now_ms(void);
long long faults_now_us(void);

/*
 * The address of the lab's host @name ("G0", "G1": HOMALAB_<name>_IP4 or
 * _IP6, which vm/lab exports to guest commands) for @family, with @port.
 * Returns 0, or -1 (said on stderr) when the variable is not set.
 */
int faults_lab_peer(union homa_addr *a, const char *name, int family,
		    uint16_t port);

/*
 * @size zeroed bytes shared by every process forked after the call: each
 * test runs in a child of its own, and a scenario that can run only once
 * (the peer vanishes once, the other guest's stress run is going on)
 * leaves its figures here for the tests that check them. NULL on failure.
 */
void *faults_shared(size_t size);

/*
 * A client thread: verified echo RPCs of mixed sizes to @srv, @count of
 * them, or until @deadline_ms when that is not 0 (then it first waits up
 * to 60 s for the peer's server to come up). Afterwards nothing else may
 * be waiting on its socket: @extra counts responses nobody asked for.
 */
struct fault_client {
	pthread_t thread;
	union homa_addr srv;
	int family;
	long count;
	long long deadline_ms;
	unsigned int seed;
	bool allow_big;		/* ~1 MB messages among the sizes */
	long done;		/* verified round trips */
	long failed;
	long timeouts;		/* failures with ETIMEDOUT */
	long extra;
	long long bytes;
	char first_error[200];
};

void *fault_client_main(void *arg);

/* What a set of client threads did, summed. */
struct fault_client_totals {
	long done;
	long failed;
	long timeouts;
	long extra;
	long long bytes;
};

void fault_clients_sum(const struct fault_client *c, int n,
		       struct fault_client_totals *t);

#endif /* HOMA_SELFTEST_FAULTS_COMMON_H */
