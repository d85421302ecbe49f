/* SPDX-License-Identifier: MIT */
/* Entering a multiboot kernel on bare metal: the trampoline (mb_enter.S) set up in its page. */
#include <ibboot/image.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hooks.h>
#include <ibboot/string.h>
#include "mb_trampoline.h"

extern const uint8_t mb_trampoline_start[], mb_trampoline_end[];

static int mb_handoff(void *param_page)
{
	uint8_t *t = param_page;
	size_t n = (size_t)(mb_trampoline_end - mb_trampoline_start);
	/* Flat 4 GiB segments: 0x08 32-bit code (D=1, L=0), 0x10 data. */
	static const uint64_t gdt[3] = { 0, 0x00cf9a000000ffffull, 0x00cf92000000ffffull };
	uint16_t limit = sizeof(gdt) - 1;
	uint64_t base = virt_to_bus(t + MBT_GDT);

	if (n > MBT_CODE_MAX || virt_to_bus(t) >= GiB(4))
		return -EINVAL;
	memcpy(t + MBT_GDT, gdt, sizeof(gdt));
	memcpy(t + MBT_GDTR, &limit, 2);
	memcpy(t + MBT_GDTR + 2, &base, 8);
	memcpy(t + MBT_CODE, mb_trampoline_start, n);
	((void (*)(void *))(t + MBT_CODE))(t);
	return -EIO;   /* not reached */
}

static void mb_pcbios_start(void)
{
	image_multiboot_handoff = mb_handoff;
}

IBBOOT_HOOK(multiboot_pcbios, HOOK_ORDER_IMAGE, mb_pcbios_start, NULL);
