/* SPDX-License-Identifier: MIT */
/* x86 instructions the pcbios platform needs: port I/O, TSC, CPUID, MSRs, control registers. */
#ifndef IBBOOT_ARCH_X86_H
#define IBBOOT_ARCH_X86_H

#include <ibboot/compiler.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port)
{ uint8_t v; __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint16_t inw(uint16_t port)
{ uint16_t v; __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port)); return v; }
static inline uint32_t inl(uint16_t port)
{ uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

static inline uint64_t read_cr2(void)
{ uint64_t v; __asm__ volatile("mov %%cr2, %0" : "=r"(v)); return v; }

static inline void invlpg(uint64_t addr)
{ __asm__ volatile("invlpg (%0)" :: "r"(addr) : "memory"); }

static inline void cpu_pause(void) { __asm__ volatile("pause"); }
static inline __noreturn void cpu_halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* Identity-mapped page tables (paging.c). */
void paging_init(void);
/* Maps [phys, phys+len) 1:1 with 2 MiB pages, uncached for MMIO. Uncached pages stay uncached if
 * RAM in the same 2 MiB is mapped later. -EINVAL/-ERANGE for a bad range, -ENOSPC if out of
 * page-table pages. */
int paging_map(uint64_t phys, uint64_t len, bool uncached);
unsigned paging_phys_bits(void);
/* Page-table pool use, and whether whole gigabytes of RAM get 1 GiB pages. */
void paging_stats(unsigned *tables_used, unsigned *tables_max, bool *huge);

/* Enters a 64-bit kernel by the Linux 64-bit boot protocol (linux64.S). */
__noreturn void arch_linux64_enter(uint64_t entry, uint64_t boot_params);
/* Leaves long mode for the real-mode front end's 32-bit entry (romexit.S); no return. */
__noreturn void arch_return_to_real_mode(uint32_t entry32, uint32_t record);

void idt_init(void);
__noreturn void arch_triple_fault(void);

#endif
