/* SPDX-License-Identifier: MIT */
/*
 * A stand-in multiboot v1 kernel for check-boot: linked at 1 MiB (where ibboot itself runs, so
 * the loader must copy it there only after leaving ibboot), with 2 MiB of bss (which reaches into
 * the loader's buffer memory and must arrive zeroed). It checks the machine state of Multiboot
 * Specification 0.6.96 §3.2 (eax magic, paging off) and the information block of §3.3, prints
 * what it got on COM1 and exits QEMU through isa-debug-exit: 0x21 on success, 0x22 on failure.
 * Assembled twice: --defsym KLUDGE=1 gives the a.out-kludge flavour (flag 16, flat binary),
 * otherwise the ELF32 flavour.
 */
	.code32
	.text
	.globl	_start, entry
.ifdef KLUDGE
	.set	FLAGS, 0x00010003
.else
	.set	FLAGS, 0x00000003
.endif
_start:
header:
	.long	0x1badb002
	.long	FLAGS
	.long	-(0x1badb002 + FLAGS)
.ifdef KLUDGE
	.long	header, _start, _edata, _ebss, entry
.endif

entry:
	cli
	movl	%eax, %ebp
	movl	%ebx, %edi
	/* The bss must be zero before anything here writes to it (the stack lives in it; the
	 * loader's esp is undefined, so nothing is pushed before the check). */
	movl	%edi, %edx
	movl	$__bss_start, %edi
	movl	$_ebss, %ecx
	subl	%edi, %ecx
	shrl	$2, %ecx
	xorl	%eax, %eax
	cld
	repe scasl
	movl	%edx, %edi
	jne	bad_bss
	movl	$stack_top, %esp
	cmpl	$0x2badb002, %ebp
	jne	bad_magic
	movl	%cr0, %eax
	testl	$0x80000000, %eax
	jnz	bad_paging
	movl	(%edi), %eax		/* flags: mem, cmdline, mods, mmap */
	andl	$0x4d, %eax
	cmpl	$0x4d, %eax
	jne	bad_flags
	movl	$msg_cmdline, %esi
	call	puts
	movl	16(%edi), %esi
	call	puts
	call	newline
	movl	$msg_mods, %esi
	call	puts
	movl	20(%edi), %eax
	addb	$'0', %al
	call	putc
	call	newline
	movl	$msg_module, %esi
	call	puts
	movl	24(%edi), %ebx		/* module 0: start, end */
	movl	(%ebx), %esi
	movl	4(%ebx), %ecx
	subl	%esi, %ecx
	cmpl	$48, %ecx
	jbe	1f
	movl	$48, %ecx
1:	testl	%ecx, %ecx
	jz	2f
	lodsb
	cmpb	$'\n', %al
	je	2f
	call	putc
	decl	%ecx
	jmp	1b
2:	call	newline
	movl	$msg_ok, %esi
	call	puts
	movb	$0x21, %al
	jmp	exit

bad_bss:
	movl	$stack_fallback, %esp
	movl	$msg_bss, %esi
	jmp	fail
bad_magic:
	movl	$msg_magic, %esi
	jmp	fail
bad_paging:
	movl	$msg_paging, %esi
	jmp	fail
bad_flags:
	movl	$msg_flags, %esi
fail:	call	puts
	movb	$0x22, %al
exit:	movw	$0x501, %dx
	outb	%al, %dx
	hlt
	jmp	exit

putc:	pushl	%eax
	movw	$0x3fd, %dx
1:	inb	%dx, %al
	testb	$0x20, %al
	jz	1b
	popl	%eax
	movw	$0x3f8, %dx
	outb	%al, %dx
	ret
puts:	lodsb
	testb	%al, %al
	jz	1f
	call	putc
	jmp	puts
1:	ret
newline:
	movb	$'\n', %al
	jmp	putc

msg_cmdline:	.asciz	"mbkernel: cmdline="
msg_mods:	.asciz	"mbkernel: mods="
msg_module:	.asciz	"mbkernel: module0="
msg_ok:		.asciz	"mbkernel: magic, paging off, bss zeroed, info ok\n"
msg_bss:	.asciz	"mbkernel: bss not zeroed\n"
msg_magic:	.asciz	"mbkernel: bad eax magic\n"
msg_paging:	.asciz	"mbkernel: paging still on\n"
msg_flags:	.asciz	"mbkernel: information block lacks mem/cmdline/mods/mmap\n"
	.balign	16
	.fill	256, 1, 0
stack_fallback:
_edata:

	.bss
	.balign	16
__bss_start:
	.fill	2 << 20, 1, 0
	.fill	4096, 1, 0
stack_top:
_ebss:
