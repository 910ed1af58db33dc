// SPDX-License-Identifier: GPL-2.0
/* blocked_call.c - see blocked_call.h. */
#define _GNU_SOURCE
#include "blocked_call.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "homa_msg.h"

static void *blocked_main(void *arg)
{
	struct blocked_call *b = arg;
	struct homa_rx rx;

	__atomic_store_n(&b->tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	homa_rx_init(&rx);
	b->result = homa_receive(b->fd, &rx, b->flags, 0, 0);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int blocked_call_start(struct blocked_call *b, int fd, uint32_t flags)
{
	memset(b, 0, sizeof(*b));
	b->fd = fd;
	b->flags = flags;
	return -pthread_create(&b->thread, NULL, blocked_main, b);
}

bool blocked_call_wait(struct blocked_call *b, int ms)
{
	for (;;) {
		if (__atomic_load_n(&b->done, __ATOMIC_ACQUIRE))
			return true;
		if (ms <= 0)
			return false;
		usleep(10 * 1000);
		ms -= 10;
	}
}

bool blocked_call_finish(struct blocked_call *b)
{
	bool by_itself = blocked_call_wait(b, 0);

	if (!by_itself) {
		shutdown(b->fd, SHUT_RDWR);
		blocked_call_wait(b, 5000);
	}
	pthread_join(b->thread, NULL);
	return by_itself;
}

static int read_task_file(pid_t pid, pid_t tid, const char *what, char *buf,
			  size_t n)
{
	char path[96];
	size_t got;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
			 (int)tid, what);
	else
		snprintf(path, sizeof(path), "/proc/self/task/%d/%s",
			 (int)tid, what);
	f = fopen(path, "r");
	if (!f)
		return -1;
	got = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[got] = 0;
	return 0;
}

bool task_sleeps_in_syscall(pid_t pid, pid_t tid, long nr)
{
	char buf[512], *p;

	/* stat: "tid (comm) S ..."; comm may contain anything but ')'. */
	if (read_task_file(pid, tid, "stat", buf, sizeof(buf)) < 0)
		return false;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] != 'S')
		return false;
	/* syscall: "NR args... sp pc" while in a call, "running" or "-1 ..." */
	if (read_task_file(pid, tid, "syscall", buf, sizeof(buf)) < 0)
		return false;
	return strtol(buf, NULL, 10) == nr;
}

bool task_sleeps_in_recvmsg(pid_t pid, pid_t tid)
{
	return task_sleeps_in_syscall(pid, tid, SYS_recvmsg);
}

int tasks_sleeping_in_recvmsg(pid_t pid)
{
	char path[64];
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/task");
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    task_sleeps_in_recvmsg(pid, (pid_t)atoi(e->d_name)))
			n++;
	closedir(d);
	return n;
}

long task_voluntary_switches(pid_t pid, pid_t tid)
{
	static const char key[] = "voluntary_ctxt_switches:";
	char buf[2048], *p;

	if (read_task_file(pid, tid, "status", buf, sizeof(buf)) < 0)
		return -1;
	/* "nonvoluntary_ctxt_switches:" follows: match at a line start. */
	for (p = buf; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, key, sizeof(key) - 1))
			return strtol(p + sizeof(key) - 1, NULL, 10);
	}
	return -1;
}

const char *task_wchan(pid_t pid, pid_t tid, char *buf, size_t n)
{
	if (read_task_file(pid, tid, "wchan", buf, n) < 0)
		snprintf(buf, n, "?");
	return buf;
}

bool blocked_call_wait_blocked(struct blocked_call *b, int ms)
{
	struct timespec ts;
	long long end;
	pid_t tid;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec * 1000LL + ts.tv_nsec / 1000000 + ms;
	for (;;) {
		if (__atomic_load_n(&b->done, __ATOMIC_ACQUIRE))
			return false;
		tid = __atomic_load_n(&b->tid, __ATOMIC_ACQUIRE);
		if (tid && task_sleeps_in_recvmsg(0, tid))
			return true;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec * 1000LL + ts.tv_nsec / 1000000 > end)
			return false;
		usleep(5 * 1000);
	}
}
