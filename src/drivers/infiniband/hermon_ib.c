/* SPDX-License-Identifier: MIT */
/*
 * The Hermon driver as the IB core sees it: the ib_device_ops table (ib.h) over the driver's own
 * functions, and the PCI glue that probes an HCA and registers it with the core.
 *
 * The core owns its objects (ib_cq, ib_qp), the buffers and what each work request carries; the
 * driver hangs its hardware queue on drv_priv and points back (ibcq, ibqp), so a CQE's QPN finds
 * the core's QP. The fastpath ops (post, poll) are hermon_qp.c's and hermon_cq.c's own functions.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/ib.h>
#include <ibboot/pci.h>
#include <ibboot/string.h>
#include "hermon.h"
#include "hermon_ib.h"

static int hermon_ib_open(struct ib_device *dev, unsigned port)
{
	return hermon_open_port(hermon_of(dev), port);
}

static void hermon_ib_close(struct ib_device *dev, unsigned port)
{
	hermon_close_port(hermon_of(dev), port);
}

static int hermon_ib_create_cq(struct ib_device *dev, struct ib_cq *cq)
{
	struct hermon_cq *hcq;
	unsigned n = 1u << hermon_log2_roundup(MAX(cq->num_cqes, 2u));
	int rc = hermon_create_cq(hermon_of(dev), n, &hcq);

	if (rc)
		return rc;
	hcq->ibcq = cq;
	cq->cqn = hcq->cqn;
	cq->drv_priv = hcq;
	return 0;
}

static void hermon_ib_destroy_cq(struct ib_device *dev, struct ib_cq *cq)
{
	if (cq->drv_priv)
		hermon_destroy_cq(hermon_of(dev), cq->drv_priv);
	cq->drv_priv = NULL;
}

static int hermon_ib_create_qp(struct ib_device *dev, struct ib_qp *qp)
{
	struct hermon *h = hermon_of(dev);
	struct hermon_qp *hqp;
	int rc;

	if ((rc = hermon_create_qp(h, qp, &hqp)) != 0)
		return rc;
	/* UD/GSI/SMI need no peer: straight to RTS with the QP's Q_Key. */
	if ((rc = hermon_modify_qp(h, hqp, qp->qkey, 0, qp->pkey_index)) != 0) {
		hermon_destroy_qp(h, hqp);
		return rc;
	}
	qp->drv_priv = hqp;
	qp->qpn = hqp->ext_qpn;
	qp->state = IB_QPS_RTS;
	return 0;
}

static int hermon_ib_modify_qp(struct ib_device *dev, struct ib_qp *qp, unsigned mask)
{
	struct hermon *h = hermon_of(dev);
	struct hermon_qp *hqp = qp->drv_priv;
	int rc = 0;

	if (mask & IB_QP_MOD_STATE) {
		if (qp->state != IB_QPS_ERR)
			return -ENOTSUP;   /* back to RESET only through destroy */
		if ((rc = hermon_cmd_2err_qp(h, hqp->qpn)) == 0)
			hqp->state = IB_QPS_ERR;
		return rc;
	}
	if (mask & IB_QP_MOD_QKEY)
		rc = hermon_modify_qp(h, hqp, qp->qkey, 0, 0);
	return rc;
}

static int hermon_ib_destroy_qp(struct ib_device *dev, struct ib_qp *qp)
{
	int rc = 0;

	if (qp->drv_priv)
		rc = hermon_destroy_qp(hermon_of(dev), qp->drv_priv);
	qp->drv_priv = NULL;
	if (rc == 0)
		qp->state = IB_QPS_RESET;
	return rc;
}

static int hermon_ib_mcast_attach(struct ib_device *dev, struct ib_qp *qp,
				  const union ib_gid *mgid)
{
	return hermon_mcast_attach(hermon_of(dev), qp->drv_priv, mgid->raw);
}

static void hermon_ib_mcast_detach(struct ib_device *dev, struct ib_qp *qp,
				   const union ib_gid *mgid)
{
	hermon_mcast_detach(hermon_of(dev), qp->drv_priv, mgid->raw);
}

