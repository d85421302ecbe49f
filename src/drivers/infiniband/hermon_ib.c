/* SPDX-License-Identifier: MIT */
/*
 * The Hermon driver as the IB core sees it: the ib_device_ops table (ib.h) over the driver's own
 * functions, and the PCI glue that probes an HCA and registers it with the core.
 *
 * The core owns its objects (ib_cq, ib_qp) and the receive buffers; the driver hangs its shadow
 * queue on drv_priv and points back through `owner`, so a CQE's QPN finds the core's QP.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hooks.h>
#include <ibboot/ib.h>
#include <ibboot/pci.h>
#include <ibboot/string.h>
#include "hermon.h"
#include "hermon_ib.h"

#define HERMON_IB_EVENTS 32

struct hermon_ibdev {
	struct hermon h;
	struct ib_device ib;
	char ibname[16];
	struct ib_event ev[HERMON_IB_EVENTS];
	unsigned ev_head, ev_count;
	unsigned ev_lost;
};

static struct hermon_ibdev *to_hd(struct ib_device *dev) { return dev->drv_priv; }

struct hermon *hermon_from_ib(struct ib_device *dev) { return &to_hd(dev)->h; }

static int hermon_ib_open(struct ib_device *dev, unsigned port)
{
	return hermon_open_port(&to_hd(dev)->h, port);
}

static void hermon_ib_close(struct ib_device *dev, unsigned port)
{
	hermon_close_port(&to_hd(dev)->h, port);
}

static int hermon_ib_create_cq(struct ib_device *dev, struct ib_cq *cq)
{
	struct hermon_cq *hcq;
	unsigned n = 1u << hermon_log2_roundup(MAX(cq->num_cqes, 2u));
	int rc = hermon_create_cq(&to_hd(dev)->h, n, &hcq);

	if (rc)
		return rc;
	hcq->owner = cq;
	cq->cqn = hcq->cqn;
	cq->drv_priv = hcq;
	return 0;
}

static void hermon_ib_destroy_cq(struct ib_device *dev, struct ib_cq *cq)
{
	if (cq->drv_priv)
		hermon_destroy_cq(&to_hd(dev)->h, cq->drv_priv);
	cq->drv_priv = NULL;
}

static int hermon_ib_create_qp(struct ib_device *dev, struct ib_qp *qp)
{
	struct hermon *h = &to_hd(dev)->h;
	struct hermon_qp_params p = {
		.port = qp->port->num,
		.num_send = qp->send.num_wqes, .num_recv = qp->recv.num_wqes,
		.send_cq = qp->send.cq->drv_priv, .recv_cq = qp->recv.cq->drv_priv,
		.qkey = qp->qkey,
	};
	struct hermon_qp *hqp;
	int rc;

	switch (qp->type) {
	case IB_QPT_SMI: p.type = HERMON_QPT_SMI; break;
	case IB_QPT_GSI: p.type = HERMON_QPT_GSI; break;
	case IB_QPT_UD: p.type = HERMON_QPT_UD; break;
	default: return -ENOTSUP;
	}
	if ((rc = hermon_create_qp(h, &p, &hqp)) != 0)
		return rc;
	/* UD/GSI/SMI need no peer: straight to RTS with the QP's Q_Key. */
	if ((rc = hermon_modify_qp(h, hqp, qp->qkey, 0, 0)) != 0) {
		hermon_destroy_qp(h, hqp);
		return rc;
	}
	hqp->owner = qp;
	qp->drv_priv = hqp;
	qp->qpn = hqp->ext_qpn;
	qp->state = IB_QPS_RTS;
	return 0;
}

static int hermon_ib_modify_qp(struct ib_device *dev, struct ib_qp *qp, unsigned mask)
{
	struct hermon *h = &to_hd(dev)->h;
	struct hermon_qp *hqp = qp->drv_priv;
	int rc = 0;

	if (mask & IB_QP_MOD_STATE) {
		if (qp->state != IB_QPS_ERR)
			return -ENOTSUP;   /* back to RESET only through destroy */
		if ((rc = hermon_cmd_2err_qp(h, hqp->qpn)) == 0)
			hqp->state = HERMON_QPS_ERR;
		return rc;
	}
	if (mask & IB_QP_MOD_QKEY)
		rc = hermon_modify_qp(h, hqp, qp->qkey, 0, 0);
	return rc;
}

