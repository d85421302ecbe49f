/* SPDX-License-Identifier: MIT */
/*
 * The SM host's front end: fabsim speaks the *server* side of the ibsim protocol so that the stock
 * OpenSM and infiniband-diags attach through Debian's libumad2sim.so (LD_PRELOAD). Protocol facts
 * (as umad2sim uses them):
 *
 *   - AF_UNIX SOCK_DGRAM sockets in the abstract namespace, base name from $IBSIM_SOCKNAME; every
 *     address length counts one trailing NUL. Server control socket "<base>:ctl"; a client binds
 *     "<base>:ctl<pid>" and "<base>:in<pid>"; for client slot N the server binds "<base>:out<N>"
 *     and connects it to the client's "<base>:in<pid>". (umad2sim's UDP mode is not served: it
 *     would listen on the host's interfaces.)
 *   - control: 80-byte messages {u32 magic 0xDEADBEEF, clientid, type, len; u8 data[64]}, host
 *     order; the reply is the same message, type 0 on error.
 *   - data: 288-byte records {be16-in-u32 DLID, SLID; be32 DQPN, SQPN, status; u32 pad;
 *     be64 length; u8 mad[256]}. SLID 0 = "fill in my LID"; DLID 0xFFFF = directed route;
 *     status 110 (ETIMEDOUT) = "could not be sent", returned to the sender.
 *
 * Unlike ibsim, fabsim turns every record into a real IB packet (LRH + BTH + DETH + MAD + ICRC +
 * VCRC) at the client's SM-host port and back: the SMPs cross the switches and reach the HCA
 * models' own SMAs. Requests are tagged with the client slot in TID bits 63..48 so responses find
 * their way back; unsolicited requests go to the client that set IsSM (the SM).
 */
#include "fabsim.h"
#include "smp.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <ibboot/wire/bytes.h>

#define SIM_MAGIC 0xdeadbeefu
#define SIM_MAX_CLIENTS 10
#define SIM_REC_BYTES 288
#define SIM_STATUS_DROPPED 110   /* ETIMEDOUT, as ibsim reports an undeliverable packet */

enum sim_ctl_type {
	SIM_CTL_ERROR, SIM_CTL_CONNECT, SIM_CTL_DISCONNECT, SIM_CTL_GET_PORT, SIM_CTL_GET_VENDOR,
	SIM_CTL_GET_GID, SIM_CTL_GET_GUID, SIM_CTL_GET_NODEINFO, SIM_CTL_GET_PORTINFO,
	SIM_CTL_SET_ISSM, SIM_CTL_GET_PKEYS,
};

struct sim_ctl_msg {
	uint32_t magic, clientid, type, len;
	uint8_t data[64];
};
_Static_assert(sizeof(struct sim_ctl_msg) == 80, "ibsim control message is 80 bytes");

/* CONNECT payload: {u32 id (pid in, slot out); u32 qp; u32 issm; char nodeid[32]} */
#define CONNECT_ID 0
#define CONNECT_ISSM 8
#define CONNECT_NODEID 12
#define NODEID_LEN 32

/* Record offsets */
#define REC_DLID 0
#define REC_SLID 4
#define REC_DQP 8
#define REC_SQP 12
#define REC_STATUS 16
#define REC_LENGTH 24
#define REC_MAD 32

/* umad2sim has no timeouts of its own: the kernel's umad would fail an unanswered request with
 * ETIMEDOUT after timeout_ms * (retries + 1), and ibsim bounces every request it cannot deliver.
 * fabsim carries requests over real links where they may be lost, so it remembers each request
 * a client sent and bounces it (status 110) when no response came back in time — OpenSM's default
 * 200 ms transaction timeout with 3 retries. */
#define REQUEST_TIMEOUT_MS 800
#define MAX_OUTSTANDING 128

struct outstanding {
	bool used;
	uint64_t tid;
	uint64_t deadline_ns;
	uint8_t rec[SIM_REC_BYTES];
};

