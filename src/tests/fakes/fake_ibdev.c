/* SPDX-License-Identifier: MIT */
/* The in-memory ib_device of fake_ibdev.h. Test code: simple and strict rather than fast. */
#include "fake_ibdev.h"

#include <ibboot/errno.h>
#include <ibboot/ipoib.h>
#include <ibboot/ipv4.h>
#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>
#include <stdlib.h>
#include <string.h>

#define container_of(p, T, m) ((T *)((char *)(p) - offsetof(T, m)))

struct fake_ibdev *fake_of(struct ib_device *dev)
{
	return container_of(dev, struct fake_ibdev, dev);
}

void fake_port_gid(const struct fake_ibdev *f, unsigned port, union ib_gid *gid)
{
	put_be64(gid->raw, f->port[port - 1].gid_prefix);
	put_be64(gid->raw + 8, f->port[port - 1].port_guid);
}

static struct fake_qp *fqp_of(struct fake_ibdev *f, const struct ib_qp *qp)
{
	for (unsigned i = 0; i < FAKE_MAX_QPS; i++)
		if (f->qps[i].qp == qp)
			return &f->qps[i];
	return NULL;
}

static struct fake_cq *fcq_of(struct fake_ibdev *f, const struct ib_cq *cq)
{
	for (unsigned i = 0; i < FAKE_MAX_CQS; i++)
		if (f->cqs[i].cq == cq)
			return &f->cqs[i];
	return NULL;
}

static void cq_push(struct fake_ibdev *f, struct ib_cq *cq, const struct ib_wc *wc)
{
	struct fake_cq *c = fcq_of(f, cq);

	if (!c || c->tail - c->head >= FAKE_CQ_RING)
		abort();   /* a CQ overrun is a bug in the code under test's sizing */
	c->wc[c->tail++ % FAKE_CQ_RING] = *wc;
}

/* ---- delivery ---- */

static int deliver(struct fake_ibdev *f, struct fake_qp *dst, uint16_t slid, uint32_t src_qpn,
		   const union ib_gid *sgid, const union ib_gid *dgid, const uint8_t *data,
		   size_t len, uint32_t qkey)
{
	struct ib_qp *qp = dst->qp;
	struct ib_wc wc;
	struct ib_buf *b;

	if (qkey != qp->qkey) {
		f->n_dropped_qkey++;   /* IBA 10.2.4: Q_Key mismatch drops silently */
		return -EPERM;
	}
	if (dst->rq_used == dst->rq_posted) {
		f->n_dropped_no_rq++;
		return -ENOSPC;
	}
	b = &dst->rq[dst->rq_used % FAKE_RQ_RING];
	if (len + IB_GRH_LEN > b->len) {
		f->n_dropped_no_rq++;
		return -ERANGE;
	}
	memset(b->va, 0, IB_GRH_LEN);
	if (sgid) {
		uint8_t *grh = b->va;

		grh[0] = 0x60;   /* IPVer 6 */
		put_be16(grh + 4, (uint16_t)(len + 4));
		grh[6] = 0x1b;
		memcpy(grh + 8, sgid->raw, 16);
		memcpy(grh + 24, dgid->raw, 16);
	}
	memcpy((uint8_t *)b->va + IB_GRH_LEN, data, len);
	memset(&wc, 0, sizeof(wc));
	wc.qp = qp;
	wc.is_send = false;
	wc.wqe_index = dst->rq_used & (qp->recv.num_wqes - 1);
	wc.byte_len = (uint32_t)(len + IB_GRH_LEN);
	wc.src_qpn = src_qpn;
	wc.slid = slid;
	wc.grh_present = sgid != NULL;
	dst->rq_used++;
	cq_push(f, qp->recv.cq, &wc);
	return 0;
}

static struct fake_qp *find_qp(struct fake_ibdev *f, unsigned port, uint32_t qpn)
{
	for (unsigned i = 0; i < FAKE_MAX_QPS; i++) {
		struct ib_qp *qp = f->qps[i].qp;

		if (qp && qp->port->num == port && qp->qpn == qpn)
			return &f->qps[i];
	}
	return NULL;
}

