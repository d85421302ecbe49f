/* SPDX-License-Identifier: MIT */
/*
 * SA client: PathRecord Get with a per-port cache whose first lookup of a GID queues the caller
 * (iPXE drops that first packet), and MCMemberRecord join/leave with rejoin on port events.
 * Record layouts come from iblib (IBA 15.2.5.16, 15.2.5.17).
 *
 * Every request goes to the SA's address (ib_sa_address: the SM LID from the port's PortInfo, QP1,
 * the GSI Q_Key), so the MAD agent (ib_mad.c) lets a reply through only if it carries the random
 * TID of the outstanding request, comes from that SM LID on QP1 (the HCA has checked the Q_Key) and
 * answers the request's method and attribute. Anything else - e.g. a PathRecord or MCMemberRecord
 * forged by another node on the fabric - is counted and dropped, and the request keeps waiting for
 * the SA's own answer. The checks below then judge the record itself.
 */
#include <ibboot/ib_sa.h>
#include <ibboot/ib_mad.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>

#include "ib_internal.h"

#define IB_UNICAST_LID_MAX 0xbfffu

static struct ib_sa_client *sa_of(const struct ib_port *port)
{
	return port->sa;
}

const char *ib_sa_status_name(uint16_t status)
{
	static const uint8_t mad_codes[] = {
		IBLIB_MAD_STATUS_BUSY, IBLIB_MAD_STATUS_REDIRECT, IBLIB_MAD_STATUS_BAD_VERSION,
		IBLIB_MAD_STATUS_UNSUP_METHOD, IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR,
		IBLIB_MAD_STATUS_INVALID_FIELD,
	};
	unsigned sa = status >> 8, i = 0;

	/* The SA's class-specific codes 1..7, then the common MAD ones, as name lists. */
	if (sa >= IBLIB_SA_STATUS_NO_RESOURCES >> 8 && sa <= IBLIB_SA_STATUS_REQ_DENIED >> 8)
		return str_nth_or("SA out of resources\0request invalid\0no records\0"
				  "too many records\0invalid GID\0insufficient components\0"
				  "request denied\0", sa - 1, NULL);
	if (!(status & 0x1f))
		return sa ? "SA error" : "success";
	while (i < sizeof(mad_codes) && mad_codes[i] != (status & 0x1f))
		i++;
	return str_nth_or("SA busy\0redirect required\0bad class version\0method not supported\0"
			  "method/attribute not supported\0invalid attribute field\0", i,
			  "unknown MAD status");
}

void ib_ipv4_broadcast_mgid(union ib_gid *mgid, uint16_t pkey)
{
	memset(mgid, 0, sizeof(*mgid));
	mgid->raw[0] = 0xff;
	mgid->raw[1] = 0x12;              /* flags 1 (transient), scope 2 (link-local) */
	mgid->raw[2] = 0x40;              /* IPv4 signature 0x401B */
	mgid->raw[3] = 0x1b;
	put_be16(mgid->raw + 4, pkey | 0x8000);
	memset(mgid->raw + 12, 0xff, 4);  /* broadcast: the last 4 bytes all ones */
}

static void gid_to_iblib(struct iblib_gid *d, const union ib_gid *s)
{
	memcpy(d->raw, s->raw, IB_GID_LEN);
}

static void gid_from_iblib(union ib_gid *d, const struct iblib_gid *s)
{
	memcpy(d->raw, s->raw, IB_GID_LEN);
}

/* Common checks of an SA response: class, version, method, attribute, status. */
static int sa_check_response(const uint8_t *mad, size_t len, uint8_t method, uint16_t attr,
			     const char **why)
{
	uint16_t status;
	int rc = ib_mad_check_response(mad, len, why);

	if (rc < 0)
		return rc;
	if (mad[1] != IBLIB_MCLASS_SUBN_ADM || mad[2] != IBLIB_SA_CLASS_VERSION) {
		*why = "not an SA response";
		return -EINVAL;
	}
	if (iblib_mad_method(mad) != method) {
		*why = "unexpected SA method";
		return -EINVAL;
	}
	if (iblib_mad_attr_id(mad) != attr) {
		*why = "unexpected SA attribute";
		return -EINVAL;
	}
	status = get_be16(mad + 4);
	if (status != IBLIB_MAD_STATUS_OK) {
		*why = ib_sa_status_name(status);
		return (status & 0xff00) == IBLIB_SA_STATUS_NO_RECORDS ? -ENOENT : -EIO;
	}
	return 0;
}

