/* SPDX-License-Identifier: MIT */
/*
 * The real-mode front end of bin/ibboot.rom and bin/ibboot.pxe. It boots the unchanged
 * bin/ibboot.lkrn linked behind it the way a Linux boot-protocol loader does
 * (Documentation/x86/boot.rst, "Loading the rest of the kernel"): the setup sectors to a
 * real-mode segment, the protected-mode part to 1 MiB, then a jump to the setup code at
 * segment + 0x20. The setup code (setup16.S) collects the e820 map and enters the image as it
 * does under any loader.
 *
 * Memory: a work area of WORK_SIZE bytes at the top of conventional memory (below the BDA's
 * base memory size, 40:13h, so below the EBDA and any PXE stack) holds the setup sectors, the
 * command line and the return record; the image runs in [1 MiB, its multiboot bss_end), checked
 * to be e820 RAM before anything is copied. The image only hands out RAM above its own end
 * (pcbios/platform.c), so the work area, the IVT, the BDA and the BIOS's own memory survive it.
 *
 * The way back: on a failed autoboot the image leaves long mode and jumps to front_return32
 * (romexit.S) with esi = the return record. From there: the record's GDT (16-bit segments),
 * the real-mode IVT, protected mode off, the landing in real mode, A20 as found, then INT 18h:
 * the BIOS tries its next boot device (BIOS Boot Specification 1.01, 6.5: a BEV that cannot
 * boot may INT 18h). The PIC and the IVT were never touched.
 */
#include "romfront.h"

#define SMAP 0x534d4150
#define IMAGE_LOAD_ADDR 0x100000
#define MULTIBOOT_MAGIC 0x1badb002
/* A PXE ROM that finds a multiboot header in the first 8 KiB of an NBP loads it as a multiboot
 * kernel instead (iPXE does): the NBP's image starts beyond (pxeprefix.S), and this code holds
 * the magic only masked. */
#define MAGIC_MASK 0x5a5a5a5a

/* The front end's variables, in the work area (es-relative while placing the image). */
#define V_NEED_END  (WORK_VARS + 0)    /* u32: end of the image's run-time extent */
#define V_PM_SRC    (WORK_VARS + 4)    /* u32: linear address of the protected-mode part */
#define V_PM_LEN    (WORK_VARS + 8)    /* u32 */
#define V_SETUP_LEN (WORK_VARS + 12)   /* u16 */
#define V_FLAGS     (WORK_VARS + 14)   /* u16 */
#define V_WORK_LIN  (WORK_VARS + 16)   /* u32: linear address of the work area */

	.section .front16, "ax"
	.code16

/* dx = FRONT_FROM_*; cs = the segment we are linked at 0 in. Never returns. */
	.globl	front_start
front_start:
	cld
	movw	%cs, %ax
	movw	%ax, %ds
	movw	$front_msg_rom, %si
	cmpw	$FRONT_FROM_ROM, %dx
	je	1f
	movw	$front_msg_pxe, %si
1:	call	front_print

	/* The work area: top of base memory (KiB at 40:13h) less WORK_SIZE, 4 KiB-aligned. */
	xorw	%ax, %ax
	movw	%ax, %es
	movw	%es:0x413, %ax
	cmpw	$640, %ax
	ja	fail_basemem
	shlw	$6, %ax				/* KiB -> paragraphs */
	subw	$(WORK_SIZE >> 4), %ax
	jb	fail_basemem
	andw	$0xff00, %ax
	cmpw	$0x1000, %ax			/* leave the first 64 KiB to the BIOS */
	jb	fail_basemem
	/* A PXE NBP lies in base memory itself: the work area must be above it. */
	movw	%cs, %bx
	cmpw	%ax, %bx
	jae	2f
	addw	$_front_image_paras, %bx
	cmpw	%ax, %bx
	ja	fail_basemem
2:	movw	%ax, %es
	xorw	%di, %di			/* clear the work area above the setup sectors */
	movw	$WORK_CMDLINE, %di
	movw	$((WORK_SIZE - WORK_CMDLINE) / 2), %cx
	push	%ax
	xorw	%ax, %ax
	rep stosw
	pop	%ax
	movw	%dx, %es:V_FLAGS
	movzwl	%ax, %eax
	shll	$4, %eax
	movl	%eax, %es:V_WORK_LIN

	/* The image as a Linux loader sees it: boot flag, "HdrS", setup sectors (0 means 4). */
	cmpw	$0xaa55, ibimg_start + 0x1fe
	jne	fail_image
	cmpl	$0x53726448, ibimg_start + 0x202
	jne	fail_image
	movzbw	ibimg_start + 0x1f1, %ax
	testw	%ax, %ax
	jnz	3f
	movw	$4, %ax
