/* SPDX-License-Identifier: MIT */
/*
 * 32-bit entry of the compressed image (bin/ibboot-z.lkrn, laid out by ibboot-z.ld). A Linux
 * loader puts this stub and its payload at IMAGE_LOAD_ADDR (code32_start), exactly where the
 * body must run, so the stub first copies itself above the body's stored part, into the room
 * the body's .bss will take (it is linked there; until the jump only immediates are used), clears its .bss, unpacks the body to
 * IMAGE_LOAD_ADDR (zstub.c: bounded decoder + CRC-32) and enters the body's common32 with the
 * registers its own entries would have set: esi = boot info, edi = boot type. Under multiboot
 * the file sits at IMAGE_LOAD_ADDR and the stub moves itself the same way. On a damaged payload
 * the stub says why on COM1 and halts.
 */
#include "boot.h"

	.section .zhead32, "ax"
	.code32
	.globl	zstartup_32
zstartup_32:
	cli
	cld
	movl	%esi, %ebp			/* boot_params */
	movl	$BOOT_TYPE_LINUX, %ebx
	movl	$IMAGE_LOAD_ADDR, %esi
	movl	$_ztext, %edi
	movl	$_zcopy_len, %ecx
	rep movsb
	movl	$zrun, %eax
	jmp	*%eax

	.balign	4
	.globl	zmultiboot_header
zmultiboot_header:
	.long	MULTIBOOT_MAGIC
	.long	MULTIBOOT_FLAGS
	.long	-(MULTIBOOT_MAGIC + MULTIBOOT_FLAGS)
	.long	zmb_header_addr
	.long	IMAGE_LOAD_ADDR
	.long	zmb_load_end_addr
	.long	zmb_bss_end_addr
	.long	zmb_entry_addr

/*
 * Multiboot (eax = magic, ebx = info). The a.out kludge above loads file offset 0 at
 * IMAGE_LOAD_ADDR and claims the body's whole run-time extent (the stub's place is inside it)
 * and the decoder's tables above it, so the loader keeps its modules out of both; the stub
 * runs _setup_size above IMAGE_LOAD_ADDR here and moves itself as on the Linux path.
 */
	.globl	zmultiboot_entry
zmultiboot_entry:
	cli
	cld
	movl	%ebx, %ebp
	movl	$BOOT_TYPE_MULTIBOOT, %ebx
	movl	$zmb_copy_src, %esi
	movl	$_ztext, %edi
	movl	$_zcopy_len, %ecx
	rep movsb
	movl	$zrun, %eax
	jmp	*%eax

	/* ebp = boot info, ebx = boot type; both survive the C call (callee-saved) */
zrun:
	movl	$_zbss_start, %edi
	movl	$_zbss_end, %ecx
	subl	%edi, %ecx
	xorl	%eax, %eax
	rep stosb
	movl	$zstack_top, %esp
	call	zstub_unpack
	testl	%eax, %eax
	jnz	zfail
	movl	%ebp, %esi
	movl	%ebx, %edi
	movl	$zbody_common32, %eax
	jmp	*%eax

/* eax = reason. COM1 at 115200 8N1, each character after a bounded wait for the transmitter. */
zfail:
	movl	%eax, %ebx
	movw	$0x3fb, %dx
	movb	$0x80, %al
	outb	%al, %dx			/* LCR: divisor latch */
	movw	$0x3f8, %dx
	movb	$1, %al
	outb	%al, %dx			/* DLL = 1: 115200 baud */
	incw	%dx
	xorb	%al, %al
	outb	%al, %dx			/* DLM = 0 */
	movw	$0x3fb, %dx
	movb	$3, %al
	outb	%al, %dx			/* LCR: 8N1 */
	movl	$zfail_msg, %esi
	call	zputs
	movl	%ebx, %esi
	call	zputs
	movl	$zfail_tail, %esi
	call	zputs
1:	cli
	hlt
	jmp	1b

zputs:
	lodsb
	testb	%al, %al
	jz	3f
	movb	%al, %ah
	movl	$100000, %ecx
	movw	$0x3fd, %dx
2:	inb	%dx, %al			/* LSR bit 5: transmit holding register empty */
	testb	$0x20, %al
	loopz	2b
	movw	$0x3f8, %dx
	movb	%ah, %al
	outb	%al, %dx
	jmp	zputs
3:	ret

	.section .rodata
zfail_msg:
	.asciz	"\r\nibboot: cannot unpack the compressed image: "
zfail_tail:
	.asciz	"; halting\r\n"

	.bss
	.balign	16
zstack:
	.skip	4096
zstack_top:
