/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agent.h - run a command in a lab guest through its agent socket
 * (protocol in vm/README.md and vm/homalab/guest.py: one line
 * "HOMALAB-CMD <base64 command>", answered by the output and a line
 * "\001HOMALAB-EXIT <status>"), and read /proc/net/homa_metrics with it
 * (the text is parsed by lib/homa_metrics_text.h, the one parser of it).
 */
#ifndef HP_AGENT_H
#define HP_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "homa_metrics_text.h"

/*
 * Run @cmd with sh -c in the guest behind the unix socket @sock.
 * On success *out (malloc'd, NUL-terminated) holds its combined output and
 * *status its exit status; returns 0. -1 with @err on failure or timeout.
 */
int agent_run(const char *sock, const char *cmd, unsigned int timeout_ms,
	      char **out, int *status, char *err, size_t errlen);

/* Read the guest's /proc/net/homa_metrics. 0, or -1 with @err. */
int metrics_read(const char *sock, struct homa_metrics *m, char *err,
		 size_t errlen);

#endif /* HP_AGENT_H */
