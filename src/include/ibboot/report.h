/* SPDX-License-Identifier: MIT */
/*
 * The boot report: what a headless node tells its boot server when a boot fails (and on
 * request, `report [URL]`). Plain text, at most REPORT_MAX_BYTES:
 *
 *   ibboot-report: 1                      format version; then one "key: value" per line:
 *   version, reason, uptime-ms, interface, ip, next-server, filename, report-url (what DHCP
 *   or the script set),
 *   hca, port (one line per HCA / port: identity, firmware, node GUID; state, LID, SM LID,
 *   rate, MTU), selftest (the HCA self-test, run as the report is built: its summary)
 *   === selftest ===                      named sections, each until the next "=== ... ===":
 *                                         the self-test's text, one line per check
 *   === console ===                       the last REPORT_CONSOLE_LINES console lines, each
 *                                         prefixed "| "
 *   === fwdump ===                        the FWDUMP text of every HCA (fwdump.h)
 *   === truncated: N bytes left out ===   only when the bound cut it
 *   === end ===                           always last: a report without it was cut in transit
 *
 * Transport: HTTP POST (Content-Type text/plain) to the URL given, else to the setting
 * `report-url` (a script's `set report-url ...`, or DHCP option 225); with neither, a TFTP write
 * (RFC 1350 WRQ) of ibboot-report-<node GUID>.txt to the DHCP next-server. Every wait is bounded
 * (REPORT_HTTP_IDLE_MS, REPORT_TFTP_TOTAL_MS): a report never holds a boot for more than a few
 * seconds, and says so when it gives up.
 */
#ifndef IBBOOT_REPORT_H
#define IBBOOT_REPORT_H

#include <ibboot/compiler.h>

#define REPORT_FORMAT_VERSION  1
#define REPORT_MAX_BYTES       16384
#define REPORT_CONSOLE_LINES   40
#define REPORT_HTTP_IDLE_MS    3000u   /* connect + no answer for this long: give up */
#define REPORT_TFTP_TOTAL_MS   5000u
#define REPORT_DHCP_OPTION     225     /* site-specific range (RFC 3942): the report URL */
#define REPORT_URL_SETTING     "report-url"

/* Writes the report into buf (size >= 256): returns its length (< size; NUL-terminated). */
size_t report_build(char *buf, size_t size, const char *reason);

/* Builds the report and sends it: to url when given (http://...), else to ${report-url}, else by
 * TFTP to ${next-server}. 0 when the server took it, else a negative error (printed). */
int report_send(const char *url, const char *reason);

#endif
