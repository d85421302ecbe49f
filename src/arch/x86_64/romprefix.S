/* SPDX-License-Identifier: MIT */
/*
 * The legacy PCI expansion ROM header of bin/ibboot.rom (PCI Firmware Specification 3.0, 5.1):
 * 0x55 0xAA, the size byte, the init entry at offset 3, the PCI data structure ("PCIR": vendor,
 * device, device list, class, code type 0, last image) and a $PnP expansion header (Plug and
 * Play BIOS Specification 1.0A, appendix A) whose bootstrap entry vector makes the HCA a boot
 * device in the BIOS's menu (BIOS Boot Specification 1.01, 3.2). The size byte, the image
 * lengths and both checksums are written by util/rom/fixrom after the link; the image checksum's
 * byte is at offset 7, in the header's reserved area, so it needs no block of its own.
 * Init runs at POST and only registers the BEV; the BEV runs the shared front end (romfront.S).
 */
#include "romfront.h"

#ifndef ROM_DEVICE_ID
#define ROM_DEVICE_ID 0x1003
#endif

	.section .prefix, "ax"
	.code16
	.globl	rom_start
rom_start:
	.byte	0x55, 0xaa
	.byte	0			/* size in 512-byte blocks: fixrom */
	jmp	rom_init		/* offset 3: the init entry (4 bytes) */
	.org	0x07
	.byte	0			/* image checksum: fixrom (the header's reserved 07h-17h) */
	.org	0x18
	.word	rom_pcir
	.word	rom_pnp

	.balign	4
rom_pcir:
	.ascii	"PCIR"
	.word	0x15b3			/* Mellanox */
	.word	ROM_DEVICE_ID		/* must equal the function's own (SeaBIOS checks it) */
	.word	rom_devlist - rom_pcir	/* PCI Firmware 3.0: device list pointer */
	.word	rom_pcir_end - rom_pcir
	.byte	3			/* PCI data structure revision (3.0) */
	.byte	0x00, 0x06, 0x0c	/* class code: serial bus, InfiniBand, interface 0 */
	.word	0			/* image length (512-byte blocks): fixrom */
	.word	0x0001			/* revision level of the code */
	.byte	0			/* code type: x86 PC-AT compatible */
	.byte	0x80			/* last image */
	.word	0			/* maximum run-time image length: fixrom */
	.word	0			/* no configuration utility */
	.word	0			/* no DMTF CLP entry point */
rom_pcir_end:
	/* Every device ID the Hermon driver accepts (src/drivers/infiniband/hermon_ib.c
	 * hermon_ids): one image serves the family on firmware that honours the list. */
rom_devlist:
	.word	0x1003, 0x1007, 0x6340, 0x634a, 0x6354, 0x6368, 0x6372, 0x6732, 0x673c
	.word	0x6746, 0x6750, 0x675a, 0x6764, 0x676e, 0x6778, 0

	.balign	16
rom_pnp:
	.ascii	"$PnP"
	.byte	1			/* structure revision */
	.byte	2			/* length in 16-byte units */
	.word	0			/* no next header */
	.byte	0
	.byte	0			/* checksum: fixrom */
	.long	0			/* PnP device ID: none */
	.word	rom_manufacturer
	.word	rom_product
	.byte	0x0c, 0x06, 0x00	/* device type: base, sub-type, interface (as the class) */
	.byte	0x54			/* indicators: shadowable, needed only to boot, IPL device */
	.word	0			/* no boot connection vector (not a disk) */
	.word	0			/* no disconnect vector */
	.word	rom_bev			/* bootstrap entry vector */
	.word	0
	.word	0			/* no static resource information */
rom_manufacturer:
	.asciz	"ibboot"
rom_product:
	.asciz	"ibboot (InfiniBand)"

/*
 * Init (far call at POST; ax = bus/device/function, es:di = $PnP installation check): nothing
 * to set up — the BEV does all the work — so return at once with ax = 0x20, "IPL device
 * attached" in the BIOS Boot Specification 1.01's initialisation status (appendix D), every
 * other register as found.
 */
rom_init:
	movw	$0x20, %ax
	lret

/* The BEV (far call when the user or the boot order picks "ibboot (InfiniBand)"). */
rom_bev:
	movw	$FRONT_FROM_ROM, %dx
	jmp	front_start
