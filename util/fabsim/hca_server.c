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

/* Messages are read and written in batches (recvmmsg/sendmmsg): one system call moves up to this
 * many packets of a connection. Packets for an HCA port wait in its queue until the end of the
 * queue run that delivered them (hca_server_flush), or until the queue is full. */
#define BATCH 64


struct hca_conn {
	int fd;
	struct node *hp;          /* NULL until an accepted HELLO */
	bool linked;              /* the first LINK message went out */
	bool last_link;           /* what the last LINK message said */
	uint64_t dropped_tx;
	struct pkt_event *txq[BATCH]; /* packets waiting to go (each in the event that brought it) */
	unsigned ntx;             /* how many */
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

/* Packets queued for the HCA port go out before anything else is said on the connection. A full
 * socket drops the rest, counted, as a full receive queue would. */
static void conn_flush(struct fabric *f, struct hca_conn *c)
{
	struct fabsim_wire_hdr hdr[BATCH];
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH][2];
	unsigned sent = 0;

	if (!c->ntx)
		return;
	for (unsigned i = 0; i < c->ntx; i++) {
		hdr[i] = (struct fabsim_wire_hdr){ .type = FABSIM_MSG_PACKET, .len = (uint32_t)c->txq[i]->len };
		iov[i][0] = (struct iovec){ &hdr[i], sizeof(hdr[i]) };
		iov[i][1] = (struct iovec){ c->txq[i]->data, c->txq[i]->len };
		mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = iov[i], .msg_iovlen = 2 } };
	}
	while (sent < c->ntx) {
		int r = sendmmsg(c->fd, mm + sent, c->ntx - sent, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		sent += (unsigned)r;
	}
	if (sent < c->ntx && c->hp) {
		/* A model that does not read its socket loses packets, as a full receive queue would. */
		c->dropped_tx += c->ntx - sent;
		c->hp->ports[1].cnt.host_dropped += c->ntx - sent;
		f->dropped_total += c->ntx - sent;
	}
	for (unsigned i = 0; i < c->ntx; i++)
		event_free(f, c->txq[i]);
	c->ntx = 0;
}

void hca_server_flush(struct fabric *f)
{
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (hs.conn[i].fd >= 0)
			conn_flush(f, &hs.conn[i]);
}

static void conn_close(struct fabric *f, struct hca_conn *c)
{
	struct node *hp = c->hp;

	conn_flush(f, c);
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

void hca_server_close(struct fabric *f)
{
	for (unsigned i = 0; i < MAX_CONNS; i++)
		if (hs.conn[i].fd >= 0) {
			close(hs.conn[i].fd);
			hs.conn[i].fd = -1;
			for (unsigned k = 0; k < hs.conn[i].ntx; k++)
				event_free(f, hs.conn[i].txq[k]);
			hs.conn[i].ntx = 0;
			if (hs.conn[i].hp)
				hs.conn[i].hp->hca = NULL;
		}
	listener_close(&hs.l);
}

void hca_server_link_changed(struct fabric *f, struct node *hp)
{
	struct hca_conn *c = hp->hca;
	bool up = cable_ok(&hp->ports[1]);

	if (hp->local) {
		if (!hp->local->linked || up != hp->local->last_link) {
			hp->local->linked = true;
			hp->local->last_link = up;
			hp->local->link(hp->local->ctx, up);
		}
		return;
	}
	if (!c || !c->linked || up == c->last_link)
		return;
	c->last_link = up;
	conn_flush(f, c);
	if (send_msg(c->fd, FABSIM_MSG_LINK, up ? FABSIM_LINK_UP : FABSIM_LINK_DOWN, NULL, 0) < 0)
		fabsim_log(f, 0, "hca-port %s: could not send LINK", hp->name);
}

void hca_server_deliver(struct fabric *f, struct node *hp, const uint8_t *pkt, size_t len)
{
	struct hca_conn *c = hp->hca;

	if (hp->local) {
		hp->local->packet(hp->local->ctx, pkt, len);
		return;
	}
	if (!c)
		return;
	if (len > FABSIM_WIRE_MAX_DATA) {
		hp->ports[1].cnt.host_dropped++;
		f->dropped_total++;
		return;
	}
	/* The event that delivered the packet waits in the queue (a copy if it came otherwise). */
	struct pkt_event *e = fabric_keep_packet(f, &hp->ports[1], pkt, len);
	if (!e) {
		hp->ports[1].cnt.host_dropped++;
		f->dropped_total++;
		return;
	}
	c->txq[c->ntx] = e;
	if (++c->ntx == BATCH)
		conn_flush(f, c);
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
	if (hp->hca || hp->local) {
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

/* One message from the connection (n bytes: header + data; more than FABSIM_WIRE_MAX_MSG means
 * too long). *more: go on reading this connection. */
static void conn_message(struct fabric *f, struct hca_conn *c, const struct fabsim_wire_hdr *hdr,
			 const uint8_t *data, size_t n, bool *more)
{
	struct fabsim_wire_hdr h = *hdr;

	*more = false;
	if (n < sizeof(h)) {
		fabsim_log(f, 0, "HCA connection sent a %zu-byte message; closing it", n);
		conn_close(f, c);
		return;
	}
	if (h.len > FABSIM_WIRE_MAX_DATA || n != sizeof(h) + h.len) {
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
		hello(f, c, &h, data);
		return;
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
	port_transmit(f, &c->hp->ports[1], data, h.len);
	*more = true;
}

/* Take everything waiting on the connection (bounded, so one chatty port cannot starve the rest):
 * up to two batches, each one recvmmsg. The header and the data land in separate buffers. */
static void conn_read(struct fabric *f, struct hca_conn *c)
{
	static struct fabsim_wire_hdr hdr[BATCH];
	static uint8_t data[BATCH][FABSIM_WIRE_MAX_DATA + 1];
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH][2];
	bool more = true;

	for (int round = 0; round < 2 && more && c->fd >= 0; round++) {
		int got;

		for (unsigned i = 0; i < BATCH; i++) {
			iov[i][0] = (struct iovec){ &hdr[i], sizeof(hdr[i]) };
			iov[i][1] = (struct iovec){ data[i], sizeof(data[i]) };
			mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = iov[i], .msg_iovlen = 2 } };
		}
		do
			got = recvmmsg(c->fd, mm, BATCH, MSG_DONTWAIT, NULL);
		while (got < 0 && errno == EINTR);
		if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (got <= 0) {
			conn_close(f, c);
			return;
		}
		for (int i = 0; i < got && more && c->fd >= 0; i++) {
			if (mm[i].msg_len == 0) {       /* the peer closed (an empty record is EOF) */
				conn_close(f, c);
				return;
			}
			conn_message(f, c, &hdr[i], data[i], mm[i].msg_len, &more);
		}
		more = more && got == BATCH;
	}
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
