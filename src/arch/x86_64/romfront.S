/* SPDX-License-Identifier: MIT */
/*
 * The real-mode front end of bin/ibboot.rom and bin/ibboot.pxe. Linked behind it is the
 * protected-mode part of bin/ibboot.lkrn (the file without its setup sectors, romimage.S); the
 * front end boots it as a Linux loader using the 32-bit boot protocol does
 * (Documentation/x86/boot.rst, "32-bit Boot Protocol"): that part at 1 MiB, a boot_params page
 * of its own with the e820 map and the command line, then code32_start in flat 32-bit protected
 * mode (cs = __BOOT_CS 0x10, the data segments __BOOT_DS 0x18, esi = boot_params, ebx = edi =
 * ebp = 0, interrupts off). The image's real-mode setup code does the same under other loaders,
 * so the ROM does not carry it.
 *
 * Memory: a work area of WORK_SIZE bytes at the top of conventional memory (below the BDA's
 * base memory size, 40:13h, so below the EBDA and any PXE stack) holds boot_params, the command
 * line, the return record and the descriptor tables; the image runs in [1 MiB, its multiboot
 * bss_end), checked to be e820 RAM before anything is copied. The image only hands out RAM above
 * its own end (pcbios/platform.c), so the work area, the IVT, the BDA and the BIOS's own memory
 * survive it.
 *
 * The way back: on a failed autoboot the image leaves long mode and jumps to front_return32
 * (romexit.S) with esi = the return record. From there: the record's GDT (16-bit segments),
 * the real-mode IVT, protected mode off, the landing in real mode, A20 as found, then INT 18h:
 * the BIOS tries its next boot device (BIOS Boot Specification 1.01, 6.5: a BEV that cannot
 * boot may INT 18h). The PIC and the IVT were never touched.
 */
#include "romfront.h"
#include "boot.h"

#define BP_TYPE_OF_LOADER 0x210

/* The front end's variables, in the work area (ds/es-relative). */
#define V_NEED_END  (WORK_VARS + 0)    /* u32: end of the image's run-time extent */
#define V_WORK_LIN  (WORK_VARS + 4)    /* u32: linear address of the work area */

	.section .front16, "ax"
	.code16

/* dx = FRONT_FROM_*; cs = the segment we are linked at 0 in. Never returns. */
	.globl	front_start
front_start:
	cld
	movw	$front_msg_rom, %si
	cmpw	$FRONT_FROM_ROM, %dx
	je	1f
	movw	$front_msg_pxe, %si
1:	call	front_say

	/* The image's run-time extent: the multiboot header (a.out kludge) that util/rom/fixrom
	 * found (ibimg_mb, romimage.S) names bss_end_addr at offset 24 (Multiboot Specification 0.6.96,
	 * 3.1.3); the magic there (masked in the NBP's copy until pxeprefix.S unmasks it) is
	 * checked again, in case the copy the BIOS gave us is not what was built. */
	movl	%cs:ibimg_mb, %eax
	xorl	$MAGIC_MASK, %eax		/* (the NBP's first 8 KiB hold no magic) */
	cmpl	$(MULTIBOOT_MAGIC ^ MAGIC_MASK), %eax
	jne	fail_image
	movl	%cs:ibimg_mb + 20, %esi	/* esi = need_end */
	cmpl	$(IMAGE_LOAD_ADDR + _front_image_len), %esi
	jb	fail_image

	/* The work area: top of base memory (KiB at 40:13h) less WORK_SIZE, 4 KiB-aligned. */
	xorw	%ax, %ax
	movw	%ax, %ds
	movw	0x413, %ax
	cmpw	$640, %ax
	ja	fail_basemem
	shlw	$6, %ax				/* KiB -> paragraphs */
	subw	$(WORK_SIZE >> 4), %ax
	jb	fail_basemem
	xorb	%al, %al
	cmpw	$0x1000, %ax			/* leave the first 64 KiB to the BIOS */
	jb	fail_basemem
	/* A PXE NBP lies in base memory itself: the work area must be above it. */
	movw	%cs, %bx
	cmpw	%ax, %bx
	jae	2f
	addw	$_front_image_paras, %bx
	cmpw	%ax, %bx
	ja	fail_basemem
