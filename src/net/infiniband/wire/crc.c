/* SPDX-License-Identifier: MIT */
/* ICRC and VCRC (IBA 7.8.1, 7.8.2). Table-driven. The firmware (built for size) uses the const
 * byte-at-a-time tables only; the host programs that check and recompute both CRCs on every
 * packet (the HCA model, fabsim, the server node) fold 16-byte blocks with carry-less multiplies
 * (PCLMULQDQ, when the CPU has it) or else slice by 8 bytes with tables derived once from the byte
 * tables. */
#include <ibboot/wire/crc.h>
#include <ibboot/wire/packet.h>

/* Byte-at-a-time tables (generated from the reflected polynomials; 1.5 KiB of const data). */
/* CRC-32: 0x04C11DB7 reflected = 0xEDB88320 */
static const uint32_t crc32_table[256] = {
	0x00000000, 0x77073096, 0xEE0E612C, 0x990951BA, 0x076DC419, 0x706AF48F, 0xE963A535, 0x9E6495A3,
	0x0EDB8832, 0x79DCB8A4, 0xE0D5E91E, 0x97D2D988, 0x09B64C2B, 0x7EB17CBD, 0xE7B82D07, 0x90BF1D91,
	0x1DB71064, 0x6AB020F2, 0xF3B97148, 0x84BE41DE, 0x1ADAD47D, 0x6DDDE4EB, 0xF4D4B551, 0x83D385C7,
	0x136C9856, 0x646BA8C0, 0xFD62F97A, 0x8A65C9EC, 0x14015C4F, 0x63066CD9, 0xFA0F3D63, 0x8D080DF5,
	0x3B6E20C8, 0x4C69105E, 0xD56041E4, 0xA2677172, 0x3C03E4D1, 0x4B04D447, 0xD20D85FD, 0xA50AB56B,
	0x35B5A8FA, 0x42B2986C, 0xDBBBC9D6, 0xACBCF940, 0x32D86CE3, 0x45DF5C75, 0xDCD60DCF, 0xABD13D59,
	0x26D930AC, 0x51DE003A, 0xC8D75180, 0xBFD06116, 0x21B4F4B5, 0x56B3C423, 0xCFBA9599, 0xB8BDA50F,
	0x2802B89E, 0x5F058808, 0xC60CD9B2, 0xB10BE924, 0x2F6F7C87, 0x58684C11, 0xC1611DAB, 0xB6662D3D,
	0x76DC4190, 0x01DB7106, 0x98D220BC, 0xEFD5102A, 0x71B18589, 0x06B6B51F, 0x9FBFE4A5, 0xE8B8D433,
	0x7807C9A2, 0x0F00F934, 0x9609A88E, 0xE10E9818, 0x7F6A0DBB, 0x086D3D2D, 0x91646C97, 0xE6635C01,
	0x6B6B51F4, 0x1C6C6162, 0x856530D8, 0xF262004E, 0x6C0695ED, 0x1B01A57B, 0x8208F4C1, 0xF50FC457,
	0x65B0D9C6, 0x12B7E950, 0x8BBEB8EA, 0xFCB9887C, 0x62DD1DDF, 0x15DA2D49, 0x8CD37CF3, 0xFBD44C65,
	0x4DB26158, 0x3AB551CE, 0xA3BC0074, 0xD4BB30E2, 0x4ADFA541, 0x3DD895D7, 0xA4D1C46D, 0xD3D6F4FB,
	0x4369E96A, 0x346ED9FC, 0xAD678846, 0xDA60B8D0, 0x44042D73, 0x33031DE5, 0xAA0A4C5F, 0xDD0D7CC9,
	0x5005713C, 0x270241AA, 0xBE0B1010, 0xC90C2086, 0x5768B525, 0x206F85B3, 0xB966D409, 0xCE61E49F,
	0x5EDEF90E, 0x29D9C998, 0xB0D09822, 0xC7D7A8B4, 0x59B33D17, 0x2EB40D81, 0xB7BD5C3B, 0xC0BA6CAD,
	0xEDB88320, 0x9ABFB3B6, 0x03B6E20C, 0x74B1D29A, 0xEAD54739, 0x9DD277AF, 0x04DB2615, 0x73DC1683,
	0xE3630B12, 0x94643B84, 0x0D6D6A3E, 0x7A6A5AA8, 0xE40ECF0B, 0x9309FF9D, 0x0A00AE27, 0x7D079EB1,
	0xF00F9344, 0x8708A3D2, 0x1E01F268, 0x6906C2FE, 0xF762575D, 0x806567CB, 0x196C3671, 0x6E6B06E7,
	0xFED41B76, 0x89D32BE0, 0x10DA7A5A, 0x67DD4ACC, 0xF9B9DF6F, 0x8EBEEFF9, 0x17B7BE43, 0x60B08ED5,
	0xD6D6A3E8, 0xA1D1937E, 0x38D8C2C4, 0x4FDFF252, 0xD1BB67F1, 0xA6BC5767, 0x3FB506DD, 0x48B2364B,
	0xD80D2BDA, 0xAF0A1B4C, 0x36034AF6, 0x41047A60, 0xDF60EFC3, 0xA867DF55, 0x316E8EEF, 0x4669BE79,
	0xCB61B38C, 0xBC66831A, 0x256FD2A0, 0x5268E236, 0xCC0C7795, 0xBB0B4703, 0x220216B9, 0x5505262F,
	0xC5BA3BBE, 0xB2BD0B28, 0x2BB45A92, 0x5CB36A04, 0xC2D7FFA7, 0xB5D0CF31, 0x2CD99E8B, 0x5BDEAE1D,
	0x9B64C2B0, 0xEC63F226, 0x756AA39C, 0x026D930A, 0x9C0906A9, 0xEB0E363F, 0x72076785, 0x05005713,
	0x95BF4A82, 0xE2B87A14, 0x7BB12BAE, 0x0CB61B38, 0x92D28E9B, 0xE5D5BE0D, 0x7CDCEFB7, 0x0BDBDF21,
	0x86D3D2D4, 0xF1D4E242, 0x68DDB3F8, 0x1FDA836E, 0x81BE16CD, 0xF6B9265B, 0x6FB077E1, 0x18B74777,
	0x88085AE6, 0xFF0F6A70, 0x66063BCA, 0x11010B5C, 0x8F659EFF, 0xF862AE69, 0x616BFFD3, 0x166CCF45,
	0xA00AE278, 0xD70DD2EE, 0x4E048354, 0x3903B3C2, 0xA7672661, 0xD06016F7, 0x4969474D, 0x3E6E77DB,
	0xAED16A4A, 0xD9D65ADC, 0x40DF0B66, 0x37D83BF0, 0xA9BCAE53, 0xDEBB9EC5, 0x47B2CF7F, 0x30B5FFE9,
	0xBDBDF21C, 0xCABAC28A, 0x53B39330, 0x24B4A3A6, 0xBAD03605, 0xCDD70693, 0x54DE5729, 0x23D967BF,
	0xB3667A2E, 0xC4614AB8, 0x5D681B02, 0x2A6F2B94, 0xB40BBE37, 0xC30C8EA1, 0x5A05DF1B, 0x2D02EF8D,
};

