/* SPDX-License-Identifier: MIT */
/*
 * Hermon: reset, bring-up and full teardown (the IB-core and PCI glue is in hermon_ib.c).
 *
 * Bring-up (PRM "Initialization"): reset → QUERY_FW → MAP_FA → RUN_FW → QUERY_DEV_CAP →
 * SET_ICM_SIZE → MAP_ICM_AUX → MAP_ICM → INIT_HCA → SW2HW_MPT → SW2HW_EQ → MAP_EQ →
 * CONF_SPECIAL_QP; ports are opened separately (SET_PORT → INIT_PORT). Each failing step unwinds
 * what came before it, in reverse order, and ends with a reset, so a failed probe leaves the HCA
 * quiet: no firmware running, none of our memory mapped, nothing able to DMA.
 */
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hermon_prm.h>
#include <ibboot/pci.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>
#include "hermon.h"

/* Linux mlx4 reset.c: dwords 0x58/0x5c are the vendor's config gateway — not restored. */
#define HERMON_CFG_DWORDS 64
static bool hermon_cfg_skip(unsigned off) { return off == 0x58 || off == 0x5c || off == 0; }

int hermon_reset(struct hermon *h)
{
	uint32_t cfg[HERMON_CFG_DWORDS];
	uint16_t vendor = 0xffff;
	uint64_t start;

	/* The hardware semaphore keeps a flash update from being cut by our reset (Linux). */
	start = clock_ms();
	while (readl_be(&h->config, HERMON_SEM_OFFSET) != 0) {
		if (clock_ms() - start >= HERMON_SEM_TIMEOUT_MS) {
			hermon_err(h, "HW semaphore busy (flash update?): no reset");
			return -EBUSY;
		}
		mdelay(1);
	}

	for (unsigned i = 0; i < HERMON_CFG_DWORDS; i++)
		cfg[i] = pci_read32(h->pci, 4 * i);
	writel_be(&h->config, HERMON_RESET_OFFSET, HERMON_RESET_MAGIC);
	wmb();
	h->toggle = 0;
	h->hcr_stuck = false;

	/* PRM: no access for 1 s; then config cycles answer again (iPXE's 1 ms broke CX-2). */
	mdelay(HERMON_RESET_WAIT_MS);
	start = clock_ms();
	for (;;) {
		vendor = pci_read16(h->pci, PCI_VENDOR_ID);
		if (vendor == h->pci->vendor)
			break;
		if (clock_ms() - start >= HERMON_RESET_POLL_MS) {
			hermon_err(h, "no PCI answer %u ms after reset (vendor 0x%04x)",
				   HERMON_RESET_WAIT_MS + HERMON_RESET_POLL_MS, vendor);
			return -ETIMEDOUT;
		}
		mdelay(1);
	}
	/* Highest first, so the command register (decode enables) comes back after the BARs.
	 * Bus mastering stays off: the reset ended every DMA, and the HCA may start again only
	 * when someone brings it up (hermon_start, or an OS driver after the handoff). */
	cfg[PCI_COMMAND / 4] &= ~(uint32_t)PCI_COMMAND_MASTER;
	for (int i = HERMON_CFG_DWORDS - 1; i >= 0; i--)
		if (!hermon_cfg_skip(4u * (unsigned)i))
			pci_write32(h->pci, 4u * (unsigned)i, cfg[i]);
	return 0;
}

static int hermon_init_hca(struct hermon *h)
{
	uint8_t *init_hca = kzalloc(HERMONPRM_INIT_HCA_ST_BYTES);
	int rc;

	if (!init_hca)
		return -ENOMEM;
	hermon_icm_fill_init_hca(&h->plan, init_hca);
	rc = hermon_cmd_init_hca(h, init_hca);
	kfree(init_hca);
	if (rc == 0)
		h->stage = HERMON_STAGE_HCA_INIT;
	return rc;
}

static void hermon_close_hca(struct hermon *h)
{
	if (h->stage >= HERMON_STAGE_HCA_INIT) {
		hermon_cmd_close_hca(h);
		h->stage = HERMON_STAGE_ICM_MAPPED;
	}
}

