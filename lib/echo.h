/* SPDX-License-Identifier: GPL-2.0 */
/*
 * echo.h - the echo service used by homa_echo_server and by the tests
 * that run their servers as threads: every request is sent back as its
 * response, byte for byte, straight out of the bpages it arrived in.
 */
#ifndef HOMA_USER_ECHO_H
#define HOMA_USER_ECHO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "homa_msg.h"
#include "homa_sock.h"

/*
 * Receives one request on @ep and echoes it, @delay_ms after it arrived.
 * Returns the request length, or -errno of the failing recvmsg or sendmsg.
 */
ssize_t echo_once(struct homa_ep *ep, struct homa_rx *rx, int delay_ms);

/* True for errors after which a receive loop cannot go on. */
int echo_error_is_final(int err);

/*
 * Echoes requests on @ep until an error after which it cannot go on, and
 * returns that error (positive). Counts echoed requests in @served, other
 * errors in @errors (may be NULL), and stores the CLOCK_MONOTONIC time in
 * ms of each echo in @last_ms (may be NULL). Several threads may serve
 * one socket, each with its own counters.
 */
int echo_serve(struct homa_ep *ep, long *served, long *errors,
	       atomic_llong *last_ms);

/* An echo server running in a thread of the test program. */
struct echo_thread {
	struct homa_ep ep;
	pthread_t thread;
	long served;		/* requests echoed */
	long errors;		/* failed receives/sends other than the last */
	int last_err;		/* the error that ended the loop (positive) */
};

/*
 * Opens the socket (@port 0 = automatic) with @bpages bpages and starts
 * the thread. Returns 0 or -errno.
 */
int echo_thread_start(struct echo_thread *t, int family, uint16_t port,
		      unsigned int bpages);

/* Shuts the socket down (which ends the loop), joins, closes. */
void echo_thread_stop(struct echo_thread *t);

#endif /* HOMA_USER_ECHO_H */
