// SPDX-License-Identifier: GPL-2.0
/*
 * homa_echo_server - answers every Homa request with its own bytes.
 * Runs until killed.
 *
 * Usage: homa_echo_server [--port P] [--family 4|6] [--bpages N]
 *                         [--delay-ms D] [--daemon] [--pidfile FILE]
 *                         [--log FILE]
 *
 * Requests are answered one at a time, each --delay-ms after it was
 * received (default 0): a slow server, for the overload test.
 *
 * With --daemon the server forks; the parent waits until the child's
 * socket is bound and has its buffer region, writes the child's pid to
 * --pidfile and exits 0: a following command can use the server at once. The child
 * logs to --log (default /tmp/homa_echo_server.<port>.log).
 *
 * homa_echo_server --stop --pidfile FILE ends such a server: it fails
 * (printing the server's state and kernel stacks) if the server has not
 * exited 10 s after SIGTERM, e.g. because closing its socket hangs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "echo.h"
#include "homa_addr.h"
#include "homa_sock.h"

struct server_opts {
	uint16_t port;
	int family;
	unsigned int bpages;
	int delay_ms;
	int daemon;
	int stop;
	const char *pidfile;
	const char *log;
};

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--port P] [--family 4|6] [--bpages N] [--delay-ms D]\n"
		"          [--daemon] [--pidfile FILE] [--log FILE]\n"
		"       %s --stop --pidfile FILE\n", prog, prog);
	exit(2);
}

static void parse(int argc, char **argv, struct server_opts *o)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "family", required_argument, NULL, 'f' },
		{ "bpages", required_argument, NULL, 'b' },
		{ "delay-ms", required_argument, NULL, 'D' },
		{ "daemon", no_argument, NULL, 'd' },
		{ "pidfile", required_argument, NULL, 'P' },
		{ "log", required_argument, NULL, 'l' },
		{ "stop", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct server_opts){ .port = 500, .family = AF_INET,
				   .bpages = 128 };
	while ((c = getopt_long(argc, argv, "p:f:b:D:dP:l:s", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->port = (uint16_t)atoi(optarg);
			break;
		case 'f':
			o->family = homa_family_parse(optarg);
			if (o->family < 0)
				usage(argv[0]);
			break;
		case 'b':
			o->bpages = (unsigned int)atoi(optarg);
			break;
		case 'D':
			o->delay_ms = atoi(optarg);
			break;
		case 'd':
			o->daemon = 1;
			break;
		case 'P':
			o->pidfile = optarg;
			break;
		case 'l':
			o->log = optarg;
			break;
		case 's':
			o->stop = 1;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (o->port == 0 || o->bpages < 2 || o->delay_ms < 0 ||
	    (o->stop && !o->pidfile))
		usage(argv[0]);
}

/* "EINVAL" for -EINVAL (glibc's name of the errno, else its text). */
static const char *err_name(int err)
{
	const char *name = strerrorname_np(-err);

	return name ? name : strerror(-err);
}

/*
 * Forks. The child returns at once; the parent waits until the child
 * reports (through @ready) that its socket is ready, records the
 * child's pid and exits with 0 (ready) or 1.
 */
static void daemonize(const struct server_opts *o, int ready[2])
{
	char status = 1;
	pid_t pid;
	FILE *f;
	int fd;

	if (pipe(ready) < 0) {
		perror("pipe");
		exit(1);
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		/* Keep nothing of the caller's but the status pipe. */
		for (fd = 3; fd < 1024; fd++)
			if (fd != ready[1])
				close(fd);
		return;
	}
	close(ready[1]);
	if (read(ready[0], &status, 1) != 1 || status != 0) {
		fprintf(stderr, "homa_echo_server: server did not start\n");
		exit(1);
	}
	if (o->pidfile) {
		f = fopen(o->pidfile, "w");
		if (!f) {
			perror(o->pidfile);
			kill(pid, SIGTERM);
			exit(1);
		}
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
	printf("# homa_echo_server: pid %d\n", (int)pid);
	exit(0);
}

/* In the daemon: tells the parent, then leaves its console. */
static void detach(const struct server_opts *o, int ready_fd)
{
	char status = 0, deflog[64];
	const char *log = o->log;
	int fd;

	if (!log) {
		snprintf(deflog, sizeof(deflog),
			 "/tmp/homa_echo_server.%u.log", o->port);
		log = deflog;
	}
	setsid();
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (write(ready_fd, &status, 1) != 1)
		exit(1);
	close(ready_fd);
}

/* Prints @path (a /proc file) to stdout. */
static void show(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	printf("%s:\n", path);
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	fclose(f);
}

/* True while @pid exists and is not a zombie. */
static bool alive(pid_t pid)
{
	char path[64], line[128];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "State:", 6) == 0)
			found = strchr(line, 'Z') == NULL;
	fclose(f);
	return found;
}

static int stop_server(const char *pidfile)
{
	char path[64];
	int pid = 0, i;
	DIR *tasks;
	struct dirent *e;
	FILE *f = fopen(pidfile, "r");

	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	if (pid <= 1) {
		fprintf(stderr, "homa_echo_server: no pid in %s\n", pidfile);
		return 1;
	}
	if (kill(pid, SIGTERM) < 0) {
		fprintf(stderr, "homa_echo_server: kill %d: %s (did it die early?)\n",
			pid, strerror(errno));
		return 1;
	}
	for (i = 0; i < 100 && alive(pid); i++)
		usleep(100 * 1000);
	if (!alive(pid))
		return 0;
	printf("homa_echo_server: pid %d did not exit 10 s after SIGTERM\n",
	       pid);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	show(path);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	tasks = opendir(path);
	while (tasks && (e = readdir(tasks))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stack", pid,
			 e->d_name);
		show(path);
	}
	if (tasks)
		closedir(tasks);
	return 1;
}

int main(int argc, char **argv)
{
	struct server_opts o;
	struct homa_ep ep;
	struct homa_rx rx;
	long served = 0;
	int ready[2];
	ssize_t r;
	int err;

	parse(argc, argv, &o);
	if (o.stop)
		return stop_server(o.pidfile);
	if (o.daemon)
		daemonize(&o, ready);
	err = homa_ep_open(&ep, o.family, o.port, o.bpages);
	if (err) {
		fprintf(stderr, "homa_echo_server: port %u: %s\n", o.port,
			err_name(err));
		return 1;
	}
	printf("# homa_echo_server: port %u, %s, %u bpages, ready\n", o.port,
	       o.family == AF_INET ? "IPv4" : "IPv6", o.bpages);
	fflush(stdout);
	if (o.daemon)
		detach(&o, ready[1]);
	homa_rx_init(&rx);
	for (;;) {
		r = echo_once(&ep, &rx, o.delay_ms);
		if (r >= 0) {
			served++;
			continue;
		}
		printf("homa_echo_server: after %ld echoes: %s\n", served,
		       err_name((int)r));
		if (echo_error_is_final((int)-r))
			break;
	}
	homa_ep_close(&ep);
	return 1;
}
