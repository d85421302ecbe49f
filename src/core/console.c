/* SPDX-License-Identifier: MIT */
/* Console output over the platform's character device, and line input for the command loop. */
#include <ibboot/console.h>
#include <ibboot/console_log.h>
#include <ibboot/platform.h>
#include <ibboot/hooks.h>

void kputc(char c)
{
	/* Serial terminals want CR LF. */
	if (c == '\n')
		plat_putc('\r');
	plat_putc(c);
	console_log_char(c);   /* the boot report's recent lines */
}

void kputs(const char *s)
{
	while (*s)
		kputc(*s++);
}

static void console_sink(void *ctx __unused, char c)
{
	kputc(c);
}

int kvprintf(const char *fmt, va_list ap)
{
	return kvformat(console_sink, NULL, fmt, ap);
}

/* Set once the console's input has ended (EOF on a pipe): no later prompt can be answered. */
static bool input_closed;

bool console_input_closed(void)
{
	return input_closed;
}

int console_getline(char *buf, size_t size)
{
	/* A terminal may end lines with CR, LF or CR LF; CR LF must count as one line end. */
	static bool after_cr;
	size_t len = 0;

	for (;;) {
		int c = plat_getc();

		if (c == PLAT_GETC_EOF) {
			input_closed = true;
			if (len == 0)
				return -1;
			break;   /* a last line without newline still counts */
		}
		if (c == PLAT_GETC_NONE) {
			plat_poll();
			hooks_poll();
			plat_cpu_relax();
			continue;
		}
		if (c == '\n' && after_cr) {
			after_cr = false;
			continue;
		}
		after_cr = c == '\r';
		if (c == '\r' || c == '\n') {
			kputc('\n');
			break;
		}
		if (c == 0x7f || c == '\b') {
			if (len) {
				len--;
				kputs("\b \b");
			}
			continue;
		}
		if (c < ' ' || len + 1 >= size)
			continue;
		buf[len++] = (char)c;
		kputc((char)c);
	}
	buf[len] = '\0';
	return (int)len;
}
