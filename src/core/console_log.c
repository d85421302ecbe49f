/* SPDX-License-Identifier: MIT */
/* The ring of recent console output (console_log.h). */
#include <ibboot/console_log.h>
#include <ibboot/string.h>

static char ring[CONSOLE_LOG_BYTES];
static size_t head;     /* total characters ever recorded; ring[head % size] is the next slot */

void console_log_char(char c)
{
	if (c == '\r')
		return;
	ring[head % CONSOLE_LOG_BYTES] = c;
	head++;
}

void console_log_reset(void)
{
	head = 0;
}

size_t console_log_lines(char *buf, size_t size, unsigned max_lines)
{
	size_t held = head < CONSOLE_LOG_BYTES ? head : CONSOLE_LOG_BYTES;
	size_t start = head - held, from, len = 0;
	unsigned lines = 0;

	if (!size)
		return 0;
	buf[0] = '\0';
	if (!held || !max_lines || size < 3)
		return 0;
	/* Walk back from the end: a line is counted at the newline that starts it. The last line
	 * may still be open (no newline yet): it counts too. */
	from = head;
	if (ring[(head - 1) % CONSOLE_LOG_BYTES] == '\n')
		from--;   /* the final newline ends the last line; it does not start one */
	while (from > start) {
		if (ring[(from - 1) % CONSOLE_LOG_BYTES] == '\n' && ++lines == max_lines)
			break;
		from--;
	}
	/* Copy [from, head) out, leaving room for a closing newline and the NUL. */
	if (head - from + 2 > size)
		from = head - (size - 2);   /* the newest characters that fit */
	for (size_t i = from; i < head; i++)
		buf[len++] = ring[i % CONSOLE_LOG_BYTES];
	if (len && buf[len - 1] != '\n' && len + 1 < size)
		buf[len++] = '\n';
	buf[len] = '\0';
	return len;
}
