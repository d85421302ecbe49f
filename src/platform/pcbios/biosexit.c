/* SPDX-License-Identifier: MIT */
/*
 * Giving the machine back to the BIOS when ibboot was started by a PCI option ROM's BEV or as a
 * PXE NBP (src/arch/x86_64/romfront.S). That front end puts RET_CMDLINE_KEY=0x<address> on the
 * command line; the address names its return record in conventional memory (romfront.h), which
 * is checked (magic, length, checksum, addresses below 1 MiB) before it is trusted. The way back
 * leaves long mode (romexit.S) and ends in the front end's real-mode INT 18h, which makes the
 * BIOS try its next boot device (BIOS Boot Specification 1.01, 6.5).
 */
#include "pcbios.h"
#include "../../arch/x86_64/romfront.h"
#include <arch/x86.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/shell.h>
#include <ibboot/string.h>

/* The record, or NULL when there is none (another loader) or it does not check out. */
static const uint8_t *exit_record(bool say)
{
	char buf[24];
	uint64_t addr;
	uint32_t magic, entry;
	uint16_t len;
	uint8_t sum = 0;
	const uint8_t *r;

	if (cmdline_get(plat_cmdline(), RET_CMDLINE_KEY, buf, sizeof(buf)) < 0)
		return NULL;
	/* 0x-hex; in conventional memory above the IVT and BDA, 16-byte aligned (a segment). */
	if (buf[0] != '0' || (buf[1] | 0x20) != 'x' ||
	    !shell_parse_num(buf, 0xa0000 - RET_LEN, &addr) || addr < 0x500 || addr % 16)
		goto bad;
	r = (const uint8_t *)(uintptr_t)addr;
	memcpy(&magic, r + RET_OFF_MAGIC, 4);
	memcpy(&len, r + RET_OFF_LEN, 2);
	memcpy(&entry, r + RET_OFF_ENTRY32, 4);
	for (unsigned i = 0; i < RET_LEN; i++)
		sum += r[i];
	if (magic != RET_MAGIC || len != RET_LEN || sum != 0 || entry < 0x500 || entry >= 0x100000 ||
	    (r[RET_OFF_FLAGS] != FRONT_FROM_ROM && r[RET_OFF_FLAGS] != FRONT_FROM_PXE))
		goto bad;
	return r;
bad:
	if (say)
		kprintf("boot: %s=%s does not name a valid return record; no way back to the "
			"BIOS\n", RET_CMDLINE_KEY, buf);
	return NULL;
}

const char *plat_started_by(void)
{
	const uint8_t *r = exit_record(false);

	if (!r)
		return NULL;
	return r[RET_OFF_FLAGS] == FRONT_FROM_ROM ? "the PCI option ROM's boot entry (BEV)" :
	       "a PXE ROM (ibboot.pxe chainloaded)";
}

const char *plat_firmware_exit(void)
{
	return exit_record(true) ? "the BIOS (INT 18h: its next boot device)" : NULL;
}

int plat_exit_to_firmware(void)
{
	const uint8_t *r = exit_record(true);
	uint32_t entry;

	if (!r)
		return -ENOTSUP;
	memcpy(&entry, r + RET_OFF_ENTRY32, 4);
	kprintf("boot: leaving long mode for the front end at %#x\n", entry);
	arch_return_to_real_mode(entry, (uint32_t)(uintptr_t)r);
}
