/* SPDX-License-Identifier: MIT */
/*
 * Giving the machine back to the real-mode front end that placed the image (romfront.S: a PCI
 * option ROM's BEV or a PXE NBP), as Intel SDM vol. 3, 10.8.5.4 "Switching Out of IA-32e Mode
 * Operation" orders it: to compatibility mode (a 32-bit code segment), paging off (this code is
 * identity-mapped below 4 GiB), EFER.LME off, PAE off; then a jump to the front end's 32-bit
 * entry with flat segments and esi = its return record. The front end does the rest down to
 * real mode and INT 18h.
 */
	.text
	.code64
	.globl	arch_return_to_real_mode
/* void arch_return_to_real_mode(uint32_t entry32, uint32_t record): edi, esi. No return. */
arch_return_to_real_mode:
	cli
	lgdt	rmexit_gdt_desc(%rip)
	pushq	$0x08
	leaq	1f(%rip), %rax
	pushq	%rax
	lretq
	.code32
1:	movl	$0x10, %eax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movw	%ax, %fs
	movw	%ax, %gs
	movl	%cr0, %eax
	andl	$0x7fffffff, %eax	/* PG off: legacy protected mode */
	movl	%eax, %cr0
	movl	$0xc0000080, %ecx	/* EFER */
	rdmsr
	andl	$~0x100, %eax		/* LME off */
	wrmsr
	movl	%cr4, %eax
	andl	$~0x20, %eax		/* PAE off */
	movl	%eax, %cr4
	xorl	%eax, %eax
	movl	%eax, %cr3
	jmp	*%edi

	.data
	.balign	16
rmexit_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff	/* 0x08: flat 32-bit code */
	.quad	0x00cf92000000ffff	/* 0x10: flat data */
rmexit_gdt_end:
rmexit_gdt_desc:
	.word	rmexit_gdt_end - rmexit_gdt - 1
	.quad	rmexit_gdt
