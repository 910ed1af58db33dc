// SPDX-License-Identifier: BSD-2-Clause
/* agent.c - the lab guest agent client: one command per connection. */
#include "agent.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hp_util.h"

#define EXIT_MARK	"\001HOMALAB-EXIT "

/* The request line the agent reads (vm/homalab/guest.py): "HOMALAB-CMD <base64>". */
#define CMD_PREFIX	"HOMALAB-CMD "

static char *base64(const char *s)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strlen(s), j = strlen(CMD_PREFIX);
	char *o = malloc(4 * ((n + 2) / 3) + j + 2);

	if (!o)
		return NULL;
	memcpy(o, CMD_PREFIX, j);
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)(unsigned char)s[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)(unsigned char)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)s[i + 2];
		o[j++] = tab[v >> 18 & 63];
		o[j++] = tab[v >> 12 & 63];
		o[j++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		o[j++] = i + 2 < n ? tab[v & 63] : '=';
	}
	o[j++] = '\n';
	o[j] = 0;
	return o;
}

static int connect_sock(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "agent socket path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(err, errlen, "agent %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int agent_run(const char *sock, const char *cmd, unsigned int timeout_ms,
	      char **out, int *status, char *err, size_t errlen)
{
	uint64_t deadline = hp_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	char *line = base64(cmd), *buf = NULL, *mark;
	size_t len = 0, cap = 0;
	int fd = -1, ret = -1;

	if (!line) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fd = connect_sock(sock, err, errlen);
	if (fd < 0)
		goto out;
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		snprintf(err, errlen, "agent %s: write: %s", sock, strerror(errno));
		goto out;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = hp_now_ns();
		ssize_t r;

		if (now >= deadline) {
			snprintf(err, errlen, "agent: '%s' did not finish in %u ms",
				 cmd, timeout_ms);
			goto out;
		}
		if (poll(&p, 1, (int)((deadline - now) / 1000000 + 1)) <= 0)
			continue;
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 8192);

			if (!nb) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			buf = nb;
		}
		r = read(fd, buf + len, 4096);
		if (r <= 0)
			break;
		len += (size_t)r;
		buf[len] = 0;
		mark = strstr(buf, EXIT_MARK);
		if (mark && strchr(mark, '\n'))
			break;
	}
	if (!buf || !(mark = strstr(buf, EXIT_MARK))) {
		snprintf(err, errlen, "agent: no exit status for '%s'", cmd);
		goto out;
	}
	*status = atoi(mark + strlen(EXIT_MARK));
	*mark = 0;
	*out = buf;
	buf = NULL;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(line);
	free(buf);
	return ret;
}

int metrics_read(const char *sock, struct homa_metrics *m, char *err,
		 size_t errlen)
{
	char *out = NULL;
	int status;

	if (agent_run(sock, "cat /proc/net/homa_metrics", 10000, &out, &status,
		      err, errlen))
		return -1;
	if (status != 0) {
		snprintf(err, errlen, "cat /proc/net/homa_metrics: status %d: %.200s",
			 status, out);
		free(out);
		return -1;
	}
	homa_metrics_parse(out, m);
	free(out);
	return 0;
}
