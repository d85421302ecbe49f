/* SPDX-License-Identifier: MIT */
/* fabsim_client — attach one HCA port to fabsim (protocol in fabsim_wire.h). */
#include "fabsim_client.h"
#include "fabsim_client_ref.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Messages are read in batches (recvmmsg): one system call takes up to RX_BATCH of them; the first
 * lands in the caller's buffer, the others wait here for the next calls. */
#define RX_BATCH 64

struct rx_slot {
	struct fabsim_wire_hdr h;
	size_t n;                 /* bytes received (header + data), or 0 for end of stream */
	bool trunc;
	uint8_t data[FABSIM_WIRE_MAX_DATA];
};

struct fabsim_client {
	int fd;
	uint64_t guid;
	unsigned port;
	unsigned rx_next, rx_count;   /* slots [rx_next, rx_count) hold messages not yet returned */
	bool rx_short;                /* the last recvmmsg returned less than a batch: the socket was
				       * empty then (fabsim_client_recv_ref returns 0 without asking) */
	struct rx_slot rx[RX_BATCH];
	/* recvmmsg's vectors, built once at connect (a caller that polls an idle socket in a loop
	 * pays only the system call): message 0 goes to rx_h0 + the caller's buffer, message i >= 1
	 * to rx[i]. */
	struct fabsim_wire_hdr rx_h0;
	struct iovec rx_iov[RX_BATCH][2];
	struct mmsghdr rx_mm[RX_BATCH];
};

/* How long connect waits for fabsim's HELLO_ACK before giving up (fabsim answers at once; this
 * only keeps a wedged fabsim from hanging the caller forever). */
#define HELLO_ACK_WAIT_MS 10000

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int send_msg(int fd, uint32_t type, uint32_t port, uint64_t guid, uint32_t flags,
		    const void *data, size_t len)
{
	struct fabsim_wire_hdr h = { .type = type, .port = port, .guid = guid,
				     .len = (uint32_t)len, .flags = flags };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)data, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	if (len > FABSIM_WIRE_MAX_DATA)
		return -EMSGSIZE;
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != sizeof(h) + len)
		return -EIO;
	return 0;
}

/* Read one message into hdr + data (data holds FABSIM_WIRE_MAX_DATA). 1 = got one, 0 = none. */
static int recv_msg(int fd, struct fabsim_wire_hdr *hdr, void *data, int flags)
{
	uint8_t buf[FABSIM_WIRE_MAX_MSG + 1];
	ssize_t n;

	do
		n = recv(fd, buf, sizeof(buf), flags);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
	if (n == 0)
		return -ECONNRESET;
	if ((size_t)n < sizeof(*hdr))
		return -EPROTO;
	memcpy(hdr, buf, sizeof(*hdr));
	if (hdr->len > FABSIM_WIRE_MAX_DATA || (size_t)n != sizeof(*hdr) + hdr->len)
		return -EPROTO;
	memcpy(data, buf + sizeof(*hdr), hdr->len);
	return 1;
}

struct fabsim_client *fabsim_client_connect(const char *path, uint64_t port_guid, unsigned port_num,
					    const char *name, char *err, size_t errlen)
{
	return fabsim_client_connect_flags(path, port_guid, port_num, name, 0, err, errlen);
}

struct fabsim_client *fabsim_client_connect_flags(const char *path, uint64_t port_guid,
						  unsigned port_num, const char *name,
						  unsigned hello_flags, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct fabsim_wire_hdr h = { 0 };
	uint8_t data[FABSIM_WIRE_MAX_DATA + 1];
	struct pollfd pfd;
	struct fabsim_client *c;
	int fd, r;

	if (!path || strlen(path) >= sizeof(sa.sun_path)) {
		set_err(err, errlen, "fabsim socket path %s", path ? "too long" : "missing");
		return NULL;
	}
	if (port_num < 1 || port_num > 254) {
		set_err(err, errlen, "port number %u out of range 1..254", port_num);
		return NULL;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		set_err(err, errlen, "socket: %s", strerror(errno));
		return NULL;
	}
	/* Room for bursts while fabsim is busy (capped by net.core.wmem_max). */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &(int){ 4 << 20 }, sizeof(int));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		set_err(err, errlen, "connect to fabsim at %s: %s (is fabsim running with --hca-socket %s?)",
			path, strerror(errno), path);
		goto fail;
	}
	r = send_msg(fd, FABSIM_MSG_HELLO, port_num, port_guid, hello_flags, name ? name : "",
		     name ? strlen(name) : 0);
	if (r < 0) {
		set_err(err, errlen, "send HELLO to fabsim: %s", strerror(-r));
		goto fail;
	}
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	do
		r = poll(&pfd, 1, HELLO_ACK_WAIT_MS);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		set_err(err, errlen, "fabsim at %s did not answer HELLO", path);
		goto fail;
	}
	r = recv_msg(fd, &h, data, 0);
	if (r < 0 || h.type != FABSIM_MSG_HELLO_ACK) {
		set_err(err, errlen, "fabsim at %s: bad answer to HELLO (%s)", path,
			r < 0 ? strerror(-r) : "not a HELLO_ACK");
		goto fail;
	}
	if (h.flags != FABSIM_ACK_OK) {
		data[h.len] = 0;
		set_err(err, errlen, "fabsim refused port GUID 0x%016llx: %s",
			(unsigned long long)port_guid, (char *)data);
		goto fail;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		set_err(err, errlen, "fcntl: %s", strerror(errno));
		goto fail;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		set_err(err, errlen, "out of memory");
		goto fail;
	}
	c->fd = fd;
	c->guid = port_guid;
	c->port = port_num;
	c->rx_iov[0][0] = (struct iovec){ &c->rx_h0, sizeof(c->rx_h0) };
	for (unsigned i = 1; i < RX_BATCH; i++) {
		c->rx_iov[i][0] = (struct iovec){ &c->rx[i].h, sizeof(c->rx[i].h) };
		c->rx_iov[i][1] = (struct iovec){ c->rx[i].data, sizeof(c->rx[i].data) };
	}
	for (unsigned i = 0; i < RX_BATCH; i++)
		c->rx_mm[i].msg_hdr = (struct msghdr){ .msg_iov = c->rx_iov[i], .msg_iovlen = 2 };
	return c;
