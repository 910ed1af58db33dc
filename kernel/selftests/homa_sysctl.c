// SPDX-License-Identifier: GPL-2.0
/* homa_sysctl.c - read and write net.homa.* sysctls of the guest. */
#include "homa_sysctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void sysctl_path(char *path, size_t n, const char *name)
{
	snprintf(path, n, "/proc/sys/net/homa/%s", name);
}

long homa_sysctl_read(const char *name)
{
	char path[128];
	long v = -1;
	FILE *f;

	sysctl_path(path, sizeof(path), name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int homa_sysctl_write(const char *name, const char *text)
{
	char path[128];
	int fd, err = 0;
	ssize_t n;

	sysctl_path(path, sizeof(path), name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(text))
		err = -EIO;
	close(fd);
	return err;
}

int homa_sysctl_set(const char *name, long value)
{
	char text[32];

	snprintf(text, sizeof(text), "%ld", value);
	return homa_sysctl_write(name, text);
}
