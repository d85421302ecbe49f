/* SPDX-License-Identifier: MIT */
/*
 * The PXE network bootstrap program front of bin/ibboot.pxe (PXE Specification 2.1, 4.4.5): a
 * PXE ROM loads the file at 0000:7C00 and jumps there with es:bx = the PXENV+ structure and the
 * !PXE structure's far pointer at ss:sp+4. The NBP stops the PXE stack first so the Ethernet
 * NIC does no more DMA into memory it will not own (UNDI_SHUTDOWN, UNLOAD_STACK, STOP_UNDI,
 * through !PXE's EntryPointSP, else PXENV+'s RMEntry; a refusal is printed and the boot goes
 * on), then runs the shared front end (romfront.S): InfiniBand netboots from here on.
 */
#include "romfront.h"

#define PXENV_UNDI_SHUTDOWN 0x0005
#define PXENV_STOP_UNDI     0x0015
#define PXENV_UNLOAD_STACK  0x0070

	.section .prefix, "ax"
	.code16
	.globl	pxe_start
pxe_start:
	ljmp	$0x07c0, $1f		/* linked at 0: address ourselves from 07C0:0000 */
1:	cld
	movw	%cs, %ax
	movw	%ax, %ds
	/* The image's multiboot magic, stored masked so that a PXE ROM that also speaks multiboot
	 * (iPXE) runs this file as an NBP (romimage.S), as the front end reads it. */
	xorl	$MAGIC_MASK, ibimg_mb_magic
	movw	%bx, pxenv_ptr
	movw	%es, pxenv_ptr + 2
	movw	%sp, %bp
	lesw	4(%bp), %di		/* !PXE */
	cmpl	$0x45585021, %es:(%di)	/* "!PXE" */
	jne	2f
	movl	%es:0x10(%di), %eax	/* EntryPointSP */
	movl	%eax, pxe_entry
	movw	$pxe_msg_bang, %di
	jmp	3f
2:	lesw	pxenv_ptr, %bx
	cmpl	$0x4e455850, %es:(%bx)	/* "PXEN" */
	jne	no_pxe
	cmpw	$0x2b56, %es:4(%bx)	/* "V+" */
	jne	no_pxe
	movl	%es:0x0a(%bx), %eax	/* RMEntry */
	movl	%eax, pxenv_entry
	movw	$pxe_msg_plus, %di
3:	movw	$pxe_msg_stopping, %si
	call	front_say
	movw	%di, %si
	call	front_print
	movw	$PXENV_UNDI_SHUTDOWN, %bx
	call	pxe_call
	movw	$PXENV_UNLOAD_STACK, %bx
	call	pxe_call
	movw	$PXENV_STOP_UNDI, %bx
	call	pxe_call
	movw	$pxe_msg_done, %si
	jmp	go
no_pxe:
	movw	$pxe_msg_none, %si
go:	call	front_say
	movw	$FRONT_FROM_PXE, %dx
	jmp	front_start

/* One PXE API call, opcode bx, with a zeroed parameter block; a failure is printed. */
pxe_call:
	pushal
	push	%ds
	push	%es
	movw	%cs, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%bx, pxe_opcode
	movw	$pxe_param, %di
	xorw	%ax, %ax
	movw	$8, %cx
	rep stosw
	cmpl	$0, pxe_entry
	je	1f
	pushw	%ds			/* !PXE: parameter block segment:offset, opcode */
	pushw	$pxe_param
	pushw	%bx
	lcall	*pxe_entry
	addw	$6, %sp
	jmp	2f
1:	movw	$pxe_param, %di		/* PXENV+: bx = opcode, es:di = parameter block */
	lcall	*pxenv_entry
2:	movw	%cs, %bx
	movw	%bx, %ds
	testw	%ax, %ax
	jz	3f
	movw	$pxe_msg_fail, %si
	call	front_say
	movw	pxe_opcode, %ax
	call	pxe_print_hex16
	movw	$pxe_msg_status, %si
	call	front_print
	movw	pxe_param, %ax
	call	pxe_print_hex16
	movw	$pxe_msg_eol, %si
	call	front_print
3:	pop	%es
	pop	%ds
	popal
	ret

/* Prints ax as four hex digits. */
pxe_print_hex16:
	pushal
	movw	%ax, %dx
	movw	$4, %cx
1:	rolw	$4, %dx
	movb	%dl, %al
	call	hex_digit
	call	front_putc
	loop	1b
	popal
	ret

	.balign	4
pxe_entry:	.long	0
pxenv_entry:	.long	0
pxenv_ptr:	.long	0
pxe_opcode:	.word	0
	.balign	4
pxe_param:	.skip	16

pxe_msg_stopping: .asciz "PXE NBP; stopping the PXE stack ("
pxe_msg_bang:	.asciz	"!PXE)\r\n"
	.set	pxe_msg_eol, pxe_msg_bang + 5
pxe_msg_plus:	.asciz	"PXENV+)\r\n"
pxe_msg_done:	.asciz	"PXE stack stopped (UNDI shut down, unloaded); netbooting over InfiniBand\r\n"
pxe_msg_none:	.asciz	"PXE NBP without a valid !PXE or PXENV+; the PXE stack is left as it is\r\n"
pxe_msg_fail:	.asciz	"PXE call 0x"
pxe_msg_status:	.asciz	" refused, status 0x"