3:	incw	%ax
	shlw	$9, %ax
	cmpw	$0x5000, %ax			/* below the boot_params setup16 builds */
	ja	fail_image
	movw	%ax, %es:V_SETUP_LEN
	movzwl	%ax, %ebx
	movl	$_front_image_len, %ecx
	subl	%ebx, %ecx
	jbe	fail_image
	movl	%ecx, %es:V_PM_LEN
	xorl	%eax, %eax
	movw	%cs, %ax
	shll	$4, %eax
	addl	$ibimg_start, %eax
	addl	%ebx, %eax
	movl	%eax, %es:V_PM_SRC

	/* Its run-time extent: the multiboot header (a.out kludge) in the first 8 KiB of the
	 * protected-mode part names bss_end_addr at offset 24 (Multiboot Specification 0.6.96, 3.1.3). */
	leaw	ibimg_start(%bx), %si
	movw	$2048, %cx
4:	movl	(%si), %eax
	xorl	$MAGIC_MASK, %eax		/* (the magic itself stays out of this code) */
	cmpl	$(MULTIBOOT_MAGIC ^ MAGIC_MASK), %eax
	jne	5f
	movl	(%si), %eax
	addl	4(%si), %eax
	addl	8(%si), %eax
	jz	6f
5:	addw	$4, %si
	loop	4b
	jmp	fail_image
6:	testl	$0x10000, 4(%si)
	jz	fail_image
	movl	24(%si), %eax
	movl	%es:V_PM_LEN, %ecx
	addl	$IMAGE_LOAD_ADDR, %ecx
	cmpl	%ecx, %eax
	jb	fail_image
	movl	%eax, %es:V_NEED_END

	/* [1 MiB, need_end) must lie in one e820 RAM range. */
	xorl	%ebx, %ebx
7:	movl	$0xe820, %eax
	movl	$SMAP, %edx
	movl	$20, %ecx
	movw	$WORK_E820, %di
	int	$0x15
	jc	fail_e820
	cmpl	$SMAP, %eax
	jne	fail_e820
	cmpl	$1, %es:WORK_E820 + 16		/* usable RAM */
	jne	8f
	cmpl	$0, %es:WORK_E820 + 4		/* base below 4 GiB ... */
	jne	8f
	cmpl	$IMAGE_LOAD_ADDR, %es:WORK_E820
	ja	8f				/* ... and at or below 1 MiB */
	movl	%es:WORK_E820, %eax
	movl	%es:WORK_E820 + 12, %ecx
	addl	%es:WORK_E820 + 8, %eax
	adcl	$0, %ecx
	jnz	9f				/* reaches 4 GiB */
	cmpl	%es:V_NEED_END, %eax
	jae	9f
8:	testl	%ebx, %ebx
	jnz	7b
	jmp	fail_e820

	/* The setup sectors to the work area. */
9:	movw	$ibimg_start, %si
	xorw	%di, %di
	movw	%es:V_SETUP_LEN, %cx
	rep movsb

	/* The protected-mode part to 1 MiB, 64 KiB at a time, by INT 15h AH=87h (the BIOS does
	 * the protected-mode copy and handles A20). */
	movl	%es:V_PM_SRC, %esi
	movl	$IMAGE_LOAD_ADDR, %edi
	movl	%es:V_PM_LEN, %ebx
10:	movl	%ebx, %ecx
	cmpl	$0x10000, %ecx
	jbe	11f
	movl	$0x10000, %ecx
11:	movl	%esi, %eax
	movw	$WORK_MOVE_GDT + 0x10, %bp
	call	move_desc
	movl	%edi, %eax
	movw	$WORK_MOVE_GDT + 0x18, %bp
	call	move_desc
	pushal
	incl	%ecx
	shrl	$1, %ecx			/* words, odd lengths rounded up */
	movw	$WORK_MOVE_GDT, %si
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
12:	lodsb
	stosb
	testb	%al, %al
	jnz	12b
	decw	%di
	movl	%es:V_WORK_LIN, %eax
	addl	$WORK_RECORD, %eax
	movw	$8, %cx
13:	roll	$4, %eax
	movb	%al, %bl
	andb	$0x0f, %bl
	addb	$'0', %bl
	cmpb	$'9', %bl
	jbe	14f
	addb	$('a' - '9' - 1), %bl
