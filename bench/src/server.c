// SPDX-License-Identifier: GPL-2.0
/* server.c - see server.h. */
#include "server.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tcp_io.h"

/* Bpages of the server's region: room for many 1 MB requests at once. */
#define SERVER_BPAGES 512

int server_main(const struct server_opts *o)
{
	pthread_t homa[64], tcp;
	struct homa_ep ep;
	unsigned int i;
	int err, lfd;

	err = homa_ep_open(&ep, o->family, o->port, SERVER_BPAGES);
	if (err) {
		fprintf(stderr, "homa_bench server: Homa socket on port %u: %s\n",
			o->port, strerror(-err));
		return 1;
	}
	lfd = tcp_listen(o->family, o->port);
	if (lfd < 0) {
		fprintf(stderr, "homa_bench server: TCP port %u: %s\n",
			o->port, strerror(-lfd));
		return 1;
	}
	for (i = 0; i < o->homa_threads; i++) {
		err = pthread_create(&homa[i], NULL, homa_server_main, &ep);
		if (err) {
			fprintf(stderr, "homa_bench server: pthread_create: %s\n",
				strerror(err));
			return 1;
		}
	}
	err = pthread_create(&tcp, NULL, tcp_server_main, (void *)(intptr_t)lfd);
	if (err) {
		fprintf(stderr, "homa_bench server: pthread_create: %s\n",
			strerror(err));
		return 1;
	}
	printf("homa_bench server: echoing on Homa and TCP port %u (%u Homa threads)\n",
	       o->port, o->homa_threads);
	fflush(stdout);
	pthread_join(tcp, NULL);
	for (i = 0; i < o->homa_threads; i++)
		pthread_join(homa[i], NULL);
	homa_ep_close(&ep);
	return 1;
}
