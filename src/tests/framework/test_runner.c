/* SPDX-License-Identifier: MIT */
/*
 * Runner for src/tests/framework/test.h. Usage: PROGRAM [-s SUITE] [-k SUBSTRING]
 * The suite name defaults to the program's base name; -k runs only tests whose name contains
 * SUBSTRING. Exit status is 1 if any test failed.
 */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>

struct test_case {
	const char *name;
	const char *file;
	test_fn fn;
};

static struct test_case *tests;
static size_t n_tests, cap_tests;
static int current_failed;
static char current_msg[512];

void test_register(const char *name, test_fn fn, const char *file)
{
	if (n_tests == cap_tests) {
		cap_tests = cap_tests ? 2 * cap_tests : 64;
		tests = realloc(tests, cap_tests * sizeof(*tests));
		if (!tests) {
			fprintf(stderr, "test_register: out of memory\n");
			exit(2);
		}
	}
	tests[n_tests++] = (struct test_case){ name, file, fn };
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Every failure goes to stderr; the first one is kept for the FAIL line. */
	fprintf(stderr, "  %s:%d: %s\n", file, line, msg);
	if (!current_failed)
		snprintf(current_msg, sizeof(current_msg), "%s:%d: %s", file, line, msg);
	current_failed++;
}

size_t test_memdiff(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return i;
	return (size_t)-1;
}

static uint64_t rand_state = 0x9e3779b97f4a7c15ull;

void test_srand(uint64_t seed)
{
	rand_state = seed ? seed : 0x9e3779b97f4a7c15ull;
}

uint64_t test_rand(void)
{
	rand_state ^= rand_state >> 12;
	rand_state ^= rand_state << 25;
	rand_state ^= rand_state >> 27;
	return rand_state * 0x2545f4914f6cdd1dull;
}

int main(int argc, char **argv)
{
	const char *suite = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	const char *filter = NULL;
	unsigned passed = 0, failed = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") && i + 1 < argc)
			suite = argv[++i];
		else if (!strcmp(argv[i], "-k") && i + 1 < argc)
			filter = argv[++i];
		else {
			fprintf(stderr, "usage: %s [-s SUITE] [-k SUBSTRING]\n", argv[0]);
			return 2;
		}
	}
	for (size_t i = 0; i < n_tests; i++) {
		if (filter && !strstr(tests[i].name, filter))
			continue;
		current_failed = 0;
		current_msg[0] = '\0';
		test_srand(0x1234567 + i);
		tests[i].fn();
		fflush(stderr);
		if (current_failed) {
			printf("FAIL: %s/%s: %s\n", suite, tests[i].name, current_msg);
			failed++;
		} else {
			printf("PASS: %s/%s\n", suite, tests[i].name);
			passed++;
		}
		fflush(stdout);
	}
	free(tests);
	return failed ? 1 : 0;
}