static void hermon_ib_destroy_qp(struct ib_device *dev, struct ib_qp *qp)
{
	if (qp->drv_priv)
		hermon_destroy_qp(&to_hd(dev)->h, qp->drv_priv);
	qp->drv_priv = NULL;
	qp->state = IB_QPS_RESET;
}

static int hermon_ib_post_send(struct ib_device *dev, struct ib_qp *qp,
			       const struct ib_send_wr *wr)
{
	struct hermon *h = &to_hd(dev)->h;
	struct hermon_qp *hqp = qp->drv_priv;
	const struct ib_address_vector *av = wr->av;
	struct hermon_av hav;

	if (!av || !wr->sge.va)
		return -EINVAL;
	hav = (struct hermon_av){
		.qpn = av->qpn, .qkey = av->qkey, .lid = av->lid, .sl = av->sl, .rate = av->rate,
		.gid_present = av->gid_present, .hop_limit = av->hop_limit, .tclass = av->tclass,
		.flow_label = av->flow_label,
		.pkey = h->port[hqp->port - 1].attr.pkey[av->pkey_index % 32],
	};
	memcpy(hav.gid, av->gid.raw, 16);
	return hermon_post_send(h, hqp, &hav, wr->sge.va, wr->sge.len, wr->sge.va);
}

static int hermon_ib_post_recv(struct ib_device *dev, struct ib_qp *qp,
			       const struct ib_recv_wr *wr)
{
	return hermon_post_recv_grh(&to_hd(dev)->h, qp->drv_priv, wr->sge.va, wr->sge.len,
				    wr->sge.va);
}

static enum ib_wc_status hermon_wc_status(const struct hermon_completion *c)
{
	if (c->status == 0)
		return IB_WC_SUCCESS;
	switch (c->syndrome) {
	case 0x01: return IB_WC_LOC_LEN_ERR;
	case 0x02: return IB_WC_LOC_QP_OP_ERR;
	case 0x04: return IB_WC_LOC_PROT_ERR;
	case 0x05: return IB_WC_WR_FLUSH_ERR;
	case 0x06: return IB_WC_MW_BIND_ERR;
	case 0x10: return IB_WC_BAD_RESP_ERR;
	case 0x11: return IB_WC_LOC_ACCESS_ERR;
	case 0x12: return IB_WC_REM_INV_REQ_ERR;
	case 0x13: return IB_WC_REM_ACCESS_ERR;
	case 0x14: return IB_WC_REM_OP_ERR;
	case 0x15: return IB_WC_RETRY_EXC_ERR;
	case 0x16: return IB_WC_RNR_RETRY_EXC_ERR;
	default: return c->status == -ERANGE ? IB_WC_LOC_LEN_ERR : IB_WC_GENERAL_ERR;
	}
}

struct wc_sink {
	struct ib_wc *wc;
	unsigned n;
};

static void hermon_ib_complete(void *ctx, const struct hermon_completion *c)
{
	struct wc_sink *s = ctx;
	struct ib_wc *wc = &s->wc[s->n++];

	memset(wc, 0, sizeof(*wc));
	wc->qp = c->qp->owner;
	wc->is_send = c->is_send;
	wc->wqe_index = c->wqe_index;
	wc->status = hermon_wc_status(c);
	wc->syndrome = c->syndrome;
	wc->vendor_syndrome = c->vendor_syndrome;
	if (!c->is_send) {
		wc->byte_len = (uint32_t)(c->len + IB_GRH_LEN);
		wc->src_qpn = c->src_qpn;
		wc->slid = c->slid;
		wc->sl = c->sl;
		wc->grh_present = c->grh_present;
	}
}

static int hermon_ib_poll_cq(struct ib_device *dev, struct ib_cq *cq, struct ib_wc *wc,
			     unsigned max)
{
	struct wc_sink s = { wc, 0 };

	if (max == 0)
		return 0;
	hermon_poll_cq(&to_hd(dev)->h, cq->drv_priv, max, hermon_ib_complete, &s);
	return (int)s.n;
}

