// SPDX-License-Identifier: GPL-2.0
/* blocked_call.c - see blocked_call.h. */
#define _GNU_SOURCE
#include "blocked_call.h"

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "homa_msg.h"

static void *blocked_main(void *arg)
{
	struct blocked_call *b = arg;
	struct homa_rx rx;

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
