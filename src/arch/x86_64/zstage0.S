/* SPDX-License-Identifier: MIT */
/*
 * Stage 0 of the compressed image (bin/ibboot-z.lkrn, laid out by ibboot-z.ld): the 32-bit
 * entries (Linux boot protocol's code32_start and the multiboot entry; the ROM front end and the
 * PXE prefix enter through the Linux protocol's setup code, so through code32_start), the
 * multiboot header, and a small context-mixing decoder that unpacks the stub (zhead.S, zstub.c,
 * zcm.c: the body's decoder, linked at zs0_out by zstage0-stub.ld) from the stream
 * build/zimage/zs0pack wrote. The model is the one zstage0.h states in C (the packer decodes with
 * it before writing); this file computes exactly the same integers.
 *
 * A Linux loader puts the protected-mode part at IMAGE_LOAD_ADDR, where the body must run, and a
 * multiboot loader puts the file there; so this code first copies the part (itself, the stub's
 * stream and the body's payload) to _ztext, above the stub's place, both inside the room the
 * body's .bss takes later; until the jump only immediates and relative jumps are used. Its tables
 * and stack are in RAM from zs0_ram (the model tables' place, which the multiboot header claims
 * and the stub initialises afresh). The stub is entered with ebp = boot info, ebx = boot type,
 * esi = the body's payload, ecx = its length, edx = zfail. A stub whose hash differs from the
 * stream's (a damaged image) is named on COM1, then the CPU halts; every loop is bounded by the
 * output's length or a count.
 */
#include "boot.h"
#include "zstage0.h"


/* The decoder's state: scalars below ebp, one 32-byte record per model from ebp. */
#define ZS0_STATE (zs0_ram + 0x8000 + 64)
#define X1 -4
#define X2 -8
#define XV -12
#define C0 -16
#define NREC -20		/* models x 32 */
#define HASH -24		/* of the output so far */
#define R_W 0			/* mixer weight */
#define R_H 4			/* context hash of this byte */
#define R_S 8			/* stretched prediction of this bit */
#define R_IX 12			/* address of this bit's counter */
#define R_M 16			/* context mask */
#define ZS0_SQ zs0_ram
	.globl	zs0_ram_bytes
	.set	zs0_ram_bytes, ZS0_RAM_BYTES
#define ZS0_ST (zs0_ram + 0x4000)

	.section .zhead32, "ax"
	.code32
	.globl	zstartup_32
zstartup_32:
	cli
	cld
	movl	%esi, %ebp			/* boot_params */
	movl	$BOOT_TYPE_LINUX, %ebx
	movl	$IMAGE_LOAD_ADDR, %esi
	jmp	zs0_copy

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
 * IMAGE_LOAD_ADDR and claims the body's whole run-time extent (the stub's and this code's
 * places are inside it) and the decoders' RAM above it, so the loader keeps its modules out of
 * both; the protected-mode part runs _setup_size above IMAGE_LOAD_ADDR here and is moved as on
 * the Linux path.
 */
	.globl	zmultiboot_entry
zmultiboot_entry:
	cli
	cld
	movl	%ebx, %ebp
	movl	$BOOT_TYPE_MULTIBOOT, %ebx
	movl	$zmb_copy_src, %esi
zs0_copy:
	movl	$_ztext, %edi
	movl	$_zcopy_len, %ecx
	rep movsb
	pushl	$zs0_run
	ret

zs0_run:
	/*
	 * First, before any RAM above the body is touched: [IMAGE_LOAD_ADDR, zs0_need_end) (the
	 * body, the decoders' tables; ibboot-z.ld checks that this ends below 16 MiB, the RAM the
	 * refusal asks for) must be RAM in the memory map of a Linux boot protocol loader: type-1
	 * (RAM) entries of boot_params' e820 table (at 0x2d0, 20 bytes each: 64-bit base and
	 * length, 32-bit type; their count at 0x1e8), joined where they touch or overlap: n passes
	 * over the n entries, eax = RAM known from 1 MiB up to there. A loader that passed no map
	 * is trusted; a multiboot loader reserves the header's [load_addr, bss_end_addr) itself
	 * (Multiboot Specification 0.6.96, 3.1.3), and the header claims that RAM.
	 */
	cmpl	$BOOT_TYPE_MULTIBOOT, %ebx
	je	8f
	movl	$IMAGE_LOAD_ADDR, %eax
	movzbl	BP_E820_ENTRIES(%ebp), %edx
	testl	%edx, %edx
	jz	8f
	cmpb	$E820_MAX, %dl
	jbe	3f
	movb	$E820_MAX, %dl
3:	movl	%edx, %edi			/* passes */
4:	leal	BP_E820_TABLE(%ebp), %esi
	movl	%edx, %ecx
5:	cmpl	$1, 16(%esi)			/* RAM */
	jne	6f
	cmpl	$0, 4(%esi)			/* base below 4 GiB */
	jne	6f
	cmpl	%eax, (%esi)			/* base <= eax */
	ja	6f
	subl	(%esi), %eax			/* eax - base */
	cmpl	$0, 12(%esi)
	jne	9f				/* length >= 4 GiB */
	cmpl	8(%esi), %eax
	jae	1f
	movl	8(%esi), %eax			/* the entry reaches further: base + length */
