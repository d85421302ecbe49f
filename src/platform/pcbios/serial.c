/* SPDX-License-Identifier: MIT */
/* The console on COM1, a 16550 UART at 0x3f8, 115200 8N1, polled. */
#include "pcbios.h"
#include <arch/x86.h>

#define COM1 0x3f8
#define UART_DATA 0
#define UART_IER  1
#define UART_FCR  2
#define UART_LCR  3
#define UART_MCR  4
#define UART_LSR  5
#define  LSR_DATA_READY 0x01
#define  LSR_THR_EMPTY  0x20
#define UART_DLL  0
#define UART_DLM  1
#define LCR_DLAB  0x80
#define LCR_8N1   0x03

static bool uart_present;
static int early_char = PLAT_GETC_NONE;

void serial_init(void)
{
	/* A byte may already wait in the receiver (typed ahead, or queued by a test harness);
	 * switching the FIFOs on below would discard it. */
	if ((inb(COM1 + UART_LSR) & (LSR_DATA_READY | 0x80)) == LSR_DATA_READY)
		early_char = inb(COM1 + UART_DATA);
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DLL, 1);   /* 115200 = 1.8432 MHz / 16 / 1 */
	outb(COM1 + UART_DLM, 0);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, 0xc7);   /* FIFOs on and cleared */
	outb(COM1 + UART_MCR, 0x03);   /* DTR, RTS */
	/* A missing UART floats the bus: every register reads 0xff. */
	uart_present = inb(COM1 + UART_LSR) != 0xff;
}

void plat_putc(char c)
{
	vga_putc(c);
	if (!uart_present)
		return;
	/* Bounded wait so a wedged UART cannot hang the firmware. */
	for (unsigned spins = 0; spins < 1000000; spins++)
		if (inb(COM1 + UART_LSR) & LSR_THR_EMPTY)
			break;
	outb(COM1 + UART_DATA, (uint8_t)c);
}

int plat_getc(void)
{
	if (early_char != PLAT_GETC_NONE) {
		int c = early_char;

		early_char = PLAT_GETC_NONE;
		return c;
	}
	if (uart_present && (inb(COM1 + UART_LSR) & LSR_DATA_READY))
		return inb(COM1 + UART_DATA);
	return keyboard_getc();
}
