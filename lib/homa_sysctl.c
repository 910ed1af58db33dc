// SPDX-License-Identifier: GPL-2.0
/* homa_sysctl.c - net.homa.* sysctls and Homa metrics; see homa_sysctl.h. */
#include "homa_sysctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "homa_metrics_text.h"

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

long long homa_metric(const char *name)
{
	struct homa_metrics *m = malloc(sizeof(*m));
	FILE *f = fopen("/proc/net/homa_metrics", "r");
	long long found = -1;
	int64_t v;

	if (m && f && homa_metrics_parse_file(f, m) == 0 &&
	    homa_metrics_sum(m, name, &v) == 0)
		found = v;
	if (f)
		fclose(f);
	free(m);
	return found;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static bool metric_reaches(const char *name, long long want, int ms,
			   bool falls)
{
	long long end = mono_ms() + ms, v;

	for (;;) {
		v = homa_metric(name);
		if (v >= 0 && (falls ? v <= want : v >= want))
			return true;
		if (mono_ms() > end)
			return false;
		usleep(20 * 1000);
	}
}

bool homa_metric_falls_to(const char *name, long long want, int ms)
{
	return metric_reaches(name, want, ms, true);
}

bool homa_metric_rises_to(const char *name, long long want, int ms)
{
	return metric_reaches(name, want, ms, false);
}

long long homa_meminfo_kb(const char *name)
{
	char line[128], key[64];
	long long kb = -1, v;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %lld", key, &v) == 2 &&
		    !strcmp(key, name)) {
			kb = v;
			break;
		}
	fclose(f);
	return kb;
}
