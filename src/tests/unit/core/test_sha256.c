/* SHA-256 against the FIPS 180-4 / NIST CAVP examples, incremental feeding, and sha256sum. */
#include "test.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <ibboot/sha256.h>

static void check_hex(const void *data, size_t len, const char *want)
{
	uint8_t d[SHA256_DIGEST_LEN];
	char hex[65];

	sha256(data, len, d);
	sha256_to_hex(d, hex);
	CHECK_STR(hex, want);
}

TEST(sha256_nist_vectors)
{
	check_hex("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
		  "klmnopqrlmnopqrsmnopqrstnopqrstu", 112,
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(sha256_million_a_in_odd_pieces)
{
	static char a[1000];
	struct sha256_ctx c;
	uint8_t d[32];
	char hex[65];
	size_t done = 0, step = 1;

	memset(a, 'a', sizeof(a));
	sha256_init(&c);
	while (done < 1000000) {   /* pieces of 1..997 bytes cross every block boundary case */
		size_t n = step % 997 + 1;

		if (n > 1000000 - done)
			n = 1000000 - done;
		sha256_update(&c, a, n);
		done += n;
		step = step * 7 + 3;
	}
	sha256_final(&c, d);
	sha256_to_hex(d, hex);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(sha256_padding_boundaries_match_one_shot)
{
	uint8_t buf[200], d1[32], d2[32];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 37 + 11);
	/* Lengths around 55/56/64 exercise the one- and two-block padding paths. */
	for (size_t len = 50; len < 135; len++) {
		struct sha256_ctx c;

		sha256(buf, len, d1);
		sha256_init(&c);
		sha256_update(&c, buf, len / 3);
		sha256_update(&c, buf + len / 3, len - len / 3);
		sha256_final(&c, d2);
		CHECK_MEM(d1, d2, 32);
	}
}

TEST(sha256_hex_parsing)
{
	uint8_t d[32], back[32];
	char hex[65];

	sha256("abc", 3, d);
	sha256_to_hex(d, hex);
	CHECK_EQ(sha256_from_hex(hex, back), 0);
	CHECK_MEM(d, back, 32);
	hex[10] = 'A';   /* upper case is accepted ... */
	CHECK_EQ(sha256_from_hex(hex, back), 0);
	hex[10] = 'g';   /* ... a non-hex digit is not */
	CHECK(sha256_from_hex(hex, back) < 0);
	CHECK(sha256_from_hex("abcd", back) < 0);
	CHECK(sha256_from_hex("", back) < 0);
}

/* Random data of awkward sizes, hashed by us and by coreutils' sha256sum. */
TEST(sha256_matches_sha256sum_on_random_data)
{
	static const size_t sizes[] = { 1, 63, 64, 65, 1000, 4096, 100003, 1 << 20 };
	uint8_t *buf = malloc(1 << 20);

	CHECK(buf != NULL);
	if (!buf)
		return;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		char path[] = "/tmp/ibboot-sha256-XXXXXX", cmd[128], want[80] = "";
		uint8_t d[32];
		char hex[65];
		int fd = mkstemp(path);
		FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;

		CHECK(f != NULL);
		if (!f)
			break;
		for (size_t i = 0; i < sizes[k]; i++)
			buf[i] = (uint8_t)random();
		CHECK_EQ(fwrite(buf, 1, sizes[k], f), sizes[k]);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "sha256sum %s", path);
		FILE *p = popen(cmd, "r");
		CHECK(p != NULL);
		if (p) {
			CHECK(fscanf(p, "%64s", want) == 1);
			pclose(p);
		}
		unlink(path);
		sha256(buf, sizes[k], d);
		sha256_to_hex(d, hex);
		CHECK_STR(hex, want);
	}
	free(buf);
}
