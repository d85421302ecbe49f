/* SPDX-License-Identifier: MIT */
/*
 * ICM: the contexts' home. A context at ICM virtual address va is read/written by DMA at the guest
 * page MAP_ICM put there; an access that touches an unmapped ICM page fails (the caller turns that
 * into an ICM-error status for a command, or a catastrophic error on the fastpath).
 * Context addresses follow INIT_HCA: base + index × entry size (entry sizes from QUERY_DEV_CAP).
 */
#include "hcasim_int.h"

static int icm_xfer(struct hcasim *h, uint64_t va, void *buf, size_t len, bool write)
{
	uint8_t *p = buf;

	while (len) {
		uint64_t pa, avail;
		size_t n;

		if (!hcasim_vmap_lookup(&h->icm, va, &pa, &avail)) {
			hcasim_refuse(h, "ICM access at %#llx: page not mapped by MAP_ICM",
				      (unsigned long long)va);
			return -1;
		}
		n = avail < len ? (size_t)avail : len;
		if ((write ? hcasim_dma_write(h, pa, p, n) : hcasim_dma_read(h, pa, p, n)) < 0) {
			hcasim_refuse(h, "ICM access at %#llx: guest page %#llx not backed",
				      (unsigned long long)va, (unsigned long long)pa);
			return -1;
		}
		p += n;
		va += n;
		len -= n;
	}
	return 0;
}

int hcasim_icm_read(struct hcasim *h, uint64_t va, void *buf, size_t len)
{
	return icm_xfer(h, va, buf, len, false);
}

int hcasim_icm_write(struct hcasim *h, uint64_t va, const void *buf, size_t len)
{
	return icm_xfer(h, va, (void *)buf, len, true);
}

uint64_t hcasim_qpc_va(struct hcasim *h, uint32_t qpn)
{
	return h->lay.qpc_base + (uint64_t)hcasim_qp_index(h, qpn) * HCASIM_QPC_SZ;
}

uint64_t hcasim_cqc_va(struct hcasim *h, uint32_t cqn)
{
	return h->lay.cqc_base + (uint64_t)cqn * HCASIM_CQC_SZ;
}

uint64_t hcasim_eqc_va(struct hcasim *h, uint32_t eqn)
{
	return h->lay.eqc_base + (uint64_t)eqn * HCASIM_EQC_SZ;
}

uint64_t hcasim_dmpt_va(struct hcasim *h, uint32_t idx)
{
	return h->lay.dmpt_base + (uint64_t)idx * HCASIM_DMPT_SZ;
}

uint64_t hcasim_mtt_va(struct hcasim *h, uint64_t mtt_byte_off)
{
	return h->lay.mtt_base + mtt_byte_off;
}

uint64_t hcasim_mcg_va(struct hcasim *h, uint32_t idx)
{
	return h->lay.mc_base + ((uint64_t)idx << h->lay.log_mc_entry_sz);
}

bool hcasim_bit(const uint8_t *map, uint32_t i)
{
	return map && (map[i / 8] >> (i % 8)) & 1;
}

void hcasim_bit_set(uint8_t *map, uint32_t i, bool v)
{
	if (v)
		map[i / 8] |= (uint8_t)(1u << (i % 8));
	else
		map[i / 8] &= (uint8_t)~(1u << (i % 8));
}
