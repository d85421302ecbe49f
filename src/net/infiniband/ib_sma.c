/* SPDX-License-Identifier: MIT */
/*
 * The subnet management agent of each port. Once the driver has taken QP0 and QP1 from the
 * firmware (Hermon: CONF_SPECIAL_QP), the SM's SMPs reach only the QP0 the core creates here; the
 * chip does not answer them itself any more. As on the path proven on silicon - iPXE
 * (net/infiniband.c ib_create_mi(IB_QPT_SMI), hermon.c hermon_inform_sma) and Linux mlx4_ib
 * (mad.c ib_process_mad) - the firmware still does the work: every Get/Set goes to it through the
 * driver's mad op (MAD_IFC) and its answer goes back on QP0. The agent adds what MAD_IFC leaves to
 * the driver:
 *  - directed route (IBA 14.2.2): the request's hop pointer is checked and advanced on receipt
 *    (C14-9), the answer gets the D bit (MAD_IFC leaves it clear; Linux mlx4_ib sets it after the
 *    command) and its hop pointer stepped back (C14-13:1) before it leaves;
 *  - what a Set changed: unless the device reports the SM's Sets itself as PORT_MGMT events
 *    (dev->port_mgmt_events, Hermon's PORT_MNG_CHG_EV capability), a PortInfo or P_Key table Set
 *    the firmware accepted becomes the policy's rejoin events through ib_smp_snoop() (Linux mlx4_ib
 *    smp_snoop does the same, for the same reason).
 * SMInfo is not forwarded (a CA runs no SM; Linux: "the SMA can't handle them"): a Get/Set of it
 * is answered "unsupported method/attribute", as Linux's MAD layer answers a request nobody takes.
 * Responses, traps and anything malformed are dropped and counted.
 */
#include <ibboot/ib.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>
#include <ibboot/wire/attrs.h>
#include <ibboot/wire/bytes.h>
#include <ibboot/wire/mad.h>
#include <ibboot/ib_mad.h>

#include "ib_internal.h"

struct ib_sma {
	struct ib_port *port;
	struct ib_qp *qp;
	struct ib_sma_stats stats;
};

/* The answer to `req` in `resp`, from the firmware or (SMInfo, unknown methods) our own; false
 * when none is due. */
static bool sma_answer(struct ib_sma *s, const uint8_t *req, uint8_t *resp)
{
	struct ib_device *dev = s->port->dev;
	uint8_t method = iblib_mad_method(req);

	if (iblib_mad_attr_id(req) == IBLIB_SM_ATTR_SM_INFO || req[2] != IBLIB_SMP_CLASS_VERSION ||
	    (method != IBLIB_METHOD_GET && method != IBLIB_METHOD_SET)) {
		iblib_mad_make_response(resp, req, req[2] != IBLIB_SMP_CLASS_VERSION ?
					IBLIB_MAD_STATUS_BAD_VERSION :
					method == IBLIB_METHOD_GET || method == IBLIB_METHOD_SET ?
					IBLIB_MAD_STATUS_UNSUP_METHOD_ATTR :
					IBLIB_MAD_STATUS_UNSUP_METHOD);
		s->stats.own_answers++;
		return true;
	}
	memset(resp, 0, IB_MAD_SIZE);
	/* A failed command (an M_Key the firmware refused, a dead HCA) gets no answer: the SM's
	 * request times out, as IBA 14.2.4.1 wants for a bad M_Key. */
	if (dev->ops->mad(dev, s->port->num, req, resp) < 0) {
		s->stats.mad_ifc_failed++;
		return false;
	}
	if (method == IBLIB_METHOD_SET && iblib_smp_status(resp) == IBLIB_MAD_STATUS_OK) {
		s->stats.sets++;
		/* Without the device's own events, the Set itself says what changed. */
		if (!dev->port_mgmt_events)
			(void)ib_smp_snoop(dev, s->port->num, req, IB_MAD_SIZE);
	}
	return true;
}

