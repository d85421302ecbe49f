/* SPDX-License-Identifier: MIT */
/*
 * The random number generator (include/ibboot/random.h): a ChaCha20 key stream with fast key
 * erasure, seeded and reseeded from RDSEED / RDRAND (where CPUID offers them) and TSC jitter.
 *
 * Hardware draws follow Intel's Digital Random Number Generator (DRNG) Software Implementation
 * Guide: CF = 0 means "no value now", so RDRAND is retried up to 10 times (§5.2.1) and RDSEED,
 * which runs dry more easily, up to 100 times with a PAUSE between attempts (§5.3.1). A value of
 * all zeros or all ones, or the same value twice in a row, is refused as well: some AMD family 17h
 * parts return all ones with CF = 1 after a resume, and Linux refuses RDRAND that repeats itself at
 * boot for the same reason. A source that gives nothing good while seeding is not asked again.
 *
 * Hot paths stay cheap: a draw of up to 32 bytes is a copy from the buffer; one ChaCha20 block
 * (and one TSC read) refills it.
 */
#include <ibboot/random.h>
#include <ibboot/console.h>
#include <ibboot/platform.h>
#include <ibboot/string.h>

#define RDRAND_RETRIES 10
#define RDSEED_RETRIES 100
#define SEED_WORDS     4     /* 4 x 64 bits from each hardware source */
#define JITTER_INITIAL 256   /* TSC samples at the first seed */
#define JITTER_RESEED  32

static inline uint32_t rotl32(uint32_t v, unsigned n)
{
	return (v << n) | (v >> (32 - n));
}

static inline uint64_t rotl64(uint64_t v, unsigned n)
{
	return (v << n) | (v >> (64 - n));
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "words are copied as LE bytes");

/* ---- ChaCha20 (RFC 8439 §2.1-2.3) ---- */

/* One quarter round on x[a], x[b], x[c], x[d] (RFC 8439 §2.1). A function, not a macro: the
 * generator is not on a per-packet path, and the 80 copies a macro makes cost the image 0.5 KB. */
static void chacha_qr(uint32_t *x, unsigned a, unsigned b, unsigned c, unsigned d)
{
	x[a] += x[b]; x[d] ^= x[a]; x[d] = rotl32(x[d], 16);
	x[c] += x[d]; x[b] ^= x[c]; x[b] = rotl32(x[b], 12);
	x[a] += x[b]; x[d] ^= x[a]; x[d] = rotl32(x[d], 8);
	x[c] += x[d]; x[b] ^= x[c]; x[b] = rotl32(x[b], 7);
}

void random_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
			   uint8_t out[64])
{
	uint32_t s[16], x[16];

	/* "expand 32-byte k" */
	s[0] = 0x61707865;
	s[1] = 0x3320646e;
	s[2] = 0x79622d32;
	s[3] = 0x6b206574;
	for (unsigned i = 0; i < 8; i++)
		s[4 + i] = key[i];
	s[12] = counter;
	s[13] = nonce[0];
	s[14] = nonce[1];
	s[15] = nonce[2];
	memcpy(x, s, sizeof(x));
	/* 20 rounds: 10 x (column round, then diagonal round, §2.3). Quarter round j of a double
	 * round: column i = j & 3 for j < 4, i.e. (i, 4+i, 8+i, 12+i); the diagonals (k = 1) shift
	 * rows 1..3 by 1..3 columns: (0,5,10,15), (1,6,11,12), (2,7,8,13), (3,4,9,14). */
	for (unsigned r = 0; r < 80; r++) {
		unsigned i = r & 3, k = (r >> 2) & 1;

		chacha_qr(x, i, 4 + ((i + k) & 3), 8 + ((i + 2 * k) & 3), 12 + ((i + 3 * k) & 3));
	}
	for (unsigned i = 0; i < 16; i++)
		x[i] += s[i];
	memcpy(out, x, 64);   /* little-endian words (§2.3: serialized LE) */
}

/* ---- the CPU's sources ---- */

#if defined(__x86_64__)
static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

