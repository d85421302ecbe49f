/* SPDX-License-Identifier: MIT */
/* Test-side view of net_test_env.c: the hand-moved clock and the captured console. */
#ifndef NET_TEST_ENV_H
#define NET_TEST_ENV_H

#include <stdbool.h>
#include <stdint.h>

extern uint64_t test_now_ms;
extern unsigned test_clock_autostep;   /* each clock_ms() call advances the clock this much */
extern bool test_console_echo;   /* also print console output (set by IBCORE_TEST_VERBOSE) */
const char *test_console(void);
void test_console_clear(void);
bool test_console_has(const char *needle);

#endif