static int port_of_lid(const struct fake_ibdev *f, uint16_t lid)
{
	for (unsigned p = 0; p < IB_MAX_PORTS; p++)
		if (f->port[p].state == IB_PORT_ACTIVE && f->port[p].lid == lid)
			return (int)p + 1;
	return 0;
}

static void sa_handle(struct fake_ibdev *f, unsigned from_port, uint32_t from_qpn,
		      const uint8_t *req, size_t len);

int fake_ibdev_inject(struct fake_ibdev *f, const struct ib_address_vector *to, uint16_t slid,
		      uint32_t src_qpn, const union ib_gid *sgid, const uint8_t *data, size_t len)
{
	int port = port_of_lid(f, to->lid);
	struct fake_qp *dst;
	union ib_gid dgid;

	if (!port)
		return -ENOENT;
	dst = find_qp(f, (unsigned)port, to->qpn);
	if (!dst)
		return -ENOENT;
	fake_port_gid(f, (unsigned)port, &dgid);
	return deliver(f, dst, slid, src_qpn, sgid, &dgid, data, len, to->qkey);
}

static struct fake_sa_group *group_by_mlid(struct fake_ibdev *f, uint16_t mlid)
{
	for (unsigned i = 0; i < FAKE_MAX_GROUPS; i++)
		if (f->groups[i].used && f->groups[i].mlid == mlid)
			return &f->groups[i];
	return NULL;
}

struct fake_sa_group *fake_ibdev_group(struct fake_ibdev *f, const union ib_gid *mgid)
{
	for (unsigned i = 0; i < FAKE_MAX_GROUPS; i++)
		if (f->groups[i].used && !memcmp(f->groups[i].mgid.raw, mgid->raw, 16))
			return &f->groups[i];
	return NULL;
}

static void route(struct fake_ibdev *f, const struct ib_qp *src, const struct ib_address_vector *av,
		  const uint8_t *data, size_t len)
{
	unsigned sport = src->port->num;
	uint16_t slid = f->port[sport - 1].lid;
	union ib_gid sgid;
	int dport;

	fake_port_gid(f, sport, &sgid);
	if (f->port[sport - 1].state != IB_PORT_ACTIVE && src->type != IB_QPT_SMI)
		return;   /* nothing leaves a port that is not ACTIVE */
	if (f->capture)
		f->capture(f, sport, av, src->qpn, data, len);
	if (av->qpn == IB_MCAST_QPN) {
		struct fake_sa_group *g = group_by_mlid(f, av->lid);

		if (!g)
			return;
		for (unsigned i = 0; i < FAKE_MAX_QPS; i++) {
			struct fake_qp *q = &f->qps[i];

			if (!q->qp || q->qp == src ||
			    f->port[q->qp->port->num - 1].state != IB_PORT_ACTIVE)
				continue;
			for (unsigned m = 0; m < FAKE_MAX_GROUPS; m++)
				if (q->mgid_used[m] && !memcmp(q->mgid[m].raw, g->mgid.raw, 16))
					deliver(f, q, slid, src->qpn, &sgid, &g->mgid, data, len,
						av->qkey);
		}
		if (f->peer_rx)
			f->peer_rx(f, av, src->qpn, slid, data, len);
		return;
	}
	if (av->qpn == 1 && av->lid == f->port[sport - 1].sm_lid && f->sa_enabled &&
	    !port_of_lid(f, av->lid)) {
		sa_handle(f, sport, src->qpn, data, len);
		return;
	}
	dport = port_of_lid(f, av->lid);
	if (dport) {
		struct fake_qp *dst = find_qp(f, (unsigned)dport, av->qpn);
		union ib_gid dgid;

		fake_port_gid(f, (unsigned)dport, &dgid);
		if (dst)
			deliver(f, dst, slid, src->qpn, av->gid_present ? &sgid : NULL, &dgid, data,
				len, av->qkey);
		return;
	}
	if (f->peer_rx)
		f->peer_rx(f, av, src->qpn, slid, data, len);
}

/* ---- the scripted SA ---- */

static bool lookup_lid(struct fake_ibdev *f, const uint8_t *gid, uint16_t *lid)
{
	union ib_gid g;

	for (unsigned p = 1; p <= IB_MAX_PORTS; p++) {
		fake_port_gid(f, p, &g);
		if (!memcmp(g.raw, gid, 16) && f->port[p - 1].state == IB_PORT_ACTIVE) {
			*lid = f->port[p - 1].lid;
			return true;
		}
	}
	for (unsigned i = 0; i < FAKE_MAX_PEERS; i++) {
		if (f->peers[i].used && !memcmp(f->peers[i].gid.raw, gid, 16)) {
			*lid = f->peers[i].lid;
			return true;
		}
	}
	return false;
}

