/* SPDX-License-Identifier: MIT */
/*
 * A tiny unit-test framework for hosted code. Each TEST registers itself at start-up; the runner
 * (test_runner.c) runs them in file order and prints one line per test:
 *   PASS: <suite>/<test>        or        FAIL: <suite>/<test>: <first failed check>
 * CHECK* record a failure and let the test continue, so one run shows every broken assertion.
 */
#ifndef IBBOOT_TEST_H
#define IBBOOT_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn, const char *file);
void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define TEST(name)                                                              \
	static void test_##name(void);                                          \
	__attribute__((constructor)) static void test_register_##name(void)     \
	{                                                                       \
		test_register(#name, test_##name, __FILE__);                    \
	}                                                                       \
	static void test_##name(void)

#define CHECK(cond)                                                             \
	do {                                                                    \
		if (!(cond))                                                    \
			test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);      \
	} while (0)

#define CHECK_EQ(a, b)                                                          \
	do {                                                                    \
		unsigned long long check_a_ = (unsigned long long)(a);          \
		unsigned long long check_b_ = (unsigned long long)(b);          \
		if (check_a_ != check_b_)                                       \
			test_fail(__FILE__, __LINE__, "%s == %s (0x%llx != 0x%llx)", \
				  #a, #b, check_a_, check_b_);                  \
	} while (0)

#define CHECK_MEM(a, b, n)                                                      \
	do {                                                                    \
		size_t check_i_ = test_memdiff((a), (b), (n));                  \
		if (check_i_ != (size_t)-1)                                     \
			test_fail(__FILE__, __LINE__,                           \
				  "%s and %s differ at byte %zu", #a, #b,       \
				  check_i_);                                    \
	} while (0)

#define CHECK_STR(a, b)                                                         \
	do {                                                                    \
		const char *check_a_ = (a), *check_b_ = (b);                    \
		if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0)   \
			test_fail(__FILE__, __LINE__, "%s == %s (\"%s\" != \"%s\")", \
				  #a, #b, check_a_ ? check_a_ : "(null)",       \
				  check_b_ ? check_b_ : "(null)");              \
	} while (0)

/* Index of the first differing byte, or (size_t)-1 when equal. */
size_t test_memdiff(const void *a, const void *b, size_t n);

/* Deterministic pseudo-random numbers for tests (xorshift64*; seed with test_srand). */
void test_srand(uint64_t seed);
uint64_t test_rand(void);

#endif
