/* SPDX-License-Identifier: MIT */
/* Results of a translation/protection check (tpt.c). */
#ifndef HCASIM_TPT_H
#define HCASIM_TPT_H

#include <stdint.h>

enum {
	TPT_OK = 0, TPT_BAD_KEY, TPT_PD, TPT_ACCESS, TPT_BOUNDS, TPT_ICM, TPT_NOT_PRESENT, TPT_DMA,
};
const char *hcasim_tpt_why(int rc);
struct hcasim;
int hcasim_tpt_check(struct hcasim *h, uint32_t key, uint32_t pd, uint64_t va, uint32_t len,
		     unsigned access);

#endif
