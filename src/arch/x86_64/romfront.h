/* SPDX-License-Identifier: MIT */
/*
 * The real-mode front end shared by bin/ibboot.rom (a PCI option ROM's BEV) and bin/ibboot.pxe
 * (a PXE NBP), and the return record through which the body gives the machine back to the BIOS.
 * Included by romfront.S, romprefix.S, pxeprefix.S, romexit.S and the pcbios platform's C.
 */
#ifndef IBBOOT_ROMFRONT_H
#define IBBOOT_ROMFRONT_H

/* How the front end was entered (dx at front_start; the record's flags). */
#define FRONT_FROM_ROM 1
#define FRONT_FROM_PXE 2

/* The multiboot magic appears in the NBP's first 8 KiB only masked with this (romimage.S). */
#define MAGIC_MASK 0x5a5a5a5a

/* The work area: the top of conventional memory below the BIOS's own (the BDA's base memory
 * size at 40:13h, which the EBDA and a PXE stack lower), 4 KiB-aligned, WORK_SIZE long. */
#define WORK_SIZE      0x2000
#define WORK_BP        0x0000   /* the image's boot_params (Linux zero page, 4 KiB) */
#define WORK_CMDLINE   0x1000   /* the Linux command line the body reads (128 bytes) */
#define WORK_RECORD    0x1080   /* the return record (RET_LEN bytes), 16-byte aligned */
#define WORK_GDT       0x10c0   /* INT 15h AH=87h descriptor table (48 bytes), then the entry GDT */
#define WORK_VARS      0x10f0   /* the front end's variables */
#define WORK_STACK_TOP 0x2000   /* the real-mode stack once the body returned */

/* The return record (offsets): written by the front end, read by the body (pcbios/biosexit.c),
 * used by the front end's return path. The body finds it through the command line option
 * RET_CMDLINE_KEY=0x<linear address>. */
#define RET_CMDLINE_KEY "ibboot.bios-exit"
#define RET_MAGIC      0x58524249   /* "IBRX" */
#define RET_OFF_MAGIC  0
#define RET_OFF_LEN    4            /* u16: RET_LEN */
#define RET_OFF_FLAGS  6            /* u8: FRONT_FROM_* */
#define RET_OFF_SUM    7            /* u8: the record's bytes sum to 0 */
#define RET_OFF_ENTRY32 8           /* u32: linear address of front_return32 */
#define RET_OFF_A20    12           /* u8: port 0x92 as found */
#define RET_OFF_GDT    16           /* null, 16-bit code (base = front end), 16-bit data (base = record) */
#define RET_OFF_GDTR   40           /* u16 limit, u32 base */
#define RET_OFF_IDTR   48           /* the real-mode IVT: limit 0x3ff, base 0 */
#define RET_OFF_LANDING 56          /* u16 offset, u16 segment: the real-mode landing */
#define RET_OFF_SEG    60           /* u16: the record's own segment */
#define RET_LEN        64
#define RET_CODE16     0x08         /* selectors in the record's GDT */
#define RET_DATA16     0x10

#endif
