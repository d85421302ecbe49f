/* SPDX-License-Identifier: MIT */
/* The Linux boot-protocol image the front end (romfront.S) places: bin/ibboot.lkrn as built. */
	.section .ibimg, "a"
	.incbin	ROM_IMAGE_FILE
