/* bzImage setup-header validation (malformed headers) and the loader's placement/zero page. */
#include "test.h"
#include <stdlib.h>
#include <ibboot/image.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>

#define SETUP_LEN 1024   /* setup_sects = 1 */
#define KERNEL_LEN 0x3000

static uint8_t img[SETUP_LEN + KERNEL_LEN];

static void put32(size_t off, uint32_t v)
{
	memcpy(img + off, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* A well-formed protocol 2.15 header, as a relocatable 64-bit kernel carries it. */
static void make_good(void)
{
	memset(img, 0, sizeof(img));
	img[0x1f1] = 1;
	img[0x1fe] = 0x55, img[0x1ff] = 0xaa;
	img[0x201] = 0x6a;                        /* header ends at 0x26c */
	memcpy(img + 0x202, "HdrS", 4);
	img[0x206] = 0x0f, img[0x207] = 0x02;     /* 2.15 */
	img[0x211] = 0x01;                        /* LOADED_HIGH */
	put32(0x214, 0x100000);
	put32(0x22c, 0x7fffffff);
	put32(0x230, 0x200000);
	img[0x234] = 1;
	img[0x235] = 21;
	img[0x236] = BZ_XLF_KERNEL_64 | BZ_XLF_CAN_BE_LOADED_ABOVE_4G;
	put32(0x238, 2047);
	put32(0x258, 0x1000000);
	put32(0x260, 0x100000);
	for (size_t i = SETUP_LEN; i < sizeof(img); i++)
		img[i] = (uint8_t)(i * 13);
}

static int parse(size_t len, const char **why)
{
	struct bzimage_info bz;

	*why = "";
	return bzimage_parse(img, len, &bz, why);
}

TEST(bzimage_good_header)
{
	struct bzimage_info bz;
	const char *why = NULL;

	make_good();
	CHECK_EQ(bzimage_parse(img, sizeof(img), &bz, &why), 0);
	CHECK_EQ(bz.version, 0x020f);
	CHECK_EQ(bz.setup_len, SETUP_LEN);
	CHECK_EQ(bz.kernel_len, KERNEL_LEN);
	CHECK_EQ(bz.header_end, 0x26c);
	CHECK_EQ(bz.kernel_alignment, 0x200000);
	CHECK_EQ(bz.init_size, 0x100000);
	CHECK_EQ(bz.pref_address, 0x1000000);
	/* setup_sects 0 means 4 (boot.rst) */
	img[0x1f1] = 0;
	CHECK_EQ(bzimage_parse(img, sizeof(img), &bz, &why), 0);
	CHECK_EQ(bz.setup_len, 5 * 512);
}

/* One malformed header per row: the good header with one patch, the length handed to the parser,
 * and the refusal (the reason matched as a substring, or whole where exact). */
struct bad_header {
	char kind;           /* 'b' one byte, 'w' a 32-bit word, 's' four bytes of text, 0 none */
	size_t off;
	uint32_t value;
	const char *text;
	size_t len;
	int rc;
	const char *why;
	bool exact;
};

TEST(bzimage_malformed_headers)
{
	static const struct bad_header cases[] = {
		{ 0, 0, 0, NULL, 0x100, -EINVAL, "too short", false },
		{ 's', 0x202, 0, "HdrX", sizeof(img), -EINVAL, "HdrS", false },
		{ 'b', 0x1fe, 0, NULL, sizeof(img), -EINVAL, "boot_flag", false },
		{ 'b', 0x206, 0x02, NULL, sizeof(img), -ENOTSUP,
		  "bzImage: protocol 2.02: no 64-bit entry (need 2.12+)", true },
		/* header would end before init_size */
		{ 'b', 0x201, 0x10, NULL, sizeof(img), -EINVAL, "init_size", false },
		/* 100 KiB of setup in a 13 KiB file */
		{ 'b', 0x1f1, 200, NULL, sizeof(img), -EINVAL, "does not fit", false },
		/* nothing after the setup but 0x200 bytes */
		{ 0, 0, 0, NULL, SETUP_LEN + 0x200, -EINVAL, "+0x200", false },
		{ 'b', 0x211, 0, NULL, sizeof(img), -ENOTSUP, "LOADED_HIGH", false },
		{ 'b', 0x236, 0, NULL, sizeof(img), -ENOTSUP, "XLF_KERNEL_64", false },
		{ 'w', 0x230, 0x300000, NULL, sizeof(img), -EINVAL, "power of two", false },
		/* 4 MiB minimum above a 2 MiB preference */
		{ 'b', 0x235, 22, NULL, sizeof(img), -EINVAL, "min_alignment", false },
		{ 'w', 0x260, 0, NULL, sizeof(img), -EINVAL, "init_size", false },
		{ 'w', 0x238, 0, NULL, sizeof(img), -EINVAL, "cmdline_size", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_header *c = &cases[i];
		const char *why;
		bool matched;

		make_good();
		if (c->kind == 'b')
			img[c->off] = (uint8_t)c->value;
		else if (c->kind == 'w')
			put32(c->off, c->value);
		else if (c->kind == 's')
			memcpy(img + c->off, c->text, 4);
		CHECK_EQ(parse(c->len, &why), c->rc);
		matched = c->exact ? strcmp(why, c->why) == 0 : strstr(why, c->why) != NULL;
		if (!matched)
			fprintf(stderr, "  row %zu: reason \"%s\", want %s \"%s\"\n", i, why,
				c->exact ? "exactly" : "containing", c->why);
		CHECK(matched);
	}
}

static uint64_t handed_entry;
static void *handed_bp;
static int fake_handoff(uint64_t entry, void *bp)
{
	handed_entry = entry;
	handed_bp = bp;
	return -ENOTSUP;
}

TEST(bzimage_load_places_kernel_initrds_cmdline)
{
	struct bzimage_layout lay;
	struct image *k, *r1, *r2;
	char *args[] = { "console=ttyS0", "ibboot.nonce=42" };

	make_good();
	image_free_all();
	k = image_add("vmlinuz", img, sizeof(img));
	r1 = image_add("a.cpio", "AAAAA", 5);
	r2 = image_add("b.cpio", "BBBBBBB", 7);
	CHECK(k && r1 && r2);
	if (!k || !r1 || !r2)
		return;
	k->role = IMAGE_ROLE_KERNEL;
	r1->role = r2->role = IMAGE_ROLE_INITRD;
	CHECK_EQ(image_set_cmdline(k, 2, args), 0);
	CHECK_EQ(bzimage_load(k, &lay), 0);
	CHECK_EQ(lay.kernel_addr % 0x200000, 0);
	CHECK_MEM(bus_to_virt(lay.kernel_addr), img + SETUP_LEN, KERNEL_LEN);
	/* initrds concatenated, the second 4-byte aligned after zero padding */
	CHECK_EQ(lay.initrd_len, 15);
	CHECK_MEM(bus_to_virt(lay.initrd_addr), "AAAAA\0\0\0BBBBBBB", 15);
	const uint8_t *bp = lay.zero_page;
	CHECK_MEM(bp + 0x202, "HdrS", 4);          /* setup header copied to 0x1f1 */
	CHECK_EQ(bp[0x210], 0xff);                 /* type_of_loader: undefined */
	CHECK_EQ(get32(bp + 0x214), (uint32_t)lay.kernel_addr);
	uint64_t cmd = get32(bp + 0x228) | (uint64_t)get32(bp + 0xc8) << 32;
	CHECK_STR((const char *)bus_to_virt(cmd), "console=ttyS0 ibboot.nonce=42");
	uint64_t rd = get32(bp + 0x218) | (uint64_t)get32(bp + 0xc0) << 32;
	CHECK_EQ(rd, lay.initrd_addr);
	CHECK_EQ(get32(bp + 0x21c), 15);
	bzimage_unload(&lay);
	image_free_all();
}

TEST(bzimage_load_refuses_what_the_kernel_cannot_reach)
{
	struct bzimage_layout lay;
	struct image *k;

	make_good();
	img[0x234] = 0;   /* not relocatable */
	k = image_add("vmlinuz", img, sizeof(img));
	CHECK(k != NULL);
	if (!k)
		return;
	CHECK_EQ(bzimage_load(k, &lay), -ENOTSUP);
	make_good();
	put32(0x238, 4);   /* cmdline_size 4 */
	k = image_add("vmlinuz", img, sizeof(img));
	char *args[] = { "toolong" };
	CHECK_EQ(image_set_cmdline(k, 1, args), 0);
	CHECK_EQ(bzimage_load(k, &lay), -ERANGE);
	/* init_size beyond any free block (the test arena is far smaller than 1 GiB) */
	make_good();
	put32(0x260, 0x3fffffff);
	k = image_add("vmlinuz", img, sizeof(img));
	CHECK_EQ(bzimage_load(k, &lay), -ENOMEM);
	image_free_all();
}

TEST(image_boot_refuses_a_sha256_mismatch)
{
	struct image *k;
	uint8_t d[32];
	char hex[65];

	make_good();
	image_free_all();
	k = image_add("vmlinuz", img, sizeof(img));
	CHECK(k != NULL);
	if (!k)
		return;
	k->role = IMAGE_ROLE_KERNEL;
	image_linux64_handoff = fake_handoff;
	handed_bp = NULL;
	sha256(img, sizeof(img), d);
	sha256_to_hex(d, hex);
	hex[0] = hex[0] == '0' ? '1' : '0';
	CHECK_EQ(image_verify_sha256(k, hex), -EPERM);
	CHECK_EQ(k->verified, -1);
	CHECK_EQ(image_boot(NULL), -EPERM);
	CHECK(handed_bp == NULL);
	CHECK_EQ(image_verify_sha256(k, "xyz"), -EINVAL);
	hex[0] = d[0] >> 4 < 10 ? (char)('0' + (d[0] >> 4)) : (char)('a' + (d[0] >> 4) - 10);
	CHECK_EQ(image_verify_sha256(k, hex), 0);
	CHECK_EQ(k->verified, 1);
	image_free_all();
	image_linux64_handoff = NULL;
}

TEST(image_registry_names_and_replacement)
{
	char name[IMAGE_NAME_MAX];

	image_name_from_uri("http://h/a/b.img?x=1", name, sizeof(name));
	CHECK_STR(name, "b.img");
	image_name_from_uri("tftp://10.0.0.1/boot.ipxe", name, sizeof(name));
	CHECK_STR(name, "boot.ipxe");
	image_name_from_uri("module:1", name, sizeof(name));
	CHECK_STR(name, "module:1");
	image_name_from_uri("http://h/", name, sizeof(name));
	CHECK_STR(name, "http://h/");
	image_free_all();
	CHECK(image_add("x", "1", 1) != NULL);
	CHECK(image_add("x", "22", 2) != NULL);   /* replaces */
	CHECK(image_find("x") && image_find("x")->len == 2);
	CHECK(image_first() && !image_first()->next);
	CHECK(image_add("a-name-that-is-much-too-long-for-the-table", "1", 1) == NULL);
	image_free_all();
	CHECK(image_first() == NULL);
}