void fake_ibdev_add_peer(struct fake_ibdev *f, const union ib_gid *gid, uint16_t lid)
{
	for (unsigned i = 0; i < FAKE_MAX_PEERS; i++) {
		if (!f->peers[i].used) {
			f->peers[i].used = true;
			f->peers[i].gid = *gid;
			f->peers[i].lid = lid;
			return;
		}
	}
}

struct ipoib *fake_ibdev_ipoib_up(struct fake_ibdev *f, const union ib_gid *peer_gid,
				  uint16_t peer_lid, uint32_t addr)
{
	struct ipoib *ip;

	fake_ibdev_add_peer(f, peer_gid, peer_lid);
	if (ib_device_register(&f->dev) < 0)
		return NULL;
	ipoib_init();
	for (int i = 0; i < 4; i++)
		net_poll();
	ip = ipoib_instance();
	if (!ip->nd.link_up || ipv4_configure(&ip->nd, addr, 0xffffff00u, 0) < 0)
		return NULL;
	return ip;
}

static void sa_respond(struct fake_ibdev *f, unsigned port, uint32_t qpn, uint8_t *resp)
{
	struct fake_qp *dst = find_qp(f, port, qpn);
	union ib_gid dgid;

	fake_port_gid(f, port, &dgid);
	if (f->capture) {
		struct ib_address_vector av = { .qpn = qpn, .qkey = IB_GSI_QKEY,
						.lid = f->port[port - 1].lid };

		f->capture(f, 0, &av, 1, resp, IB_MAD_SIZE);   /* port 0: from the SA */
	}
	if (dst)
		deliver(f, dst, f->port[port - 1].sm_lid, 1, NULL, &dgid, resp, IB_MAD_SIZE,
			IB_GSI_QKEY);
}

