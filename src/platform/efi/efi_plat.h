/* SPDX-License-Identifier: MIT */
/* Internal interfaces of the efi platform (bin/ibboot.efi). */
#ifndef IBBOOT_EFI_PLAT_H
#define IBBOOT_EFI_PLAT_H

#include <ibboot/efi.h>
#include <ibboot/platform.h>

extern efi_handle efi_image;
extern struct efi_system_table *efi_st;
extern struct efi_boot_services *efi_bs;

/* "EFI_NOT_FOUND"-style name of a status, for messages. */
const char *efi_strerror(efi_status s);

void efi_console_init(void);
void efi_console_flush(void);
void efi_time_init(void);
/* Takes the memory pool the allocator hands out (below 4 GiB) and reads the memory map. */
void efi_memory_init(void);
/* Gives the pool back (FreePages) before the image leaves with Exit: nothing of ours may stay
 * allocated in the firmware that goes on to its next boot option. */
void efi_memory_release(void);
/* Set by the driver form (driver.c): how a failed netboot leaves instead of Exit. */
extern void (*efi_leave)(void);
void efi_pci_init(void);
/* The image's own command line (LoadOptions, when they are text). */
void efi_cmdline_init(void);

#endif
