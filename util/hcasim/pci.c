/* SPDX-License-Identifier: MIT */
/*
 * PCI configuration space of the model: a type-0 header for 15b3:<device> (class 0x0c06,
 * InfiniBand), BAR0 1 MiB 64-bit (configuration registers, HCR), BAR2 8 MiB 64-bit prefetchable
 * (UAR pages), and a capability list PM → VPD → vendor-specific → PCIe → MSI-X.
 *
 * iPXE saves/restores config space around a reset but skips dwords 0x58/0x5c: on the real card
 * those are a vendor-specific capability (the "PCI gateway" Mellanox tools use). We put one there
 * so drivers see the same layout.
 */
#include <string.h>

#include "hcasim_int.h"

#define CAP_PM 0x40
#define CAP_VPD 0x48
#define CAP_VSC 0x58
#define CAP_PCIE 0x60
#define CAP_MSIX 0x9c
#define VPD_SIZE 256u

static void put16(uint8_t *p, unsigned off, uint16_t v)
{
	p[off] = (uint8_t)v;
	p[off + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, unsigned off, uint32_t v)
{
	put16(p, off, (uint16_t)v);
	put16(p, off + 2, (uint16_t)(v >> 16));
}

static uint32_t get32(const uint8_t *p, unsigned off)
{
	return (uint32_t)p[off] | (uint32_t)p[off + 1] << 8 | (uint32_t)p[off + 2] << 16 |
	       (uint32_t)p[off + 3] << 24;
}

/* The VPD image (PCI 3.0 §6.4 format): identifier string, VPD-R with a valid RV checksum, and a
 * VPD-W area with the "V5"/"V6" keywords iPXE keeps its settings in. Kept in the upper half of
 * the 4 KiB config array (beyond what config cycles can address) to avoid another buffer. */
#define VPD_IMG 0xe00
static void vpd_init(struct hcasim *h)
{
	uint8_t *v = h->cfgsp + VPD_IMG;
	static const char ident[] = "hcasim ConnectX-3 model";
	static const char pn[] = "MCX353A-FCBT";
	unsigned n = 0, start_r, sum = 0;

	memset(v, 0, VPD_SIZE);
	v[n++] = 0x82;
	v[n++] = sizeof(ident) - 1;
	v[n++] = 0;
	memcpy(v + n, ident, sizeof(ident) - 1);
	n += sizeof(ident) - 1;
	start_r = n;
	v[n++] = 0x90;
	n += 2; /* length, below */
	v[n++] = 'P';
	v[n++] = 'N';
	v[n++] = sizeof(pn) - 1;
	memcpy(v + n, pn, sizeof(pn) - 1);
	n += sizeof(pn) - 1;
	v[n++] = 'R';
	v[n++] = 'V';
	v[n++] = 1;
	v[start_r + 1] = (uint8_t)(n + 1 - start_r - 3);
	for (unsigned i = 0; i < n; i++)
		sum += v[i];
	v[n++] = (uint8_t)(0x100 - (sum & 0xff));
	v[n++] = 0x91;
	v[n++] = 2 * (3 + 48) + 3 + 4;
	v[n++] = 0;
	v[n++] = 'V';
	v[n++] = '5';
	v[n++] = 48;
	n += 48;
	v[n++] = 'V';
	v[n++] = '6';
	v[n++] = 48;
	n += 48;
	v[n++] = 'R';
	v[n++] = 'W';
	v[n++] = 4;
	n += 4;
	v[n++] = 0x78;
}

void hcasim_pci_init(struct hcasim *h)
{
	uint8_t *c = h->cfgsp;

	memset(c, 0, VPD_IMG);
	put16(c, 0x00, 0x15b3);
	put16(c, 0x02, h->cfg.device_id);
	put16(c, 0x06, 0x0010);      /* status: capability list */
	put32(c, 0x08, 0x0c060000);  /* class: serial bus / InfiniBand, revision 0 */
	put32(c, 0x10, 0x4);         /* BAR0: memory, 64-bit, not prefetchable */
	put32(c, 0x18, 0xc);         /* BAR2: memory, 64-bit, prefetchable */
	put16(c, 0x2c, 0x15b3);
	put16(c, 0x2e, 0x0050);
	c[0x34] = CAP_PM;
	c[0x3d] = 1;                 /* INTA */
	/* Power management */
	c[CAP_PM] = 0x01;
	c[CAP_PM + 1] = CAP_VPD;
	put16(c, CAP_PM + 2, 0x0003);
	/* VPD */
	c[CAP_VPD] = 0x03;
	c[CAP_VPD + 1] = CAP_VSC;
	/* Vendor-specific (PCI gateway): id 9, length 0x08 */
	c[CAP_VSC] = 0x09;
	c[CAP_VSC + 1] = CAP_PCIE;
	c[CAP_VSC + 2] = 0x08;
	/* PCI Express v2 endpoint, x8 Gen2 link trained at x8 Gen2 */
	c[CAP_PCIE] = 0x10;
	c[CAP_PCIE + 1] = CAP_MSIX;
	put16(c, CAP_PCIE + 2, 0x0002);
	put32(c, CAP_PCIE + 4, 0x00008fc2); /* devcap: 512 B max payload, FLR */
	put16(c, CAP_PCIE + 8, 0x2810);     /* devctl */
	put32(c, CAP_PCIE + 0x0c, 0x0003f482);
	put16(c, CAP_PCIE + 0x12, 0x1082);  /* linkstat: x8, 5 GT/s */
	/* MSI-X: 128 vectors, table and PBA in BAR0 */
	c[CAP_MSIX] = 0x11;
	c[CAP_MSIX + 1] = 0;
	put16(c, CAP_MSIX + 2, 127);
	put32(c, CAP_MSIX + 4, 0x0007c000);
	put32(c, CAP_MSIX + 8, 0x0007e000);
	h->bar_base[0] = h->bar_base[1] = h->bar_base[2] = 0;
	hcasim_dma_guard_sync(h, "reset: command register cleared");
	h->intx = false; /* a reset deasserts the pin */
	vpd_init(h);
}

/* MSI-X Enable (message control bit 15): while it is clear the function signals through INTx. */
bool hcasim_msix_on(const struct hcasim *h)
{
	return h->cfgsp[CAP_MSIX + 3] & 0x80;
}

bool hcasim_intx(const struct hcasim *h)
{
	return h->intx && !hcasim_msix_on(h);
}

/* Which bits of a config byte software may change. */
static uint8_t wmask_of(unsigned off)
{
	switch (off) {
	case 0x04: return 0x46;         /* memory, bus master, parity */
	case 0x05: return 0x05;         /* SERR, INTx disable */
	case 0x0c: case 0x0d: case 0x3c: return 0xff;
	case CAP_PM + 4: return 0x03;   /* power state */
	case CAP_VPD + 2: case CAP_VPD + 4: case CAP_VPD + 5: case CAP_VPD + 6: case CAP_VPD + 7:
		return 0xff;
	case CAP_PCIE + 8: return 0xff; /* devctl */
	case CAP_PCIE + 9: return 0x7f;
	case CAP_PCIE + 0x10: return 0xfb; /* linkctl */
	case CAP_PCIE + 0x11: return 0x03;
	case CAP_MSIX + 3: return 0xc0;    /* MSI-X enable, function mask */
	}
	return 0;
}

/* BARs: address bits above the size are writable, the rest read as zero (sizing protocol). */
static void bar_write(struct hcasim *h, unsigned off, uint32_t v)
{
	unsigned reg = (off - 0x10) / 4;
	uint64_t size = reg < 2 ? HCASIM_BAR0_SIZE : reg >= 2 && reg < 4 ? HCASIM_BAR2_SIZE : 0;
	uint32_t flags = reg == 0 ? 0x4 : reg == 2 ? 0xc : 0;

	if (!size)
		return; /* BAR4/5 not implemented: read as zero */
	if (reg % 2 == 0)
		put32(h->cfgsp, off, (v & ~(uint32_t)(size - 1) & ~0xfu) | flags);
	else
		put32(h->cfgsp, off, v);
	h->bar_base[reg < 2 ? 0 : 2] =
		((uint64_t)get32(h->cfgsp, off - 4 * (reg % 2) + 4) << 32) |
		(get32(h->cfgsp, off - 4 * (reg % 2)) & ~0xfu);
}

/* VPD (PCI 3.0 §6.4): writing the address with F=0 requests a read, the device answers by
 * setting F with the data; writing the address with F=1 writes the data and clears F. */
static void vpd_access(struct hcasim *h)
{
	uint8_t *c = h->cfgsp;
	unsigned addr = (c[CAP_VPD + 2] | (unsigned)c[CAP_VPD + 3] << 8) & 0x7fff;
	bool write = c[CAP_VPD + 3] & 0x80;

	addr &= VPD_SIZE - 1;
	addr &= ~3u;
	if (write) {
		memcpy(h->cfgsp + VPD_IMG + addr, c + CAP_VPD + 4, 4);
		c[CAP_VPD + 3] &= 0x7f;
	} else {
		memcpy(c + CAP_VPD + 4, h->cfgsp + VPD_IMG + addr, 4);
		c[CAP_VPD + 3] |= 0x80;
	}
}

uint32_t hcasim_cfg_read(struct hcasim *h, unsigned off, unsigned size)
{
	uint32_t v = 0;

	if (size != 1 && size != 2 && size != 4)
		return 0xffffffffu;
	if (!hcasim_reachable(h))
		return size == 4 ? 0xffffffffu : size == 2 ? 0xffffu : 0xffu;
	if (off + size > VPD_IMG)
		return 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint32_t)h->cfgsp[off + i] << (8 * i);
	return v;
}

void hcasim_cfg_write(struct hcasim *h, unsigned off, uint32_t val, unsigned size)
{
	bool vpd = false;

	if ((size != 1 && size != 2 && size != 4) || off + size > VPD_IMG)
		return;
	if (!hcasim_reachable(h))
		return;
	if (off >= 0x10 && off < 0x28 && size == 4 && off % 4 == 0) {
		bar_write(h, off, val);
		return;
	}
	for (unsigned i = 0; i < size; i++) {
		uint8_t m = wmask_of(off + i), b = (uint8_t)(val >> (8 * i));

		h->cfgsp[off + i] = (uint8_t)((h->cfgsp[off + i] & ~m) | (b & m));
		if (off + i == CAP_VPD + 3)
			vpd = true;
	}
	if (vpd)
		vpd_access(h);
	if (off <= 0x04 && off + size > 0x04)
		hcasim_dma_guard_sync(h, "command register written");
	if (hcasim_msix_on(h))
		h->intx = false; /* PCI 3.0 6.8.2: with MSI-X enabled the function does not use INTx */
}
