/* SPDX-License-Identifier: MIT */
/*
 * efi_setjmp / efi_longjmp for the EFI driver form (bin/ibboot.efirom): the boot manager calls its
 * LoadFile (UEFI 2.10 §13.1), not StartImage, so a netboot that fails cannot leave with Exit
 * (§7.4.5 returns to StartImage's caller); it unwinds to LoadFile instead and returns from it.
 * System V: the callee-saved registers are rbx, rbp, r12-r15 and rsp; the ms_abi LoadFile that
 * calls efi_setjmp saves and restores the Microsoft ABI's extra ones (rdi, rsi) itself.
 *   int efi_setjmp(uint64_t ctx[8]);     0 now, 1 when efi_longjmp comes back
 *   void efi_longjmp(uint64_t ctx[8]);   never returns
 */
	.text
	.globl efi_setjmp
	.type efi_setjmp, @function
efi_setjmp:
	movq	%rbx, 0(%rdi)
	movq	%rbp, 8(%rdi)
	movq	%r12, 16(%rdi)
	movq	%r13, 24(%rdi)
	movq	%r14, 32(%rdi)
	movq	%r15, 40(%rdi)
	leaq	8(%rsp), %rax		/* the caller's rsp after our return */
	movq	%rax, 48(%rdi)
	movq	(%rsp), %rax		/* the return address */
	movq	%rax, 56(%rdi)
	xorl	%eax, %eax
	ret
	.size efi_setjmp, . - efi_setjmp

	.globl efi_longjmp
	.type efi_longjmp, @function
efi_longjmp:
	movq	0(%rdi), %rbx
	movq	8(%rdi), %rbp
	movq	16(%rdi), %r12
	movq	24(%rdi), %r13
	movq	32(%rdi), %r14
	movq	40(%rdi), %r15
	movq	48(%rdi), %rsp
	movl	$1, %eax
	jmpq	*56(%rdi)
	.size efi_longjmp, . - efi_longjmp

	.section .note.GNU-stack, "", @progbits