static void sma_recv(struct ib_qp *qp, const struct ib_wc *wc, const uint8_t *grh, uint8_t *data,
		     size_t len)
{
	struct ib_sma *s = qp->owner_priv;
	struct ib_port *port = s->port;
	struct ib_address_vector av = { .qpn = wc->src_qpn, .lid = wc->slid, .sl = wc->sl };
	uint8_t req[IB_MAD_SIZE];
	struct ib_buf *buf;
	bool dr;

	(void)grh;
	s->stats.received++;
	if (len < IB_MAD_SIZE || iblib_mad_check(data, IB_MAD_SIZE) < 0 ||
	    (data[1] != IBLIB_MCLASS_SUBN_LID && data[1] != IBLIB_MCLASS_SUBN_DR) ||
	    iblib_mad_is_response(data) || iblib_mad_method(data) == IBLIB_METHOD_TRAP ||
	    iblib_mad_method(data) == IBLIB_METHOD_TRAP_REPRESS) {
		s->stats.dropped++;   /* not a request for an SMA: we send no traps, run no SM */
		return;
	}
	memcpy(req, data, IB_MAD_SIZE);
	dr = iblib_smp_is_dr(req);
	/* IBA 14.2.2.2: a CA is the end of a directed path (C14-9); hop count 0 is this port's own
	 * SM addressing its node (C14-9:1). A returning SMP (D set) has no business here. */
	if (dr && (iblib_smp_dr_d(req) ||
		   iblib_smp_dr_recv(req, false, iblib_smp_dr_hop_cnt(req) ? port->num : 0,
				     port->dev->num_ports, NULL) != IBLIB_DR_LOCAL)) {
		s->stats.dropped++;
		return;
	}
	buf = ib_send_buf_get(qp);
	if (!buf) {
		s->stats.dropped++;   /* every answer still in flight: the SM retries */
		return;
	}
	if (!sma_answer(s, req, buf->va)) {
		ib_send_buf_put(qp, buf);
		return;
	}
	if (dr) {
		uint8_t *resp = buf->va;
		int rc;

		/* The D bit is the driver's to set after MAD_IFC (Linux mlx4_ib ib_process_mad),
		 * then the hop pointer steps back for the way home (C14-13:1). A path whose start
		 * was LID-routed (DrSLID not permissive) is not one an SM sends to a CA. */
		put_be16(resp + 4, (uint16_t)(get_be16(resp + 4) | IBLIB_SMP_DR_D_BIT));
		rc = iblib_smp_dr_respond(resp, false, port->dev->num_ports, NULL);
		if (rc != IBLIB_DR_SEND && rc != IBLIB_DR_LOCAL) {
			ib_send_buf_put(qp, buf);
			s->stats.dropped++;
			return;
		}
	}
	if (ib_post_send(qp, &av, buf, IB_MAD_SIZE, NULL) < 0) {
		s->stats.dropped++;
		return;
	}
	s->stats.answered++;
}

static const struct ib_qp_owner_ops sma_owner = {
	.recv = sma_recv,
};

int ib_sma_create(struct ib_port *port, struct ib_cq *cq)
{
	struct ib_sma *s = kzalloc(sizeof(*s));
	struct ib_qp_config cfg = {
		.type = IB_QPT_SMI,
		.qkey = 0,                        /* IBA 9.6.1.1.1: QP0 has no Q_Key */
		.send_wqes = IB_SMA_SEND_WQES,
		.recv_wqes = IB_SMA_RECV_WQES,
		.recv_payload = IB_MAD_SIZE,
		.send_bufs = IB_SMA_SEND_WQES,
		.send_buf_size = IB_MAD_SIZE,
		.send_cq = cq,
		.recv_cq = cq,
		.owner = &sma_owner,
	};

	if (!s)
		return -ENOMEM;
	s->port = port;
	cfg.owner_priv = s;
	s->qp = ib_create_qp(port, &cfg);
	if (!s->qp) {
		kfree(s);
		return -ENOMEM;
	}
	port->sma = s;
	return 0;
}

void ib_sma_destroy(struct ib_port *port)
{
	struct ib_sma *s = port->sma;

	if (!s)
		return;
	ib_destroy_qp(s->qp);
	kfree(s);
	port->sma = NULL;
}

const struct ib_sma_stats *ib_sma_stats(const struct ib_port *port)
{
	return port->sma ? &port->sma->stats : NULL;
}

struct ib_qp *ib_sma_qp(const struct ib_port *port)
{
	return port->sma ? port->sma->qp : NULL;
}
