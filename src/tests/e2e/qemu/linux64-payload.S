/* A stand-in 64-bit kernel: checks what the Linux 64-bit boot protocol promises at entry
 * (+0x200), prints the verdict and its command line on COM1, exits QEMU via isa-debug-exit. */
	.code64
	.text
	.org	0x200
entry:
	movl	%cs, %eax
	movb	$'C', %bl
	cmpl	$0x10, %eax
	jne	bad
	movl	%ds, %eax
	movb	$'D', %bl
	cmpl	$0x18, %eax
	jne	bad
	movl	%ss, %eax
	movb	$'S', %bl
	cmpl	$0x18, %eax
	jne	bad
	pushfq
	popq	%rax
	movb	$'I', %bl
	testl	$0x200, %eax		/* interrupts must be off */
	jnz	bad
	movb	$'E', %bl
	cmpb	$0, 0x1e8(%rsi)		/* e820_entries */
	je	bad
	movb	$'T', %bl
	cmpl	$1, 0x2d0+16(%rsi)	/* first e820 entry: RAM */
	jne	bad
	leaq	ok_msg(%rip), %rdi
	call	puts
	movl	0x228(%rsi), %edi	/* cmd_line_ptr */
	call	puts
	movb	$'\n', %al
	call	putc
	movb	$0x42, %al
	jmp	leave
bad:
	leaq	bad_msg(%rip), %rdi
	call	puts
	movb	%bl, %al
	call	putc
	movb	$'\n', %al
	call	putc
	movb	$0x13, %al
leave:
	movw	$0x501, %dx
	outb	%al, %dx
1:	hlt
	jmp	1b
putc:
	movw	$0x3f8, %dx
	outb	%al, %dx
	ret
puts:
	movb	(%rdi), %al
	testb	%al, %al
	jz	2f
	call	putc
	incq	%rdi
	jmp	puts
2:	ret
ok_msg:	.asciz	"linux64 entry ok; cmdline: "
bad_msg: .asciz	"linux64 entry wrong: "
