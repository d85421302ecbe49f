/* SPDX-License-Identifier: MIT */
/*
 * BAR accesses. BAR0: the HCR (0x80680, 7 big-endian dwords), the catastrophic-error buffer
 * QUERY_FW points at, the reset register (0xF0010), the clear-interrupt register QUERY_FW reports
 * (0xF00D8, clr_int_st: writing the INTA pin's bit deasserts INTx; reads return 0) and the HW
 * semaphore Linux takes before a reset (0xF03FC: a read returns the old value and takes it). BAR2: UAR pages — send doorbell
 * (page + 0x14), CQ doorbell (page + 0x20, two dwords), EQ consumer-index doorbells
 * (page n/4, + 0x800 + 8·(n%4)).
 */
#include <string.h>

#include "hcasim_int.h"

static bool in_range(uint64_t off, unsigned size, uint64_t start, uint64_t len)
{
	return off >= start && off + size <= start + len;
}

static void bar0_read(struct hcasim *h, uint64_t off, uint8_t *d, unsigned size)
{
	if (in_range(off, size, HCASIM_HCR_OFF, HCASIM_HCR_BYTES)) {
		memcpy(d, h->hcr + (off - HCASIM_HCR_OFF), size);
	} else if (in_range(off, size, HCASIM_ERRBUF_OFF, sizeof(h->errbuf))) {
		memcpy(d, h->errbuf + (off - HCASIM_ERRBUF_OFF), size);
	} else if (in_range(off, size, HCASIM_MSIX_OFF, HCASIM_MSIX_BYTES)) {
		memcpy(d, h->msix + (off - HCASIM_MSIX_OFF), size);
	} else if (off == HCASIM_SEM_OFF && size == 4) {
		hermonprm_store_dword(d, 0, h->hw_sem);
		h->hw_sem = 1;
	}
}

static void bar0_write(struct hcasim *h, uint64_t off, const uint8_t *d, unsigned size)
{
	if (in_range(off, size, HCASIM_HCR_OFF, HCASIM_HCR_BYTES)) {
		/* While the HCR belongs to the device (go set) writes are lost, as on silicon. */
		if (PRM_GET(hca_command_register, go, h->hcr))
			return;
		memcpy(h->hcr + (off - HCASIM_HCR_OFF), d, size);
		if (off + size > HCASIM_HCR_OFF + 24 && PRM_GET(hca_command_register, go, h->hcr))
			hcasim_hcr_go(h);
	} else if (off == HCASIM_RESET_OFF && size == 4) {
		if (hermonprm_load_dword(d, 0) & 1)
			hcasim_reset_start(h);
		else
			hcasim_refuse(h, "reset register written with %#x (bit 0 clear): ignored",
				      hermonprm_load_dword(d, 0));
	} else if (off == HCASIM_SEM_OFF && size == 4) {
		h->hw_sem = hermonprm_load_dword(d, 0);
	} else if (in_range(off, size, HCASIM_CLR_INT_OFF, HERMONPRM_CLR_INT_ST_BYTES)) {
		hcasim_clr_int_write(h, (unsigned)(off - HCASIM_CLR_INT_OFF), d, size);
	} else if (in_range(off, size, HCASIM_MSIX_OFF, HCASIM_MSIX_BYTES)) {
		memcpy(h->msix + (off - HCASIM_MSIX_OFF), d, size);
	}
}

static void uar_write(struct hcasim *h, uint64_t off, const uint8_t *d, unsigned size)
{
	uint32_t page = (uint32_t)(off / HCASIM_PAGE);
	unsigned po = (unsigned)(off % HCASIM_PAGE);

	if (po == HCASIM_UAR_SEND_DB && size == 4) {
		uint32_t qpn = PRM_GET(send_db_register, qn, d);

		hcasim_sq_doorbell(h, page, qpn);
	} else if (po == HCASIM_UAR_CQ_DB && size == 8) {
		hcasim_cq_doorbell(h, d);
	} else if (po == HCASIM_UAR_CQ_DB && size == 4) {
		memcpy(h->cq_db_latch, d, 4); /* first half latched until the second dword */
	} else if (po == HCASIM_UAR_CQ_DB + 4 && size == 4) {
		uint8_t db[8];

		memcpy(db, h->cq_db_latch, 4);
		memcpy(db + 4, d, 4);
		hcasim_cq_doorbell(h, db);
	} else if (po >= HCASIM_UAR_EQ_DB && po < HCASIM_UAR_EQ_DB + 32 && size == 4 &&
		   po % 8 == 0) {
		hcasim_eq_doorbell(h, page * 4 + (po - HCASIM_UAR_EQ_DB) / 8,
				   hermonprm_load_dword(d, 0));
	}
}

void hcasim_bar_read(struct hcasim *h, unsigned bar, uint64_t off, void *data, unsigned size)
{
	memset(data, 0, size);
	if (!hcasim_reachable(h)) {
		memset(data, 0xff, size);
		return;
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return;
	if (bar == 0 && off + size <= HCASIM_BAR0_SIZE)
		bar0_read(h, off, data, size);
}

void hcasim_bar_write(struct hcasim *h, unsigned bar, uint64_t off, const void *data, unsigned size)
{
	if (!hcasim_reachable(h))
		return;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return;
	if (bar == 0 && off + size <= HCASIM_BAR0_SIZE)
		bar0_write(h, off, data, size);
	else if (bar == 2 && off + size <= HCASIM_BAR2_SIZE)
		uar_write(h, off, data, size);
}