static void sa_handle(struct fake_ibdev *f, unsigned from_port, uint32_t from_qpn,
		      const uint8_t *req, size_t len)
{
	uint8_t resp[IB_MAD_SIZE];
	uint16_t status = 0;
	uint8_t method;

	if (len < IB_MAD_SIZE || req[1] != IBLIB_MCLASS_SUBN_ADM)
		return;
	f->n_sa_requests++;
	memcpy(f->last_sa_request, req, IB_MAD_SIZE);
	if (f->sa_drop_next) {
		f->sa_drop_next--;
		return;
	}
	memcpy(resp, req, IB_MAD_SIZE);
	method = req[3];
	resp[3] = method == IBLIB_METHOD_DELETE ? IBLIB_METHOD_DELETE_RESP : IBLIB_METHOD_GET_RESP;
	if (iblib_mad_attr_id(req) == IBLIB_SA_ATTR_PATH_RECORD && method == IBLIB_METHOD_GET) {
		struct iblib_path_record pr;
		uint16_t lid;

		f->n_path_queries++;
		iblib_path_record_get(req + IBLIB_SA_DATA_OFF, &pr);
		if (lookup_lid(f, pr.dgid.raw, &lid)) {
			pr.dlid = lid;
			pr.slid = f->port[from_port - 1].lid;
			pr.mtu_selector = IBLIB_SEL_EXACTLY;
			pr.mtu = IB_MTU_2048;
			pr.rate_selector = IBLIB_SEL_EXACTLY;
			pr.rate = 3;
			pr.sl = 0;
			pr.hop_limit = 0;
			pr.reversible = true;
			pr.pkey = 0xffff;
			memset(resp + IBLIB_SA_DATA_OFF, 0, IBLIB_SA_DATA_BYTES);
			iblib_path_record_put(resp + IBLIB_SA_DATA_OFF, &pr);
		} else {
			status = IBLIB_SA_STATUS_NO_RECORDS;
		}
	} else if (iblib_mad_attr_id(req) == IBLIB_SA_ATTR_MCMEMBER_RECORD) {
		struct iblib_mcmember_record mr;
		struct fake_sa_group *g;
		union ib_gid mgid;

		iblib_mcmember_record_get(req + IBLIB_SA_DATA_OFF, &mr);
		memcpy(mgid.raw, mr.mgid.raw, 16);
		g = fake_ibdev_group(f, &mgid);
		if (method == IBLIB_METHOD_SET) {
			f->n_mc_joins++;
			for (unsigned i = 0; !g && i < FAKE_MAX_GROUPS; i++) {
				if (!f->groups[i].used) {
					g = &f->groups[i];
					g->used = true;
					g->mgid = mgid;
					g->mlid = (uint16_t)(0xc000 + i);
					g->qkey = f->group_qkey;
				}
			}
			if (!g) {
				status = IBLIB_SA_STATUS_NO_RESOURCES;
			} else {
				g->members++;
				mr.qkey = g->qkey;
				mr.mlid = g->mlid;
				mr.mtu_selector = IBLIB_SEL_EXACTLY;
				mr.mtu = f->group_mtu;
				mr.rate_selector = IBLIB_SEL_EXACTLY;
				mr.rate = f->group_rate;
				mr.sl = f->group_sl;
				mr.scope = 2;
			}
		} else if (method == IBLIB_METHOD_GET) {
			/* an existing group's record; "no records" for one nobody created */
			if (g) {
				mr.qkey = g->qkey;
				mr.mlid = g->mlid;
				mr.mtu_selector = IBLIB_SEL_EXACTLY;
				mr.mtu = f->group_mtu;
				mr.rate_selector = IBLIB_SEL_EXACTLY;
				mr.rate = f->group_rate;
				mr.sl = f->group_sl;
			} else {
				status = IBLIB_SA_STATUS_NO_RECORDS;
			}
		} else if (method == IBLIB_METHOD_DELETE) {
			f->n_mc_leaves++;
			if (g && g->members)
				g->members--;
			else
				status = IBLIB_SA_STATUS_REQ_INVALID;
		} else {
			status = IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
		}
		iblib_mcmember_record_put(resp + IBLIB_SA_DATA_OFF, &mr);
	} else {
		status = IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR;
	}
	if (f->sa_status_override)
		status = f->sa_status_override;
	put_be16(resp + 4, status);
	sa_respond(f, from_port, from_qpn, resp);
}

/* ---- the ops ---- */

static int fake_open(struct ib_device *dev, unsigned port)
{
	if (port < 1 || port > dev->num_ports)
		return -EINVAL;
	return fake_of(dev)->open_error[port - 1];
}

static void fake_close(struct ib_device *dev, unsigned port)
{
	(void)dev;
	(void)port;
}

static int fake_create_cq(struct ib_device *dev, struct ib_cq *cq)
{
	struct fake_ibdev *f = fake_of(dev);

	for (unsigned i = 0; i < FAKE_MAX_CQS; i++) {
		if (!f->cqs[i].cq) {
			memset(&f->cqs[i], 0, sizeof(f->cqs[i]));
			f->cqs[i].cq = cq;
			cq->cqn = 0x80 + i;
			cq->drv_priv = &f->cqs[i];
			return 0;
		}
	}
	return -ENOSPC;
}

static void fake_destroy_cq(struct ib_device *dev, struct ib_cq *cq)
{
	struct fake_cq *c = fcq_of(fake_of(dev), cq);

	if (c)
		c->cq = NULL;
}

static int fake_create_qp(struct ib_device *dev, struct ib_qp *qp)
{
	struct fake_ibdev *f = fake_of(dev);

	if (qp->recv.num_wqes > FAKE_RQ_RING)
		return -EINVAL;
	for (unsigned i = 0; i < FAKE_MAX_QPS; i++) {
		if (!f->qps[i].qp) {
			memset(&f->qps[i], 0, sizeof(f->qps[i]));
			f->qps[i].qp = qp;
			qp->qpn = qp->type == IB_QPT_SMI ? 0 : qp->type == IB_QPT_GSI ? 1
										 : f->next_qpn++;
			qp->drv_priv = &f->qps[i];
			qp->state = IB_QPS_RTS;
			return 0;
		}
	}
	return -ENOSPC;
}