1:	addl	(%esi), %eax
	jnc	6f
9:	orl	$-1, %eax			/* past 4 GiB */
6:	addl	$20, %esi
	loop	5b
	decl	%edi
	jnz	4b
	cmpl	$zs0_need_end, %eax
	jae	8f
	movl	$_ztext, %esp			/* (below: the stub's place, under 2 MiB) */
	movl	$zs0_ram_short, %eax
	jmp	zfail
8:	movl	$(zs0_ram + ZS0_RAM_T), %esp
	pushl	%ebp
	pushl	%ebx
	movl	$ZS0_STATE, %ebp

	/* squash(x), x = -2048..2047: s += s(1 - s)/256 per step, s in 1/2^28 from ZS0_SQ0 */
	movl	$ZS0_SQ, %edi
	movl	$ZS0_SQ0, %esi
	movl	$4096, %ecx
1:	movl	%esi, %eax
	shrl	$16, %eax
	stosl
	movl	%esi, %eax
	shrl	$4, %eax
	movl	$(1 << 24), %edx
	subl	%eax, %edx
	mull	%edx
	shrdl	$28, %edx, %eax
	addl	%eax, %esi
	loop	1b
	/* edi = ZS0_ST, ecx = 0 */
	/* stretch(j) = the least x >= -2047 whose squash reaches j (2047 at most), j = 0..4095 */
	movl	$-2047, %eax
3:	cmpl	$2047, %eax
	jge	4f
	cmpl	%ecx, ZS0_SQ + 2048 * 4(, %eax, 4)
	jge	4f
	incl	%eax
	jmp	3b
4:	stosl
	incl	%ecx
	btl	$12, %ecx			/* j < 4096 */
	jnc	3b

	/* the models: count (1..ZS0_MAXM), masks; weights from ZS0_W0 */
	movl	$(zs0_in + 4), %esi
	xorl	%eax, %eax
	lodsb
	movzbl	%al, %ecx
	decb	%al
	cmpb	$(ZS0_MAXM - 1), %al
	ja	zs0_bad
	xorl	%edx, %edx
5:	movl	$ZS0_W0, R_W(%ebp, %edx)
	lodsb
	movl	%eax, R_M(%ebp, %edx)		/* (eax < 256: its top bits were cleared) */
	addl	$32, %edx
	loop	5b
	movl	%edx, NREC(%ebp)
	/* every counter p = 1/2, never used */
	movl	%edx, %ecx
	shll	$(ZS0_TBITS - 5), %ecx
	movl	$(zs0_ram + ZS0_RAM_T), %edi
	movl	$0x80000000, %eax
	rep stosl
	/* the coder: x1 = 0, x2 = ~0, x = the first four bytes */
	xorl	%eax, %eax
	movl	%eax, X1(%ebp)
	movl	%eax, HASH(%ebp)
	decl	%eax
	movl	%eax, X2(%ebp)
	movb	$4, %cl
6:	call	zs0_getc
	loop	6b
	/* the output, with zeros before it as the model's history */
	movl	$zs0_out, %edi
	xorl	%eax, %eax
	movl	%eax, -4(%edi)
	movl	%eax, -8(%edi)

zs0_byte:
	/* each model's hash of the bytes its mask selects: h = mask, h = (h + byte) * K1 */
	pushl	%esi
	xorl	%ecx, %ecx
7:	movl	R_M(%ebp, %ecx), %edx
	movl	%edx, %ebx
	movl	%edi, %esi
8:	decl	%esi
	shrl	%edx
	jnc	9f
	movzbl	(%esi), %eax
	addl	%eax, %ebx
	imull	$ZS0_K1, %ebx, %ebx
9:	testl	%edx, %edx
	jnz	8b
	movl	%ebx, R_H(%ebp, %ecx)
	addl	$32, %ecx
	cmpl	NREC(%ebp), %ecx
	jb	7b
	popl	%esi
	movl	$1, C0(%ebp)

zs0_bit:
	/* each model's counter at ((h + c0) * K2) >> (32 - TBITS) in its table; dot = sum w * st */
	xorl	%ebx, %ebx
	xorl	%ecx, %ecx
