// SPDX-License-Identifier: GPL-2.0
/*
 * homa_client.c - a flow over Homa: one socket, spec.outstanding
 * requests in flight, responses taken in any order and matched to their
 * slot by completion cookie and id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "flow.h"
#include "homa_msg.h"
#include "homa_sock.h"
#include "payload.h"

/* Bpages of the client's region: room for every outstanding response. */
#define CLIENT_BPAGES 256

struct homa_slot {
	uint64_t id;
	uint64_t seed;
	uint64_t t0;
	int busy;
	uint8_t *buf;
};

struct homa_client {
	struct flow *f;
	struct homa_ep ep;
	struct homa_rx in;
	struct homa_slot *slots;
	unsigned int busy;
	uint64_t next;
};

static int issue(struct homa_client *c, unsigned int i)
{
	struct homa_slot *s = &c->slots[i];
	struct iovec iov = { .iov_base = s->buf, .iov_len = c->f->spec.size };
	int err;

	s->seed = c->f->seed_base + c->next++;
	payload_fill(s->buf, c->f->spec.size, s->seed, 0);
	s->id = 0;
	s->t0 = now_ns();
	err = homa_send_request(c->ep.fd, &c->f->server, &iov, 1, i, &s->id);
	c->f->res.sent++;
	if (err) {
		c->f->res.rpc_errors++;
		flow_error(c->f, "homa sendmsg: %s", strerror(-err));
		return err;
	}
	s->busy = 1;
	c->busy++;
	return 0;
}

static int verify(struct homa_client *c, const struct homa_slot *s)
{
	struct iovec iov[HOMA_MAX_BPAGES];
	int n;

	if ((size_t)c->in.length != c->f->spec.size)
		return -1;
	n = homa_rx_iov(&c->ep.region, &c->in, iov);
	if (n < 0 || payload_check_iov(iov, n, s->seed) >= 0)
		return -1;
	return 0;
}

/* Handles one recvmsg outcome; 1 to go on, 0 to stop receiving. */
static int take(struct homa_client *c, ssize_t n, uint64_t t1)
{
	struct flow *f = c->f;
	uint64_t cookie = c->in.ctl.completion_cookie;
	struct homa_slot *s;

	if (n < 0 && c->in.ctl.id == 0) {
		if (n == -EINTR)
			return 1;
		flow_error(f, "homa recvmsg: %s", strerror((int)-n));
		return 0;
	}
	if (cookie >= f->spec.outstanding || !c->slots[cookie].busy ||
	    c->slots[cookie].id != c->in.ctl.id) {
		flow_error(f, "homa: response id %llu cookie %llu matches no request",
			   (unsigned long long)c->in.ctl.id,
			   (unsigned long long)cookie);
		f->res.stray++;
		return 1;
	}
	s = &c->slots[cookie];
	s->busy = 0;
	c->busy--;
	if (n < 0) {
		f->res.rpc_errors++;
		flow_error(f, "homa RPC failed: %s", strerror((int)-n));
	} else {
		f->res.answered++;
		if (verify(c, s)) {
			f->res.bad_payload++;
			flow_error(f, "homa: response of %zd bytes does not match the request",
				   n);
		} else {
			flow_record(f, t1, t1 - s->t0);
		}
	}
	atomic_fetch_add(&f->progress, 1);
	if (t1 < f->measure_to && !atomic_load(&f->stalled))
		issue(c, (unsigned int)cookie);
	return 1;
}

static void run(struct homa_client *c)
{
	struct flow *f = c->f;
	unsigned int i;
	ssize_t n;

	for (i = 0; i < f->spec.outstanding; i++)
		if (issue(c, i))
			return;
	while (c->busy > 0) {
		n = homa_receive(c->ep.fd, &c->in, HOMA_RECVMSG_RESPONSE, 0, 0);
		if (!take(c, n, now_ns()))
			break;
	}
}

void *homa_flow_main(void *arg)
{
	struct homa_client c = { .f = arg };
	struct flow *f = c.f;
	unsigned int i;
	int err;

	homa_rx_init(&c.in);
	c.slots = calloc(f->spec.outstanding, sizeof(*c.slots));
	for (i = 0; c.slots && i < f->spec.outstanding; i++) {
		c.slots[i].buf = malloc(f->spec.size);
		if (!c.slots[i].buf)
			break;
	}
	if (!c.slots || i < f->spec.outstanding) {
		flow_error(f, "out of memory");
		goto out;
	}
	err = homa_ep_open(&c.ep, f->server.sa.sa_family, 0, CLIENT_BPAGES);
	if (err) {
		flow_error(f, "homa socket: %s", strerror(-err));
		goto out;
	}
	atomic_store(&f->fd, c.ep.fd);
	run(&c);
	atomic_store(&f->fd, -1);
	homa_ep_close(&c.ep);
out:
	for (i = 0; c.slots && i < f->spec.outstanding; i++)
		free(c.slots[i].buf);
	free(c.slots);
	atomic_store(&f->done, 1);
	return NULL;
}
