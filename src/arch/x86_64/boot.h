/* SPDX-License-Identifier: MIT */
/* Constants shared by the entry code (assembly) and the C that reads what it left. */
#ifndef IBBOOT_ARCH_BOOT_H
#define IBBOOT_ARCH_BOOT_H

#define IMAGE_LOAD_ADDR   0x100000   /* where the 32/64-bit part runs */
#define LOADED_HIGH       0x01

/* Real-mode setup scratch, as offsets in the setup segment (the protocol lets the setup code use
 * the first 0x8000 bytes; the loaded sectors end well below SETUP_BOOT_PARAMS). */
#define SETUP_BOOT_PARAMS 0x5000
#define SETUP_STACK_TOP   0x8000

/* struct boot_params offsets (Linux x86 zero page). */
#define BP_E820_ENTRIES   0x1e8
#define BP_RAMDISK_IMAGE  0x218
#define BP_RAMDISK_SIZE   0x21c
#define BP_CMD_LINE_PTR   0x228
#define BP_E820_TABLE     0x2d0
#define E820_MAX          128
#define SMAP              0x534d4150   /* "SMAP" */
#define BOOT_CMDLINE_MAX  1024
/* Our setup code marks the boot_params it builds (in screen_info, which nothing here reads), so
 * the log can tell the real-mode entry from a 32-bit loader's. */
#define BP_SETUP_MARK_OFF 0x000
#define BP_SETUP_MARK     0x4d524249   /* "IBRM" */

/* Selectors of the setup GDT (the 32-bit protocol's __BOOT_CS / __BOOT_DS). */
#define BOOT_CS 0x10
#define BOOT_DS 0x18

/* Selectors of the main GDT (head.S). */
#define GDT_CODE32 0x08
#define GDT_DATA   0x10
#define GDT_CODE64 0x18

/* How the image was entered, passed to arch_main(). */
#define BOOT_TYPE_LINUX     1   /* info = linear address of boot_params */
#define BOOT_TYPE_MULTIBOOT 2   /* info = multiboot info structure */

#define MULTIBOOT_MAGIC        0x1badb002
#define MULTIBOOT_FLAGS        0x00010003   /* page-align modules, memory info, a.out kludge */
#define MULTIBOOT_LOADER_MAGIC 0x2badb002

#define BOOT_STACK_SIZE 0x8000

#endif
