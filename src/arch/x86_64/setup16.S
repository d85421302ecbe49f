/* SPDX-License-Identifier: MIT */
/*
 * The Linux boot-protocol front of bin/ibboot.lkrn (Documentation/x86/boot.rst, protocol 2.10):
 * a boot sector whose setup header tells QEMU -kernel, syslinux (KERNEL) and GRUB (linux16) where
 * to load us, and real-mode setup code. Loaders put these sectors at some segment X (cs = X+0x20,
 * ip = 0) and the rest of the file at 1 MiB (code32_start). The setup code collects the BIOS e820
 * memory map into a boot_params page of its own (the layout the 32-bit protocol uses, so one
 * parser serves both), enables A20 and enters 32-bit protected mode at code32_start with
 * esi = linear address of that boot_params.
 */
#include "boot.h"

	.section .bootsect, "ax"
	.code16

	/* Booted straight from a disk by a BIOS: not supported; say so and stop. */
bootsect_start:
	ljmp	$0x07c0, $1f
1:	movw	%cs, %ax
	movw	%ax, %ds
	movw	$bootsect_msg, %si
2:	lodsb
	testb	%al, %al
	jz	3f
	movb	$0x0e, %ah
	movw	$7, %bx
	int	$0x10
	jmp	2b
3:	cli
	hlt
	jmp	3b
bootsect_msg:
	.asciz	"ibboot: load me with a boot loader (QEMU -kernel, syslinux, GRUB linux16)\r\n"

	.org	0x1f1
hdr_setup_sects:	.byte	_setup_sects
hdr_root_flags:		.word	0
hdr_syssize:		.long	_syssize
hdr_ram_size:		.word	0
hdr_vid_mode:		.word	0xffff
hdr_root_dev:		.word	0
hdr_boot_flag:		.word	0xaa55
	/* 0x200: the real-mode entry, a two-byte jump over the rest of the header */
	.byte	0xeb, setup_start - 1f
1:
hdr_magic:		.ascii	"HdrS"
hdr_version:		.word	0x020a
hdr_realmode_swtch:	.long	0
hdr_start_sys_seg:	.word	0x1000
hdr_kernel_version:	.word	kernel_version_str - 0x200
hdr_type_of_loader:	.byte	0
hdr_loadflags:		.byte	LOADED_HIGH
hdr_setup_move_size:	.word	0x8000
hdr_code32_start:	.long	IMAGE_LOAD_ADDR
hdr_ramdisk_image:	.long	0
hdr_ramdisk_size:	.long	0
hdr_bootsect_kludge:	.long	0
hdr_heap_end_ptr:	.word	0
hdr_ext_loader_ver:	.byte	0
hdr_ext_loader_type:	.byte	0
hdr_cmd_line_ptr:	.long	0
hdr_initrd_addr_max:	.long	0x7fffffff
hdr_kernel_alignment:	.long	0x200000
hdr_relocatable:	.byte	0
hdr_min_alignment:	.byte	0
hdr_xloadflags:		.word	0
hdr_cmdline_size:	.long	BOOT_CMDLINE_MAX - 1
hdr_hardware_subarch:	.long	0
hdr_hardware_subarch_data: .quad 0
hdr_payload_offset:	.long	0
hdr_payload_length:	.long	0
hdr_setup_data:		.quad	0
	/* 2.10: where we run (not relocatable) and the RAM from there that we use before our own
	 * allocator runs (the link's _init_size: the image's run-time extent, with the compressed
	 * image's decoder tables); a loader that honours it keeps its initrd out of that range. */
hdr_pref_address:	.quad	IMAGE_LOAD_ADDR
hdr_init_size:		.long	_init_size
hdr_end:

kernel_version_str:
	.asciz	"ibboot"

setup_start:
	cli
	cld
	/* Address everything from the start of the setup sectors: cs = ds = es = ss = X. */
	movw	%cs, %ax
	subw	$0x20, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movw	$SETUP_STACK_TOP, %sp
	pushw	%ax
	pushw	$1f
	lretw
1:
	/* A fresh boot_params page: zeroed, then the setup header the loader filled in. */
	movw	$SETUP_BOOT_PARAMS, %di
	xorl	%eax, %eax
	movw	$1024, %cx
	rep stosl
	movw	$0x1f1, %si
	movw	$(SETUP_BOOT_PARAMS + 0x1f1), %di
	movw	$(hdr_end - hdr_setup_sects), %cx
	rep movsb

	movl	$BP_SETUP_MARK, SETUP_BOOT_PARAMS + BP_SETUP_MARK_OFF

	call	enable_a20
	call	read_e820

	/* Protected mode: flat 32-bit segments at the selectors the 32-bit protocol uses. */
	xorl	%ebx, %ebx
	movw	%ds, %bx
	shll	$4, %ebx
	leal	setup_gdt(%ebx), %eax
	movl	%eax, setup_gdt_desc + 2
	movl	hdr_code32_start, %eax
	movl	%eax, pm_entry
	leal	SETUP_BOOT_PARAMS(%ebx), %esi
	lgdtl	setup_gdt_desc
	movl	%cr0, %eax
	orl	$1, %eax
	movl	%eax, %cr0
	movw	$BOOT_DS, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movw	%ax, %fs
	movw	%ax, %gs
	/* cs still holds the real-mode base, so the far pointer is read through it. */
	ljmpl	*%cs:pm_entry

/* A20 through the BIOS, then through the "fast A20" port; most machines have it on already. */
enable_a20:
	movw	$0x2401, %ax
	int	$0x15
	inb	$0x92, %al
	testb	$2, %al
	jnz	1f
	orb	$2, %al
	andb	$0xfe, %al
	outb	%al, $0x92
1:	ret

/* INT 15h E820 into boot_params.e820_table, count in boot_params.e820_entries. */
read_e820:
	xorl	%ebx, %ebx
	movw	$(SETUP_BOOT_PARAMS + BP_E820_TABLE), %di
1:	movl	$0xe820, %eax
	movl	$SMAP, %edx
	movl	$20, %ecx
	int	$0x15
	jc	2f
	cmpl	$SMAP, %eax
	jne	2f
	incb	SETUP_BOOT_PARAMS + BP_E820_ENTRIES
	addw	$20, %di
	cmpb	$E820_MAX, SETUP_BOOT_PARAMS + BP_E820_ENTRIES
	jae	2f
	testl	%ebx, %ebx
	jnz	1b
2:	ret

	.balign	8
setup_gdt:
	.quad	0
	.quad	0
	.quad	0x00cf9a000000ffff	/* 0x10: 32-bit code, flat */
	.quad	0x00cf92000000ffff	/* 0x18: data, flat */
setup_gdt_end:
setup_gdt_desc:
	.word	setup_gdt_end - setup_gdt - 1
	.long	0			/* linear base, patched at run time */
pm_entry:
	.long	0
	.word	BOOT_CS