2:	movw	%ax, %ds			/* ds = es = the work area from here on */
	movw	%ax, %es
	movzwl	%ax, %ebp
	shll	$4, %ebp
	xorw	%ax, %ax			/* a zeroed work area (boot_params must be) */
	xorw	%di, %di
	movw	$(WORK_SIZE / 2), %cx
	rep stosw
	movl	%ebp, V_WORK_LIN
	movl	%esi, V_NEED_END
	movb	%dl, WORK_RECORD + RET_OFF_FLAGS
	jmp	6f

fail_image:
	movw	$front_msg_image, %si
	jmp	front_fail
fail_basemem:
	movw	$front_msg_basemem, %si
/* Prints " not placed: <si>; INT 18h" and gives the machine back to the BIOS. */
front_fail:
	push	%si
	movw	$front_msg_cannot, %si
	call	front_print
	pop	%si
	call	front_print
front_int18:
	movw	$front_msg_int18, %si
	call	front_print
	sti
	int	$0x18
15:	cli
	hlt
	jmp	15b

	/* The e820 map into boot_params; [1 MiB, need_end) must lie in one RAM range. */
6:	xorl	%ebx, %ebx
	xorw	%bp, %bp			/* bp = RAM ranges that hold it */
	movw	$(WORK_BP + BP_E820_TABLE), %di
16:	movl	$0xe820, %eax
	movl	$SMAP, %edx
	movl	$20, %ecx
	int	$0x15
	jc	9f
	cmpl	$SMAP, %eax
	jne	9f
	cmpl	$1, 16(%di)			/* usable RAM */
	jne	8f
	cmpl	$0, 4(%di)			/* base below 4 GiB ... */
	jne	8f
	cmpl	$IMAGE_LOAD_ADDR, (%di)
	ja	8f				/* ... and at or below 1 MiB */
	movl	(%di), %eax
	movl	12(%di), %ecx
	addl	8(%di), %eax
	adcl	$0, %ecx
	jnz	7f				/* reaches 4 GiB */
	cmpl	V_NEED_END, %eax
	jb	8f
7:	incw	%bp
8:	addw	$20, %di
	incb	WORK_BP + BP_E820_ENTRIES
	cmpb	$E820_MAX, WORK_BP + BP_E820_ENTRIES
	jae	9f
	testl	%ebx, %ebx
	jnz	16b
9:	testw	%bp, %bp
	jz	fail_e820

	/* The image to 1 MiB, 64 KiB at a time, by INT 15h AH=87h (the BIOS does the
	 * protected-mode copy and handles A20). */
	xorl	%esi, %esi
	movw	%cs, %si
	shll	$4, %esi
	addl	$ibimg_start, %esi
	movl	$IMAGE_LOAD_ADDR, %edi
	movl	$_front_image_len, %ebx
10:	movl	%ebx, %ecx
	cmpl	$0x10000, %ecx
	jbe	11f
	movl	$0x10000, %ecx
11:	movl	%esi, %eax
	movw	$WORK_GDT + 0x10, %bp
	call	move_desc
	movl	%edi, %eax
	movw	$WORK_GDT + 0x18, %bp
	call	move_desc
	pushal
	incl	%ecx
	shrl	$1, %ecx			/* words, odd lengths rounded up */
	movw	$WORK_GDT, %si
	movb	$0x87, %ah
	int	$0x15
	popal
	jc	fail_copy
	addl	%ecx, %esi
	addl	%ecx, %edi
	subl	%ecx, %ebx
	jnz	10b

	/* The command line: RET_CMDLINE_KEY=0x<record's linear address>. */
	movw	$front_cmdline_key, %si
	movw	$WORK_CMDLINE, %di
