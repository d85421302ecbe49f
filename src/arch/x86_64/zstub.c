/* SPDX-License-Identifier: MIT */
/*
 * The C half of the compressed image's 32-bit stub (zhead.S): the IBZ1 payload linked into the
 * stub is unpacked to the body's link address, IMAGE_LOAD_ADDR, whose room ends where the stub
 * was moved to (ibboot-z.ld puts the stub right above the body's stored part).
 */
#include "boot.h"
#include "unlzma.h"

extern const uint8_t zpayload[], zpayload_end[];
extern uint8_t _ztext[];
/* The body's length as linked (ibboot-z.ld): a payload of another build is refused. */
extern const uint8_t zbody_len[];

static uint16_t probs[UNLZMA_PROBS_MAX];

/* NULL when the body is in place, else why it is not. */
const char *zstub_unpack(void)
{
	uint8_t *dest = (uint8_t *)IMAGE_LOAD_ADDR;
	size_t len;
	int rc = ibz_unpack(zpayload, (size_t)(zpayload_end - zpayload), dest,
			    (size_t)(_ztext - dest), probs, &len);

	if (rc)
		return unlzma_strerror(rc);
	if (len != (size_t)zbody_len)
		return "body length differs from the one linked";
	return 0;
}