/* Local MADs go to the firmware's agents as they are, M_Key/B_Key checks skipped (op_mod 1): the
 * core reads its own port. */
static int hermon_ib_mad(struct ib_device *dev, unsigned port, const void *in, void *out)
{
	return hermon_cmd_mad_ifc(hermon_of(dev), port, true, in, out);
}

static const struct ib_device_ops hermon_ib_ops = {
	.open = hermon_ib_open,
	.close = hermon_ib_close,
	.create_cq = hermon_ib_create_cq,
	.destroy_cq = hermon_ib_destroy_cq,
	.create_qp = hermon_ib_create_qp,
	.modify_qp = hermon_ib_modify_qp,
	.destroy_qp = hermon_ib_destroy_qp,
	/* The fastpath ops are the driver's own functions: no glue between core and CQE. */
	.post_send = hermon_post_send,
	.post_recv = hermon_post_recv,
	.poll_cq = hermon_poll_cq,
	.poll_eq = hermon_poll_eq,
	.mcast_attach = hermon_ib_mcast_attach,
	.mcast_detach = hermon_ib_mcast_detach,
	.mad = hermon_ib_mad,
};

int hermon_ib_register(struct hermon *h)
{
	ksnprintf(h->ibname, sizeof(h->ibname), "hermon-%02x:%02x.%x", PCI_BUS(h->pci->bdf),
		  PCI_DEV(h->pci->bdf), PCI_FN(h->pci->bdf));
	ib_device_init(&h->ib, h->ibname, &hermon_ib_ops, h->num_ports, h);
	/* With the capability the firmware raises PORT_MGMNT_CHANGE for the SM's Sets the core's SMA
	 * forwards by MAD_IFC; without it the SMA derives the events from those Sets. */
	h->ib.port_mgmt_events = h->caps.port_mgmt_events;
	return ib_device_register(&h->ib);
}

void hermon_ib_unregister(struct hermon *h)
{
	ib_device_unregister(&h->ib);
}

/* ---- PCI glue ---- */

int hermon_ib_probe(struct pci_device *pdev, struct ib_device **out)
{
	struct hermon *h = kzalloc(sizeof(*h));
	int rc;

	if (!h)
		return -ENOMEM;
	if ((rc = hermon_init(h, pdev)) != 0)
		goto err_init;
	if ((rc = hermon_ib_register(h)) != 0)
		goto err_register;
	pdev->priv = h;
	if (out)
		*out = &h->ib;
	return 0;

err_register:
	hermon_fini(h);
err_init:
	kfree(h);
	return rc;
}

void hermon_ib_remove(struct pci_device *pdev)
{
	struct hermon *h = pdev->priv;

	if (!h)
		return;
	/* The core destroys its QPs and CQs and closes the ports; then the HCA is quiesced:
	 * CLOSE_HCA, unmap, reset — no DMA into memory an OS is about to own. */
	hermon_ib_unregister(h);
	hermon_fini(h);
	/* A failed reset leaves the HCA able to DMA into what it holds: the bus code and the
	 * handoff learn of it here, and the driver's state (which owns that memory) is kept. */
	pdev->dma_not_stopped = h->reset_failed;
	if (h->reset_failed)
		return;
	kfree(h);
	pdev->priv = NULL;
}

void hermon_ib_dump(struct ib_device *dev)
{
	hermon_dump(hermon_of(dev));
}

int hermon_for_each(void (*fn)(struct hermon *h, void *ctx), void *ctx)
{
	unsigned n = 0;

	for (struct ib_device *dev = ib_devices(); dev; dev = dev->next) {
		if (dev->ops == &hermon_ib_ops) {
			fn(hermon_of(dev), ctx);
			n++;
		}
	}
	return (int)n;
}

static void dump_one(struct hermon *h, void *ctx __unused)
{
	hermon_dump(h);
}

int hermon_fwdump_all(void)
{
	return hermon_for_each(dump_one, NULL) ? 0 : hermon_none("fwdump");
}

int hermon_none(const char *cmd)
{
	kprintf("%s: no Hermon HCA registered\n", cmd);
	return -ENODEV;
}

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
		kprintf("%s: %s registered\n", ((struct hermon *)pdev->priv)->name, id->name);
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
