/* SPDX-License-Identifier: MIT */
/*
 * fabsim's side of the HCA attachment protocol (fabsim_wire.h): a SOCK_SEQPACKET listener; each
 * connection says HELLO with a port GUID, is matched to an hca-port of the topology, and then
 * exchanges whole IB packets. Whatever arrives at that hca-port is sent down the connection; the
 * HCA model's own SMA answers its SMPs.
 */
#include "fabsim.h"
#include "fabsim_wire.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_CONNS 32

struct hca_conn {
	int fd;
	struct node *hp;          /* NULL until an accepted HELLO */
	bool linked;              /* the first LINK message went out */
	bool last_link;           /* what the last LINK message said */
	uint64_t dropped_tx;
};

static struct {
	struct listener l;
	struct hca_conn conn[MAX_CONNS];
} hs = { .l.fd = -1 };

static int send_msg(int fd, uint32_t type, uint32_t flags, const void *data, size_t len)
{
	struct fabsim_wire_hdr h = { .type = type, .len = (uint32_t)len, .flags = flags };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)data, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };

	return sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -errno : 0;
}

int hca_server_open(struct fabric *f, const char *path, char *err, size_t errlen)
{
	(void)f;
	for (unsigned i = 0; i < MAX_CONNS; i++)
		hs.conn[i].fd = -1;
	return listener_open(&hs.l, path, 16, "HCA", err, errlen);
}

static void conn_close(struct fabric *f, struct hca_conn *c)
{
	struct node *hp = c->hp;

	close(c->fd);
	c->fd = -1;
	c->hp = NULL;
	c->linked = false;
	if (hp) {
		fabsim_log(f, 0, "hca-port %s (GUID 0x%016" PRIx64 ") detached", hp->name, hp->guid);
		hp->hca = NULL;
		if (hp->ports[1].link)
			link_update(f, hp->ports[1].link);
	}
}

void hca_server_close(void)
{
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (hs.conn[i].fd >= 0) {
			close(hs.conn[i].fd);
			hs.conn[i].fd = -1;
			if (hs.conn[i].hp)
				hs.conn[i].hp->hca = NULL;
		}
	listener_close(&hs.l);
}

void hca_server_link_changed(struct fabric *f, struct node *hp)
{
	struct hca_conn *c = hp->hca;
	bool up = cable_ok(&hp->ports[1]);

	if (!c || !c->linked || up == c->last_link)
		return;
	c->last_link = up;
	if (send_msg(c->fd, FABSIM_MSG_LINK, up ? FABSIM_LINK_UP : FABSIM_LINK_DOWN, NULL, 0) < 0)
		fabsim_log(f, 0, "hca-port %s: could not send LINK", hp->name);
}

void hca_server_deliver(struct fabric *f, struct node *hp, const uint8_t *pkt, size_t len)
{
	struct hca_conn *c = hp->hca;

	if (!c)
		return;
	if (send_msg(c->fd, FABSIM_MSG_PACKET, 0, pkt, len) < 0) {
		/* A model that does not read its socket loses packets, as a full receive queue would. */
		c->dropped_tx++;
		hp->ports[1].cnt.host_dropped++;
		f->dropped_total++;
	}
}

static void refuse(struct fabric *f, struct hca_conn *c, const char *why)
{
	fabsim_log(f, 0, "refused an HCA port: %s", why);
	send_msg(c->fd, FABSIM_MSG_HELLO_ACK, FABSIM_ACK_REFUSED, why, strlen(why));
	conn_close(f, c);
}