static int fake_modify_qp(struct ib_device *dev, struct ib_qp *qp, unsigned mask)
{
	(void)dev;
	(void)qp;
	return (mask & ~(IB_QP_MOD_QKEY | IB_QP_MOD_STATE)) ? -EINVAL : 0;
}

static int fake_destroy_qp(struct ib_device *dev, struct ib_qp *qp)
{
	struct fake_ibdev *f = fake_of(dev);
	struct fake_qp *q = fqp_of(f, qp);

	if (f->destroy_qp_error)
		return f->destroy_qp_error;
	if (q)
		memset(q, 0, sizeof(*q));
	return 0;
}

static int fake_post_send(struct ib_device *dev, struct ib_qp *qp, const struct ib_send_wr *wr)
{
	struct fake_ibdev *f = fake_of(dev);
	struct fake_qp *q = fqp_of(f, qp);
	struct ib_wc wc;

	if (!q || !wr->av)
		return -EINVAL;
	memset(&wc, 0, sizeof(wc));
	wc.qp = qp;
	wc.is_send = true;
	wc.wqe_index = q->sq_posted++ & (qp->send.num_wqes - 1);
	wc.status = f->send_error;
	if (f->send_error) {
		wc.syndrome = 0x04;
		wc.vendor_syndrome = 0x51;
		f->send_error = IB_WC_SUCCESS;
	} else {
		route(f, qp, wr->av, wr->sge.va, wr->sge.len);
	}
	cq_push(f, qp->send.cq, &wc);
	return 0;
}

static int fake_post_recv(struct ib_device *dev, struct ib_qp *qp, const struct ib_recv_wr *wr)
{
	struct fake_qp *q = fqp_of(fake_of(dev), qp);

	if (!q || q->rq_posted - q->rq_used >= qp->recv.num_wqes)
		return -ENOSPC;
	q->rq[q->rq_posted++ % FAKE_RQ_RING] = wr->sge;
	return 0;
}

static int fake_poll_cq(struct ib_device *dev, struct ib_cq *cq, struct ib_wc *wc, unsigned max)
{
	struct fake_cq *c = fcq_of(fake_of(dev), cq);
	unsigned n = 0;

	if (!c)
		return -EINVAL;
	while (n < max && c->head != c->tail)
		wc[n++] = c->wc[c->head++ % FAKE_CQ_RING];
	return (int)n;
}

static int fake_poll_eq(struct ib_device *dev, struct ib_event *ev, unsigned max)
{
	struct fake_ibdev *f = fake_of(dev);
	unsigned n = f->n_events < max ? f->n_events : max;

	memcpy(ev, f->events, n * sizeof(*ev));
	memmove(f->events, f->events + n, (f->n_events - n) * sizeof(*ev));
	f->n_events -= n;
	return (int)n;
}

static int fake_mcast_attach(struct ib_device *dev, struct ib_qp *qp, const union ib_gid *mgid)
{
	struct fake_qp *q = fqp_of(fake_of(dev), qp);

	for (unsigned m = 0; q && m < FAKE_MAX_GROUPS; m++) {
		if (!q->mgid_used[m]) {
			q->mgid_used[m] = true;
			q->mgid[m] = *mgid;
			return 0;
		}
	}
	return -ENOSPC;
}

static void fake_mcast_detach(struct ib_device *dev, struct ib_qp *qp, const union ib_gid *mgid)
{
	struct fake_qp *q = fqp_of(fake_of(dev), qp);

	for (unsigned m = 0; q && m < FAKE_MAX_GROUPS; m++)
		if (q->mgid_used[m] && !memcmp(q->mgid[m].raw, mgid->raw, 16))
			q->mgid_used[m] = false;
}

