/* SPDX-License-Identifier: MIT */
/*
 * A mirror of the console on the VGA text screen, for machines without a serial line. Used only
 * when the BIOS data area says the display is in an 80-column text mode (a loader that switched to
 * graphics, or no VGA at all, leaves it off). Output continues below what the loader printed.
 */
#include "pcbios.h"
#include <arch/x86.h>

#define BDA_VIDEO_MODE 0x449
#define BDA_COLUMNS    0x44a
#define BDA_CURSOR     0x450   /* page 0: column, row */
#define BDA_ROWS_M1    0x484
#define ATTR_GREY      0x0700

static volatile uint16_t *screen;
static uint16_t crtc;
static unsigned cols, rows, col, row;

static uint8_t bda8(uintptr_t a) { return *(volatile uint8_t *)a; }
static uint16_t bda16(uintptr_t a) { return *(volatile uint16_t *)a; }

void vga_init(void)
{
	uint8_t mode = bda8(BDA_VIDEO_MODE);

	if (mode == 2 || mode == 3) {
		screen = (volatile uint16_t *)0xb8000;
		crtc = 0x3d4;
	} else if (mode == 7) {
		screen = (volatile uint16_t *)0xb0000;
		crtc = 0x3b4;
	} else {
		return;
	}
	cols = bda16(BDA_COLUMNS);
	rows = bda8(BDA_ROWS_M1) + 1u;
	if (cols != 80 || rows < 25 || rows > 60) {   /* not a layout we understand */
		screen = NULL;
		return;
	}
	col = bda8(BDA_CURSOR);
	row = bda8(BDA_CURSOR + 1);
	if (col >= cols || row >= rows)
		col = row = 0;
}

static void move_cursor(void)
{
	unsigned pos = row * cols + col;

	outb(crtc, 0x0e);
	outb(crtc + 1, (uint8_t)(pos >> 8));
	outb(crtc, 0x0f);
	outb(crtc + 1, (uint8_t)pos);
}

static void newline(void)
{
	col = 0;
	if (++row < rows)
		return;
	for (unsigned i = 0; i < (rows - 1) * cols; i++)
		screen[i] = screen[i + cols];
	for (unsigned i = (rows - 1) * cols; i < rows * cols; i++)
		screen[i] = ATTR_GREY | ' ';
	row = rows - 1;
}

void vga_putc(char c)
{
	if (!screen)
		return;
	switch (c) {
	case '\r':
		col = 0;
		break;
	case '\n':
		newline();
		break;
	case '\b':
		if (col)
			col--;
		break;
	default:
		if ((unsigned char)c < ' ')
			break;
		screen[row * cols + col] = ATTR_GREY | (uint8_t)c;
		if (++col == cols)
			newline();
	}
	move_cursor();
}
