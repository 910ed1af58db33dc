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
	pid_t tid;		/* atomic; the thread's id once it runs */
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

/*
 * Waits up to @ms until the call's thread really sleeps in recvmsg (see
 * task_sleeps_in_recvmsg()). Returns true if it does; false if the call
 * returned or the thread did not block in time.
 */
bool blocked_call_wait_blocked(struct blocked_call *b, int ms);

/*
 * Whether thread @tid of process @pid (0: this process) sleeps (state 'S'
 * in /proc/PID/task/TID/stat) in system call number @nr (first field of
 * /proc/PID/task/TID/syscall).
 */
bool task_sleeps_in_syscall(pid_t pid, pid_t tid, long nr);

/*
 * Whether thread @tid of process @pid (0: this process) sleeps in the
 * recvmsg system call: state 'S' in /proc/PID/task/TID/stat and recvmsg's
 * number first in /proc/PID/task/TID/syscall.
 */
bool task_sleeps_in_recvmsg(pid_t pid, pid_t tid);

/* How many threads of process @pid (0: this one) sleep in recvmsg. */
int tasks_sleeping_in_recvmsg(pid_t pid);

/*
 * How many times thread @tid of process @pid (0: this one) has given up
 * the CPU to sleep (voluntary_ctxt_switches in /proc/PID/task/TID/status):
 * a thread asleep in a call that is woken, finds nothing and sleeps again
 * counts one more. -1 if unreadable.
 */
long task_voluntary_switches(pid_t pid, pid_t tid);

/* The thread's /proc wchan (for diagnostics), "?" if unreadable. */
const char *task_wchan(pid_t pid, pid_t tid, char *buf, size_t n);

#endif /* HOMA_SELFTEST_BLOCKED_CALL_H */