static int fake_mad(struct ib_device *dev, unsigned port, const void *in_v, void *out_v)
{
	struct fake_ibdev *f = fake_of(dev);
	const uint8_t *in = in_v;
	uint8_t *out = out_v, *d;
	const struct fake_port_cfg *c;

	f->n_mad_ifc++;
	if (f->mad_ifc_error)
		return f->mad_ifc_error;
	if (port < 1 || port > dev->num_ports)
		return -EINVAL;
	f->n_mad_ifc_port[port - 1]++;
	c = &f->port[port - 1];
	memcpy(out, in, IB_MAD_SIZE);
	out[3] = IBLIB_METHOD_GET_RESP;
	d = out + IBLIB_SMP_DATA_OFF;
	memset(d, 0, IBLIB_SMP_DATA_BYTES);
	switch (iblib_mad_attr_id(in)) {
	case IBLIB_SM_ATTR_NODE_INFO:
		iblib_nodeinfo_set_base_version(d, 1);
		iblib_nodeinfo_set_class_version(d, 1);
		iblib_nodeinfo_set_node_type(d, IBLIB_NODE_TYPE_CA);
		iblib_nodeinfo_set_num_ports(d, dev->num_ports);
		iblib_nodeinfo_set_node_guid(d, get_be64(f->node_guid));
		iblib_nodeinfo_set_port_guid(d, c->port_guid);
		iblib_nodeinfo_set_local_port_num(d, port);
		break;
	case IBLIB_SM_ATTR_PORT_INFO:
		iblib_portinfo_set_gid_prefix(d, c->gid_prefix);
		iblib_portinfo_set_lid(d, c->state >= IB_PORT_ARMED ? c->lid : 0);
		iblib_portinfo_set_master_sm_lid(d, c->state >= IB_PORT_ARMED ? c->sm_lid : 0);
		iblib_portinfo_set_master_sm_sl(d, c->sm_sl);
		iblib_portinfo_set_port_state(d, c->state);
		iblib_portinfo_set_port_phys_state(d, c->phys_state);
		iblib_portinfo_set_link_width_active(d, c->width);
		iblib_portinfo_set_link_speed_active(d, c->speed);
		iblib_portinfo_set_mtu_cap(d, c->mtu_cap);
		iblib_portinfo_set_neighbor_mtu(d, c->neighbor_mtu);
		iblib_portinfo_set_subnet_timeout(d, 18);
		break;
	case IBLIB_SM_ATTR_PKEY_TABLE:
		if (c->pkeys[0] && iblib_mad_attr_mod(in) == 0)
			for (unsigned i = 0; i < 32; i++)
				put_be16(d + 2 * i, c->pkeys[i]);
		else
			put_be16(d, c->pkey);
		break;
	default:
		put_be16(out + 4, IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR);
		break;
	}
	return 0;
}

static const struct ib_device_ops fake_ops = {
	.open = fake_open,
	.close = fake_close,
	.create_cq = fake_create_cq,
	.destroy_cq = fake_destroy_cq,
	.create_qp = fake_create_qp,
	.modify_qp = fake_modify_qp,
	.destroy_qp = fake_destroy_qp,
	.post_send = fake_post_send,
	.post_recv = fake_post_recv,
	.poll_cq = fake_poll_cq,
	.poll_eq = fake_poll_eq,
	.mcast_attach = fake_mcast_attach,
	.mcast_detach = fake_mcast_detach,
	.mad = fake_mad,
};

void fake_ibdev_port_event(struct fake_ibdev *f, unsigned port, enum ib_event_type type,
			   uint32_t flags)
{
	if (f->n_events >= 16)
		abort();
	f->events[f->n_events++] = (struct ib_event){ .type = type, .port = (uint8_t)port,
						       .flags = flags };
}

void fake_ibdev_init(struct fake_ibdev *f)
{
	memset(f, 0, sizeof(*f));
	ib_device_init(&f->dev, "fake0", &fake_ops, 2, f);
	put_be64(f->node_guid, 0x0002c90300001000ull);
	for (unsigned p = 0; p < IB_MAX_PORTS; p++) {
		struct fake_port_cfg *c = &f->port[p];

		c->state = p == 0 ? IB_PORT_ACTIVE : IB_PORT_DOWN;
		c->phys_state = p == 0 ? 5 : 2;
		c->lid = (uint16_t)(0x11 + p);
		c->sm_lid = 1;
		c->gid_prefix = 0xfe80000000000000ull;
		c->port_guid = 0x0002c90300001001ull + p;
		c->pkey = 0xffff;
		c->width = 2;
		c->speed = 4;
		c->mtu_cap = IB_MTU_4096;
		c->neighbor_mtu = IB_MTU_2048;
	}
	f->next_qpn = 0x48;
	f->sa_enabled = true;
	f->group_qkey = 0x0b1b;
	f->group_mtu = IB_MTU_2048;
	f->group_rate = 3;
	f->group_sl = 0;
}
