/* SPDX-License-Identifier: MIT */
/* The compressed body (an IBZ2 container written by build/zimage/zpack), linked into the stub. */
	.section .zpayload, "a"
	.globl	zpayload, zpayload_end
zpayload:
	.incbin	"body.ibz"
zpayload_end:
