/* SPDX-License-Identifier: MIT */
/*
 * The multiboot trampoline (image build only). Copied to MBT_CODE of a page below 4 GiB that no
 * kernel segment overlaps, entered in long mode with rdi = that page. It reaches the machine
 * state of Multiboot Specification 0.6.96 §3.2: leaves long mode the way the Intel SDM (vol. 3,
 * 9.8.5.4) describes — compatibility mode first, then paging off, then EFER.LME clear — so the
 * copying no longer depends on page tables the kernel may overwrite; copies each segment, zeroes
 * its bss, and jumps to the entry with eax = 0x2badb002, ebx = the boot information, flat
 * 32-bit segments, interrupts off. Only page-relative addressing: it runs wherever it is put.
 */
#include "mb_trampoline.h"

	.text
	.globl	mb_trampoline_start
	.globl	mb_trampoline_end
	.code64
mb_trampoline_start:
	cli
	lgdt	MBT_GDTR(%rdi)
	leaq	1f(%rip), %rax
	pushq	$MBT_CS32
	pushq	%rax
	lretq				/* to 32-bit compatibility mode */
	.code32
1:	movl	$MBT_DS32, %eax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %fs
	movw	%ax, %gs
	movw	%ax, %ss
	movl	%cr0, %eax		/* paging off: long mode is left (LMA clears) */
	andl	$0x7fffffff, %eax
	movl	%eax, %cr0
	movl	$0xc0000080, %ecx	/* EFER.LME off */
	rdmsr
	andl	$~0x100, %eax
	wrmsr
	movl	%cr4, %eax		/* PAE off: no paging structures remain in use */
	andl	$~0x20, %eax
	movl	%eax, %cr4
	movl	%edi, %ebp		/* the page (below 4 GiB) */
	movl	MBT_NSEG(%ebp), %edx
	leal	MBT_SEGS(%ebp), %ebx
	cld
2:	testl	%edx, %edx
	jz	3f
	movl	0(%ebx), %edi		/* destination */
	movl	4(%ebx), %esi		/* source in the image */
	movl	8(%ebx), %ecx
	rep movsb
	movl	12(%ebx), %ecx		/* bss */
	xorl	%eax, %eax
	rep stosb
	addl	$MBT_SEG_SIZE, %ebx
	decl	%edx
	jmp	2b
3:	movl	MBT_ENTRY(%ebp), %ecx
	movl	MBT_MBI(%ebp), %ebx
	movl	$0x2badb002, %eax
	jmp	*%ecx
mb_trampoline_end:
