/* SPDX-License-Identifier: MIT */
/* Pieces of the firmware's top level shared between main and the commands. */
#ifndef IBBOOT_IBBOOT_H
#define IBBOOT_IBBOOT_H

void print_memory_summary(void);
/* Writes and verifies a pattern in every chunk of buffer memory, frees it all and prints what it
 * found; -EIO if a pattern was lost or the free count changed. */
int memcheck(void);
/* Enters boot module idx (a 64-bit kernel, entry at +0x200) by the Linux 64-bit boot protocol
 * with `cmdline`, devices quiesced first; returns only if the handoff was refused. */
int exec64_module(unsigned idx, const char *cmdline);

#endif