/* VCRC: 0x100B reflected = 0xD008 */
static const uint16_t vcrc_table[256] = {
	0x0000, 0x1BA1, 0x3742, 0x2CE3, 0x6E84, 0x7525, 0x59C6, 0x4267,
	0xDD08, 0xC6A9, 0xEA4A, 0xF1EB, 0xB38C, 0xA82D, 0x84CE, 0x9F6F,
	0x1A01, 0x01A0, 0x2D43, 0x36E2, 0x7485, 0x6F24, 0x43C7, 0x5866,
	0xC709, 0xDCA8, 0xF04B, 0xEBEA, 0xA98D, 0xB22C, 0x9ECF, 0x856E,
	0x3402, 0x2FA3, 0x0340, 0x18E1, 0x5A86, 0x4127, 0x6DC4, 0x7665,
	0xE90A, 0xF2AB, 0xDE48, 0xC5E9, 0x878E, 0x9C2F, 0xB0CC, 0xAB6D,
	0x2E03, 0x35A2, 0x1941, 0x02E0, 0x4087, 0x5B26, 0x77C5, 0x6C64,
	0xF30B, 0xE8AA, 0xC449, 0xDFE8, 0x9D8F, 0x862E, 0xAACD, 0xB16C,
	0x6804, 0x73A5, 0x5F46, 0x44E7, 0x0680, 0x1D21, 0x31C2, 0x2A63,
	0xB50C, 0xAEAD, 0x824E, 0x99EF, 0xDB88, 0xC029, 0xECCA, 0xF76B,
	0x7205, 0x69A4, 0x4547, 0x5EE6, 0x1C81, 0x0720, 0x2BC3, 0x3062,
	0xAF0D, 0xB4AC, 0x984F, 0x83EE, 0xC189, 0xDA28, 0xF6CB, 0xED6A,
	0x5C06, 0x47A7, 0x6B44, 0x70E5, 0x3282, 0x2923, 0x05C0, 0x1E61,
	0x810E, 0x9AAF, 0xB64C, 0xADED, 0xEF8A, 0xF42B, 0xD8C8, 0xC369,
	0x4607, 0x5DA6, 0x7145, 0x6AE4, 0x2883, 0x3322, 0x1FC1, 0x0460,
	0x9B0F, 0x80AE, 0xAC4D, 0xB7EC, 0xF58B, 0xEE2A, 0xC2C9, 0xD968,
	0xD008, 0xCBA9, 0xE74A, 0xFCEB, 0xBE8C, 0xA52D, 0x89CE, 0x926F,
	0x0D00, 0x16A1, 0x3A42, 0x21E3, 0x6384, 0x7825, 0x54C6, 0x4F67,
	0xCA09, 0xD1A8, 0xFD4B, 0xE6EA, 0xA48D, 0xBF2C, 0x93CF, 0x886E,
	0x1701, 0x0CA0, 0x2043, 0x3BE2, 0x7985, 0x6224, 0x4EC7, 0x5566,
	0xE40A, 0xFFAB, 0xD348, 0xC8E9, 0x8A8E, 0x912F, 0xBDCC, 0xA66D,
	0x3902, 0x22A3, 0x0E40, 0x15E1, 0x5786, 0x4C27, 0x60C4, 0x7B65,
	0xFE0B, 0xE5AA, 0xC949, 0xD2E8, 0x908F, 0x8B2E, 0xA7CD, 0xBC6C,
	0x2303, 0x38A2, 0x1441, 0x0FE0, 0x4D87, 0x5626, 0x7AC5, 0x6164,
	0xB80C, 0xA3AD, 0x8F4E, 0x94EF, 0xD688, 0xCD29, 0xE1CA, 0xFA6B,
	0x6504, 0x7EA5, 0x5246, 0x49E7, 0x0B80, 0x1021, 0x3CC2, 0x2763,
	0xA20D, 0xB9AC, 0x954F, 0x8EEE, 0xCC89, 0xD728, 0xFBCB, 0xE06A,
	0x7F05, 0x64A4, 0x4847, 0x53E6, 0x1181, 0x0A20, 0x26C3, 0x3D62,
	0x8C0E, 0x97AF, 0xBB4C, 0xA0ED, 0xE28A, 0xF92B, 0xD5C8, 0xCE69,
	0x5106, 0x4AA7, 0x6644, 0x7DE5, 0x3F82, 0x2423, 0x08C0, 0x1361,
	0x960F, 0x8DAE, 0xA14D, 0xBAEC, 0xF88B, 0xE32A, 0xCFC9, 0xD468,
	0x4B07, 0x50A6, 0x7C45, 0x67E4, 0x2583, 0x3E22, 0x12C1, 0x0960,
};

