/* SPDX-License-Identifier: MIT */
/*
 * The SOCK_SEQPACKET listeners fabsim serves on a filesystem path (the HCA socket, the control
 * socket): opening one (replacing a socket an earlier run left, never anything else), closing it
 * (the path goes with it), and the poll set of a listener with its fixed table of connections.
 */
#include "fabsim.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int listener_open(struct listener *l, const char *path, int backlog, const char *what, char *err,
		  size_t errlen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;

	l->fd = -1;
	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "%s socket path '%s' is too long", what, path);
		return -ENAMETOOLONG;
	}
	/* A socket left by an earlier run is replaced; anything else at the path is not touched. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s exists and is not a socket", path);
			return -EEXIST;
		}
		unlink(path);
	}
	strcpy(a.sun_path, path);
	l->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(l->fd, backlog) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s socket %s: %s", what, path, strerror(e));
		if (l->fd >= 0)
			close(l->fd);
		l->fd = -1;
		return -e;
	}
	snprintf(l->path, sizeof(l->path), "%s", path);
	return 0;
}

void listener_close(struct listener *l)
{
	if (l->fd >= 0) {
		close(l->fd);
		unlink(l->path);
	}
	l->fd = -1;
}

/* pfd[0] is the listening socket; the caller puts its nconn connection slots in pfd[1..nconn]
 * (fd -1 for an empty one). Returns how many entries the set has, 0 without a listener or room. */
int listener_pollfds(const struct listener *l, struct pollfd *pfd, int max, unsigned nconn)
{
	if (l->fd < 0 || max < 1 + (int)nconn)
		return 0;
	pfd[0] = (struct pollfd){ .fd = l->fd, .events = POLLIN };
	return 1 + (int)nconn;
}

/* A new connection when pfd[0] says one waits (non-blocking, close-on-exec), else -1. */
int listener_accept(const struct listener *l, const struct pollfd *pfd)
{
	if (!(pfd[0].revents & POLLIN))
		return -1;
	return accept4(l->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}
