/* SPDX-License-Identifier: MIT */
/*
 * 32-bit entry points (Linux boot protocol code32_start and multiboot v1) and the switch to
 * 64-bit long mode: our own GDT, a cleared .bss, identity-mapped page tables for the first GiB
 * (2 MiB pages; arch_main maps the rest of RAM and MMIO as needed), then arch_main() in C.
 */
#include "boot.h"

	.section .head32, "ax"
	.code32
	.globl	startup_32
/* Linux boot protocol, 32-bit entry (from our setup code or a 32-bit loader): esi = boot_params. */
startup_32:
	cli
	cld
	movl	$BOOT_TYPE_LINUX, %edi
	jmp	common32

/* Multiboot v1 header with the a.out kludge: the loader puts file offset 0 at 1 MiB, so the
 * 32-bit part runs _setup_size bytes above its link address until multiboot_entry moves it. */
	.balign	4
	.globl	multiboot_header
multiboot_header:
	.long	MULTIBOOT_MAGIC
	.long	MULTIBOOT_FLAGS
	.long	-(MULTIBOOT_MAGIC + MULTIBOOT_FLAGS)
	.long	mb_header_addr
	.long	mb_load_addr
	.long	mb_load_end_addr
	.long	mb_bss_end_addr
	.long	mb_entry_addr

/* esi = boot info, edi = boot type; flat segments, interrupts off. */
common32:
	lgdt	gdt_desc
	ljmp	$GDT_CODE32, $1f
1:	movl	$GDT_DATA, %eax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movw	%ax, %fs
	movw	%ax, %gs
	movl	%esi, %ebp
	movl	%edi, %edx
	movl	$__bss_start, %edi
	movl	$__bss_end, %ecx
	subl	%edi, %ecx
	xorl	%eax, %eax
	rep stosb
	movl	$boot_stack_top, %esp
	movl	%edx, boot_type
	movl	%ebp, boot_info

	/* Long mode available? (CPUID 8000_0001h EDX bit 29) */
	movl	$0x80000000, %eax
	cpuid
	cmpl	$0x80000001, %eax
	jb	no_long_mode
	movl	$0x80000001, %eax
	cpuid
	btl	$29, %edx
	jnc	no_long_mode

	/* Identity map [0, 1 GiB) with 2 MiB pages: PML4[0] -> PDPT[0] -> PD. */
	movl	$boot_pd, %edi
	movl	$0x83, %eax		/* present, writable, 2 MiB page */
	movl	$512, %ecx
2:	movl	%eax, (%edi)
	movl	$0, 4(%edi)
	addl	$0x200000, %eax
	addl	$8, %edi
	loop	2b
	movl	$boot_pdpt, %eax
	orl	$3, %eax
	movl	%eax, boot_pml4
	movl	$boot_pd, %eax
	orl	$3, %eax
	movl	%eax, boot_pdpt

	movl	%cr4, %eax
	orl	$0x20, %eax		/* PAE */
	movl	%eax, %cr4
	movl	$boot_pml4, %eax
	movl	%eax, %cr3
	movl	$0xc0000080, %ecx	/* EFER */
	rdmsr
	orl	$0x100, %eax		/* LME */
	wrmsr
	movl	%cr0, %eax
	orl	$0x80000001, %eax	/* PG | PE */
	movl	%eax, %cr0
	ljmp	$GDT_CODE64, $start64

no_long_mode:
	movl	$no_long_mode_msg, %esi
	movw	$0x3f8, %dx
3:	lodsb
	testb	%al, %al
	jz	4f
	outb	%al, %dx
	jmp	3b
4:	cli
	hlt
	jmp	4b

	.code64
start64:
	movl	$GDT_DATA, %eax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	xorl	%eax, %eax
	movw	%ax, %fs
	movw	%ax, %gs
	movq	$boot_stack_top, %rsp
	xorl	%ebp, %ebp
	movl	boot_type(%rip), %edi
	movl	boot_info(%rip), %esi
	call	arch_main
5:	cli
	hlt
	jmp	5b

/* Exception entry: push a uniform frame (vector, error code, registers) and call C. */
	.text
isr_common:
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, %rdi
	andq	$-16, %rsp
	call	exception_handler
6:	cli
	hlt
	jmp	6b
isr_0:
	pushq	$0
	pushq	$0
	jmp	isr_common
isr_1:
	pushq	$0
	pushq	$1
	jmp	isr_common
isr_2:
	pushq	$0
	pushq	$2
	jmp	isr_common
isr_3:
	pushq	$0
	pushq	$3
	jmp	isr_common