#ifndef __OPTIMIZE_SIZE__
#if defined(__x86_64__) && defined(__GNUC__) && __STDC_HOSTED__
#include <immintrin.h>
#define CRC_CLMUL 1
/*
 * Folding with carry-less multiplication (the method of Intel's "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ", derived here for any reflected CRC of up to 32 bits). A reflected
 * CRC reads byte 0 bit 0 as the highest power, so a 16-byte block loaded little-endian holds, in
 * bit i, the coefficient of x^(127-i): the block is L(x)·x^64 + H(x) (L its low quadword). A block
 * that D bits of message follow contributes L·x^(D+64) + H·x^D, which is congruent mod P to
 * x·(L·(x^(D+63) mod P)) + x·(H·(x^(D-1) mod P)); the carry-less product of L and the bit-reversed
 * 64-bit constant x^(D+63) mod P puts x^(126-k) in bit k, i.e. exactly that product times x in the
 * block's own bit order. So a block folds into the one D bits later with two multiplies and the
 * remainder is unchanged; after the last full block the 16 bytes left stand for everything before
 * them and the byte tables finish them and the tail. The CRC register enters by XOR into the
 * first bytes (the table loop does the same), so the fold starts from register 0. D = 512 folds
 * four blocks in flight, D = 128 one.
 */
struct clmul_k {
	uint64_t k512[2], k128[2];    /* {x^(D+63) mod P, x^(D-1) mod P}, bit-reversed */
};
static struct clmul_k crc32_k, vcrc_k;
static int have_clmul;

static uint64_t bitrev64(uint64_t v)
{
	uint64_t r = 0;

	for (int i = 0; i < 64; i++)
		r |= ((v >> i) & 1) << (63 - i);
	return r;
}

/* x^n mod P, P the full polynomial of degree w (normal bit order: bit i = coefficient of x^i). */
static uint64_t xpow_mod(unsigned n, uint64_t poly, unsigned w)
{
	uint64_t r = 1;

	while (n--) {
		r <<= 1;
		if (r >> w & 1)
			r ^= poly;
	}
	return r;
}

static void clmul_k_init(struct clmul_k *k, uint64_t poly, unsigned w)
{
	k->k512[0] = bitrev64(xpow_mod(512 + 63, poly, w));
	k->k512[1] = bitrev64(xpow_mod(512 - 1, poly, w));
	k->k128[0] = bitrev64(xpow_mod(128 + 63, poly, w));
	k->k128[1] = bitrev64(xpow_mod(128 - 1, poly, w));
}

__attribute__((target("pclmul,sse2")))
static inline __m128i clmul_fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

/* Folds the n / 16 whole blocks of p (n >= 64), with `reg` XORed into the first bytes, into the 16
 * bytes of out; returns how many bytes it consumed. */
__attribute__((target("pclmul,sse2")))
static size_t clmul_fold_blocks(const struct clmul_k *kk, uint32_t reg, const uint8_t *p, size_t n,
				uint8_t out[16])
{
	const __m128i k512 = _mm_loadu_si128((const __m128i *)kk->k512);
	const __m128i k128 = _mm_loadu_si128((const __m128i *)kk->k128);
	__m128i x0 = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)reg));
	__m128i x1 = _mm_loadu_si128((const __m128i *)(p + 16));
	__m128i x2 = _mm_loadu_si128((const __m128i *)(p + 32));
	__m128i x3 = _mm_loadu_si128((const __m128i *)(p + 48));
	size_t i = 64;

	for (; i + 64 <= n; i += 64) {
		x0 = _mm_xor_si128(clmul_fold(x0, k512), _mm_loadu_si128((const __m128i *)(p + i)));
		x1 = _mm_xor_si128(clmul_fold(x1, k512), _mm_loadu_si128((const __m128i *)(p + i + 16)));
		x2 = _mm_xor_si128(clmul_fold(x2, k512), _mm_loadu_si128((const __m128i *)(p + i + 32)));
		x3 = _mm_xor_si128(clmul_fold(x3, k512), _mm_loadu_si128((const __m128i *)(p + i + 48)));
	}
	x1 = _mm_xor_si128(clmul_fold(x0, k128), x1);
	x2 = _mm_xor_si128(clmul_fold(x1, k128), x2);
	x3 = _mm_xor_si128(clmul_fold(x2, k128), x3);
	for (; i + 16 <= n; i += 16)
		x3 = _mm_xor_si128(clmul_fold(x3, k128), _mm_loadu_si128((const __m128i *)(p + i)));
	_mm_storeu_si128((__m128i *)out, x3);
	return i;
}
#endif

/*
 * Slicing by 8 (for reflected CRCs): the register after 8 more bytes is the XOR, over the 8 bytes
 * (the register folded into the first 4 or 2 of them), of each byte's contribution followed by k
 * zero bytes: T[k][b] = T[k-1][b] >> 8 ^ T[0][T[k-1][b] & 0xff], T[0] the byte table. Same
 * result as the byte loop for every input (the unit tests compare both on random data).
 */
static uint32_t crc32_slice[8][256];
static uint16_t vcrc_slice[8][256];
static int slice_ready;   /* 0, then 1 once both tables are filled (acquire/release) */

static void slice_init(void)
{
	if (__atomic_load_n(&slice_ready, __ATOMIC_ACQUIRE))
		return;
	/* Two threads filling at once write the same values. */
	for (unsigned b = 0; b < 256; b++) {
		crc32_slice[0][b] = crc32_table[b];
		vcrc_slice[0][b] = vcrc_table[b];
	}
	for (unsigned k = 1; k < 8; k++)
		for (unsigned b = 0; b < 256; b++) {
			uint32_t c = crc32_slice[k - 1][b];
			uint16_t v = vcrc_slice[k - 1][b];

			crc32_slice[k][b] = (c >> 8) ^ crc32_table[c & 0xFF];
			vcrc_slice[k][b] = (uint16_t)((v >> 8) ^ vcrc_table[v & 0xFF]);
		}
#ifdef CRC_CLMUL
	clmul_k_init(&crc32_k, 0x104C11DB7ull, 32);
	clmul_k_init(&vcrc_k, 0x1100Bull, 16);
	have_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
#endif
	__atomic_store_n(&slice_ready, 1, __ATOMIC_RELEASE);
}

