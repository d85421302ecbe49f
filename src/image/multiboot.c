/* SPDX-License-Identifier: MIT */
/*
 * Multiboot v1 header and segment parsing (Multiboot Specification 0.6.96): §3.1.1 the header
 * lies 4-byte aligned in the first 8192 bytes, magic + flags + checksum sum to 0; §3.1.2 a loader
 * that does not understand a flag in bits 0-15 must refuse; §3.1.3 the a.out kludge (bit 16)
 * gives load addresses explicitly, otherwise the image must be ELF32 and its PT_LOAD program
 * headers say where each segment goes (physical addresses).
 */
#include <ibboot/image.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

#define MB_FLAGS_UNDERSTOOD (MB_FLAG_PAGE_ALIGN | MB_FLAG_MEMINFO)
#define MB_HDR_LEN_KLUDGE   32   /* magic .. entry_addr */

#define EI_CLASS 4
#define EI_DATA  5
#define ELFCLASS32 1
#define ELFDATA2LSB 1
#define ET_EXEC 2
#define EM_386 3
#define PT_LOAD 1
#define ELF32_EHDR_LEN 52
#define ELF32_PHDR_LEN 32

static inline __attribute__((always_inline)) uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Little-endian fields (the x86 CPU's own order), read unaligned. */
static inline __attribute__((always_inline)) uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}


/* §3.1.3: the file from header_addr's offset back to load_addr is loaded at load_addr. */
static int parse_aout_kludge(const uint8_t *d, size_t len, struct multiboot_info_parsed *o,
			     const char **why)
{
	const uint8_t *h = d + o->header_off;
	uint32_t header_addr = rd32(h + 12), load_addr = rd32(h + 16), load_end = rd32(h + 20),
		 bss_end = rd32(h + 24);

	o->entry = rd32(h + 28);
	if (load_addr > header_addr || header_addr - load_addr > o->header_off)
		return image_fail(why, -EINVAL, "multiboot: load_addr %#x, header_addr %#x: before file start",
			    load_addr, header_addr);
	size_t file_off = o->header_off - (header_addr - load_addr);
	size_t file_len = load_end ? (size_t)load_end - load_addr : len - file_off;
	if (load_end && load_end <= load_addr)
		return image_fail(why, -EINVAL, "multiboot: load_end_addr %#x <= load_addr %#x",
			    load_end, load_addr);
	if (file_len > len - file_off)
		return image_fail(why, -EINVAL, "multiboot: load_end_addr %#x: %zu bytes; %zu "
			    "from offset %#zx", load_end, file_len, len - file_off,
			    file_off);
	uint64_t end = (uint64_t)load_addr + file_len;
	if (end > 0xffffffffull)
		return image_fail(why, -EINVAL, "multiboot: %zu bytes at %#x pass 4 GiB",
			    file_len, load_addr);
	if (bss_end && bss_end < end)
		return image_fail(why, -EINVAL, "multiboot: bss_end_addr %#x below load end %#llx", bss_end, (unsigned long long)end);
	uint64_t mem_end = bss_end ? bss_end : end;
	if (o->entry < load_addr || o->entry >= mem_end)
		return image_fail(why, -EINVAL, "multiboot: entry_addr %#x outside %#x..%#llx", o->entry, load_addr, (unsigned long long)mem_end);
	o->seg[0] = (struct mb_segment){ load_addr, file_off, file_len,
					 (uint32_t)(mem_end - load_addr) };
	o->n_segments = 1;
	return 0;
}