struct sim_client {
	bool used;
	int fd;                  /* "<base>:out<slot>", connected to the client's "in<pid>" */
	uint32_t pid;
	bool issm;
	struct port *port;
	struct outstanding *out; /* MAX_OUTSTANDING requests awaiting a response */
	uint64_t bounced;
};

static struct {
	struct fabric *f;
	int ctl_fd;
	char base[80];
	struct sim_client cl[SIM_MAX_CLIENTS];
} srv = { .ctl_fd = -1 };

socklen_t ibsim_abstract_addr(struct sockaddr_un *a, const char *fmt, const char *base, long n)
{
	int len;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	len = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 2, fmt, base, n);
	/* umad2sim counts one trailing NUL in the name length (fabric-opensm.md §1.2). */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len + 1);
}

int ibsim_server_open(struct fabric *f, const char *base, char *err, size_t errlen)
{
	struct sockaddr_un a;
	socklen_t alen;

	srv.f = f;
	for (unsigned i = 0; i < SIM_MAX_CLIENTS; i++)
		srv.cl[i].fd = -1;
	if (strlen(base) > 60) {
		snprintf(err, errlen, "ibsim socket name '%s' is too long (60 characters at most)", base);
		return -ENAMETOOLONG;
	}
	snprintf(srv.base, sizeof(srv.base), "%s", base);
	srv.ctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (srv.ctl_fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	alen = ibsim_abstract_addr(&a, "%s:ctl", base, 0);
	if (bind(srv.ctl_fd, (struct sockaddr *)&a, alen) < 0) {
		int e = errno;

		snprintf(err, errlen, "bind @%s:ctl: %s (another fabsim/ibsim with IBSIM_SOCKNAME=%s?)",
			 base, strerror(e), base);
		close(srv.ctl_fd);
		srv.ctl_fd = -1;
		return -e;
	}
	return 0;
}

static void client_drop(struct sim_client *c)
{
	if (c->issm && c->port)
		c->port->is_sm = false;
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

void ibsim_server_close(void)
{
	for (unsigned i = 0; i < SIM_MAX_CLIENTS; i++)
		if (srv.cl[i].used)
			client_drop(&srv.cl[i]);
	if (srv.ctl_fd >= 0)
		close(srv.ctl_fd);
	srv.ctl_fd = -1;
}

/* SIM_HOST names an SM host by name or NodeDescription; empty = the first SM host. */
static struct port *find_attach_port(struct fabric *f, const char *want)
{
	for (unsigned i = 0; i < f->nnodes; i++) {
		struct node *n = f->nodes[i];

		if (n->kind != NODE_SMHOST)
			continue;
		if (!*want || !strcmp(n->name, want) || !strcmp(n->desc, want))
			return &n->ports[1];
	}
	return NULL;
}

static struct sim_client *find_sm(struct port *p)
{
	for (unsigned i = 0; i < SIM_MAX_CLIENTS; i++)
		if (srv.cl[i].used && srv.cl[i].issm && srv.cl[i].port == p)
			return &srv.cl[i];
	return NULL;
}

/* A client killed without DISCONNECT (SIGKILL, crash) leaves its slot behind; an SM restarted
 * after that must still get in. Its pid is gone: free the slot. */
static void reap_dead_clients(struct fabric *f)
{
	for (unsigned i = 0; i < SIM_MAX_CLIENTS; i++) {
		struct sim_client *c = &srv.cl[i];

		if (c->used && kill((pid_t)c->pid, 0) < 0 && errno == ESRCH) {
			fabsim_log(f, 0, "ibsim client %u (pid %u) died without detaching; slot freed", i,
				   c->pid);
			client_drop(c);
		}
	}
}

static bool ctl_connect(struct fabric *f, struct sim_ctl_msg *m)
{
	char want[NODEID_LEN + 1];
	struct sockaddr_un a;
	socklen_t alen;
	struct port *p;
	uint32_t pid, issm;
	unsigned slot;
	struct sim_client *c;

	memcpy(&pid, m->data + CONNECT_ID, 4);
	memcpy(&issm, m->data + CONNECT_ISSM, 4);
	memcpy(want, m->data + CONNECT_NODEID, NODEID_LEN);
	want[NODEID_LEN] = 0;
	reap_dead_clients(f);
	p = find_attach_port(f, want);
	if (!p) {
		fabsim_log(f, 0, "ibsim client pid %u asked for node '%s': no such sm-host", pid, want);
		return false;
	}
	if (issm && find_sm(p)) {
		fabsim_log(f, 0, "ibsim client pid %u: %s already has an SM attached", pid,
			   p->node->name);
		return false;
	}
	for (slot = 0; slot < SIM_MAX_CLIENTS && srv.cl[slot].used; slot++)
		;
	if (slot == SIM_MAX_CLIENTS) {
		fabsim_log(f, 0, "ibsim client pid %u: all %d client slots in use", pid,
			   SIM_MAX_CLIENTS);
		return false;
	}
	c = &srv.cl[slot];
	c->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0)
		return false;
	alen = ibsim_abstract_addr(&a, "%s:out%ld", srv.base, slot);
	if (bind(c->fd, (struct sockaddr *)&a, alen) < 0)
		goto fail;
	alen = ibsim_abstract_addr(&a, "%s:in%ld", srv.base, (long)pid);
	if (connect(c->fd, (struct sockaddr *)&a, alen) < 0)
		goto fail;
	c->out = calloc(MAX_OUTSTANDING, sizeof(*c->out));
	if (!c->out)
		goto fail;
	c->used = true;
	c->pid = pid;
	c->issm = issm != 0;
	c->port = p;
	if (c->issm)
		p->is_sm = true;
	memcpy(m->data + CONNECT_ID, &(uint32_t){ slot }, 4);
	memset(m->data + CONNECT_NODEID, 0, NODEID_LEN);
	memcpy(m->data + CONNECT_NODEID, p->node->name, strnlen(p->node->name, NODEID_LEN - 1));
	fabsim_log(f, 0, "ibsim client %u (pid %u) attached to %s%s", slot, pid, p->node->name,
		   c->issm ? " as SM" : "");
	return true;
fail:
	fabsim_log(f, 0, "ibsim client pid %u: data socket: %s", pid, strerror(errno));
	close(c->fd);
	c->fd = -1;
	free(c->out);
	c->out = NULL;
	return false;
}

static bool ctl_request(struct fabric *f, struct sim_ctl_msg *m)
{
	struct sim_client *c;
	struct port *p;

	if (m->type == SIM_CTL_CONNECT)
		return ctl_connect(f, m);
	if (m->clientid >= SIM_MAX_CLIENTS || !srv.cl[m->clientid].used)
		return false;
	c = &srv.cl[m->clientid];
	p = c->port;
	switch (m->type) {
	case SIM_CTL_DISCONNECT:
		fabsim_log(f, 0, "ibsim client %u (pid %u) detached", m->clientid, c->pid);
		client_drop(c);
		return true;
	case SIM_CTL_GET_PORT:
		memcpy(m->data, &p->pi.lid, 2);
		m->data[2] = p->pi.state;
		return true;
	case SIM_CTL_GET_VENDOR: {
		uint32_t v[3] = { 0x02c9, 0x1003, 0xa1 };
		uint64_t fw = 0x2000a0000ull;

		memset(m->data, 0, sizeof(m->data));
		memcpy(m->data, v, sizeof(v));
		memcpy(m->data + 16, &fw, 8);
		return true;
	}
	case SIM_CTL_GET_GID:
		put_be64(m->data, p->pi.gid_prefix);
		put_be64(m->data + 8, p->guid);
		return true;
	case SIM_CTL_GET_GUID:
		memcpy(m->data, &p->node->guid, 8);
		return true;
	case SIM_CTL_GET_NODEINFO:
		node_info_encode(p->node, p->num, m->data);
		return true;
	case SIM_CTL_GET_PORTINFO:
		if (m->data[0] > p->node->nports)
			return false;
		port_info_encode(m->data[0] ? &p->node->ports[m->data[0]] : p, p->num, m->data);
		return true;
	case SIM_CTL_SET_ISSM: {
		int32_t v;

		memcpy(&v, m->data, 4);
		if (v && find_sm(p) && find_sm(p) != c)
			return false;
		c->issm = v != 0;
		p->is_sm = c->issm;
		return true;
	}
	case SIM_CTL_GET_PKEYS:
		for (unsigned i = 0; i < 32; i++)
			put_be16(m->data + 2 * i, p->pkeys[i]);
		return true;
	default:
		return false;
	}
}

static void ctl_handle(struct fabric *f)
{
	struct sim_ctl_msg m;
	struct sockaddr_un from;
	socklen_t flen = sizeof(from);
	ssize_t n = recvfrom(srv.ctl_fd, &m, sizeof(m), 0, (struct sockaddr *)&from, &flen);

	if (n < 0)
		return;
	if (n != sizeof(m) || m.magic != SIM_MAGIC) {
		fabsim_log(f, 0, "ibsim control: ignored a malformed message (%zd bytes)", n);
		return;
	}
	if (!ctl_request(f, &m))
		m.type = SIM_CTL_ERROR;
	sendto(srv.ctl_fd, &m, sizeof(m), MSG_DONTWAIT, (struct sockaddr *)&from, flen);
}

static void send_record(struct fabric *f, struct sim_client *c, const uint8_t *rec)
{
	if (send(c->fd, rec, SIM_REC_BYTES, MSG_DONTWAIT) == SIM_REC_BYTES)
		return;
	if (errno == EAGAIN)
		return;               /* the client is behind: lost like a full receive queue */
	fabsim_log(f, 0, "ibsim client %ld (pid %u) is gone (%s); detaching",
		   (long)(c - srv.cl), c->pid, strerror(errno));
	client_drop(c);
}

static void bounce(struct fabric *f, struct sim_client *c, uint8_t *rec)
{
	put_be32(rec + REC_STATUS, SIM_STATUS_DROPPED);
	c->bounced++;
	send_record(f, c, rec);
}

int ibsim_server_expire(struct fabric *f)
{
	uint64_t now = fabsim_now_ns(), next = UINT64_MAX;

	for (unsigned i = 0; i < SIM_MAX_CLIENTS; i++) {
		struct sim_client *c = &srv.cl[i];

		for (unsigned k = 0; c->used && k < MAX_OUTSTANDING; k++) {
			struct outstanding *o = &c->out[k];

			if (!o->used)
				continue;
			if (o->deadline_ns <= now) {
				o->used = false;
				fabsim_log(f, 0, "ibsim client %u: no response to TID 0x%016llx; bounced as a timeout",
					   i, (unsigned long long)o->tid);
				bounce(f, c, o->rec);
				if (!c->used)
					break;   /* the client went away while we answered it */
			} else if (o->deadline_ns < next) {
				next = o->deadline_ns;
			}
		}
	}
	if (next == UINT64_MAX)
		return -1;
	return (int)((next - now + 999999) / 1000000);
}

/* Requests that get a response (IBA 13.4.5): not a response, trap, trap repress or send. */
static bool expects_response(const uint8_t *mad)
{
	uint8_t m = mad[MAD_METHOD];

	return !(m & METHOD_RESP_BIT) && m != METHOD_TRAP && m != METHOD_TRAP_REPRESS && m != 0x03;
}

static void remember_request(struct sim_client *c, const uint8_t *rec)
{
	struct outstanding *slot = &c->out[0];

	for (unsigned i = 0; i < MAX_OUTSTANDING; i++) {
		if (!c->out[i].used) {
			slot = &c->out[i];
			break;
		}
		if (c->out[i].deadline_ns < slot->deadline_ns)
			slot = &c->out[i];   /* full: forget the oldest */
	}
	slot->used = true;
	slot->tid = get_be64(rec + REC_MAD + MAD_TID);
	slot->deadline_ns = fabsim_now_ns() + REQUEST_TIMEOUT_MS * 1000000ull;
	memcpy(slot->rec, rec, SIM_REC_BYTES);
}

static void answered(struct sim_client *c, const uint8_t *mad)
{
	uint64_t tid = get_be64(mad + MAD_TID);

	for (unsigned i = 0; i < MAX_OUTSTANDING; i++)
		if (c->out[i].used && c->out[i].tid == tid)
			c->out[i].used = false;
}

/* A packet that arrived at (or loops back inside) an SM host, as a record for a client. */
static void deliver_to_client(struct fabric *f, struct sim_client *c, const uint8_t *pkt,
			      const struct pkt_hdrs *h)
{
	uint8_t rec[SIM_REC_BYTES] = { 0 };

	if (pkt[h->payload_off + MAD_METHOD] & METHOD_RESP_BIT)
		answered(c, pkt + h->payload_off);

	put_be16(rec + REC_DLID, h->dlid);
	put_be16(rec + REC_SLID, h->slid);
	put_be32(rec + REC_DQP, h->dqpn);
	put_be32(rec + REC_SQP, h->sqpn);
	put_be64(rec + REC_LENGTH, MAD_BYTES);
	memcpy(rec + REC_MAD, pkt + h->payload_off, MAD_BYTES);
	send_record(f, c, rec);
}

static struct sim_client *client_by_tid(struct port *at, const uint8_t *mad)
{
	unsigned slot = (unsigned)(get_be64(mad + MAD_TID) >> 48);

	if (slot >= SIM_MAX_CLIENTS || !srv.cl[slot].used || srv.cl[slot].port != at)
		return NULL;
	return &srv.cl[slot];
}

static bool owns_lid(const struct port *p, uint16_t lid)
{
	return p->pi.lid && lid >= p->pi.lid && lid < p->pi.lid + (1u << p->pi.lmc);
}

/* Send a packet from an SM host port: to itself (loopback), or onto its cable. */
static void smhost_send(struct fabric *f, struct port *p, const uint8_t *pkt, size_t len,
			uint16_t dlid)
{
	if (dlid != LID_PERMISSIVE && owns_lid(p, dlid))
		port_deliver_local(f, p, pkt, len);
	else
		port_transmit(f, p, pkt, len);
}

/* Answer an SMP addressed to the SM host (its SMA lives here) and send the response. */
static void smhost_sma(struct fabric *f, struct port *at, uint8_t *pkt, size_t len,
		       const struct pkt_hdrs *h)
{
	uint8_t *mad = pkt + h->payload_off;
	uint8_t out[FABSIM_MAX_PKT];
	size_t n;

	if (!sma_process(f, at, mad))
		return;
	if (mad[MAD_MGMT_CLASS] == MGMT_CLASS_SUBN_DR) {
		/* C14-13:1: leave through ReturnPath[HopCount], which is this port. */
		put_be16(mad + MAD_STATUS,
			       (uint16_t)(get_be16(mad + MAD_STATUS) | SMP_DIRECTION));
		mad[MAD_HOP_PTR] = mad[MAD_HOP_CNT];
		pkt_refresh_crcs(pkt, len);
		if (mad[MAD_HOP_CNT] == 0)
			port_deliver_local(f, at, pkt, len);
		else
			port_transmit(f, at, pkt, len);
		return;
	}
	n = pkt_build_ud(out, sizeof(out), 15, 0, h->slid, at->pi.lid, 0xffff, h->sqpn, 0, 0,
			 at->psn++, mad, MAD_BYTES);
	if (n)
		smhost_send(f, at, out, n, h->slid);
}

static void receive_smp(struct fabric *f, struct port *at, uint8_t *pkt, size_t len,
			const struct pkt_hdrs *h)
{
	uint8_t *mad = pkt + h->payload_off;
	uint8_t method = mad[MAD_METHOD];
	uint16_t attr = get_be16(mad + MAD_ATTR_ID);
	bool response = method & METHOD_RESP_BIT;
	struct sim_client *c;

	if (mad[MAD_MGMT_CLASS] == MGMT_CLASS_SUBN_DR) {
		unsigned hp = mad[MAD_HOP_PTR], hc = mad[MAD_HOP_CNT];
		bool returning = get_be16(mad + MAD_STATUS) & SMP_DIRECTION;

		if (returning) {
			/* C14-13:3: back at the requester's port: hand it to the SM. */
			if (hp > 1 || (hp == 0 && hc != 0)) {
				at->cnt.dr_dropped++;
				return;
			}
			mad[MAD_HOP_PTR] = 0;
			c = client_by_tid(at, mad);
			if (c)
				deliver_to_client(f, c, pkt, h);
			return;
		}
		if (hp != hc || hc >= 64) {
			at->cnt.dr_dropped++;
			return;
		}
		if (hc)
			mad[SMP_RETURN_PATH + hc] = (uint8_t)at->num;  /* C14-9:3 */
	} else if (response) {
		c = client_by_tid(at, mad);
		if (c)
			deliver_to_client(f, c, pkt, h);
		return;
	}
	/* SMInfo and traps are for the SM, everything else for this port's SMA. */
	if (attr == ATTR_SM_INFO || method == METHOD_TRAP || response) {
		c = find_sm(at);
		if (c)
			deliver_to_client(f, c, pkt, h);
		else
			at->cnt.unknown_qp++;
		return;
	}
	smhost_sma(f, at, pkt, len, h);
}

void ibsim_server_receive(struct fabric *f, struct port *at, uint8_t *pkt, size_t len,
			  const struct pkt_hdrs *h)
{
	const uint8_t *mad;
	struct sim_client *c;

	if (!h->is_ud || h->payload_len < MAD_BYTES || (h->dqpn != 0 && h->dqpn != 1)) {
		at->cnt.unknown_qp++;   /* an SM host has only QP0 and QP1 */
		return;
	}
	if (h->dqpn == 0) {
		if (h->vl != 15) {
			at->cnt.malformed++;
			return;
		}
		receive_smp(f, at, pkt, len, h);
		return;
	}
	/* QP1 (GSI): Q_Key must be the well-known one (IBA 9.6.1.1), data VL, port Active. */
	if (h->qkey != QP1_QKEY || h->vl == 15) {
		at->cnt.malformed++;
		return;
	}
	if (at->pi.state != PORT_ACTIVE && h->slid != at->pi.lid) {
		at->cnt.not_active++;
		return;
	}
	mad = pkt + h->payload_off;
	c = (mad[MAD_METHOD] & METHOD_RESP_BIT) ? client_by_tid(at, mad) : find_sm(at);
	if (c)
		deliver_to_client(f, c, pkt, h);
	else
		at->cnt.unknown_qp++;
}

/* A record from a client: make it a packet at the client's port. */
static void record_from_client(struct fabric *f, struct sim_client *c, uint8_t *rec)
{
	struct port *p = c->port;
	uint8_t *mad = rec + REC_MAD;
	uint16_t dlid = get_be16(rec + REC_DLID), slid = get_be16(rec + REC_SLID);
	uint32_t dqp = get_be32(rec + REC_DQP), sqp = get_be32(rec + REC_SQP);
	bool response = mad[MAD_METHOD] & METHOD_RESP_BIT;
	uint8_t pkt[FABSIM_MAX_PKT];
	size_t n;

	if (!response) {
		uint64_t tid = get_be64(mad + MAD_TID);

		put_be64(mad + MAD_TID, (tid & 0x0000ffffffffffffull) |
					      (uint64_t)(c - srv.cl) << 48);
	}
	if (dqp > 0xffffff || sqp > 0xffffff || mad[MAD_BASE_VERSION] != 1) {
		fabsim_log(f, 1, "ibsim client %ld sent a malformed record", (long)(c - srv.cl));
		bounce(f, c, rec);
		return;
	}
	if (mad[MAD_MGMT_CLASS] == MGMT_CLASS_SUBN_DR && dlid == LID_PERMISSIVE) {
		unsigned hp = mad[MAD_HOP_PTR], hc = mad[MAD_HOP_CNT];
		bool returning = get_be16(mad + MAD_STATUS) & SMP_DIRECTION;

		if (hc >= 64) {
			bounce(f, c, rec);
			return;
		}
		if (!returning && hc > 0) {
			/* C14-9:1: the sender steps the hop pointer; InitialPath[1] must be us. */
			if (hp != 0 || mad[SMP_INITIAL_PATH + 1] != p->num) {
				bounce(f, c, rec);
				return;
			}
			mad[MAD_HOP_PTR] = 1;
		} else if (returning && hc > 0) {
			/* C14-13:1: a response from the SM leaves through ReturnPath[HopCount]. */
			mad[MAD_HOP_PTR] = (uint8_t)hc;
			if (mad[SMP_RETURN_PATH + hc] != p->num) {
				bounce(f, c, rec);
				return;
			}
		}
		slid = LID_PERMISSIVE;
	} else if (slid == 0) {
		slid = p->pi.lid;
	}
	n = pkt_build_ud(pkt, sizeof(pkt), dqp == 0 ? 15 : 0, 0, dlid, slid, 0xffff, dqp,
			 dqp == 0 ? 0 : QP1_QKEY, sqp, p->psn++, mad, MAD_BYTES);
	if (!n) {
		bounce(f, c, rec);
		return;
	}
	if (expects_response(mad))
		remember_request(c, rec);
	if (mad[MAD_MGMT_CLASS] == MGMT_CLASS_SUBN_DR && dlid == LID_PERMISSIVE &&
	    mad[MAD_HOP_CNT] == 0) {
		port_deliver_local(f, p, pkt, n);   /* a 0-hop path is the SM's own port */
		return;
	}
	if (dlid != LID_PERMISSIVE && !owns_lid(p, dlid) && (!p->link || !p->link->phys_up)) {
		bounce(f, c, rec);
		return;
	}
	if (dlid == LID_PERMISSIVE && (!p->link || !p->link->phys_up)) {
		bounce(f, c, rec);
		return;
	}
	smhost_send(f, p, pkt, n, dlid);
}

static void data_handle(struct fabric *f, struct sim_client *c)
{
	uint8_t rec[SIM_REC_BYTES + 1];
	ssize_t n = recv(c->fd, rec, sizeof(rec), MSG_DONTWAIT);

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR) {
			fabsim_log(f, 0, "ibsim client %ld: %s; detaching", (long)(c - srv.cl),
				   strerror(errno));
			client_drop(c);
		}
		return;
	}
	if (n != SIM_REC_BYTES) {
		fabsim_log(f, 0, "ibsim client %ld sent %zd bytes, not a %d-byte record; ignored",
			   (long)(c - srv.cl), n, SIM_REC_BYTES);
		return;
	}
	record_from_client(f, c, rec);
}

int ibsim_server_pollfds(struct pollfd *pfd, int max)
{
	int n = 0;

	if (srv.ctl_fd < 0 || max < 1 + SIM_MAX_CLIENTS)
		return 0;
	pfd[n++] = (struct pollfd){ .fd = srv.ctl_fd, .events = POLLIN };
	for (unsigned i = 0; i < SIM_MAX_CLIENTS; i++)
		pfd[n++] = (struct pollfd){ .fd = srv.cl[i].used ? srv.cl[i].fd : -1,
					    .events = POLLIN };
	return n;
}

void ibsim_server_handle(struct fabric *f, const struct pollfd *pfd, int n)
{
	if (n < 1 + SIM_MAX_CLIENTS)
		return;
	if (pfd[0].revents & POLLIN)
		ctl_handle(f);
	for (unsigned i = 0; i < SIM_MAX_CLIENTS; i++)
		if (srv.cl[i].used && pfd[1 + i].fd == srv.cl[i].fd && pfd[1 + i].revents)
			data_handle(f, &srv.cl[i]);
}