14:	movb	%bl, %es:(%di)
	incw	%di
	loop	13b
	movb	$0, %es:(%di)

	/* The return record. */
	movw	$WORK_RECORD, %di
	movl	$RET_MAGIC, %es:RET_OFF_MAGIC(%di)
	movw	$RET_LEN, %es:RET_OFF_LEN(%di)
	movb	%es:V_FLAGS, %al
	movb	%al, %es:RET_OFF_FLAGS(%di)
	xorl	%eax, %eax
	movw	%cs, %ax
	shll	$4, %eax
	movl	%eax, %edx			/* edx = our linear base */
	addl	$front_return32, %eax
	movl	%eax, %es:RET_OFF_ENTRY32(%di)
	inb	$0x92, %al
	movb	%al, %es:RET_OFF_A20(%di)
	movl	%edx, %eax			/* 16-bit code: base = us, limit 64 KiB */
	movw	$WORK_RECORD + RET_OFF_GDT + RET_CODE16, %bp
	call	code16_desc
	movl	%es:V_WORK_LIN, %eax		/* 16-bit data: base = the record */
	addl	$WORK_RECORD, %eax
	movw	$WORK_RECORD + RET_OFF_GDT + RET_DATA16, %bp
	call	move_desc
	movw	$23, %es:RET_OFF_GDTR(%di)
	addl	$RET_OFF_GDT, %eax
	movl	%eax, %es:RET_OFF_GDTR + 2(%di)
	movw	$0x3ff, %es:RET_OFF_IDTR(%di)
	movw	$front_landing, %es:RET_OFF_LANDING(%di)
	movw	%cs, %es:RET_OFF_LANDING + 2(%di)
	movw	%es, %ax
	addw	$(WORK_RECORD >> 4), %ax
	movw	%ax, %es:RET_OFF_SEG(%di)
	xorb	%al, %al			/* checksum: the record sums to 0 */
	movw	$RET_LEN, %cx
15:	addb	%es:(%di), %al
	incw	%di
	loop	15b
	negb	%al
	movb	%al, %es:WORK_RECORD + RET_OFF_SUM

	/* The setup header a loader fills in (boot.rst): loader type "undefined", the command
	 * line's linear address. */
	movb	$0xff, %es:WORK_SETUP + 0x210
	movl	%es:V_WORK_LIN, %eax
	addl	$WORK_CMDLINE, %eax
	movl	%eax, %es:WORK_SETUP + 0x228

	movw	$front_msg_enter, %si
	call	front_print
	/* Enter the setup code at work segment + 0x20, offset 0, with its segment in ds/es/ss. */
	cli
	movw	%es, %ax
	movw	%ax, %ds
	movw	%ax, %ss
	movw	$WORK_CMDLINE, %sp
	addw	$0x20, %ax
	pushw	%ax
	pushw	$0
	lretw

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
/* 16-bit code descriptor (limit 0xffff, present, execute/read) at es:bp for base eax. */
code16_desc:
	call	move_desc
	movb	$0x9b, %es:5(%bp)
	ret

fail_basemem:
	movw	$front_msg_basemem, %si
	jmp	front_fail
fail_image:
	movw	$front_msg_image, %si
	jmp	front_fail
fail_e820:
	movw	$front_msg_e820, %si
	jmp	front_fail
fail_copy:
	movw	$front_msg_copy, %si
/* Print "ibboot: <si>; ..." and give the machine back to the BIOS: INT 18h. */
front_fail:
	push	%si
	movw	%cs, %ax
	movw	%ax, %ds
	movw	$front_msg_cannot, %si
	call	front_print
	pop	%si
	call	front_print
	movw	$front_msg_int18, %si
	call	front_print
	sti
	int	$0x18
16:	cli
	hlt
	jmp	16b

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

/* Prints ax as four hex digits. */
	.globl	front_print_hex16
front_print_hex16:
	pushw	%ax
	pushw	%cx
	pushw	%dx
	movw	%ax, %dx
	movw	$4, %cx
1:	rolw	$4, %dx
	movb	%dl, %al
	andb	$0x0f, %al
	addb	$'0', %al
	cmpb	$'9', %al
	jbe	2f
	addb	$('a' - '9' - 1), %al
2:	call	front_putc
	loop	1b
	popw	%dx
	popw	%cx
	popw	%ax
	ret

/* Character al through the BIOS (INT 10h AH=0Eh): the screen, and the serial console where the
 * BIOS redirects it (SeaBIOS does without a display). */
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
	call	front_print
	sti
	int	$0x18
1:	cli
	hlt
	jmp	1b

front_cmdline_key:	.asciz	RET_CMDLINE_KEY "=0x"
front_msg_rom:		.asciz	"ibboot: option ROM boot entry; placing the image\r\n"
front_msg_pxe:		.asciz	"ibboot: placing the image\r\n"
front_msg_enter:	.asciz	"ibboot: image at 1 MiB; starting it\r\n"
front_msg_cannot:	.asciz	"ibboot: cannot start: "
front_msg_basemem:	.asciz	"no room at the top of base memory"
front_msg_image:	.asciz	"the image behind the front end is damaged"
front_msg_e820:		.asciz	"no e820 RAM for the image at 1 MiB"
front_msg_copy:		.asciz	"INT 15h AH=87h could not copy the image to 1 MiB"
front_msg_int18:	.asciz	"; INT 18h: the BIOS tries its next boot device\r\n"
front_msg_back:		.asciz	"ibboot: back in real mode, HCA quiesced; INT 18h: the BIOS tries its next boot device\r\n"
