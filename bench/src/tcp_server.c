// SPDX-License-Identifier: GPL-2.0
/* tcp_server.c - TCP echo: a thread per connection reads and writes back. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"
#include "tcp_io.h"

static void *conn_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	uint8_t *buf = malloc(BENCH_MAX_SIZE);
	long len;

	while (buf) {
		len = tcp_recv_len(fd);
		if (len < 0 || len > BENCH_MAX_SIZE)
			break;
		if (tcp_read_full(fd, buf, (size_t)len) ||
		    tcp_send_msg(fd, buf, (size_t)len))
			break;
	}
	free(buf);
	close(fd);
	return NULL;
}

void *tcp_server_main(void *arg)
{
	int lfd = (int)(intptr_t)arg, fd, err;
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			fprintf(stderr, "homa_bench server: accept: %s\n",
				strerror(errno));
			return NULL;
		}
		err = tcp_nodelay(fd);
		if (!err)
			err = -pthread_create(&t, &attr, conn_main,
					      (void *)(intptr_t)fd);
		if (err) {
			fprintf(stderr, "homa_bench server: connection: %s\n",
				strerror(-err));
			close(fd);
		}
	}
}
