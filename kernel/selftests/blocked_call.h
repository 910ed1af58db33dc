/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blocked_call.h - a recvmsg that runs in its own thread, so a test can
 * watch it block and wake it (signal, shutdown) without hanging itself.
 */
#ifndef HOMA_SELFTEST_BLOCKED_CALL_H
#define HOMA_SELFTEST_BLOCKED_CALL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct blocked_call {
	int fd;
	uint32_t flags;		/* HOMA_RECVMSG_* */
	ssize_t result;		/* length or -errno, once done */
	int done;		/* atomic */
	pthread_t thread;
};

/* Starts recvmsg(@fd) with @flags in a new thread. Returns 0 or -errno. */
int blocked_call_start(struct blocked_call *b, int fd, uint32_t flags);

/* Waits up to @ms for the call to return; true if it has. */
bool blocked_call_wait(struct blocked_call *b, int ms);

/*
 * Ends the thread: if the call is still blocked, shuts the socket down
 * to wake it. Returns true when the call had returned by itself.
 */
bool blocked_call_finish(struct blocked_call *b);

#endif /* HOMA_SELFTEST_BLOCKED_CALL_H */