isr_4:
	pushq	$0
	pushq	$4
	jmp	isr_common
isr_5:
	pushq	$0
	pushq	$5
	jmp	isr_common
isr_6:
	pushq	$0
	pushq	$6
	jmp	isr_common
isr_7:
	pushq	$0
	pushq	$7
	jmp	isr_common
isr_8:
	pushq	$8
	jmp	isr_common
isr_9:
	pushq	$0
	pushq	$9
	jmp	isr_common
isr_10:
	pushq	$10
	jmp	isr_common
isr_11:
	pushq	$11
	jmp	isr_common
isr_12:
	pushq	$12
	jmp	isr_common
isr_13:
	pushq	$13
	jmp	isr_common
isr_14:
	pushq	$14
	jmp	isr_common
isr_15:
	pushq	$0
	pushq	$15
	jmp	isr_common
isr_16:
	pushq	$0
	pushq	$16
	jmp	isr_common
isr_17:
	pushq	$17
	jmp	isr_common
isr_18:
	pushq	$0
	pushq	$18
	jmp	isr_common
isr_19:
	pushq	$0
	pushq	$19
	jmp	isr_common
isr_20:
	pushq	$0
	pushq	$20
	jmp	isr_common
isr_21:
	pushq	$21
	jmp	isr_common
isr_22:
	pushq	$0
	pushq	$22
	jmp	isr_common
isr_23:
	pushq	$0
	pushq	$23
	jmp	isr_common
isr_24:
	pushq	$0
	pushq	$24
	jmp	isr_common
isr_25:
	pushq	$0
	pushq	$25
	jmp	isr_common
isr_26:
	pushq	$0
	pushq	$26
	jmp	isr_common
isr_27:
	pushq	$0
	pushq	$27
	jmp	isr_common
isr_28:
	pushq	$0
	pushq	$28
	jmp	isr_common
isr_29:
	pushq	$29
	jmp	isr_common
isr_30:
	pushq	$30
	jmp	isr_common
isr_31:
	pushq	$0
	pushq	$31
	jmp	isr_common

	.section .rodata
	.balign	8
	.globl	isr_stubs
isr_stubs:
	.quad	isr_0
	.quad	isr_1
	.quad	isr_2
	.quad	isr_3
	.quad	isr_4
	.quad	isr_5
	.quad	isr_6
	.quad	isr_7
	.quad	isr_8
	.quad	isr_9
	.quad	isr_10
	.quad	isr_11
	.quad	isr_12
	.quad	isr_13
	.quad	isr_14
	.quad	isr_15
	.quad	isr_16
	.quad	isr_17
	.quad	isr_18
	.quad	isr_19
	.quad	isr_20
	.quad	isr_21
	.quad	isr_22
	.quad	isr_23
	.quad	isr_24
	.quad	isr_25
	.quad	isr_26
	.quad	isr_27
	.quad	isr_28
	.quad	isr_29
	.quad	isr_30
	.quad	isr_31
no_long_mode_msg:
	.asciz	"ibboot: this CPU has no 64-bit long mode\r\n"

	.data
	.balign	8
gdt:
	.quad	0
	.quad	0x00cf9a000000ffff	/* GDT_CODE32 */
	.quad	0x00cf92000000ffff	/* GDT_DATA */
	.quad	0x00af9a000000ffff	/* GDT_CODE64 */
gdt_end:
gdt_desc:
	.word	gdt_end - gdt - 1
	.long	gdt
	.balign	4
	.globl	boot_type, boot_info
boot_type:
	.long	0
boot_info:
	.long	0

	.bss
	.balign	4096
	.globl	boot_pml4
boot_pml4:
	.skip	4096
boot_pdpt:
	.skip	4096
boot_pd:
	.skip	4096
boot_stack:
	.skip	BOOT_STACK_SIZE
boot_stack_top:

/*
 * Multiboot entry (eax = magic, ebx = info), running _setup_size bytes above the link address.
 * The image is copied down to its link address; this stub is linked last, inside the final
 * _setup_size bytes, so the copy never overwrites the instructions doing it.
 */
	.section .mbreloc, "ax"
	.code32
multiboot_entry:
	cli
	cld
	movl	%ebx, %edx
	movl	$mb_copy_src, %esi
	movl	$_text, %edi
	movl	$mb_copy_len, %ecx
	rep movsb
	movl	%edx, %esi
	movl	$BOOT_TYPE_MULTIBOOT, %edi
	movl	$common32, %eax
	jmp	*%eax
	.globl	multiboot_entry