/* After a reset the device holds nothing of ours: forget every software shadow of it. */
static void hermon_after_reset(struct hermon *h)
{
	hermon_free_host_memory(h);
	while (h->orphan_qps) {
		struct hermon_qp *qp = h->orphan_qps;

		h->orphan_qps = qp->next_qp;
		hermon_free_qp_memory(qp);
	}
	while (h->orphan_cqs) {
		struct hermon_cq *cq = h->orphan_cqs;

		h->orphan_cqs = cq->next_cq;
		hermon_free_cq_memory(h, cq);
	}
	if (h->eq.orphan && h->eq.eqe)
		dma_free(h->eq.eqe, h->eq.eqe_len);
	/* The allocators and the EQ's shadow, one run of struct hermon (mtt_inuse .. eq). */
	memset(h->mtt_inuse, 0, __builtin_offsetof(struct hermon, eq) + sizeof(h->eq) -
	       __builtin_offsetof(struct hermon, mtt_inuse));
	h->map_cmds = h->map_entries = 0;
	h->catastrophic = false;
	h->reset_failed = false;
	h->stage = HERMON_STAGE_RESET;
	/* The buffers of QPs the core could not destroy are unreachable now, too. */
	ib_device_reset_done(&h->ib);
}

/* A queue the HCA would not give back (HW2SW/2RST refused, or after a catastrophic error). */
void hermon_kept(struct hermon *h, const char *what, unsigned num)
{
	hermon_err(h, "%s 0x%x still HW-owned: kept until reset", what, num);
}

/* The reset ends every DMA; only a reset that worked makes the device's memory ours again. */
static void hermon_reset_and_release(struct hermon *h)
{
	if (hermon_reset(h) == 0) {
		hermon_after_reset(h);
		return;
	}
	hermon_err(h, "HCA did not reset: %zu KiB host memory kept",
		   (h->fa.len + h->aux.len +
					     (size_t)h->plan.mapped_len) / 1024);
	/* All that is left to stop it; a device deaf to config cycles may not hear this either. */
	pci_set_bus_master(h->pci, false);
	h->reset_failed = true;
	/* FA, AUX, ICM, the EQ ring and the orphaned queues stay where they are, allocated: only
	 * a later reset that works (hermon_quiesce tries again) frees them. */
	if (h->eq.eqe) {
		h->eq.sw2hw = h->eq.mapped = false;
		h->eq.orphan = true;
	}
	h->stage = HERMON_STAGE_RESET;
}

/* Undoes the bring-up from whatever stage it reached (each step checks its own), then the reset
 * that frees our memory: the end of hermon_quiesce, and of a failed hermon_start. */
static void hermon_teardown(struct hermon *h)
{
	hermon_destroy_eq(h);
	hermon_destroy_mpt(h);
	hermon_close_hca(h);
	hermon_unmap_icm(h);   /* whatever part of AUX/ICM got mapped */
	hermon_stop_firmware(h);
	/* Whatever the firmware still holds, the reset takes away; then our memory is free. */
	hermon_reset_and_release(h);
}

int hermon_start(struct hermon *h)
{
	int rc;

	if (h->reset_failed) {
		hermon_err(h, "last reset failed: cannot start again (power-cycle)");
		return -EIO;
	}
	/* Every reset leaves bus mastering off (hermon_reset); from MAP_FA on the HCA reads and
	 * writes host memory. */
	pci_set_bus_master(h->pci, true);
	if ((rc = hermon_start_firmware(h)) != 0 || (rc = hermon_read_caps(h)) != 0)
		goto err;
	h->num_ports = h->caps.num_ports;
	if ((rc = hermon_map_icm(h)) != 0 || (rc = hermon_init_hca(h)) != 0 ||
	    (rc = hermon_setup_mpt(h)) != 0 || (rc = hermon_create_eq(h)) != 0 ||
	    (rc = hermon_cmd_conf_special_qp(h, h->plan.special_qpn_base)) != 0)
		goto err;
	h->stage = HERMON_STAGE_RUNNING;
	for (unsigned i = 0; i < HERMON_MAX_PORTS; i++)
		h->port[i].num = i + 1;
	return 0;

err:
	hermon_teardown(h);
	hermon_err(h, "bring-up failed (%s); HCA reset, idle", ib_strerror(rc));
	return rc;
}

/* After a catastrophic error the firmware refuses everything until reset: hand every queue to
 * the orphan lists (freed after the reset) instead of issuing commands that cannot work. */
