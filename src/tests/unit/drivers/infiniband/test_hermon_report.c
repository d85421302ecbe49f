/* SPDX-License-Identifier: MIT */
/*
 * The boot report's text (src/net/report.c) over the real driver on the model (hermon_rig): the
 * key lines, the HCA's identity and port, the console section from the line ring, the dump
 * section, the size bound with its truncation marker, and the end marker.
 */
#include <stdio.h>
#include <stdlib.h>
#include "test.h"
#include <ibboot/console_log.h>
#include <ibboot/errno.h>
#include <ibboot/report.h>
#include "hermon_rig.h"

static void feed(const char *s)
{
	while (*s)
		console_log_char(*s++);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && strcmp(s + a - b, tail) == 0;
}

TEST(report_text_has_keys_console_and_end)
{
	static char buf[REPORT_MAX_BYTES];
	size_t n;

	static struct rig r;

	CHECK_EQ(rig_up(&r), 0);
	CHECK_EQ(rig_sm_set_port(&r.h.ib, 1, 0x11, false), 0);
	rig_poll(&r, 3);
	console_log_reset();
	feed("tftp: server 198.18.0.1: error 1: File not found\n");
	n = report_build(buf, sizeof(buf), "unit test");
	rig_destroy(&r);
	CHECK_EQ(n, strlen(buf));
	CHECK(strncmp(buf, "ibboot-report: 1\nversion: ", 26) == 0);
	CHECK(strstr(buf, "\nreason: unit test\n") != NULL);
	CHECK(strstr(buf, "\nhca: hermon-01:00.0 pci 15b3:1003 fw ") != NULL);
	CHECK(strstr(buf, "\nport: hermon-01:00.0/1 ACTIVE lid 0x11 sm-lid 0x1 rate ") != NULL);
	CHECK(strstr(buf, "\nport: hermon-01:00.0/2 ") != NULL);
	CHECK(strstr(buf, "\nselftest: ") != NULL);
	CHECK(strstr(buf, "\n=== selftest ===\nselftest hermon 0000:01:00.0 port 1") != NULL);
	CHECK(strstr(buf, "\n=== console ===\n| tftp: server 198.18.0.1: error 1: File not found\n"
		      "=== fwdump ===\nFWDUMP 1 hermon-01:00.0 ") != NULL);
	CHECK(strstr(buf, "\nFWEND hermon-01:00.0 segments=") != NULL);
	CHECK(ends_with(buf, "\n=== end ===\n"));
	CHECK(strstr(buf, "=== truncated") == NULL);
}

TEST(report_bounded_and_marked_when_cut)
{
	static char buf[1024];
	char line[80];
	size_t n;

	console_log_reset();
	for (unsigned i = 0; i < 60; i++) {
		snprintf(line, sizeof(line), "console line %02u ........................................\n", i);
		feed(line);
	}
	n = report_build(buf, sizeof(buf), "cut");
	CHECK(n < sizeof(buf));
	CHECK_EQ(n, strlen(buf));
	CHECK(strstr(buf, "\n=== truncated: ") != NULL);
	CHECK(ends_with(buf, " bytes left out ===\n=== end ===\n"));
	/* Whole lines only: the line before the marker is complete (a console line or a key). */
	const char *mark = strstr(buf, "\n=== truncated: ");
	const char *prev = mark;

	while (prev > buf && prev[-1] != '\n')
		prev--;
	CHECK(strncmp(prev, "| console line ", 15) == 0 || strchr(prev, ':') < mark);
	/* The whole report is larger: the count says by how much. */
	static char whole[REPORT_MAX_BYTES];
	size_t all = report_build(whole, sizeof(whole), "cut");
	unsigned long dropped = strtoul(mark + 16, NULL, 10);
	CHECK(dropped > 0);
	CHECK(all > n);
}