int ib_sa_parse_path_response(const uint8_t *mad, size_t len, const union ib_gid *dgid,
			      struct ib_path_info *out, const char **why)
{
	struct iblib_path_record pr;
	const char *dummy;
	int rc;

	if (!why)
		why = &dummy;
	rc = sa_check_response(mad, len, IBLIB_METHOD_GET_RESP, IBLIB_SA_ATTR_PATH_RECORD, why);
	if (rc < 0)
		return rc;
	iblib_path_record_get(mad + IBLIB_SA_DATA_OFF, &pr);
	if (dgid && memcmp(pr.dgid.raw, dgid->raw, IB_GID_LEN)) {
		*why = "PathRecord for another GID";
		return -EINVAL;
	}
	if (pr.dlid == 0 || pr.dlid > IB_UNICAST_LID_MAX) {
		*why = "PathRecord DLID not unicast";
		return -EINVAL;
	}
	if (!ib_mtu_bytes(pr.mtu)) {
		*why = "PathRecord MTU invalid";
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	gid_from_iblib(&out->dgid, &pr.dgid);
	out->dlid = pr.dlid;
	out->sl = pr.sl;
	out->rate = pr.rate;
	out->mtu = pr.mtu;
	out->hop_limit = pr.hop_limit;
	out->tclass = pr.tclass;
	out->flow_label = pr.flow_label;
	out->pkey = pr.pkey;
	return 0;
}

int ib_sa_parse_mcmember_response(const uint8_t *mad, size_t len, const union ib_gid *mgid,
				  struct ib_mcast_info *out, const char **why)
{
	struct iblib_mcmember_record mr;
	const char *dummy;
	int rc;

