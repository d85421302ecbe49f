/* SPDX-License-Identifier: MIT */
/* The random number generator: known answers, source selection and fallback, reseeding. */
#include "test.h"

#include <ibboot/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- a scripted CPU ---- */

static struct {
	bool has_rdseed, has_rdrand;
	unsigned seed_fail, rand_fail;   /* this many attempts come back with CF = 0 first */
	bool seed_never, rand_never;     /* every attempt comes back with CF = 0 */
	bool rand_stuck;                 /* RDRAND returns all ones with CF = 1 */
	uint64_t seed_state, rand_state, tsc;
	unsigned seed_calls, rand_calls;
} cpu;

static bool fake_has_rdseed(void) { return cpu.has_rdseed; }
static bool fake_has_rdrand(void) { return cpu.has_rdrand; }

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s ^ (*s >> 29);
}

static bool fake_rdseed(uint64_t *v)
{
	cpu.seed_calls++;
	if (cpu.seed_never || cpu.seed_fail) {
		if (cpu.seed_fail)
			cpu.seed_fail--;
		*v = 0;
		return false;
	}
	*v = next(&cpu.seed_state);
	return true;
}

static bool fake_rdrand(uint64_t *v)
{
	cpu.rand_calls++;
	if (cpu.rand_never || cpu.rand_fail) {
		if (cpu.rand_fail)
			cpu.rand_fail--;
		*v = 0;
		return false;
	}
	*v = cpu.rand_stuck ? ~0ull : next(&cpu.rand_state);
	return true;
}

/* A counter that advances by a fixed step: no jitter at all, so only the hardware values differ. */
static uint64_t fake_tsc(void)
{
	return cpu.tsc += 100;
}

static const struct random_hw fake_hw = {
	.has_rdseed = fake_has_rdseed, .has_rdrand = fake_has_rdrand,
	.rdseed64 = fake_rdseed, .rdrand64 = fake_rdrand, .cycles = fake_tsc,
};

static void cpu_reset(void)
{
	memset(&cpu, 0, sizeof(cpu));
	cpu.seed_state = 1;
	cpu.rand_state = 2;
	random_use_hw(&fake_hw);
}

/* Runs random_init() with stdout (the hosted console) captured into out. */
static void init_captured(char *out, size_t size)
{
	char path[] = "/tmp/ibboot-test-random-XXXXXX";
	int fd = mkstemp(path), saved;
	ssize_t n;

	out[0] = '\0';
	if (fd < 0)
		return;
	unlink(path);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	random_init();
	random_init();   /* says it once */
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = pread(fd, out, size - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* ---- known answers ---- */

TEST(random_chacha20_block_rfc8439_2_3_2)
{
	static const uint8_t want[64] = {
		0x10, 0xf1, 0xe7, 0xe4, 0xd1, 0x3b, 0x59, 0x15, 0x50, 0x0f, 0xdd, 0x1f, 0xa3, 0x20,
		0x71, 0xc4, 0xc7, 0xd1, 0xf4, 0xc7, 0x33, 0xc0, 0x68, 0x03, 0x04, 0x22, 0xaa, 0x9a,
		0xc3, 0xd4, 0x6c, 0x4e, 0xd2, 0x82, 0x64, 0x46, 0x07, 0x9f, 0xaa, 0x09, 0x14, 0xc2,
		0xd7, 0x05, 0xd9, 0x8b, 0x02, 0xa2, 0xb5, 0x12, 0x9c, 0xd1, 0xde, 0x16, 0x4e, 0xb9,
		0xcb, 0xd0, 0x83, 0xe8, 0xa2, 0x50, 0x3c, 0x4e,
	};
	uint32_t key[8];
	const uint32_t nonce[3] = { 0x09000000, 0x4a000000, 0 };
	uint8_t out[64];

	for (unsigned i = 0; i < 8; i++)   /* key bytes 00..1f, read little-endian */
		key[i] = (uint32_t)(4 * i) | (uint32_t)(4 * i + 1) << 8 |
			 (uint32_t)(4 * i + 2) << 16 | (uint32_t)(4 * i + 3) << 24;
	random_chacha20_block(key, 1, nonce, out);
	CHECK_MEM(out, want, 64);
}

/* ---- sources ---- */

TEST(random_prefers_rdseed_and_says_so)
{
	char out[512];

	cpu_reset();
	cpu.has_rdseed = cpu.has_rdrand = true;
	cpu.seed_fail = 3;   /* a dry RDSEED is retried */
	init_captured(out, sizeof(out));
	CHECK_STR(random_source(), "RDSEED+TSC");
	CHECK_EQ(count(out, "random: RDSEED+TSC\n"), 1);
	CHECK_EQ(count(out, "random:"), 1);
}

TEST(random_rdrand_when_rdseed_is_missing)
{
	char out[512];

	cpu_reset();
	cpu.has_rdrand = true;
	init_captured(out, sizeof(out));
	CHECK_STR(random_source(), "RDRAND+TSC");
	CHECK(strstr(out, "random: RDRAND+TSC\n") != NULL);
	CHECK_EQ(cpu.seed_calls, 0);   /* not advertised: never executed */
}

TEST(random_rdseed_that_never_delivers_falls_back_to_rdrand)
{
	struct random_stats st;

	cpu_reset();
	cpu.has_rdseed = cpu.has_rdrand = true;
	cpu.seed_never = true;
	CHECK_STR(random_source(), "RDRAND+TSC");
	random_get_stats(&st);
	/* bounded: 100 attempts per value, 4 values */
	CHECK_EQ(cpu.seed_calls, 400);
	CHECK_EQ(st.hw_failures, 400);
}

TEST(random_no_rdrand_is_tsc_jitter_only)
{
	char out[512];
	uint32_t a, b;

	cpu_reset();
	init_captured(out, sizeof(out));
	CHECK(strstr(out, "random: TSC jitter only (no RDRAND)\n") != NULL);
	CHECK_EQ(cpu.rand_calls + cpu.seed_calls, 0);
	a = random_u32();
	b = random_u32();
	CHECK(a != b);
}

TEST(random_failing_rdrand_falls_back_and_says_so)
{
	char out[512];

	cpu_reset();
	cpu.has_rdrand = true;
	cpu.rand_never = true;
	init_captured(out, sizeof(out));
	CHECK(strstr(out, "random: TSC jitter only (RDRAND failed)\n") != NULL);
	CHECK_EQ(cpu.rand_calls, 40);   /* 10 retries (Intel's DRNG guide) x 4 values */
	/* not asked again at the reseeds */
	for (unsigned i = 0; i < (RANDOM_RESEED_BLOCKS + 1) * 8; i++)
		(void)random_u32();
	CHECK_EQ(cpu.rand_calls, 40);
}

TEST(random_stuck_rdrand_is_refused)
{
	struct random_stats st;

	cpu_reset();
	cpu.has_rdrand = true;
	cpu.rand_stuck = true;   /* all ones with CF = 1 */
	CHECK_STR(random_source(), "TSC jitter only (RDRAND failed)");
	random_get_stats(&st);
	CHECK(st.hw_rejected >= 1);
}

/* ---- output ---- */

static void draw_seeded(uint64_t rand_seed, uint32_t *out, unsigned n)
{
	cpu_reset();
	cpu.has_rdrand = true;
	cpu.rand_state = rand_seed;
	for (unsigned i = 0; i < n; i++)
		out[i] = random_u32();
}

TEST(random_output_depends_on_the_seed)
{
	uint32_t a[16], b[16], c[16];

	draw_seeded(1, a, 16);
	draw_seeded(1, b, 16);
	draw_seeded(2, c, 16);
	/* With a jitter-free counter the seed is all that differs. */
	CHECK_MEM(a, b, sizeof(a));
	CHECK(memcmp(a, c, sizeof(a)) != 0);
}

TEST(random_no_two_consecutive_draws_equal)
{
	uint32_t prev;
	uint16_t prev16;
	unsigned equal = 0, equal16 = 0;

	cpu_reset();
	cpu.has_rdrand = true;
	prev = random_u32();
	for (unsigned i = 0; i < 100000; i++) {
		uint32_t v = random_u32();

		equal += v == prev;
		prev = v;
	}
	prev16 = (uint16_t)random_u32();
	/* 16-bit ids (DNS): a repeat has a 1/65536 chance per draw, so two in 1000 are tolerated */
	for (unsigned i = 0; i < 1000; i++) {
		uint16_t v = (uint16_t)random_u32();

		equal16 += v == prev16;
		prev16 = v;
	}
	CHECK_EQ(equal, 0);
	CHECK(equal16 <= 2);
}

TEST(random_below_stays_in_range_and_hits_every_value)
{
	unsigned hits[10] = { 0 };

	cpu_reset();
	for (unsigned i = 0; i < 10000; i++) {
		uint32_t v = random_below(10);

		CHECK(v < 10);
		if (v < 10)
			hits[v]++;
	}
	for (unsigned i = 0; i < 10; i++)
		CHECK(hits[i] > 800 && hits[i] < 1200);   /* ~1000 each; 6 sigma either side */
	CHECK_EQ(random_below(0), 0);
	CHECK_EQ(random_below(1), 0);
}

TEST(random_reseeds_from_hardware_after_its_block_budget)
{
	struct random_stats st;
	unsigned calls;
	uint8_t big[64];

	cpu_reset();
	cpu.has_rdrand = true;
	(void)random_u32();
	calls = cpu.rand_calls;
	CHECK_EQ(calls, 4);
	for (unsigned i = 0; i < RANDOM_RESEED_BLOCKS; i++)
		random_bytes(big, 32);
	random_get_stats(&st);
	CHECK_EQ(st.reseeds, 1);
	CHECK_EQ(cpu.rand_calls, calls + 4);
	random_bytes(big, sizeof(big));   /* a draw longer than the buffer */
	CHECK(memcmp(big, big + 32, 32) != 0);
	random_use_hw(NULL);   /* the real CPU again for whatever runs next */
}