12:	lodsb	%cs:(%si)
	stosb
	testb	%al, %al
	jnz	12b
	decw	%di
	movl	V_WORK_LIN, %edx
	addl	$WORK_RECORD, %edx
	movw	$8, %cx
13:	roll	$4, %edx
	movb	%dl, %al
	call	hex_digit
	stosb
	loop	13b				/* (the zeroed area ends the string) */

	/* The return record. */
	movw	$WORK_RECORD, %di
	movl	$RET_MAGIC, RET_OFF_MAGIC(%di)
	movb	$RET_LEN, RET_OFF_LEN(%di)
	xorl	%eax, %eax
	movw	%cs, %ax
	shll	$4, %eax
	movl	%eax, %edx			/* edx = our linear base */
	addl	$front_return32, %eax
	movl	%eax, RET_OFF_ENTRY32(%di)
	inb	$0x92, %al
	movb	%al, RET_OFF_A20(%di)
	movl	%edx, %eax			/* 16-bit code: base = us, limit 64 KiB */
	movw	$WORK_RECORD + RET_OFF_GDT + RET_CODE16, %bp
	call	move_desc
	movb	$0x9b, %es:5(%bp)		/* execute/read */
	movl	V_WORK_LIN, %eax		/* 16-bit data: base = the record */
	addl	$WORK_RECORD, %eax
	movw	$WORK_RECORD + RET_OFF_GDT + RET_DATA16, %bp
	call	move_desc
	movb	$23, RET_OFF_GDTR(%di)
	addl	$RET_OFF_GDT, %eax
	movl	%eax, RET_OFF_GDTR + 2(%di)
	movw	$0x3ff, RET_OFF_IDTR(%di)
	movw	$front_landing, RET_OFF_LANDING(%di)
	movw	%cs, RET_OFF_LANDING + 2(%di)
	movw	%es, %ax
	addw	$(WORK_RECORD >> 4), %ax
	movw	%ax, RET_OFF_SEG(%di)
	xorb	%al, %al			/* checksum: the record sums to 0 */
	movw	$RET_LEN, %cx
14:	subb	(%di), %al
	incw	%di
	loop	14b
	movb	%al, WORK_RECORD + RET_OFF_SUM

	/* boot_params (boot.rst): loader type "undefined", the command line's linear address. */
	movb	$0xff, WORK_BP + BP_TYPE_OF_LOADER
	movl	V_WORK_LIN, %esi		/* esi = boot_params */
	leal	WORK_CMDLINE(%esi), %eax
	movl	%eax, WORK_BP + BP_CMD_LINE_PTR

	movw	$front_msg_enter, %si
	call	front_print

	/* A20 through the BIOS, then through the "fast A20" port (bit 0 would reset). */
	movw	$0x2401, %ax
	int	$0x15
	inb	$0x92, %al
	orb	$2, %al
	andb	$0xfe, %al
	outb	%al, $0x92

	/* The entry GDT over the copy's table: 0x10 flat 32-bit code, 0x18 flat data (boot.rst's
	 * __BOOT_CS and __BOOT_DS); its GDTR in the null descriptor, which the CPU never reads. */
	movw	$WORK_GDT, %di
	movl	V_WORK_LIN, %esi
	leal	WORK_GDT(%esi), %eax
	movw	$0x1f, (%di)
	movl	%eax, 2(%di)
	movl	$0x0000ffff, %eax
	movl	%eax, BOOT_CS(%di)
	movl	%eax, BOOT_DS(%di)
	movl	$0x00cf9a00, BOOT_CS + 4(%di)
	movl	$0x00cf9200, BOOT_DS + 4(%di)
	cli
	lgdtl	(%di)
	movl	%cr0, %eax
	orb	$1, %al
	movl	%eax, %cr0
	movw	$BOOT_DS, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movw	%ax, %fs
	movw	%ax, %gs
	xorl	%ebx, %ebx
	xorl	%edi, %edi
	xorl	%ebp, %ebp
	ljmpl	$BOOT_CS, $_image_entry