static void hermon_ib_event(void *ctx, const struct hermon_event *e)
{
	struct hermon_ibdev *hd = ctx;
	struct ib_event ev = { 0 };

	switch (e->type) {
	case HERMON_EV_PORT_STATE_CHANGE:
		ev.type = IB_EVENT_PORT_CHANGE;
		ev.port = (uint8_t)e->port;
		break;
	case HERMON_EV_PORT_MGMNT_CHANGE:
		ev.type = IB_EVENT_PORT_MGMT;
		ev.port = (uint8_t)e->port;
		if (e->info & HERMON_PORT_CHANGED_LID)
			ev.flags |= IB_MGMT_LID;
		if (e->info & HERMON_PORT_CHANGED_SM)
			ev.flags |= IB_MGMT_SM;
		if (e->info & HERMON_PORT_CHANGED_PKEY)
			ev.flags |= IB_MGMT_PKEY;
		if (e->info & HERMON_PORT_CHANGED_GID)
			ev.flags |= IB_MGMT_GID;
		/* Nothing readable changed: the SM's ClientReregister is the usual cause, and a
		 * needless rejoin costs one SA round trip, a missed one the multicast groups. */
		if (e->info & HERMON_PORT_CHANGED_NONE_VISIBLE)
			ev.flags |= IB_MGMT_CLIENT_REREG;
		break;
	case HERMON_EV_CQ_ERROR:
		ev.type = IB_EVENT_CQ_ERROR;
		for (struct hermon_cq *cq = hd->h.cqs; cq; cq = cq->next_cq)
			if (cq->cqn == e->qn)
				ev.cq = cq->owner;
		ev.syndrome = e->info;
		break;
	case HERMON_EV_WQ_CATAS_ERROR:
	case HERMON_EV_WQ_ACCESS_ERROR: {
		struct hermon_qp *qp = hermon_find_qp(&hd->h, e->qn);

		ev.type = IB_EVENT_QP_ERROR;
		ev.qp = qp ? qp->owner : NULL;
		ev.syndrome = e->info;
		break;
	}
	case HERMON_EV_CATAS_ERROR:
		ev.type = IB_EVENT_CATASTROPHIC;
		ev.syndrome = e->info;
		break;
	default:
		return;
	}
	if (hd->ev_count == HERMON_IB_EVENTS) {
		hd->ev_lost++;
		return;
	}
	hd->ev[(hd->ev_head + hd->ev_count++) % HERMON_IB_EVENTS] = ev;
}

static int hermon_ib_poll_eq(struct ib_device *dev, struct ib_event *ev, unsigned max)
{
	struct hermon_ibdev *hd = to_hd(dev);
	unsigned n = 0;

	hermon_poll_eq(&hd->h);
	while (n < max && hd->ev_count) {
		ev[n++] = hd->ev[hd->ev_head];
		hd->ev_head = (hd->ev_head + 1) % HERMON_IB_EVENTS;
		hd->ev_count--;
	}
	if (hd->ev_lost) {
		hermon_err(&hd->h, "%u events lost (event ring full)", hd->ev_lost);
		hd->ev_lost = 0;
	}
	return (int)n;
}

static int hermon_ib_mcast_attach(struct ib_device *dev, struct ib_qp *qp,
				  const union ib_gid *mgid)
{
	return hermon_mcast_attach(&to_hd(dev)->h, qp->drv_priv, mgid->raw);
}

static void hermon_ib_mcast_detach(struct ib_device *dev, struct ib_qp *qp,
				   const union ib_gid *mgid)
{
	hermon_mcast_detach(&to_hd(dev)->h, qp->drv_priv, mgid->raw);
}

static int hermon_ib_mad(struct ib_device *dev, unsigned port, const void *in, void *out)
{
	return hermon_cmd_mad_ifc(&to_hd(dev)->h, port, true, in, out);
}

static const struct ib_device_ops hermon_ib_ops = {
	.open = hermon_ib_open,
	.close = hermon_ib_close,
	.create_cq = hermon_ib_create_cq,
	.destroy_cq = hermon_ib_destroy_cq,
	.create_qp = hermon_ib_create_qp,
	.modify_qp = hermon_ib_modify_qp,
	.destroy_qp = hermon_ib_destroy_qp,
	.post_send = hermon_ib_post_send,
	.post_recv = hermon_ib_post_recv,
	.poll_cq = hermon_ib_poll_cq,
	.poll_eq = hermon_ib_poll_eq,
	.mcast_attach = hermon_ib_mcast_attach,
	.mcast_detach = hermon_ib_mcast_detach,
	.mad = hermon_ib_mad,
};

/* ---- PCI glue ---- */