	if (!why)
		why = &dummy;
	rc = sa_check_response(mad, len, IBLIB_METHOD_GET_RESP, IBLIB_SA_ATTR_MCMEMBER_RECORD,
			       why);
	if (rc < 0)
		return rc;
	iblib_mcmember_record_get(mad + IBLIB_SA_DATA_OFF, &mr);
	if (mgid && memcmp(mr.mgid.raw, mgid->raw, IB_GID_LEN)) {
		*why = "MCMemberRecord for another MGID";
		return -EINVAL;
	}
	if (mr.mlid < IB_MCAST_LID_BASE || mr.mlid == IB_LID_PERMISSIVE) {
		*why = "MCMemberRecord MLID not multicast";
		return -EINVAL;
	}
	if (!ib_mtu_bytes(mr.mtu)) {
		*why = "MCMemberRecord MTU invalid";
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	gid_from_iblib(&out->mgid, &mr.mgid);
	out->qkey = mr.qkey;
	out->mlid = mr.mlid;
	out->mtu = mr.mtu;
	out->rate = mr.rate;
	out->sl = mr.sl;
	out->hop_limit = mr.hop_limit;
	out->tclass = mr.tclass;
	out->flow_label = mr.flow_label;
	out->pkey = mr.pkey;
	return 0;
}

/* SA request header: class 3 version 2, the method and attribute, and the component mask. */
static void sa_build(uint8_t *mad, uint8_t method, uint16_t attr, uint64_t comp_mask)
{
	memset(mad, 0, IB_MAD_SIZE);
	mad[0] = IBLIB_MAD_BASE_VERSION;
	mad[1] = IBLIB_MCLASS_SUBN_ADM;
	mad[2] = IBLIB_SA_CLASS_VERSION;
	mad[3] = method;
	put_be16(mad + 16, attr);
	put_be64(mad + IBLIB_SA_COMP_MASK_OFF, comp_mask);
}

/* ---- paths ---- */

void ib_sa_path_to_av(const struct ib_port *port, const struct ib_path_info *p,
		      struct ib_address_vector *av)
{
	av->lid = p->dlid;
	av->sl = p->sl;
	av->rate = p->rate;
	/* A GRH is needed off-subnet only (IBA 8.3.1): a different prefix or a router hop. */
	av->gid_present = memcmp(p->dgid.s.prefix, port->gid.s.prefix, 8) != 0 ||
			  p->hop_limit > 1;
	av->gid = p->dgid;
	av->hop_limit = p->hop_limit;
	av->tclass = p->tclass;
	av->flow_label = p->flow_label;
	av->pkey_index = 0;
}

/* Waiters are copied out first: a callback may look the GID up again and reuse this entry. */
static void path_notify(struct ib_path_entry *e, int status)
{
	unsigned n = e->n_waiters;
	union ib_gid dgid = e->info.dgid;
	struct { ib_path_cb cb; void *ctx; } w[IB_SA_PATH_WAITERS];

	memcpy(w, e->waiter, sizeof(w));
	e->n_waiters = 0;
	for (unsigned i = 0; i < n; i++)
		if (w[i].cb)
			w[i].cb(w[i].ctx, &dgid, status);
}

static void path_done(void *ctx, int status, const uint8_t *resp)
{
	struct ib_path_entry *e = ctx;
	struct ib_sa_client *sa;
	struct ib_path_info info;
	const char *why = "the SA did not answer";
	char g[48];
	int rc = status;

	sa = e->sa;
	e->txn = -1;
	if (status == 0)
		rc = ib_sa_parse_path_response(resp, IB_MAD_SIZE, &e->info.dgid, &info, &why);
	if (rc == 0) {
		e->info = info;
		e->state = IB_PATH_VALID;
	} else {
		sa->stats.path_failures++;
		if (rc != -ECANCELED)
			ib_port_log(sa->port, "no path to %s: %s\n",
				    ib_gid_format(&e->info.dgid, g, sizeof(g)),
				    why);
		e->state = IB_PATH_FREE;
	}
	path_notify(e, rc);
}

static struct ib_path_entry *path_find(struct ib_sa_client *sa, const union ib_gid *dgid)
{
	for (unsigned i = 0; i < IB_SA_PATH_CACHE; i++)
		if (sa->path[i].state != IB_PATH_FREE &&
		    !memcmp(sa->path[i].info.dgid.raw, dgid->raw, IB_GID_LEN))
			return &sa->path[i];
	return NULL;
}

/* A free entry, else the least recently used resolved one. */
static struct ib_path_entry *path_victim(struct ib_sa_client *sa)
{
	struct ib_path_entry *best = NULL;

	for (unsigned i = 0; i < IB_SA_PATH_CACHE; i++) {
		struct ib_path_entry *e = &sa->path[i];

		if (e->state == IB_PATH_FREE)
			return e;
		if (e->state == IB_PATH_VALID && (!best || e->used_ms < best->used_ms))
			best = e;
	}
	return best;
}

static int path_add_waiter(struct ib_path_entry *e, ib_path_cb cb, void *ctx)
{
	if (!cb)
		return 0;
	for (unsigned i = 0; i < e->n_waiters; i++)
		if (e->waiter[i].cb == cb && e->waiter[i].ctx == ctx)
			return 0;
	if (e->n_waiters >= IB_SA_PATH_WAITERS)
		return -ENOSPC;
	e->waiter[e->n_waiters].cb = cb;
	e->waiter[e->n_waiters].ctx = ctx;
	e->n_waiters++;
	return 0;
}

int ib_sa_path_get(struct ib_port *port, const union ib_gid *dgid, ib_mad_done_fn done,
		   void *ctx)
{
	struct iblib_path_record pr;
	struct ib_address_vector sa_av;
	uint8_t mad[IB_MAD_SIZE];

	memset(&pr, 0, sizeof(pr));
	gid_to_iblib(&pr.dgid, dgid);
	gid_to_iblib(&pr.sgid, &port->gid);
	pr.pkey = ib_port_pkey(port) | 0x8000;
	sa_build(mad, IBLIB_METHOD_GET, IBLIB_SA_ATTR_PATH_RECORD,
		 IBLIB_PR_COMP_DGID | IBLIB_PR_COMP_SGID | IBLIB_PR_COMP_PKEY);
	iblib_path_record_put(mad + IBLIB_SA_DATA_OFF, &pr);
	ib_sa_address(port, &sa_av);
	return ib_mad_request(port, mad, &sa_av, done, ctx);
}

int ib_sa_path_lookup(struct ib_port *port, const union ib_gid *dgid,
		      struct ib_address_vector *av, ib_path_cb cb, void *ctx)
{
	struct ib_sa_client *sa = sa_of(port);
	struct ib_path_entry *e;
	int rc;

