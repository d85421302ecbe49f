/* SPDX-License-Identifier: MIT */
/* Results of a translation/protection check (tpt.c). */
#ifndef HCASIM_TPT_H
#define HCASIM_TPT_H

enum {
	TPT_OK = 0, TPT_BAD_KEY, TPT_PD, TPT_ACCESS, TPT_BOUNDS, TPT_ICM, TPT_NOT_PRESENT, TPT_DMA,
};
const char *hcasim_tpt_why(int rc);

#endif