static void hello(struct fabric *f, struct hca_conn *c, const struct fabsim_wire_hdr *h,
		  const uint8_t *data)
{
	char why[160], name[64];
	struct node *hp = fabric_find_hca_port(f, h->guid);
	size_t nlen = h->len < sizeof(name) - 1 ? h->len : sizeof(name) - 1;
	bool up;

	memcpy(name, data, nlen);
	name[nlen] = 0;
	if (!hp || !hp->ports[1].link) {
		snprintf(why, sizeof(why), "no cable for GUID 0x%016" PRIx64 " in the topology",
			 h->guid);
		refuse(f, c, why);
		return;
	}
	if (hp->hca) {
		snprintf(why, sizeof(why), "port GUID 0x%016" PRIx64 " (%s) is already attached",
			 h->guid, hp->name);
		refuse(f, c, why);
		return;
	}
	c->hp = hp;
	hp->hca = c;
	hp->hca_port_num = h->port;
	hp->hca_reports_link = h->flags & FABSIM_HELLO_REPORTS_LINK;
	hp->hca_trained = false;
	if (send_msg(c->fd, FABSIM_MSG_HELLO_ACK, FABSIM_ACK_OK, NULL, 0) < 0) {
		conn_close(f, c);
		return;
	}
	link_update(f, hp->ports[1].link);
	up = cable_ok(&hp->ports[1]);
	c->last_link = up;
	if (send_msg(c->fd, FABSIM_MSG_LINK, up ? FABSIM_LINK_UP : FABSIM_LINK_DOWN, NULL, 0) < 0) {
		conn_close(f, c);
		return;
	}
	c->linked = true;
	fabsim_log(f, 0, "hca-port %s attached: \"%s\" port %u, GUID 0x%016" PRIx64 ", cable %s%s",
		   hp->name, name, h->port, h->guid, up ? "up" : "down",
		   hp->hca_reports_link ? ", waiting for the HCA's end to train" : "");
}

static void conn_read_one(struct fabric *f, struct hca_conn *c, bool *more)
{
	uint8_t buf[FABSIM_WIRE_MAX_MSG + 1];
	struct fabsim_wire_hdr h;
	ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

	*more = false;
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(f, c);
		return;
	}
	if ((size_t)n < sizeof(h)) {
		fabsim_log(f, 0, "HCA connection sent a %zd-byte message; closing it", n);
		conn_close(f, c);
		return;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.len > FABSIM_WIRE_MAX_DATA || (size_t)n != sizeof(h) + h.len) {
		fabsim_log(f, 0, "HCA connection: length %u does not match the message; closing it",
			   h.len);
		conn_close(f, c);
		return;
	}
	if (!c->hp) {
		if (h.type != FABSIM_MSG_HELLO) {
			fabsim_log(f, 0, "HCA connection sent type %u before HELLO; closing it", h.type);
			conn_close(f, c);
			return;
		}
		{
			hello(f, c, &h, buf + sizeof(h));
			return;
		}
	}
	if (h.type == FABSIM_MSG_LINK && c->hp->hca_reports_link && h.len == 0) {
		c->hp->hca_trained = h.flags == FABSIM_LINK_UP;
		fabsim_log(f, 1, "hca-port %s: the HCA's end %s", c->hp->name,
			   c->hp->hca_trained ? "trained" : "dropped");
		link_update(f, c->hp->ports[1].link);
		*more = true;
		return;
	}
	if (h.type != FABSIM_MSG_PACKET) {
		fabsim_log(f, 0, "hca-port %s sent message type %u; closing it", c->hp->name, h.type);
		conn_close(f, c);
		return;
	}
	port_transmit(f, &c->hp->ports[1], buf + sizeof(h), h.len);
	*more = true;
}

/* Take everything waiting on the connection (bounded, so one chatty port cannot starve the rest). */
static void conn_read(struct fabric *f, struct hca_conn *c)
{
	bool more = true;

	for (int i = 0; i < 64 && more && c->fd >= 0; i++)
		conn_read_one(f, c, &more);
}

int hca_server_pollfds(struct pollfd *pfd, int max)
{
	int n = listener_pollfds(&hs.l, pfd, max, MAX_CONNS);

	for (unsigned i = 0; n && i < MAX_CONNS; i++)
		pfd[1 + i] = (struct pollfd){ .fd = hs.conn[i].fd, .events = POLLIN };
	return n;
}

void hca_server_handle(struct fabric *f, const struct pollfd *pfd, int n)
{
	int fd;

	if (n < 1 + MAX_CONNS)
		return;
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (hs.conn[i].fd >= 0 && pfd[1 + i].fd == hs.conn[i].fd && pfd[1 + i].revents)
			conn_read(f, &hs.conn[i]);
	fd = listener_accept(&hs.l, pfd);
	if (fd >= 0) {
		unsigned i;

		for (i = 0; i < MAX_CONNS && hs.conn[i].fd >= 0; i++)
			;
		if (i == MAX_CONNS) {
			fabsim_log(f, 0, "too many HCA connections (%d); refusing one", MAX_CONNS);
			close(fd);
			return;
		}
		/* Room for bursts (a TCP window of IPoIB packets) while the model is busy; the kernel
		 * caps this at net.core.wmem_max. */
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &(int){ 4 << 20 }, sizeof(int));
		hs.conn[i] = (struct hca_conn){ .fd = fd };
	}
}