10:	movl	R_H(%ebp, %ecx), %eax
	addl	C0(%ebp), %eax
	imull	$ZS0_K2, %eax, %eax
	shrl	$(32 - ZS0_TBITS), %eax
	movl	%ecx, %edx
	shll	$(ZS0_TBITS + 2 - 5), %edx
	leal	zs0_ram + ZS0_RAM_T(%edx, %eax, 4), %eax
	movl	%eax, R_IX(%ebp, %ecx)
	movl	(%eax), %eax
	shrl	$20, %eax
	movl	ZS0_ST(, %eax, 4), %eax
	movl	%eax, R_S(%ebp, %ecx)
	imull	R_W(%ebp, %ecx), %eax
	addl	%eax, %ebx
	addl	$32, %ecx
	cmpl	NREC(%ebp), %ecx
	jb	10b
	/* p = squash(clamp(dot >> 16, -2047, 2047)) */
	sarl	$16, %ebx
	movl	$2047, %eax
	cmpl	%eax, %ebx
	cmovg	%eax, %ebx
	negl	%eax
	cmpl	%eax, %ebx
	cmovl	%eax, %ebx
	movl	ZS0_SQ + 2048 * 4(, %ebx, 4), %ebx
	/* xm = x1 + ((x2 - x1) >> 12) * p; the bit is 1 if x <= xm */
	movl	X2(%ebp), %eax
	subl	X1(%ebp), %eax
	shrl	$12, %eax
	mull	%ebx
	addl	X1(%ebp), %eax
	xorl	%edx, %edx
	cmpl	XV(%ebp), %eax
	jb	11f
	movl	%eax, X2(%ebp)
	incl	%edx
	jmp	12f
11:	incl	%eax
	movl	%eax, X1(%ebp)
12:	/* c0 = c0 * 2 + y; err = (y << 12) - p (> 0 exactly when y = 1) */
	shll	C0(%ebp)
	orl	%edx, C0(%ebp)
	shll	$12, %edx
	subl	%ebx, %edx
	movl	%edx, %ebx
	pushl	%esi
	pushl	%edi
	xorl	%ecx, %ecx
	/* w += (st * err) >> LRS; counter: p16 += (target - p16) * 2 / (2n + 3), n up to LIM */
13:	movl	R_S(%ebp, %ecx), %eax
	imull	%ebx, %eax
	sarl	$ZS0_LRS, %eax
	addl	%eax, R_W(%ebp, %ecx)
	movl	R_IX(%ebp, %ecx), %esi
	movzbl	(%esi), %edi
	leal	3(%edi, %edi), %edi
	movl	%ebx, %eax
	notl	%eax
	sarl	$31, %eax
	movzwl	%ax, %eax
	movzwl	2(%esi), %edx
	subl	%edx, %eax
	addl	%eax, %eax
	cltd
	idivl	%edi
	addw	%ax, 2(%esi)
	cmpb	$ZS0_LIM, (%esi)
	jae	14f
	incb	(%esi)
14:	addl	$32, %ecx
	cmpl	NREC(%ebp), %ecx
	jb	13b
	popl	%edi
	popl	%esi
	/* shift out the top byte while x1 and x2 agree on it (4 times at most) */
15:	movl	X1(%ebp), %eax
	xorl	X2(%ebp), %eax
	shrl	$24, %eax
	jnz	16f
	shll	$8, X1(%ebp)
	shll	$8, X2(%ebp)
	orb	$255, X2(%ebp)
	call	zs0_getc
	jmp	15b
16:	movl	C0(%ebp), %eax
	cmpl	$256, %eax
	jb	zs0_bit
	stosb
	/* the output's hash, h = (h + byte) * K1; the stream's when the stub is complete */
	movzbl	%al, %eax
	addl	HASH(%ebp), %eax
	imull	$ZS0_K1, %eax, %eax
	movl	%eax, HASH(%ebp)
	cmpl	$zs0_out_end, %edi
	jb	zs0_byte
	cmpl	zs0_in, %eax
	jne	zs0_bad
	popl	%ebx
	popl	%ebp
	movl	$zpayload, %esi
	movl	$zpayload_len, %ecx
	movl	$zfail, %edx
	jmp	zs0_out

/* x = x << 8 | the next stream byte (0 past its end). */
zs0_getc:
	xorl	%eax, %eax
	cmpl	$zs0_in_end, %esi
	jae	1f
	lodsb
1:	shll	$8, XV(%ebp)
	orb	%al, XV(%ebp)
	ret

zs0_bad:
	movl	$zs0_why, %eax
/* eax = reason. COM1 at 115200 8N1, each character after a bounded wait for the transmitter. */
	.globl	zfail
zfail:
	xchgl	%eax, %ebx
	movl	$zs0_uart, %esi
	pushl	$4
	popl	%ecx
	movb	$3, %dh
1:	lodsw					/* al = port - 0x300, ah = value */
	movb	%al, %dl
	movb	%ah, %al
	outb	%al, %dx
	loop	1b
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

/* LCR: divisor latch; DLL = 1, DLM = 0: 115200 baud; LCR: 8N1 */
zs0_uart:
	.byte	0xfb, 0x80, 0xf8, 1, 0xf9, 0, 0xfb, 3
zs0_ram_short:
	.asciz	"16 MiB of RAM needed"
zfail_msg:
	.asciz	"\r\nibboot: cannot unpack: "
zfail_tail:
	.asciz	"; halting\r\n"
zs0_why:
	.asciz	"decoder damaged"

/* The stub as build/zimage/zs0pack packed it. */
zs0_in:
	.incbin	"zstub.s0z"
zs0_in_end:
