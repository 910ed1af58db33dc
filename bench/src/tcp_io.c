// SPDX-License-Identifier: GPL-2.0
/* tcp_io.c - see tcp_io.h. */
#include "tcp_io.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

int tcp_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

int tcp_connect(const union homa_addr *dst)
{
	int fd, err;

	fd = socket(dst->sa.sa_family, SOCK_STREAM, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, &dst->sa, homa_addr_len(dst)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	err = tcp_nodelay(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int tcp_listen(int family, uint16_t port)
{
	union homa_addr a;
	int fd, err, one = 1;

	fd = socket(family, SOCK_STREAM, 0);
	if (fd < 0)
		return -errno;
	homa_addr_any(&a, family, port);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, &a.sa, homa_addr_len(&a)) < 0 || listen(fd, 64) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static int write_iov(int fd, struct iovec *iov, int iovcnt)
{
	ssize_t n;

	while (iovcnt > 0) {
		n = writev(fd, iov, iovcnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
			n -= iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= n;
		}
	}
	return 0;
}

int tcp_send_msg(int fd, const void *buf, size_t len)
{
	uint32_t hdr = htonl((uint32_t)len);
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)buf, .iov_len = len },
	};

	return write_iov(fd, iov, 2);
}

int tcp_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = read(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EPIPE;
		p += n;
		len -= n;
	}
	return 0;
}

long tcp_recv_len(int fd)
{
	uint32_t hdr;
	int err = tcp_read_full(fd, &hdr, sizeof(hdr));

	return err ? err : (long)ntohl(hdr);
}