fail:
	close(fd);
	return NULL;
}

int fabsim_client_fd(const struct fabsim_client *c)
{
	return c->fd;
}

int fabsim_client_send_packet(struct fabsim_client *c, const void *pkt, size_t len)
{
	int r = send_msg(c->fd, FABSIM_MSG_PACKET, 0, 0, 0, pkt, len);

	/* A full socket buffer means fabsim is behind: drop like a congested link would. */
	return r == -EAGAIN ? 0 : r;
}

int fabsim_client_send_link(struct fabsim_client *c, bool trained)
{
	return send_msg(c->fd, FABSIM_MSG_LINK, 0, 0, trained ? FABSIM_LINK_UP : FABSIM_LINK_DOWN,
			NULL, 0);
}

/* A received message (n bytes, trunc: it was longer than the buffer) checked and returned in out,
 * whose data already holds the payload. */
static int rx_check(const struct fabsim_wire_hdr *h, size_t n, bool trunc)
{
	if (n == 0)
		return -ECONNRESET;
	if (n < sizeof(*h) || trunc)
		return -EPROTO;
	if (h->len > FABSIM_WIRE_MAX_DATA || n != sizeof(*h) + h->len)
		return -EPROTO;
	if (h->type != FABSIM_MSG_PACKET && h->type != FABSIM_MSG_LINK)
		return -EPROTO;
	return 1;
}

static int rx_finish(const struct fabsim_wire_hdr *h, size_t n, bool trunc, struct fabsim_msg *out)
{
	int r = rx_check(h, n, trunc);

	if (r < 0)
		return r;
	out->type = h->type;
	out->flags = h->flags;
	out->len = h->len;
	return 1;
}

/* Reads the next batch: message 0 into hdr0 + data0, message i >= 1 into slot i. Returns how many
 * (> 0), 0 when none waits, < 0 = -errno. */
static int rx_batch(struct fabsim_client *c, struct fabsim_wire_hdr *hdr0, uint8_t *data0,
		    bool trust_short)
{
	struct mmsghdr *mm = c->rx_mm;
	int got;

	c->rx_next = c->rx_count = 0;
	if (c->rx_short && trust_short) {
		/* A caller that reads until 0 and then polls does not pay a system call to learn
		 * what the last batch said already; the call after this reads the socket again. */
		c->rx_short = false;
		return 0;
	}
	c->rx_iov[0][0] = (struct iovec){ hdr0, sizeof(*hdr0) };
	c->rx_iov[0][1] = (struct iovec){ data0, FABSIM_WIRE_MAX_DATA };
	do
		got = recvmmsg(c->fd, mm, RX_BATCH, MSG_DONTWAIT, NULL);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
	if (got == 0)
		return -ECONNRESET;
	for (int i = 1; i < got; i++) {
		c->rx[i].n = mm[i].msg_len;
		c->rx[i].trunc = mm[i].msg_hdr.msg_flags & MSG_TRUNC;
	}
	c->rx_count = (unsigned)got;
	c->rx_short = got < RX_BATCH;
	return got;
}

int fabsim_client_recv(struct fabsim_client *c, struct fabsim_msg *out)
{
	struct mmsghdr *mm = c->rx_mm;
	int got;

	if (c->rx_next < c->rx_count) {
		struct rx_slot *s = &c->rx[c->rx_next++];

		if (s->n >= sizeof(s->h) && s->h.len <= FABSIM_WIRE_MAX_DATA)
			memcpy(out->data, s->data, s->h.len);
		return rx_finish(&s->h, s->n, s->trunc, out);
	}
	got = rx_batch(c, &c->rx_h0, out->data, false);
	if (got <= 0)
		return got;
	c->rx_next = 1;
	return rx_finish(&c->rx_h0, mm[0].msg_len, mm[0].msg_hdr.msg_flags & MSG_TRUNC, out);
}

int fabsim_client_recv_ref(struct fabsim_client *c, struct fabsim_msg_ref *out)
{
	struct rx_slot *s;
	int r;

	if (c->rx_next >= c->rx_count) {
		r = rx_batch(c, &c->rx[0].h, c->rx[0].data, true);
		if (r <= 0)
			return r;
		c->rx[0].n = c->rx_mm[0].msg_len;
		c->rx[0].trunc = c->rx_mm[0].msg_hdr.msg_flags & MSG_TRUNC;
	}
	s = &c->rx[c->rx_next++];
	r = rx_check(&s->h, s->n, s->trunc);
	if (r == 1)
		*out = (struct fabsim_msg_ref){ .type = s->h.type, .flags = s->h.flags,
						.len = s->h.len, .data = s->data };
	return r;
}

void fabsim_client_close(struct fabsim_client *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c);
}
