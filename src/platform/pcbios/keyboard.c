/* SPDX-License-Identifier: MIT */
/*
 * Console input from a PS/2 keyboard (or a USB keyboard behind the BIOS's legacy emulation),
 * polled through the i8042 controller with interrupts off. Scan code set 1 as the controller
 * translates it by default; only what the command loop needs: letters, digits, punctuation,
 * shift, Enter, Backspace.
 */
#include "pcbios.h"
#include <arch/x86.h>

#define KBD_DATA   0x60
#define KBD_STATUS 0x64
#define  STATUS_OUTPUT_FULL 0x01
#define  STATUS_AUX_DATA    0x20   /* the byte is from the mouse */
#define SC_LSHIFT  0x2a
#define SC_RSHIFT  0x36
#define SC_RELEASE 0x80
#define SC_EXTENDED 0xe0

static const char plain[0x3a] =
	"\0\0331234567890-=\b\tqwertyuiop[]\n\0asdfghjkl;'`\0\\zxcvbnm,./\0*\0 ";
static const char shifted[0x3a] =
	"\0\033!@#$%^&*()_+\b\tQWERTYUIOP{}\n\0ASDFGHJKL:\"~\0|ZXCVBNM<>?\0*\0 ";

static bool shift, extended;

int keyboard_getc(void)
{
	uint8_t status = inb(KBD_STATUS);

	/* No controller at all reads as 0xff: never take that for a key. */
	if (status == 0xff || !(status & STATUS_OUTPUT_FULL))
		return PLAT_GETC_NONE;
	uint8_t sc = inb(KBD_DATA);
	if (status & STATUS_AUX_DATA)
		return PLAT_GETC_NONE;
	if (sc == SC_EXTENDED) {
		extended = true;
		return PLAT_GETC_NONE;
	}
	bool was_extended = extended;
	extended = false;
	if ((sc & ~SC_RELEASE) == SC_LSHIFT || (sc & ~SC_RELEASE) == SC_RSHIFT) {
		shift = !(sc & SC_RELEASE);
		return PLAT_GETC_NONE;
	}
	if (sc & SC_RELEASE || sc >= sizeof(plain))
		return PLAT_GETC_NONE;
	if (was_extended)   /* keypad Enter is the only extended key we take */
		return sc == 0x1c ? '\n' : PLAT_GETC_NONE;
	char c = shift ? shifted[sc] : plain[sc];
	return c ? (unsigned char)c : PLAT_GETC_NONE;
}