static void hermon_abandon_queues(struct hermon *h)
{
	for (unsigned i = 0; i < ARRAY_SIZE(h->qp_table); i++) {
		struct hermon_qp *qp = h->qp_table[i];

		if (!qp)
			continue;
		h->qp_table[i] = NULL;
		qp->ibqp = NULL;
		qp->next_qp = h->orphan_qps;
		h->orphan_qps = qp;
	}
	while (h->cqs) {
		struct hermon_cq *cq = h->cqs;

		h->cqs = cq->next_cq;
		cq->next_cq = h->orphan_cqs;
		h->orphan_cqs = cq;
	}
	if (h->eq.sw2hw) {
		h->eq.sw2hw = h->eq.mapped = false;
		h->eq.orphan = true;
	}
	for (unsigned p = 0; p < HERMON_MAX_PORTS; p++)
		h->port[p].open = h->port[p].set = false;
	h->stage = HERMON_STAGE_RESET;
}

static bool hermon_has_qps(const struct hermon *h)
{
	for (unsigned i = 0; i < ARRAY_SIZE(h->qp_table); i++)
		if (h->qp_table[i])
			return true;
	return false;
}

void hermon_quiesce(struct hermon *h)
{
	if (h->stage == HERMON_STAGE_RESET && !hermon_has_qps(h) && !h->cqs && !h->reset_failed)
		return;
	if (h->reset_failed || h->catastrophic) {
		hermon_info(h, "%s: straight to reset", h->reset_failed ? "last reset failed" :
			    "catastrophic error");
		hermon_abandon_queues(h);
		hermon_reset_and_release(h);
		return;
	}
	for (unsigned i = 0; i < ARRAY_SIZE(h->qp_table); i++)
		if (h->qp_table[i])
			hermon_destroy_qp(h, h->qp_table[i]);   /* 2RST: no more DMA from any QP */
	while (h->cqs)
		hermon_destroy_cq(h, h->cqs);
	for (unsigned p = 1; p <= h->num_ports; p++)
		hermon_close_port(h, p);
	memset(h->special_qp_used, 0, sizeof(h->special_qp_used));
	hermon_teardown(h);
}

/* The mailboxes and BAR mappings hermon_init set up (any of them may be missing). */
static void hermon_release_access(struct hermon *h)
{
	/* A command still running in an HCA that did not reset may yet write its output
	 * mailbox: after a failed reset the mailboxes stay allocated. */
	if (h->mbox_out && !h->reset_failed)
		dma_free(h->mbox_out, HERMON_MBOX_SIZE);
	if (h->mbox_in && !h->reset_failed)
		dma_free(h->mbox_in, HERMON_MBOX_SIZE);
	h->mbox_in = h->mbox_out = NULL;
	plat_mmio_unmap(&h->uar);
	plat_mmio_unmap(&h->config);
}

int hermon_init(struct hermon *h, struct pci_device *pci)
{
	int rc;

	h->pci = pci;
	ksnprintf(h->name, sizeof(h->name), "hermon 0000:%02x:%02x.%x", PCI_BUS(pci->bdf),
		  PCI_DEV(pci->bdf), PCI_FN(pci->bdf));
	pci_enable_device(pci);
	if ((rc = pci_map_bar(pci, 0, &h->config)) != 0 || h->config.size < MiB(1)) {
		hermon_err(h, "BAR0 (1 MiB) not mapped: check BIOS PCI setup");
		return rc ? rc : -ENODEV;
	}
	if ((rc = pci_map_bar(pci, 2, &h->uar)) != 0 ||
	    h->uar.size < (uint64_t)(HERMON_UAR_NON_EQ_PAGE + 1) * HERMON_PAGE_SIZE) {
		/* The doorbell page is UAR 128: a mapping that stops before it cannot work. */
		hermon_err(h, "BAR2 (doorbells) not mapped or under %u pages",
			   HERMON_UAR_NON_EQ_PAGE + 1);
		rc = rc ? rc : -ENODEV;
		goto err_uar;
	}
	h->mbox_in = dma_alloc(HERMON_MBOX_SIZE, HERMON_MBOX_SIZE);
	h->mbox_out = dma_alloc(HERMON_MBOX_SIZE, HERMON_MBOX_SIZE);
	if (!h->mbox_in || !h->mbox_out) {
		rc = -ENOMEM;
		goto err_mbox;
	}
	if ((rc = hermon_reset(h)) != 0)
		goto err_reset;
	if ((rc = hermon_start(h)) != 0)
		goto err_start;
	return 0;

err_start:
err_reset:
err_mbox:
	hermon_release_access(h);   /* mailboxes, BAR2, BAR0 */
	return rc;
err_uar:
	plat_mmio_unmap(&h->config);
	return rc;
}

void hermon_fini(struct hermon *h)
{
	hermon_quiesce(h);
	hermon_release_access(h);
}