static bool x86_has_rdrand(void)
{
	uint32_t r[4];

	cpuid(1, 0, r);
	return (r[2] >> 30) & 1;
}

static bool x86_has_rdseed(void)
{
	uint32_t r[4];

	cpuid(0, 0, r);
	if (r[0] < 7)
		return false;
	cpuid(7, 0, r);
	return (r[1] >> 18) & 1;
}

static bool x86_rdrand64(uint64_t *v)
{
	uint8_t ok;

	__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
	return ok;
}

static bool x86_rdseed64(uint64_t *v)
{
	uint8_t ok;

	__asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
	return ok;
}

static uint64_t x86_tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static void cpu_pause(void)
{
	__asm__ volatile("pause");
}

static const struct random_hw cpu_hw = {
	.has_rdseed = x86_has_rdseed, .has_rdrand = x86_has_rdrand,
	.rdseed64 = x86_rdseed64, .rdrand64 = x86_rdrand64, .cycles = x86_tsc,
};
#else
static bool no_insn(void)
{
	return false;
}

static bool no_value(uint64_t *v)
{
	*v = 0;
	return false;
}

static void cpu_pause(void)
{
}

static const struct random_hw cpu_hw = {
	.has_rdseed = no_insn, .has_rdrand = no_insn,
	.rdseed64 = no_value, .rdrand64 = no_value, .cycles = plat_counter,
};
#endif

/* ---- the generator ---- */

static struct {
	const struct random_hw *hw;
	bool seeded;
	bool use_rdseed, use_rdrand;
	const char *source;
	uint32_t key[8];
	unsigned mix_pos;          /* next key word to absorb into */
	uint32_t stirs;
	uint32_t counter;          /* blocks generated (the block counter) */
	unsigned since_reseed;
	uint8_t buf[32];           /* unused output: the last `avail` bytes */
	unsigned avail;
	uint64_t last_seed, last_rand;
	struct random_stats st;
} R;

static void wipe(void *p, size_t n)
{
	volatile uint8_t *v = p;

	while (n--)
		*v++ = 0;
}

/* The key becomes ChaCha20 of itself: what was absorbed is spread over all of it. */
static void stir(void)
{
	const uint32_t nonce[3] = { 0x2178696d /* "mix!" */, R.stirs++, 0 };
	uint8_t blk[64];

	random_chacha20_block(R.key, 0, nonce, blk);
	memcpy(R.key, blk, sizeof(R.key));   /* little-endian words */
	wipe(blk, sizeof(blk));
}

static void absorb(uint64_t v)
{
	R.key[R.mix_pos++ % 8] ^= (uint32_t)v;
	R.key[R.mix_pos++ % 8] ^= (uint32_t)(v >> 32);
	if (R.mix_pos % 8 == 0)
		stir();
}

/* One good value from a hardware source within `retries` attempts. */
static bool hw_draw(bool (*fn)(uint64_t *), unsigned retries, uint64_t *last, uint64_t *v)
{
	for (unsigned i = 0; i < retries; i++) {
		if (fn(v)) {
			if (*v == 0 || *v == ~0ull || *v == *last) {
				R.st.hw_rejected++;
				return false;
			}
			*last = *v;
			return true;
		}
		R.st.hw_failures++;
		cpu_pause();
	}
	return false;
}

/* Timing a little memory work whose duration depends on cache and pipeline state; the low bits
 * of each delta carry whatever jitter there is. */
static void jitter(unsigned samples)
{
	volatile uint32_t scratch[64];
	uint64_t prev = R.hw->cycles();

	for (unsigned i = 0; i < 64; i++)
		scratch[i] = i;
	for (unsigned i = 0; i < samples; i++) {
		uint64_t now;

		for (unsigned j = 0; j <= (prev & 7); j++)
			scratch[(prev >> (3 * j)) & 63] += (uint32_t)prev + j;
		now = R.hw->cycles();
		absorb(now ^ rotl64(now - prev, 32) ^ scratch[now & 63]);
		prev = now;
	}
}

/* Mixes hardware values and TSC jitter into the key; returns how many values each source gave. */
static void gather(unsigned jitter_samples, unsigned *n_seed, unsigned *n_rand)
{
	uint64_t v;

	*n_seed = *n_rand = 0;
	for (unsigned i = 0; R.use_rdseed && i < SEED_WORDS; i++)
		if (hw_draw(R.hw->rdseed64, RDSEED_RETRIES, &R.last_seed, &v)) {
			absorb(v);
			(*n_seed)++;
		}
	for (unsigned i = 0; R.use_rdrand && i < SEED_WORDS; i++)
		if (hw_draw(R.hw->rdrand64, RDRAND_RETRIES, &R.last_rand, &v)) {
			absorb(v);
			(*n_rand)++;
		}
	jitter(jitter_samples);
	stir();
}

void random_init(void)
{
	unsigned n_seed, n_rand;
	bool had_rdseed, had_rdrand;

	if (R.seeded)
		return;
	if (!R.hw)
		R.hw = &cpu_hw;
	had_rdseed = R.use_rdseed = R.hw->has_rdseed();
	had_rdrand = R.use_rdrand = R.hw->has_rdrand();
	gather(JITTER_INITIAL, &n_seed, &n_rand);
	/* A source that gave nothing good now is not trusted later. */
	R.use_rdseed = n_seed == SEED_WORDS;
	R.use_rdrand = n_rand == SEED_WORDS;
	if (R.use_rdseed)
		R.source = "RDSEED+TSC";
	else if (R.use_rdrand)
		R.source = "RDRAND+TSC";
	else if (had_rdseed || had_rdrand)
		R.source = "TSC jitter only (RDRAND failed)";
	else
		R.source = "TSC jitter only (no RDRAND)";
	R.seeded = true;
	kprintf("random: %s\n", R.source);
}

const char *random_source(void)
{
	random_init();
	return R.source;
}

static void reseed(void)
{
	unsigned n_seed, n_rand;

	gather(JITTER_RESEED, &n_seed, &n_rand);
	R.since_reseed = 0;
	R.st.reseeds++;
}

/* Fast key erasure: the block's first half is the next key, the second half is output. */
static void refill(void)
{
	uint64_t t;
	uint32_t nonce[3];
	uint8_t blk[64];

	if (R.since_reseed >= RANDOM_RESEED_BLOCKS)
		reseed();
	t = R.hw->cycles();
	nonce[0] = (uint32_t)t;
	nonce[1] = (uint32_t)(t >> 32);
	nonce[2] = 0x2174756f;   /* "out!" */
	random_chacha20_block(R.key, R.counter++, nonce, blk);
	memcpy(R.key, blk, sizeof(R.key));
	memcpy(R.buf, blk + 32, sizeof(R.buf));
	wipe(blk, sizeof(blk));
	R.avail = sizeof(R.buf);
	R.since_reseed++;
	R.st.blocks++;
}

void random_bytes(void *buf, size_t len)
{
	uint8_t *out = buf;

	random_init();
	while (len) {
		size_t take;
		uint8_t *from;

		if (!R.avail)
			refill();
		take = MIN(len, (size_t)R.avail);
		from = R.buf + sizeof(R.buf) - R.avail;
		memcpy(out, from, take);
		wipe(from, take);   /* handed out: forgotten */
		R.avail -= (unsigned)take;
		out += take;
		len -= take;
	}
}

uint32_t random_u32(void)
{
	uint32_t v;

	random_bytes(&v, sizeof(v));
	return v;
}

uint64_t random_u64(void)
{
	uint64_t v;

	random_bytes(&v, sizeof(v));
	return v;
}

uint32_t random_below(uint32_t n)
{
	uint32_t floor, r;

	if (n == 0)
		return 0;
	/* Values below 2^32 mod n would make the low residues more likely: draw again. */
	floor = (uint32_t)-n % n;
	do
		r = random_u32();
	while (r < floor);
	return r % n;
}

void random_use_hw(const struct random_hw *hw)
{
	wipe(&R, sizeof(R));
	R.hw = hw ? hw : &cpu_hw;
}

void random_get_stats(struct random_stats *st)
{
	*st = R.st;
}
