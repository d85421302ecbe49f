/* SPDX-License-Identifier: MIT */
/*
 * The image the front end (romfront.S) places: bin/ibboot.lkrn as built, without its setup
 * sectors (the front end is a 32-bit boot-protocol loader: it needs only the protected-mode
 * part). util/rom/fixrom --lkrn checks the setup and multiboot headers and gives the setup
 * sectors' length, code32_start (the protected-mode entry) and where the multiboot header is.
 *
 * In bin/ibboot.pxe (ROM_IMAGE_MASK_MB) the multiboot magic is stored masked: a PXE ROM that
 * finds a multiboot header in the first 8 KiB of an NBP loads it as a multiboot kernel instead
 * (iPXE does; Multiboot Specification 0.6.96, 3.1.1), and pxeprefix.S unmasks it in memory.
 */
#include "romfront.h"
#include "boot.h"

	.section .ibimg, "a"
	.incbin	ROM_IMAGE_FILE, ROM_IMAGE_SKIP, ROM_IMAGE_MB_OFF
	/* The multiboot header (romfront.S reads its magic and bss_end_addr here). */
	.globl	ibimg_mb
ibimg_mb:
#ifdef ROM_IMAGE_MASK_MB
	.globl	ibimg_mb_magic
ibimg_mb_magic:
	.long	MULTIBOOT_MAGIC ^ MAGIC_MASK
	.incbin	ROM_IMAGE_FILE, ROM_IMAGE_SKIP + ROM_IMAGE_MB_OFF + 4
#else
	.incbin	ROM_IMAGE_FILE, ROM_IMAGE_SKIP + ROM_IMAGE_MB_OFF
#endif
	.globl	_image_entry
	.set	_image_entry, ROM_IMAGE_ENTRY
