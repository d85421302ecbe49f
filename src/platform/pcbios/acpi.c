/* SPDX-License-Identifier: MIT */
/*
 * Just enough ACPI (ACPI 6.x, chapter 5) to find ECAM (MCFG), switch off (FADT PM1 control blocks
 * + the \_S5 sleep type from the DSDT) and reset (FADT RESET_REG).
 */
#include "pcbios.h"
#include <arch/x86.h>
#include <ibboot/console.h>
#include <ibboot/string.h>
#include <ibboot/timer.h>

struct acpi_info acpi;

#define SDT_HEADER_LEN 36
#define TABLE_MAX_LEN  (1u << 20)   /* refuse absurd lengths from a corrupted table */

static bool checksum_ok(const uint8_t *p, size_t len)
{
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += p[i];
	return sum == 0;
}

static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static const uint8_t *find_rsdp_in(uint64_t start, uint64_t len)
{
	for (uint64_t a = start; a + 20 <= start + len; a += 16) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)a;

		if (memcmp(p, "RSD PTR ", 8) == 0 && checksum_ok(p, 20))
			return p;
	}
	return NULL;
}

/* Maps (tables may sit anywhere in RAM) and validates one system description table. */
static const uint8_t *table_at(uint64_t addr)
{
	if (!addr || paging_map(addr, SDT_HEADER_LEN, false))
		return NULL;
	const uint8_t *t = (const uint8_t *)(uintptr_t)addr;
	uint32_t len = get32(t + 4);

	if (len < SDT_HEADER_LEN || len > TABLE_MAX_LEN || paging_map(addr, len, false) ||
	    !checksum_ok(t, len))
		return NULL;
	return t;
}

static void parse_mcfg(const uint8_t *t)
{
	uint32_t len = get32(t + 4);

	/* Header, 8 reserved bytes, then 16-byte allocations: base, segment, start/end bus. */
	for (uint32_t off = SDT_HEADER_LEN + 8; off + 16 <= len; off += 16) {
		const uint8_t *e = t + off;

		if (e[8] == 0 && e[9] == 0) {   /* segment 0 */
			acpi.ecam_base = get64(e);
			acpi.ecam_bus_start = e[10];
			acpi.ecam_bus_end = e[11];
			return;
		}
	}
}

/* Finds Name(_S5_, Package() { SLP_TYPa, SLP_TYPb, ... }) in the DSDT's AML. */
static void find_s5(const uint8_t *dsdt)
{
	uint32_t len = get32(dsdt + 4);

	for (uint32_t i = SDT_HEADER_LEN; i + 8 < len; i++) {
		const uint8_t *p = dsdt + i;

		if (memcmp(p, "_S5_", 4) != 0 || p[4] != 0x12)   /* 0x12: PackageOp */
			continue;
		p += 5;
		p += 1 + ((*p >> 6) & 3);   /* PkgLength: lead byte bits 7:6 = extra bytes */
		p++;                        /* NumElements */
		uint8_t vals[2];
		for (int k = 0; k < 2; k++) {
			if (*p == 0x0a)   /* BytePrefix; ZeroOp (0) and OneOp (1) stand for themselves */
				p++;
			vals[k] = *p++;
		}
		acpi.s5_typ_a = vals[0] & 7;
		acpi.s5_typ_b = vals[1] & 7;
		acpi.s5_found = true;
		return;
	}
}

static void parse_fadt(const uint8_t *t)
{
	uint32_t len = get32(t + 4);
	uint64_t dsdt = get32(t + 40);

	acpi.smi_cmd = (uint16_t)get32(t + 48);
	acpi.acpi_enable = t[52];
	acpi.pm1a_cnt = (uint16_t)get32(t + 64);
	acpi.pm1b_cnt = (uint16_t)get32(t + 68);
	if (len >= 129 && (get32(t + 112) & (1u << 10)) && t[116] == 1) {   /* RESET_REG in I/O */
		acpi.reset_reg_io = true;
		acpi.reset_port = (uint16_t)get64(t + 120);
		acpi.reset_value = t[128];
	}
	if (len >= 148 && get64(t + 140))
		dsdt = get64(t + 140);
	const uint8_t *d = table_at(dsdt);
	if (d && memcmp(d, "DSDT", 4) == 0)
		find_s5(d);
}

void acpi_init(void)
{
	uint64_t ebda = (uint64_t)*(volatile uint16_t *)0x40e << 4;
	const uint8_t *rsdp = NULL;

	if (ebda >= 0x80000 && ebda < 0xa0000)
		rsdp = find_rsdp_in(ebda, 1024);
	if (!rsdp)
		rsdp = find_rsdp_in(0xe0000, 0x20000);
	if (!rsdp)
		return;
	acpi.found = true;
	acpi.rsdp = (uintptr_t)rsdp;

	/* ACPI 2.0+: prefer the XSDT (64-bit entries) when its extended checksum holds. */
	bool xsdt = rsdp[15] >= 2 && get64(rsdp + 24) && checksum_ok(rsdp, get32(rsdp + 20));
	const uint8_t *root = table_at(xsdt ? get64(rsdp + 24) : get32(rsdp + 16));
	unsigned entry = xsdt ? 8 : 4;

	if (!root)
		return;
	for (uint32_t off = SDT_HEADER_LEN; off + entry <= get32(root + 4); off += entry) {
		const uint8_t *t = table_at(xsdt ? get64(root + off) : get32(root + off));

		if (!t)
			continue;
		if (memcmp(t, "MCFG", 4) == 0)
			parse_mcfg(t);
		else if (memcmp(t, "FACP", 4) == 0)
			parse_fadt(t);
	}
}

#define PM1_SCI_EN 0x0001
#define PM1_SLP_EN 0x2000

void acpi_poweroff(void)
{
	if (!acpi.pm1a_cnt || !acpi.s5_found)
		return;
	/* Some chipsets ignore sleep requests until the OS has taken ACPI mode. */
	if (!(inw(acpi.pm1a_cnt) & PM1_SCI_EN) && acpi.smi_cmd && acpi.acpi_enable) {
		outb(acpi.smi_cmd, acpi.acpi_enable);
		for (int i = 0; i < 300 && !(inw(acpi.pm1a_cnt) & PM1_SCI_EN); i++)
			mdelay(1);
	}
	outw(acpi.pm1a_cnt, (uint16_t)(acpi.s5_typ_a << 10) | PM1_SLP_EN);
	if (acpi.pm1b_cnt)
		outw(acpi.pm1b_cnt, (uint16_t)(acpi.s5_typ_b << 10) | PM1_SLP_EN);
	mdelay(100);
}

void acpi_reset(void)
{
	if (!acpi.reset_reg_io)
		return;
	outb(acpi.reset_port, acpi.reset_value);
	mdelay(100);
}