/* Data descriptor (limit 0xffff, present, writable) at es:bp for base eax. */
move_desc:
	movw	$0xffff, %es:(%bp)
	movw	%ax, %es:2(%bp)
	rorl	$16, %eax
	movb	%al, %es:4(%bp)
	movb	$0x93, %es:5(%bp)
	movb	$0, %es:6(%bp)
	movb	%ah, %es:7(%bp)
	rorl	$16, %eax
	ret

fail_e820:
	movw	$front_msg_e820, %si
	jmp	front_fail
fail_copy:
	movw	$front_msg_copy, %si
	jmp	front_fail

/* Prints "ibboot: ", then the string at cs:si. */
	.globl	front_say
front_say:
	pushw	%si
	movw	$front_msg_ibboot, %si
	call	front_print
	popw	%si
/* Prints the string at cs:si, each character as front_putc does. */
	.globl	front_print
front_print:
	pushw	%ax
	pushw	%si
1:	movb	%cs:(%si), %al
	incw	%si
	testb	%al, %al
	jz	2f
	call	front_putc
	jmp	1b
2:	popw	%si
	popw	%ax
	ret

/* al = the hex digit ('0'-'9', 'A'-'F') of al's low four bits. */
	.globl	hex_digit
hex_digit:
	andb	$0x0f, %al
	cmpb	$10, %al
	sbbb	$0x69, %al
	das
	ret

/* Character al through the BIOS (INT 10h AH=0Eh): the screen, and the serial console where the
 * BIOS redirects it (SeaBIOS does without a display). */
	.globl	front_putc
front_putc:
	pushal
	movb	$0x0e, %ah
	movw	$7, %bx
	int	$0x10
	popal
	ret

/*
 * The way back from the image (romexit.S jumps here): 32-bit protected mode, paging and long
 * mode off, flat segments, interrupts off, esi = linear address of the return record.
 */
	.code32
front_return32:
	lgdt	RET_OFF_GDTR(%esi)
	ljmp	$RET_CODE16, $front_return16
	.code16
front_return16:
	/* 16-bit protected mode: cs based at us, ds/ss based at the record, 64 KiB limits as
	 * real mode needs (SDM vol. 3, 9.9.2 "Switching Back to Real-Address Mode"). */
	movw	$RET_DATA16, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %fs
	movw	%ax, %gs
	movw	%ax, %ss
	lidtl	RET_OFF_IDTR
	movl	%cr0, %eax
	andl	$0x7ffffffe, %eax		/* PE (and PG, already clear) off */
	movl	%eax, %cr0
	ljmpw	*RET_OFF_LANDING
front_landing:
	/* Real mode; ds still has the record's base cached: read its segment through it. */
	movw	RET_OFF_SEG, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movw	$(WORK_STACK_TOP - WORK_RECORD), %sp
	xorw	%ax, %ax
	movw	%ax, %fs
	movw	%ax, %gs
	/* A20 as found (port 0x92 bit 1; bit 0 would reset the machine). */
	inb	$0x92, %al
	movb	RET_OFF_A20, %ah
	andb	$0x02, %ah
	andb	$0xfc, %al
	orb	%ah, %al
	outb	%al, $0x92
	movw	$front_msg_back, %si
	call	front_say
	jmp	front_int18

front_cmdline_key:	.asciz	RET_CMDLINE_KEY "=0x"
front_msg_ibboot:	.asciz	"ibboot: "
front_msg_rom:		.ascii	"option ROM: "
front_msg_pxe:		.asciz	"image"
front_msg_enter:	.asciz	" to 1 MiB\r\n"
front_msg_cannot:	.asciz	" not placed: "
front_msg_basemem:	.asciz	"no base memory"
front_msg_image:	.asciz	"damaged"
front_msg_e820:		.asciz	"no e820 RAM at 1 MiB"
front_msg_copy:		.asciz	"INT 15h AH=87h failed"
front_msg_back:		.asciz	"back in real mode, HCA quiesced"
front_msg_int18:	.asciz	"; INT 18h\r\n"
