/* SPDX-License-Identifier: MIT */
/* The multiboot trampoline's page, shared by multiboot_load.c (fills it) and mb_enter.S. */
#ifndef IBBOOT_MB_TRAMPOLINE_H
#define IBBOOT_MB_TRAMPOLINE_H

#define MBT_GDT      0x00   /* null, 0x08 flat 32-bit code, 0x10 flat data */
#define MBT_GDTR     0x20   /* limit (2 bytes) + base (8 bytes) */
#define MBT_ENTRY    0x30   /* the kernel's entry point */
#define MBT_MBI      0x34   /* the boot information's address (ebx) */
#define MBT_NSEG     0x38
#define MBT_SEGS     0x40   /* per segment: dst, src, bytes to copy, bytes to zero after them */
#define MBT_SEG_SIZE 16
#define MBT_CODE     0x200  /* the trampoline's code is copied here */
#define MBT_CODE_MAX 0x200

#define MBT_CS32 0x08
#define MBT_DS32 0x10

#endif