int hermon_ib_probe(struct pci_device *pdev, struct ib_device **out)
{
	struct hermon_ibdev *hd = kzalloc(sizeof(*hd));
	int rc;

	if (!hd)
		return -ENOMEM;
	if ((rc = hermon_init(&hd->h, pdev)) != 0)
		goto err_init;
	ksnprintf(hd->ibname, sizeof(hd->ibname), "hermon-%02x:%02x.%x", PCI_BUS(pdev->bdf),
		  PCI_DEV(pdev->bdf), PCI_FN(pdev->bdf));
	ib_device_init(&hd->ib, hd->ibname, &hermon_ib_ops, hd->h.num_ports, hd);
	hd->h.event = hermon_ib_event;
	hd->h.event_ctx = hd;
	if ((rc = ib_device_register(&hd->ib)) != 0)
		goto err_register;
	pdev->priv = hd;
	if (out)
		*out = &hd->ib;
	return 0;

err_register:
	hermon_fini(&hd->h);
err_init:
	kfree(hd);
	return rc;
}

void hermon_ib_remove(struct pci_device *pdev)
{
	struct hermon_ibdev *hd = pdev->priv;

	if (!hd)
		return;
	/* The core destroys its QPs and CQs and closes the ports; then the HCA is quiesced:
	 * CLOSE_HCA, unmap, reset — no DMA into memory an OS is about to own. */
	ib_device_unregister(&hd->ib);
	hermon_fini(&hd->h);
	kfree(hd);
	pdev->priv = NULL;
}

void hermon_ib_dump(struct ib_device *dev)
{
	hermon_dump(&to_hd(dev)->h);
}

int hermon_fwdump_all(void)
{
	unsigned n = 0;

	for (struct ib_device *dev = ib_devices(); dev; dev = dev->next) {
		if (dev->ops == &hermon_ib_ops) {
			hermon_dump(&to_hd(dev)->h);
			n++;
		}
	}
	if (n == 0)
		kprintf("fwdump: no Hermon HCA is registered (did the PCI probe fail? see above)\n");
	return n ? 0 : -ENODEV;
}

static int hermon_shell_fwdump(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return hermon_fwdump_all();
}

static const struct shell_command hermon_commands[] = {
	{ "fwdump", "HCA catastrophic-error buffer and the driver's view of every queue",
	  hermon_shell_fwdump },
};
static const unsigned hermon_commands_count = ARRAY_SIZE(hermon_commands);
SHELL_COMMAND_SET(hermon, hermon_commands, hermon_commands_count);

static const struct pci_device_id hermon_ids[] = {
	{ 0x15b3, 0x1003, "ConnectX-3" },
	{ 0x15b3, 0x1007, "ConnectX-3 Pro" },
	{ 0x15b3, 0x6340, "ConnectX VPI (SDR)" },
	{ 0x15b3, 0x634a, "ConnectX VPI (DDR)" },
	{ 0x15b3, 0x6354, "ConnectX VPI (QDR)" },
	{ 0x15b3, 0x6368, "ConnectX EN" },
	{ 0x15b3, 0x6372, "ConnectX EN" },
	{ 0x15b3, 0x6732, "ConnectX-2 VPI (DDR)" },
	{ 0x15b3, 0x673c, "ConnectX-2 VPI (QDR)" },
	{ 0x15b3, 0x6746, "ConnectX-2 VPI (QDR)" },
	{ 0x15b3, 0x6750, "ConnectX-2 EN" },
	{ 0x15b3, 0x675a, "ConnectX-2 EN" },
	{ 0x15b3, 0x6764, "ConnectX-2 EN" },
	{ 0x15b3, 0x676e, "ConnectX-2 EN" },
	{ 0x15b3, 0x6778, "ConnectX-2 EN" },
};

static int hermon_pci_probe(struct pci_device *pdev, const struct pci_device_id *id)
{
	int rc = hermon_ib_probe(pdev, NULL);

	if (rc == 0)
		kprintf("%s: %s registered\n", ((struct hermon_ibdev *)pdev->priv)->h.name, id->name);
	return rc;
}

static const struct pci_driver hermon_pci_driver = {
	.name = "hermon",
	.ids = hermon_ids,
	.n_ids = ARRAY_SIZE(hermon_ids),
	.probe = hermon_pci_probe,
	.remove = hermon_ib_remove,
};
PCI_DRIVER(hermon_pci_driver);
