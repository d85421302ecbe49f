/* SPDX-License-Identifier: MIT */
/*
 * The C half of the compressed image's stub (zhead.S, unpacked by stage 0): the IBZ2 payload
 * stage 0 points at is unpacked (zcm.c) to the body's link address, IMAGE_LOAD_ADDR, whose room
 * ends where the stub lies (zstage0-stub.ld puts it right above the body's stored part). The
 * model's tables live in .zarena, which zstage0-stub.ld places above the body's run-time extent
 * and the multiboot header claims.
 */
#include "boot.h"
#include "zcm.h"

extern uint8_t _ztext[], _zedata[];
/* The body's length as linked (zstage0-stub.ld): a payload of another build is refused. */
extern const uint8_t zbody_len[];

static uint8_t arena[ZCM_ARENA_BYTES] __attribute__((section(".zarena"), aligned(4096)));

/* NULL when the body is in place, else why it is not. */
const char *zstub_unpack(const uint8_t *payload, size_t payload_len)
{
	uint8_t *dest = (uint8_t *)IMAGE_LOAD_ADDR;
	size_t len;
	/* the model is primed with the stub's own image, as zpack primed it (zstub.bin) */
	int rc = ibz_unpack(payload, payload_len, dest, (size_t)(_ztext - dest), arena, _ztext,
			    (size_t)(_zedata - _ztext), &len);

	if (rc)
		return zcm_strerror(rc);
	if (len != (size_t)zbody_len)
		return "body length mismatch";
	return 0;
}
