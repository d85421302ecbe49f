/* SPDX-License-Identifier: MIT */
/*
 * The HCA self-test (hermon_selftest.c): an ordered list of checks on one Hermon HCA and port,
 * each ok or FAIL with its reason (PRM status, CQE syndrome), leaving the HCA as it found it.
 * Used by the console's `selftest` and by the boot report. Needs nothing of hermon.h.
 */
#ifndef IBBOOT_HERMON_SELFTEST_H
#define IBBOOT_HERMON_SELFTEST_H

#include <ibboot/compiler.h>

struct hermon;

#define HERMON_SELFTEST_STEPS 7

/* FAIL first: a step's verdict before it ran, and the cheapest constant to pass. */
enum hermon_selftest_verdict { HERMON_SELFTEST_FAIL, HERMON_SELFTEST_OK, HERMON_SELFTEST_SKIP };

struct hermon_selftest_step {
	const char *name;                /* "firmware alive", "command interface timing", ... */
	enum hermon_selftest_verdict verdict;
	char detail[128];                /* ok: what was measured; FAIL/SKIP: why */
};

struct hermon_selftest_result {
	char device[40];                 /* "hermon 0000:01:00.0" */
	unsigned port;
	unsigned failed, passed, skipped;   /* in verdict order */
	uint64_t elapsed_us;
	bool leaked;                     /* an object it created is still allocated */
	const char *leak;                /* what, when leaked ("" otherwise) */
	struct hermon_selftest_step step[HERMON_SELFTEST_STEPS];
};

/* Runs every check on port (1-based) of h; prints nothing. 0 when all passed and nothing leaked,
 * -EIO otherwise, -EINVAL for a port the HCA does not have. */
int hermon_selftest_run(struct hermon *h, unsigned port, struct hermon_selftest_result *res);
/* The same on the first registered Hermon HCA; port 0 = its first ACTIVE port, else port 1.
 * -ENODEV when there is none. */
int hermon_selftest_first(unsigned port, struct hermon_selftest_result *res);
/* Every registered Hermon HCA, each result printed (the console's `selftest`). */
int hermon_selftest_all(unsigned port);
/* The text `selftest` prints, into buf (always terminated); returns the length it wanted. */
size_t hermon_selftest_format(const struct hermon_selftest_result *res, char *buf, size_t len);
void hermon_selftest_print(const struct hermon_selftest_result *res);

#endif
