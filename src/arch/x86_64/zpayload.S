/* SPDX-License-Identifier: MIT */
/* The compressed body (an IBZ1 container written by util/zimage/pack), linked into the stub. */
	.section .zpayload, "a"
	.globl	zpayload, zpayload_end
zpayload:
	.incbin	"body.ibz"
zpayload_end:
