/* SPDX-License-Identifier: MIT */
/*
 * The word-at-a-time Internet checksum against the plainest reading of RFC 1071 (16-bit
 * big-endian words, byte by byte, folded at the end): every length 0..2100 at every alignment
 * 0..7 over random bytes, chained blocks, and the all-zero and all-ones corner cases.
 */
#include "test.h"
#include <stdlib.h>
#include <ibboot/checksum.h>

static uint16_t ref_sum(const uint8_t *p, size_t len, uint32_t sum)
{
	for (; len > 1; p += 2, len -= 2)
		sum += (uint32_t)(p[0] << 8 | p[1]);
	if (len)
		sum += (uint32_t)(p[0] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

TEST(checksum_matches_bytewise_every_length_and_alignment)
{
	static uint8_t buf[2100 + 16];
	unsigned bad = 0;

	for (size_t len = 0; len <= 2100; len++) {
		for (size_t align = 0; align < 8; align++) {
			uint8_t *p = buf + align;
			uint16_t seed = (uint16_t)(rnd8() << 8 | rnd8());

			for (size_t i = 0; i < len; i++)
				p[i] = rnd8();
			if (csum_partial(p, len, 0) != ref_sum(p, len, 0) ||
			    csum_partial(p, len, seed) != ref_sum(p, len, seed) ||
			    ip_checksum(p, len) != csum_finish(ref_sum(p, len, 0))) {
				if (!bad++)
					test_fail(__FILE__, __LINE__, "length %zu alignment %zu", len,
						  align);
			}
		}
	}
	CHECK_EQ(bad, 0);
}

TEST(checksum_corner_cases)
{
	static uint8_t buf[2100];
	uint8_t rfc[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };   /* RFC 1071 §3 */

	CHECK_EQ(csum_partial(rfc, sizeof(rfc), 0), 0xddf2);
	CHECK_EQ(ip_checksum(NULL, 0), 0xffff);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(ip_checksum(buf, sizeof(buf)), 0xffff);
	memset(buf, 0xff, sizeof(buf));
	/* a sum of non-zero words is never +0: all ones folds to 0xffff, as byte by byte */
	for (size_t len = 1; len <= 64; len++)
		CHECK_EQ(csum_partial(buf, len, 0), ref_sum(buf, len, 0));
	CHECK_EQ(csum_partial(buf, sizeof(buf), 0), 0xffff);
	CHECK_EQ(csum_partial(buf, 2, 0xffff), 0xffff);
}

TEST(checksum_chains_blocks_and_verifies_to_zero)
{
	uint8_t ph[12], seg[1001];

	for (size_t i = 0; i < sizeof(ph); i++)
		ph[i] = rnd8();
	for (size_t i = 0; i < sizeof(seg); i++)
		seg[i] = rnd8();
	seg[16] = seg[17] = 0;
	/* a pseudo header, then the segment: as UDP and TCP sum them */
	uint16_t c = csum_finish(csum_partial(seg, sizeof(seg), csum_partial(ph, sizeof(ph), 0)));
	uint8_t all[12 + 1001];

	memcpy(all, ph, 12);
	memcpy(all + 12, seg, sizeof(seg));
	CHECK_EQ(c, csum_finish(ref_sum(all, sizeof(all), 0)));
	seg[16] = (uint8_t)(c >> 8);
	seg[17] = (uint8_t)c;
	CHECK_EQ(csum_finish(csum_partial(seg, sizeof(seg), csum_partial(ph, sizeof(ph), 0))), 0);
}
