// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_client.c - a flow over TCP: one connection (TCP_NODELAY),
 * length-prefixed messages, spec.outstanding requests pipelined. The
 * flow's thread receives (responses come back in order) while a sender
 * thread writes, so a large request and a large response never wait on
 * each other.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "flow.h"
#include "payload.h"
#include "tcp_io.h"

struct tcp_client {
	struct flow *f;
	int fd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t sent;		/* requests handed to the sender, under lock */
	uint64_t received;	/* responses read, under lock */
	int sender_done;	/* under lock */
	int stop;		/* under lock */
	uint64_t *t0;		/* send time of request k at k % outstanding */
	uint8_t *sbuf;
	uint8_t *rbuf;
};

/* Next request number to send, or -1 when sending is over. */
static int64_t next_request(struct tcp_client *c)
{
	struct flow *f = c->f;
	int64_t k = -1;

	pthread_mutex_lock(&c->lock);
	while (c->sent - c->received >= f->spec.outstanding && !c->stop)
		pthread_cond_wait(&c->cond, &c->lock);
	if (!c->stop && now_ns() < f->measure_to && !atomic_load(&f->stalled))
		k = (int64_t)c->sent;
	else
		c->sender_done = 1;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return k;
}

static void *sender_main(void *arg)
{
	struct tcp_client *c = arg;
	struct flow *f = c->f;
	int64_t k;
	int err;

	while ((k = next_request(c)) >= 0) {
		payload_fill(c->sbuf, f->spec.size, f->seed_base + (uint64_t)k, 0);
		pthread_mutex_lock(&c->lock);
		c->t0[(uint64_t)k % f->spec.outstanding] = now_ns();
		c->sent++;
		pthread_cond_broadcast(&c->cond);
		pthread_mutex_unlock(&c->lock);
		err = tcp_send_msg(c->fd, c->sbuf, f->spec.size);
		if (err) {
			pthread_mutex_lock(&c->lock);
			flow_error(f, "tcp send: %s", strerror(-err));
			c->stop = 1;
			c->sender_done = 1;
			pthread_cond_broadcast(&c->cond);
			pthread_mutex_unlock(&c->lock);
			shutdown(c->fd, SHUT_RDWR);
			break;
		}
	}
	return NULL;
}

/* Waits for response @k to be due; 0 when none will come. */
static int response_due(struct tcp_client *c, uint64_t *k, uint64_t *t0)
{
	int due;

	pthread_mutex_lock(&c->lock);
	while (c->received == c->sent && !c->sender_done)
		pthread_cond_wait(&c->cond, &c->lock);
	due = c->received < c->sent;
	*k = c->received;
	*t0 = c->t0[*k % c->f->spec.outstanding];
	pthread_mutex_unlock(&c->lock);
	return due;
}

static void response_done(struct tcp_client *c)
{
	pthread_mutex_lock(&c->lock);
	c->received++;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

static void receive_all(struct tcp_client *c)
{
	struct flow *f = c->f;
	uint64_t k, t0, t1;
	long len;
	int err;

	while (response_due(c, &k, &t0)) {
		len = tcp_recv_len(c->fd);
		if (len >= 0 && (size_t)len != f->spec.size) {
			flow_error(f, "tcp: response of %ld bytes, expected %zu",
				   len, f->spec.size);
			f->res.bad_payload++;
			break;	/* the stream is out of step: give up */
		}
		err = len < 0 ? (int)len : tcp_read_full(c->fd, c->rbuf, f->spec.size);
		if (err) {
			flow_error(f, "tcp receive: %s", strerror(-err));
			break;
		}
		t1 = now_ns();
		f->res.answered++;
		if (payload_check(c->rbuf, f->spec.size, f->seed_base + k, 0) >= 0) {
			f->res.bad_payload++;
			flow_error(f, "tcp: response %llu does not match its request",
				   (unsigned long long)k);
		} else {
			flow_record(f, t1, t1 - t0);
		}
		atomic_fetch_add(&f->progress, 1);
		response_done(c);
	}
	pthread_mutex_lock(&c->lock);
	c->stop = 1;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	shutdown(c->fd, SHUT_RDWR);
}

static void run(struct tcp_client *c)
{
	struct flow *f = c->f;
	pthread_t sender;
	int err;

	err = pthread_create(&sender, NULL, sender_main, c);
	if (err) {
		flow_error(f, "pthread_create: %s", strerror(err));
		return;
	}
	receive_all(c);
	pthread_join(sender, NULL);
	f->res.sent = c->sent;
}

void *tcp_flow_main(void *arg)
{
	struct tcp_client c = { .f = arg, .fd = -1 };
	struct flow *f = c.f;

	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.cond, NULL);
	c.t0 = calloc(f->spec.outstanding, sizeof(*c.t0));
	c.sbuf = malloc(f->spec.size);
	c.rbuf = malloc(f->spec.size);
	if (!c.t0 || !c.sbuf || !c.rbuf) {
		flow_error(f, "out of memory");
		goto out;
	}
	c.fd = tcp_connect(&f->server);
	if (c.fd < 0) {
		flow_error(f, "tcp connect: %s", strerror(-c.fd));
		goto out;
	}
	atomic_store(&f->fd, c.fd);
	run(&c);
	atomic_store(&f->fd, -1);
	close(c.fd);
out:
	free(c.t0);
	free(c.sbuf);
	free(c.rbuf);
	pthread_cond_destroy(&c.cond);
	pthread_mutex_destroy(&c.lock);
	atomic_store(&f->done, 1);
	return NULL;
}
