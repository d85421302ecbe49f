/* SPDX-License-Identifier: MIT */
/* Internal interfaces of the pcbios platform. */
#ifndef IBBOOT_PCBIOS_H
#define IBBOOT_PCBIOS_H

#include <ibboot/compiler.h>
#include <ibboot/platform.h>

void serial_init(void);
void vga_init(void);
void vga_putc(char c);
int keyboard_getc(void);

void bootinfo_parse(uint32_t type, uint32_t info);
/* True if the image was entered through its own real-mode setup code. */
bool bootinfo_real_mode_entry(void);

void tsc_calibrate(void);

/* What started the image when it was a ROM's boot entry or a PXE chainload (biosexit.c), else
 * NULL. */
const char *plat_started_by(void);

struct acpi_info {
	bool found;
	uint64_t rsdp;
	/* MCFG, segment 0 */
	uint64_t ecam_base;
	uint8_t ecam_bus_start, ecam_bus_end;
	/* FADT */
	uint16_t pm1a_cnt, pm1b_cnt, smi_cmd;
	uint8_t acpi_enable;
	bool s5_found;
	uint8_t s5_typ_a, s5_typ_b;
	bool reset_reg_io;
	uint16_t reset_port;
	uint8_t reset_value;
};
extern struct acpi_info acpi;
void acpi_init(void);
void acpi_poweroff(void);
void acpi_reset(void);

void pci_cfg_init(void);

/* True if [base, base+len) overlaps RAM in the firmware memory map. */
bool memmap_overlaps_ram(uint64_t base, uint64_t len);

#endif
