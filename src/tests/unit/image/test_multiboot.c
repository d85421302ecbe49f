/* Multiboot v1 header parsing: a.out kludge, ELF32 segments, malformed headers. */
#include "test.h"
#include <ibboot/image.h>
#include <ibboot/errno.h>

static uint8_t f[16384];

static void put32(size_t off, uint32_t v)
{
	memcpy(f + off, &v, 4);
}

/* Header at 0x40, file loaded at 1 MiB: header_addr 0x100040, load to 0x103000, bss to 0x104000. */
static void make_kludge(uint32_t flags)
{
	memset(f, 0, sizeof(f));
	put32(0x40, MB_HEADER_MAGIC);
	put32(0x44, flags | MB_FLAG_AOUT_KLUDGE);
	put32(0x48, (uint32_t)-(MB_HEADER_MAGIC + (flags | MB_FLAG_AOUT_KLUDGE)));
	put32(0x4c, 0x100040);
	put32(0x50, 0x100000);
	put32(0x54, 0x103000);
	put32(0x58, 0x104000);
	put32(0x5c, 0x100100);
}

TEST(multiboot_aout_kludge)
{
	struct multiboot_info_parsed mb;
	const char *why = "";

	make_kludge(MB_FLAG_PAGE_ALIGN | MB_FLAG_MEMINFO);
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), 0);
	CHECK_EQ(mb.header_off, 0x40);
	CHECK_EQ(mb.entry, 0x100100);
	CHECK_EQ(mb.n_segments, 1);
	CHECK_EQ(mb.seg[0].paddr, 0x100000);
	CHECK_EQ(mb.seg[0].file_off, 0);
	CHECK_EQ(mb.seg[0].file_len, 0x3000);
	CHECK_EQ(mb.seg[0].mem_len, 0x4000);
}

TEST(multiboot_malformed)
{
	struct multiboot_info_parsed mb;
	const char *why = "";

	memset(f, 0, sizeof(f));
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -ENOENT);

	make_kludge(0);
	put32(0x48, 0);   /* checksum wrong: not a header at all */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -ENOENT);

	make_kludge(MB_FLAG_VIDEO);
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -ENOTSUP);
	CHECK(strstr(why, "graphics") != NULL);

	make_kludge(0);
	put32(0x4c, 0x200000);   /* load_addr 1 MiB below header_addr: before the file start */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -EINVAL);

	make_kludge(0);
	put32(0x54, 0x100000 + sizeof(f) + 1);   /* load_end past the file */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -EINVAL);
	CHECK(strstr(why, "load_end_addr") != NULL);

	make_kludge(0);
	put32(0x58, 0x102000);   /* bss ends before the loaded data */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -EINVAL);

	make_kludge(0);
	put32(0x5c, 0x200000);   /* entry outside */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -EINVAL);
	CHECK(strstr(why, "entry") != NULL);

	make_kludge(0);          /* header cut by the end of the file */
	CHECK_EQ(multiboot_parse(f, 0x50, &mb, &why), -EINVAL);

	make_kludge(0);          /* beyond the first 8 KiB it is not searched */
	memmove(f + 8192, f + 0x40, 32);
	memset(f + 0x40, 0, 32);
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -ENOENT);
}

static void make_elf(void)
{
	memset(f, 0, sizeof(f));
	memcpy(f, "\x7f" "ELF", 4);
	f[4] = 1, f[5] = 1;
	f[16] = 2;               /* ET_EXEC */
	f[18] = 3;               /* EM_386 */
	put32(24, 0x100010);     /* entry */
	put32(28, 52);           /* phoff */
	f[42] = 32;              /* phentsize */
	f[44] = 2;               /* phnum */
	/* PT_LOAD: file 0x1000..0x2000 at 1 MiB, 0x3000 in memory; PT_LOAD at 2 MiB. */
	put32(52, 1), put32(56, 0x1000), put32(64, 0x100000), put32(68, 0x1000), put32(72, 0x3000);
	put32(84, 1), put32(88, 0x2000), put32(96, 0x200000), put32(100, 0x800), put32(104, 0x800);
	put32(0x200, MB_HEADER_MAGIC);
	put32(0x204, MB_FLAG_MEMINFO);
	put32(0x208, (uint32_t)-(MB_HEADER_MAGIC + MB_FLAG_MEMINFO));
}

TEST(multiboot_elf32)
{
	struct multiboot_info_parsed mb;
	const char *why = "";

	make_elf();
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), 0);
	CHECK(mb.elf);
	CHECK_EQ(mb.n_segments, 2);
	CHECK_EQ(mb.seg[0].paddr, 0x100000);
	CHECK_EQ(mb.seg[0].mem_len, 0x3000);
	CHECK_EQ(mb.seg[1].file_off, 0x2000);

	make_elf();
	put32(96, 0x101000);     /* second segment overlaps the first */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -EINVAL);
	CHECK(strstr(why, "overlap") != NULL);

	make_elf();
	put32(68, 0x4000);       /* filesz > memsz */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -EINVAL);

	make_elf();
	put32(56, sizeof(f));    /* offset at the end of the file with data after it */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -EINVAL);

	make_elf();
	f[44] = 0xff; f[45] = 0xff;   /* 65535 program headers */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -EINVAL);

	make_elf();
	f[4] = 2;                /* ELFCLASS64 */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -ENOTSUP);

	make_elf();
	put32(24, 0x300000);     /* entry in no segment */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -EINVAL);

	make_elf();
	memset(f, 0, 4);         /* no kludge and not ELF */
	CHECK_EQ(multiboot_parse(f, sizeof(f), &mb, &why), -ENOTSUP);
}
