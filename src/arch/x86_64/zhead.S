/* SPDX-License-Identifier: MIT */
/*
 * Entry of the compressed image's stub, which stage 0 (zstage0.S) unpacked to its link address
 * (zstage0-stub.ld: the first page above the body's stored part, inside the room the body's
 * .bss takes later). Stage 0 passes ebp = boot info, ebx = boot type, esi = the body's payload,
 * ecx = its length, edx = its zfail (eax = reason: named on COM1, then the CPU halts). The stub
 * clears its .bss, unpacks the body to IMAGE_LOAD_ADDR (zstub.c: bounded decoder + CRC-32) and
 * enters the body's common32 with the registers its own entries would have set: esi = boot info,
 * edi = boot type.
 */
#include "boot.h"

	.section .zhead32, "ax"
	.code32
	.globl	zstub_entry
zstub_entry:
	movl	$zstack_top, %esp
	pushl	%edx
	pushl	%ecx
	pushl	%esi
	movl	$_zbss_start, %edi
	movl	$_zbss_end, %ecx
	subl	%edi, %ecx
	xorl	%eax, %eax
	rep stosb
	popl	%eax
	popl	%edx
	call	zstub_unpack			/* (eax = payload, edx = length: -mregparm=3);
						 * ebp, ebx survive (callee-saved) */
	popl	%edx
	testl	%eax, %eax
	jnz	1f
	movl	%ebp, %esi
	movl	%ebx, %edi
	movl	$zbody_common32, %eax
	jmp	*%eax
1:	jmp	*%edx

	/* not in .bss: the arguments above are pushed before .bss is cleared */
	.section .zstack, "aw", @nobits
	.balign	16
	.skip	4096
zstack_top:
