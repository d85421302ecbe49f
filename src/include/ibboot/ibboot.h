/* SPDX-License-Identifier: MIT */
/* Pieces of the firmware's top level shared between main and the commands. */
#ifndef IBBOOT_IBBOOT_H
#define IBBOOT_IBBOOT_H

void print_memory_summary(void);

#endif
