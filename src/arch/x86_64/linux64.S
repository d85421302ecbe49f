/* SPDX-License-Identifier: MIT */
/*
 * Handing the machine to a 64-bit kernel (Documentation/x86/boot.rst, "64-bit Boot Protocol"):
 * long mode with the memory the kernel needs identity-mapped (all RAM is), interrupts off, a GDT
 * whose __BOOT_CS (0x10) is flat 64-bit code and __BOOT_DS (0x18) flat data, CS = __BOOT_CS,
 * DS/ES/SS = __BOOT_DS, rsi = boot_params, jump to the kernel's load address + 0x200.
 */
	.text
	.code64
	.globl	arch_linux64_enter
/* void arch_linux64_enter(uint64_t entry, uint64_t boot_params): rdi, rsi (already where the
 * protocol wants boot_params). Does not return. */
arch_linux64_enter:
	cli
	lgdt	linux64_gdt_desc(%rip)
	pushq	$0x10
	leaq	1f(%rip), %rax
	pushq	%rax
	lretq
1:	movl	$0x18, %eax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movw	%ax, %fs
	movw	%ax, %gs
	xorl	%ebp, %ebp
	jmp	*%rdi

	.data
	.balign	16
linux64_gdt:
	.quad	0
	.quad	0
	.quad	0x00af9a000000ffff	/* 0x10 __BOOT_CS: flat 64-bit code */
	.quad	0x00cf92000000ffff	/* 0x18 __BOOT_DS: flat data */
linux64_gdt_end:
linux64_gdt_desc:
	.word	linux64_gdt_end - linux64_gdt - 1
	.quad	linux64_gdt