	if (!sa || port->attr.state != IB_PORT_ACTIVE)
		return -ENODEV;
	e = path_find(sa, dgid);
	if (e && e->state == IB_PATH_VALID) {
		e->used_ms = ib_now_ms(port->dev);
		sa->stats.path_hits++;
		ib_sa_path_to_av(port, &e->info, av);
		return 0;
	}
	if (e)   /* resolving */
		return path_add_waiter(e, cb, ctx) < 0 ? -ENOSPC : IB_SA_PENDING;
	e = path_victim(sa);
	if (!e)
		return -ENOSPC;
	memset(e, 0, sizeof(*e));
	e->sa = sa;
	e->info.dgid = *dgid;
	e->state = IB_PATH_RESOLVING;
	e->used_ms = ib_now_ms(port->dev);
	(void)path_add_waiter(e, cb, ctx);

	sa->stats.path_queries++;
	rc = ib_sa_path_get(port, dgid, path_done, e);
	if (rc < 0) {
		e->state = IB_PATH_FREE;
		e->n_waiters = 0;
		return rc;
	}
	e->txn = rc;
	return IB_SA_PENDING;
}

void ib_sa_path_cancel_waiter(struct ib_port *port, void *ctx)
{
	struct ib_sa_client *sa = sa_of(port);

	if (!sa)
		return;
	for (unsigned i = 0; i < IB_SA_PATH_CACHE; i++) {
		struct ib_path_entry *e = &sa->path[i];

		for (unsigned w = 0; w < e->n_waiters; w++)
			if (e->waiter[w].ctx == ctx)
				e->waiter[w].cb = NULL;
	}
}

void ib_sa_path_flush(struct ib_port *port)
{
	struct ib_sa_client *sa = sa_of(port);

	if (!sa)
		return;
	for (unsigned i = 0; i < IB_SA_PATH_CACHE; i++) {
		struct ib_path_entry *e = &sa->path[i];

		if (e->state == IB_PATH_RESOLVING) {
			ib_mad_cancel(port, e->txn);
			e->state = IB_PATH_FREE;
			path_notify(e, -ECANCELED);
		}
		e->state = IB_PATH_FREE;
	}
}

/* ---- multicast groups ---- */

static void group_send_join(struct ib_mcast_group *g);

static void group_done(void *ctx, int status, const uint8_t *resp)
{
	struct ib_mcast_group *g = ctx;
	struct ib_port *port = g->port;
	struct ib_sa_client *sa = sa_of(port);
	struct ib_mcast_info info;
	const char *why = "the SA did not answer";
	char mg[48];
	int rc = status;

	g->txn = -1;
	if (status == 0)
		rc = ib_sa_parse_mcmember_response(resp, IB_MAD_SIZE, &g->info.mgid, &info, &why);
	if (rc == 0 && g->qp && !g->attached) {
		rc = ib_mcast_attach(g->qp, &info.mgid);
		why = "attach failed";
		g->attached = rc == 0;
	}
	if (rc == 0) {
		g->info = info;
		g->state = IB_GROUP_JOINED;
		g->joins++;
		sa->stats.joins++;
	} else if (rc == -ECANCELED) {
		return;   /* port went down or the group was left: nothing to report */
	} else {
		g->state = IB_GROUP_FAILED;
		g->retry_at = ib_now_ms(port->dev) + IB_SA_GROUP_RETRY_MS;
		sa->stats.join_failures++;
		ib_port_log(port, "joining group %s failed: %s; retry in %u s\n",
			    ib_gid_format(&g->info.mgid, mg, sizeof(mg)), why,
			    IB_SA_GROUP_RETRY_MS / 1000);
	}
	if (g->cb)
		g->cb(g->ctx, g, rc);
}

/* An MCMemberRecord request for mgid in partition pkey: a Get asks whether the group exists (MGID
 * and P_Key, IBA 15.2.5.17); a Set (join) or Delete (leave) adds this port as a full member with
 * the mask Linux IPoIB uses for an existing group (fabric-opensm.md §4: 0x10083). */
static void mcr_build(const struct ib_port *port, const union ib_gid *mgid, uint16_t pkey,
		      uint8_t *mad, uint8_t method)
{
	struct iblib_mcmember_record mr;
	uint64_t mask = IBLIB_MCR_COMP_MGID | IBLIB_MCR_COMP_PKEY;

	memset(&mr, 0, sizeof(mr));
	gid_to_iblib(&mr.mgid, mgid);
	mr.pkey = pkey | 0x8000;
	if (method != IBLIB_METHOD_GET) {
		gid_to_iblib(&mr.port_gid, &port->gid);
		mr.join_state = IBLIB_MCR_JOIN_FULL;
		mask |= IBLIB_MCR_COMP_PORT_GID | IBLIB_MCR_COMP_JOIN_STATE;
	}
	sa_build(mad, method, IBLIB_SA_ATTR_MCMEMBER_RECORD, mask);
	iblib_mcmember_record_put(mad + IBLIB_SA_DATA_OFF, &mr);
}

static void group_send_join(struct ib_mcast_group *g)
{
	struct ib_port *port = g->port;
	struct ib_address_vector sa_av;
	uint8_t mad[IB_MAD_SIZE];
	int rc;

	if (port->attr.state != IB_PORT_ACTIVE) {
		g->state = IB_GROUP_IDLE;
		return;
	}
	mcr_build(port, &g->info.mgid, ib_port_pkey(port), mad, IBLIB_METHOD_SET);
	ib_sa_address(port, &sa_av);
	g->state = IB_GROUP_JOINING;
	rc = ib_mad_request(port, mad, &sa_av, group_done, g);
	if (rc < 0) {
		g->state = IB_GROUP_FAILED;
		g->retry_at = ib_now_ms(port->dev) + IB_SA_GROUP_RETRY_MS;
		return;
	}
	g->txn = rc;
}

struct ib_mcast_group *ib_sa_join(struct ib_port *port, const union ib_gid *mgid,
				  struct ib_qp *qp, ib_group_cb cb, void *ctx)
{
	struct ib_sa_client *sa = sa_of(port);

