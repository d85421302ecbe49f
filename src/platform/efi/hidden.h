/* SPDX-License-Identifier: MIT */
/*
 * Included first in every object of bin/ibboot.efi (-include): every symbol, declared or defined,
 * has hidden visibility, so -fpie code reaches all of them PC-relative rather than through a GOT
 * (one image, nothing to interpose), and the only dynamic relocations left are the 64-bit
 * pointers in data (R_X86_64_RELATIVE), which util/efi/elf2efi turns into PE base relocations.
 */
#pragma GCC visibility push(hidden)
