/* SPDX-License-Identifier: MIT */
/* A config space with hardware-like BAR registers, for software devices and tests (hosted.h). */
#include <ibboot/hosted.h>
#include <ibboot/pci.h>

#include <string.h>

static void put_le(uint8_t *p, uint32_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le(const uint8_t *p, unsigned size)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

void soft_cfg_init(struct soft_cfg *c, uint16_t vendor, uint16_t device, uint32_t class_code,
		   uint8_t header_type)
{
	memset(c, 0, sizeof(*c));
	put_le(&c->bytes[PCI_VENDOR_ID], vendor, 2);
	put_le(&c->bytes[PCI_DEVICE_ID], device, 2);
	put_le(&c->bytes[PCI_CLASS_REVISION], class_code << 8 | 0x01, 4);
	c->bytes[PCI_HEADER_TYPE] = header_type;
}

void soft_cfg_set_bar(struct soft_cfg *c, unsigned i, uint32_t flags, uint64_t size, uint64_t addr)
{
	c->bar_size[i] = size;
	put_le(&c->bytes[PCI_BAR0 + 4 * i], (uint32_t)addr | flags, 4);
	if (flags & PCI_BAR_MEM_64)
		put_le(&c->bytes[PCI_BAR0 + 4 * (i + 1)], (uint32_t)(addr >> 32), 4);
}

static unsigned n_bars(const struct soft_cfg *c)
{
	return (c->bytes[PCI_HEADER_TYPE] & 0x7f) == PCI_HEADER_BRIDGE ? 2 : 6;
}

/* A BAR register keeps only the address bits its size decodes, plus its fixed type bits. */
static uint32_t bar_filter(const struct soft_cfg *c, unsigned i, uint32_t val)
{
	uint32_t cur = get_le(&c->bytes[PCI_BAR0 + 4 * i], 4);

	if (i > 0 && c->bar_size[i - 1] && !(get_le(&c->bytes[PCI_BAR0 + 4 * (i - 1)], 4) & 1) &&
	    (get_le(&c->bytes[PCI_BAR0 + 4 * (i - 1)], 4) & PCI_BAR_MEM_TYPE) == PCI_BAR_MEM_64)
		return val & (uint32_t)(~(c->bar_size[i - 1] - 1) >> 32);   /* upper half */
	if (!c->bar_size[i])
		return 0;
	uint32_t fixed = cur & ((cur & PCI_BAR_SPACE_IO) ? 0x3 : 0xf);
	return (val & (uint32_t)~(c->bar_size[i] - 1) & ~((cur & 1) ? 3u : 0xfu)) | fixed;
}

uint32_t soft_cfg_read(void *ctx, unsigned off, unsigned size)
{
	struct soft_cfg *c = ctx;

	if (off + size > sizeof(c->bytes))
		return 0xffffffffu >> (32 - 8 * size);
	return get_le(&c->bytes[off], size);
}

static bool read_only(unsigned off)
{
	return off < PCI_COMMAND || (off >= PCI_STATUS && off < PCI_STATUS + 2) ||
	       (off >= PCI_CLASS_REVISION && off < PCI_CLASS_REVISION + 4) || off == PCI_HEADER_TYPE;
}

void soft_cfg_write(void *ctx, unsigned off, uint32_t val, unsigned size)
{
	struct soft_cfg *c = ctx;
	unsigned bar_end = PCI_BAR0 + 4 * n_bars(c);

	if (off + size > sizeof(c->bytes))
		return;
	if (off >= PCI_BAR0 && off < bar_end) {
		/* Merge partial writes into the dword, then let the BAR keep what it decodes. */
		unsigned reg = off & ~3u, i = (reg - PCI_BAR0) / 4;
		uint8_t tmp[4];

		memcpy(tmp, &c->bytes[reg], 4);
		put_le(&tmp[off - reg], val, size);
		put_le(&c->bytes[reg], bar_filter(c, i, get_le(tmp, 4)), 4);
		return;
	}
	for (unsigned b = 0; b < size; b++)
		if (!read_only(off + b))
			c->bytes[off + b] = (uint8_t)(val >> (8 * b));
}