static inline uint64_t load_le64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
	       (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

#endif

uint32_t iblib_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
#ifndef __OPTIMIZE_SIZE__
	if (n >= 16) {
		slice_init();
#ifdef CRC_CLMUL
		if (have_clmul && n >= 64) {
			uint8_t folded[16];
			size_t done = clmul_fold_blocks(&crc32_k, crc, p, n, folded);

			crc = iblib_crc32_update(0, folded, sizeof(folded));
			p += done;
			n -= done;
		}
#endif
		for (; n >= 8; p += 8, n -= 8) {
			uint64_t w = load_le64(p) ^ crc;

			crc = crc32_slice[7][w & 0xFF] ^ crc32_slice[6][(w >> 8) & 0xFF] ^
			      crc32_slice[5][(w >> 16) & 0xFF] ^ crc32_slice[4][(w >> 24) & 0xFF] ^
			      crc32_slice[3][(w >> 32) & 0xFF] ^ crc32_slice[2][(w >> 40) & 0xFF] ^
			      crc32_slice[1][(w >> 48) & 0xFF] ^ crc32_slice[0][w >> 56];
		}
	}
#endif
	while (n--)
		crc = (crc >> 8) ^ crc32_table[(crc ^ *p++) & 0xFF];
	return crc;
}

uint16_t iblib_crc16_vcrc_update(uint16_t crc, const uint8_t *p, size_t n)
{
#ifndef __OPTIMIZE_SIZE__
	if (n >= 16) {
		slice_init();
#ifdef CRC_CLMUL
		if (have_clmul && n >= 64) {
			uint8_t folded[16];
			size_t done = clmul_fold_blocks(&vcrc_k, crc, p, n, folded);

			crc = iblib_crc16_vcrc_update(0, folded, sizeof(folded));
			p += done;
			n -= done;
		}
#endif
		for (; n >= 8; p += 8, n -= 8) {
			uint64_t w = load_le64(p) ^ crc;

			crc = vcrc_slice[7][w & 0xFF] ^ vcrc_slice[6][(w >> 8) & 0xFF] ^
			      vcrc_slice[5][(w >> 16) & 0xFF] ^ vcrc_slice[4][(w >> 24) & 0xFF] ^
			      vcrc_slice[3][(w >> 32) & 0xFF] ^ vcrc_slice[2][(w >> 40) & 0xFF] ^
			      vcrc_slice[1][(w >> 48) & 0xFF] ^ vcrc_slice[0][w >> 56];
		}
	}
#endif
	while (n--)
		crc = (uint16_t)((crc >> 8) ^ vcrc_table[(crc ^ *p++) & 0xFF]);
	return crc;
}

uint32_t iblib_icrc(const uint8_t *pkt, size_t len, int *err)
{
	uint8_t masked[IBLIB_LRH_BYTES + IBLIB_GRH_BYTES + IBLIB_BTH_BYTES];
	size_t hdr, bth;
	unsigned lnh;

	if (err)
		*err = 0;
	if (len < IBLIB_LRH_BYTES)
		goto short_pkt;
	lnh = pkt[1] & 3;
	if (lnh == IBLIB_LNH_IBA_LOCAL)
		bth = IBLIB_LRH_BYTES;
	else if (lnh == IBLIB_LNH_IBA_GLOBAL)
		bth = IBLIB_LRH_BYTES + IBLIB_GRH_BYTES;
	else {
		if (err)
			*err = IBLIB_E_LNH;  /* raw packets carry no ICRC */
		return 0;
	}
	hdr = bth + IBLIB_BTH_BYTES;
	if (len < hdr)
		goto short_pkt;

	for (size_t i = 0; i < hdr; i++)
		masked[i] = pkt[i];
	if (lnh == IBLIB_LNH_IBA_GLOBAL) {
		/* A router rebuilds the LRH: all of it is variant. */
		for (size_t i = 0; i < IBLIB_LRH_BYTES; i++)
			masked[i] = 0xFF;
		/* GRH: TClass (bits 4..11), FlowLabel (12..31), HopLmt (byte 7). IPVer stays. */
		masked[8] |= 0x0F;
		masked[9] = masked[10] = masked[11] = 0xFF;
		masked[8 + 7] = 0xFF;
	} else {
		masked[0] |= 0xF0;  /* LRH:VL */
	}
	masked[bth + 4] = 0xFF;     /* BTH:Resv8a */

	uint32_t crc = iblib_crc32_update(0xFFFFFFFFu, masked, hdr);
	crc = iblib_crc32_update(crc, pkt + hdr, len - hdr);
	return ~crc;

short_pkt:
	if (err)
		*err = IBLIB_E_SHORT;
	return 0;
}

uint16_t iblib_vcrc(const uint8_t *pkt, size_t len)
{
	return (uint16_t)~iblib_crc16_vcrc_update(0xFFFF, pkt, len);
}
