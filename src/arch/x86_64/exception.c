/* SPDX-License-Identifier: MIT */
/* CPU exceptions: nothing should fault, so a fault is reported with enough to debug it and the
 * machine is switched off with a distinctive status (a test sees a failure, not a hang). */
#include <arch/x86.h>
#include <ibboot/console.h>
#include <ibboot/platform.h>
#include <ibboot/string.h>
#include "boot.h"

struct idt_gate {
	uint16_t off_lo, selector;
	uint8_t ist, type;
	uint16_t off_mid;
	uint32_t off_hi, zero;
} __packed;

struct exception_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error, rip, cs, rflags, rsp, ss;
};

#define EXCEPTION_POWEROFF_STATUS 0x55

extern const uint64_t isr_stubs[32];
static struct idt_gate idt[32] __aligned(16);

void idt_init(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __packed desc = { sizeof(idt) - 1, (uintptr_t)idt };

	for (unsigned i = 0; i < 32; i++) {
		uint64_t a = isr_stubs[i];

		idt[i] = (struct idt_gate){ (uint16_t)a, GDT_CODE64, 0, 0x8e, (uint16_t)(a >> 16),
					    (uint32_t)(a >> 32), 0 };
	}
	__asm__ volatile("lidt %0" :: "m"(desc));
}

/* Vectors 0..21 by mnemonic (Intel SDM vol. 3 table 6-1; 9 has none), as one string: no table
 * of pointers. */
static const char exception_names[] =
	"#DE\0#DB\0NMI\0#BP\0#OF\0#BR\0#UD\0#NM\0#DF\0coprocessor overrun\0#TS\0#NP\0#SS\0#GP\0"
	"#PF\0reserved\0#MF\0#AC\0#MC\0#XM\0#VE\0#CP";

void exception_handler(struct exception_frame *f);
void exception_handler(struct exception_frame *f)
{
	const char *name = "reserved";

	if (f->vector <= 21)
		name = str_nth(exception_names, (unsigned)f->vector);
	kprintf("\n*** CPU exception %llu (%s), error code %#llx\n"
		"    rip %#llx rsp %#llx rflags %#llx cr2 %#llx\n"
		"    rax %#llx rbx %#llx rcx %#llx rdx %#llx rsi %#llx rdi %#llx\n",
		(unsigned long long)f->vector, name, (unsigned long long)f->error,
		(unsigned long long)f->rip, (unsigned long long)f->rsp,
		(unsigned long long)f->rflags, (unsigned long long)read_cr2(),
		(unsigned long long)f->rax, (unsigned long long)f->rbx, (unsigned long long)f->rcx,
		(unsigned long long)f->rdx, (unsigned long long)f->rsi, (unsigned long long)f->rdi);
	plat_poweroff(EXCEPTION_POWEROFF_STATUS);
}

void arch_triple_fault(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __packed empty = { 0, 0 };

	/* No IDT: the next exception cannot be delivered and the CPU resets. */
	__asm__ volatile("lidt %0; int3" :: "m"(empty));
	cpu_halt_forever();
}