	if (!sa)
		return NULL;
	for (unsigned i = 0; i < IB_SA_MAX_GROUPS; i++) {
		struct ib_mcast_group *g = &sa->group[i];

		if (g->used)
			continue;
		memset(g, 0, sizeof(*g));
		g->used = true;
		g->port = port;
		g->info.mgid = *mgid;
		g->qp = qp;
		g->cb = cb;
		g->ctx = ctx;
		g->txn = -1;
		g->state = IB_GROUP_IDLE;
		group_send_join(g);
		return g;
	}
	ib_port_log(port, "too many groups\n");
	return NULL;
}

void ib_sa_leave(struct ib_mcast_group *g)
{
	struct ib_port *port;
	struct ib_address_vector sa_av;
	uint8_t mad[IB_MAD_SIZE];

	if (!g || !g->used)
		return;
	port = g->port;
	if (g->txn >= 0)
		ib_mad_cancel(port, g->txn);
	if (g->attached && g->qp)
		ib_mcast_detach(g->qp, &g->info.mgid);
	if (g->state == IB_GROUP_JOINED && port->attr.state == IB_PORT_ACTIVE) {
		mcr_build(port, &g->info.mgid, ib_port_pkey(port), mad, IBLIB_METHOD_DELETE);
		ib_sa_address(port, &sa_av);
		(void)ib_mad_send_once(port, mad, &sa_av);
		if (port->sa)
			port->sa->stats.leaves++;
	}
	memset(g, 0, sizeof(*g));
}

/* Whether a group exists, without joining it: an MCMemberRecord Get by MGID and P_Key (IBA
 * 15.2.5.17); the SA answers "no records" for a group nobody created. */
int ib_sa_group_get(struct ib_port *port, const union ib_gid *mgid, uint16_t pkey,
		    ib_mad_done_fn done, void *ctx)
{
	struct ib_address_vector sa_av;
	uint8_t mad[IB_MAD_SIZE];

	if (!sa_of(port) || port->attr.state != IB_PORT_ACTIVE)
		return -ENODEV;
	mcr_build(port, mgid, pkey, mad, IBLIB_METHOD_GET);
	ib_sa_address(port, &sa_av);
	return ib_mad_request(port, mad, &sa_av, done, ctx);
}

/* ---- port events ---- */

void ib_sa_port_up(struct ib_port *port)
{
	struct ib_sa_client *sa = sa_of(port);

	if (!sa)
		return;
	for (unsigned i = 0; i < IB_SA_MAX_GROUPS; i++) {
		struct ib_mcast_group *g = &sa->group[i];

		if (g->used && g->state != IB_GROUP_JOINING && g->state != IB_GROUP_JOINED)
			group_send_join(g);
	}
}

void ib_sa_port_down(struct ib_port *port)
{
	struct ib_sa_client *sa = sa_of(port);

	if (!sa)
		return;
	ib_sa_path_flush(port);
	for (unsigned i = 0; i < IB_SA_MAX_GROUPS; i++) {
		struct ib_mcast_group *g = &sa->group[i];
		bool was_joined;

		if (!g->used)
			continue;
		if (g->txn >= 0)
			ib_mad_cancel(port, g->txn);
		g->txn = -1;
		was_joined = g->state == IB_GROUP_JOINED;
		g->state = IB_GROUP_IDLE;
		if (was_joined && g->cb)
			g->cb(g->ctx, g, -ENODEV);
	}
}

void ib_sa_reregister(struct ib_port *port)
{
	struct ib_sa_client *sa = sa_of(port);

	if (!sa)
		return;
	ib_sa_path_flush(port);
	for (unsigned i = 0; i < IB_SA_MAX_GROUPS; i++) {
		struct ib_mcast_group *g = &sa->group[i];

		if (!g->used)
			continue;
		if (g->txn >= 0)
			ib_mad_cancel(port, g->txn);
		g->txn = -1;
		sa->stats.rejoins++;
		group_send_join(g);
	}
}

void ib_sa_tick(struct ib_port *port, uint64_t now)
{
	struct ib_sa_client *sa = sa_of(port);

	if (!sa || port->attr.state != IB_PORT_ACTIVE)
		return;
	for (unsigned i = 0; i < IB_SA_MAX_GROUPS; i++) {
		struct ib_mcast_group *g = &sa->group[i];

		if (g->used && g->state == IB_GROUP_FAILED && (int64_t)(now - g->retry_at) >= 0)
			group_send_join(g);
	}
}

int ib_sa_client_create(struct ib_port *port)
{
	struct ib_sa_client *sa = kzalloc(sizeof(*sa));

	if (!sa)
		return -ENOMEM;
	sa->port = port;
	for (unsigned i = 0; i < IB_SA_PATH_CACHE; i++)
		sa->path[i].txn = -1;
	port->sa = sa;
	return 0;
}

void ib_sa_client_destroy(struct ib_port *port)
{
	struct ib_sa_client *sa = sa_of(port);

	if (!sa)
		return;
	ib_sa_path_flush(port);
	for (unsigned i = 0; i < IB_SA_MAX_GROUPS; i++)
		ib_sa_leave(&sa->group[i]);
	kfree(sa);
	port->sa = NULL;
}