static int parse_elf32(const uint8_t *d, size_t len, struct multiboot_info_parsed *o,
		       const char **why)
{
	if (len < ELF32_EHDR_LEN || memcmp(d, "\x7f" "ELF", 4) != 0)
		return image_fail(why, -ENOTSUP, "multiboot: no a.out kludge (flag 16), not ELF");
	if (d[EI_CLASS] != ELFCLASS32 || d[EI_DATA] != ELFDATA2LSB || rd16(d + 16) != ET_EXEC ||
	    rd16(d + 18) != EM_386)
		return image_fail(why, -ENOTSUP, "multiboot: ELF not 32-bit LE i386 exec (class %u, "
			    "data %u, type %u, machine %u)", d[EI_CLASS],
			    d[EI_DATA], rd16(d + 16), rd16(d + 18));
	uint32_t phoff = rd32(d + 28);
	unsigned phentsize = rd16(d + 42), phnum = rd16(d + 44);
	if (phentsize < ELF32_PHDR_LEN || phnum == 0 || phoff > len ||
	    (uint64_t)phentsize * phnum > len - phoff)
		return image_fail(why, -EINVAL, "multiboot: ELF phdrs (%u of %u bytes at %#x) "
			    "do not fit %zu", phnum, phentsize, phoff, len);
	o->entry = rd32(d + 24);
	o->elf = true;
	bool entry_inside = false;
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = d + phoff + (size_t)i * phentsize;
		uint32_t off = rd32(ph + 4), paddr = rd32(ph + 12), filesz = rd32(ph + 16),
			 memsz = rd32(ph + 20);

		if (rd32(ph) != PT_LOAD || memsz == 0)
			continue;
		if (o->n_segments == MB_MAX_SEGMENTS)
			return image_fail(why, -ENOTSUP, "multiboot: over %d loadable segments",
				    MB_MAX_SEGMENTS);
		if (filesz > memsz || off > len || filesz > len - off)
			return image_fail(why, -EINVAL, "multiboot: ELF segment %u (offset %#x, filesz %u, memsz %u) "
				    "outside file or inverted",
				    i, off, filesz, memsz);
		if ((uint64_t)paddr + memsz > 0x100000000ull)
			return image_fail(why, -EINVAL,
				    "multiboot: ELF segment %u: %u bytes at %#x pass 4 GiB", i, memsz,
				    paddr);
		for (unsigned j = 0; j < o->n_segments; j++) {
			const struct mb_segment *s = &o->seg[j];

			if (paddr < s->paddr + s->mem_len && s->paddr < paddr + memsz)
				return image_fail(why, -EINVAL, "multiboot: ELF segments %u, %u overlap at %#x", j, i, paddr);
		}
		o->seg[o->n_segments++] = (struct mb_segment){ paddr, off, filesz, memsz };
		if (o->entry >= paddr && o->entry - paddr < memsz)
			entry_inside = true;
	}
	if (o->n_segments == 0)
		return image_fail(why, -EINVAL, "multiboot: ELF: no loadable segment");
	if (!entry_inside)
		return image_fail(why, -EINVAL, "multiboot: ELF entry %#x in no segment",
			    o->entry);
	return 0;
}

int multiboot_parse(const uint8_t *d, size_t len, struct multiboot_info_parsed *o,
		    const char **why)
{
	size_t limit = MIN(len, (size_t)MB_SEARCH_LEN);

	memset(o, 0, sizeof(*o));
	for (size_t off = 0; off + 12 <= limit; off += 4) {
		uint32_t magic = rd32(d + off), flags = rd32(d + off + 4), sum = rd32(d + off + 8);

		if (magic != MB_HEADER_MAGIC)
			continue;
		if ((uint32_t)(magic + flags + sum) != 0)
			continue;   /* §3.1.2: a header whose checksum fails is not one */
		o->header_off = off;
		o->flags = flags;
		if (flags & 0xffff & ~MB_FLAGS_UNDERSTOOD)
			return image_fail(why, -ENOTSUP, "multiboot: unsupported flags %#x (bit 2: graphics)",
				    flags & 0xffff & ~MB_FLAGS_UNDERSTOOD);
		if (flags & MB_FLAG_AOUT_KLUDGE) {
			if (off + MB_HDR_LEN_KLUDGE > len)
				return image_fail(why, -EINVAL, "multiboot: header at %#zx cut off by end of file", off);
			return parse_aout_kludge(d, len, o, why);
		}
		return parse_elf32(d, len, o, why);
	}
	return image_fail(why, -ENOENT, "multiboot: no header in first 8 KiB");
}
