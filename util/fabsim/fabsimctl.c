/* SPDX-License-Identifier: MIT */
/* fabsimctl PATH COMMAND... — send one command to fabsim's control socket, print the reply.
 * Exit status 0 when the reply does not start with "error:", 1 when it does, 2 on no answer. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char reply[65536];
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char cmd[1024] = "";
	struct pollfd pfd;
	ssize_t n;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: fabsimctl CONTROL-SOCKET COMMAND [ARGS...]  (try: help)\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (strlen(cmd) + strlen(argv[i]) + 2 > sizeof(cmd)) {
			fprintf(stderr, "fabsimctl: command too long\n");
			return 2;
		}
		if (i > 2)
			strcat(cmd, " ");
		strcat(cmd, argv[i]);
	}
	if (strlen(argv[1]) >= sizeof(a.sun_path)) {
		fprintf(stderr, "fabsimctl: socket path too long\n");
		return 2;
	}
	strcpy(a.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		fprintf(stderr, "fabsimctl: %s: %s (is fabsim running with --control %s?)\n", argv[1],
			strerror(errno), argv[1]);
		return 2;
	}
	if (send(fd, cmd, strlen(cmd), MSG_NOSIGNAL) < 0) {
		fprintf(stderr, "fabsimctl: send: %s\n", strerror(errno));
		return 2;
	}
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&pfd, 1, 30000) <= 0 || (n = recv(fd, reply, sizeof(reply) - 1, 0)) <= 0) {
		fprintf(stderr, "fabsimctl: no answer from fabsim\n");
		return 2;
	}
	reply[n] = 0;
	fputs(reply, stdout);
	close(fd);
	return strncmp(reply, "error:", 6) ? 0 : 1;
}
