/* SPDX-License-Identifier: MIT */
/*
 * Linux bzImage loader for the 64-bit boot protocol (Documentation/arch/x86/boot.rst): the setup
 * header is checked field by field before anything is trusted, the protected-mode kernel is
 * placed where its relocation rules allow, the initrds are concatenated below initrd_addr_max,
 * and a zero page (boot_params) carries header, command line and initrd to the kernel.
 */
#include <ibboot/image.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/string.h>

/* Offsets in the file and in boot_params (boot.rst "The Real-Mode Kernel Header", zero-page.rst). */
#define BP_EXT_RAMDISK_IMAGE 0x0c0
#define BP_EXT_RAMDISK_SIZE  0x0c4
#define BP_EXT_CMD_LINE_PTR  0x0c8
#define HDR_START            0x1f1
#define HDR_SETUP_SECTS      0x1f1
#define HDR_BOOT_FLAG        0x1fe
#define HDR_JUMP_LEN         0x201   /* the header ends at 0x202 + this byte */
#define HDR_MAGIC            0x202
#define HDR_VERSION          0x206
#define HDR_TYPE_OF_LOADER   0x210
#define HDR_LOADFLAGS        0x211
#define HDR_CODE32_START     0x214
#define HDR_RAMDISK_IMAGE    0x218
#define HDR_RAMDISK_SIZE     0x21c
#define HDR_CMD_LINE_PTR     0x228
#define HDR_INITRD_ADDR_MAX  0x22c
#define HDR_KERNEL_ALIGNMENT 0x230
#define HDR_RELOCATABLE      0x234
#define HDR_MIN_ALIGNMENT    0x235
#define HDR_XLOADFLAGS       0x236
#define HDR_CMDLINE_SIZE     0x238
#define HDR_PREF_ADDRESS     0x258
#define HDR_INIT_SIZE        0x260
#define HDR_MIN_END          0x264   /* through init_size: what a 2.12 header must hold */

#define HDR_MAGIC_VALUE      0x53726448u   /* "HdrS" */
#define BOOT_FLAG_VALUE      0xaa55
#define LOADED_HIGH          0x01
#define ZERO_PAGE_SIZE       4096
#define ENTRY_64_OFFSET      0x200   /* startup_64 (boot.rst "64-bit Boot Protocol") */
#define LOADER_UNDEFINED     0xff

int (*image_linux64_handoff)(uint64_t entry, void *boot_params);

/* Little-endian fields (the x86 CPU's own order), read unaligned. */
static inline __attribute__((always_inline)) uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline __attribute__((always_inline)) uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline __attribute__((always_inline)) void wr32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}


int bzimage_parse(const uint8_t *d, size_t len, struct bzimage_info *o, const char **why)
{
	memset(o, 0, sizeof(*o));
	if (len < HDR_VERSION + 2)
		return image_fail(why, -EINVAL, "bzImage: %zu bytes: too short",
			    len);
	if (rd32(d + HDR_MAGIC) != HDR_MAGIC_VALUE)
		return image_fail(why, -EINVAL, "bzImage: no HdrS (not Linux)");
	if (rd16(d + HDR_BOOT_FLAG) != BOOT_FLAG_VALUE)
		return image_fail(why, -EINVAL, "bzImage: boot_flag %#x, not 0xaa55",
			    rd16(d + HDR_BOOT_FLAG));
	o->version = rd16(d + HDR_VERSION);
	if (o->version < 0x020c)
		return image_fail(why, -ENOTSUP,
			    "bzImage: protocol %u.%02u: no 64-bit entry (need 2.12+)",
			    o->version >> 8, o->version & 0xff);
	o->header_end = 0x202 + (size_t)d[HDR_JUMP_LEN];
	if (o->header_end < HDR_MIN_END)
		return image_fail(why, -EINVAL, "bzImage: protocol %u.%02u header ends at %#zx, before "
			    "init_size", o->version >> 8, o->version & 0xff, o->header_end);
	o->setup_sects = d[HDR_SETUP_SECTS] ? d[HDR_SETUP_SECTS] : 4;   /* 0 means 4 */
	o->setup_len = ((size_t)o->setup_sects + 1) * 512;
	if (o->header_end > o->setup_len || o->setup_len >= len)
		return image_fail(why, -EINVAL, "bzImage: setup of %u sectors, header to %#zx, does not fit %zu",
			    o->setup_sects, o->header_end, len);
	o->kernel_len = len - o->setup_len;
	if (o->kernel_len <= ENTRY_64_OFFSET)
		return image_fail(why, -EINVAL, "bzImage: %zu-byte kernel: no 64-bit entry at +0x200", o->kernel_len);
	o->loadflags = d[HDR_LOADFLAGS];
	if (!(o->loadflags & LOADED_HIGH))
		return image_fail(why, -ENOTSUP, "bzImage: LOADED_HIGH clear (a zImage)");
	o->xloadflags = rd16(d + HDR_XLOADFLAGS);
	if (!(o->xloadflags & BZ_XLF_KERNEL_64))
		return image_fail(why, -ENOTSUP, "bzImage: XLF_KERNEL_64 clear (32-bit kernel)");
	o->code32_start = rd32(d + HDR_CODE32_START);
	o->initrd_addr_max = rd32(d + HDR_INITRD_ADDR_MAX);
	o->kernel_alignment = rd32(d + HDR_KERNEL_ALIGNMENT);
	o->relocatable = d[HDR_RELOCATABLE];
	o->min_alignment = d[HDR_MIN_ALIGNMENT];
	o->cmdline_size = rd32(d + HDR_CMDLINE_SIZE);
	o->pref_address = (uint64_t)rd32(d + HDR_PREF_ADDRESS) |
			  (uint64_t)rd32(d + HDR_PREF_ADDRESS + 4) << 32;
	o->init_size = rd32(d + HDR_INIT_SIZE);
	if (o->relocatable) {
		if (!IS_POW2(o->kernel_alignment) || o->kernel_alignment > GiB(1))
			return image_fail(why, -EINVAL, "bzImage: kernel_alignment %#x not a power of "
				    "two <= 1G", o->kernel_alignment);
		if (o->min_alignment > 30 || (1u << o->min_alignment) > o->kernel_alignment)
			return image_fail(why, -EINVAL, "bzImage: min_alignment 2^%u > "
				    "kernel_alignment %#x", o->min_alignment, o->kernel_alignment);
	} else if (o->pref_address & 0xfff) {
		return image_fail(why, -EINVAL, "bzImage: pref_address %#llx not page-aligned",
			    (unsigned long long)o->pref_address);
	}
	if (o->init_size == 0 || o->init_size > GiB(1))
		return image_fail(why, -EINVAL, "bzImage: init_size %#x not 1..1G",
			    o->init_size);
	if (o->cmdline_size == 0)
		return image_fail(why, -EINVAL, "bzImage: cmdline_size is 0");
	return 0;
}

/* The (relocatable) kernel's buffer: aligned as it prefers, or as loosely as it tolerates
 * (min_alignment). */
static uint8_t *alloc_kernel(const struct bzimage_info *bz, size_t size, size_t *align_out)
{
	for (uint64_t a = bz->kernel_alignment; a >= (1ull << bz->min_alignment) && a >= 4096;
	     a >>= 1) {
		uint8_t *p = dma_alloc(size, a);

		if (p) {
			*align_out = a;
			return p;
		}
	}
	return NULL;
}

struct load_allocs {
	uint8_t *kernel, *initrd, *cmdline;
	size_t kernel_size, initrd_size, cmdline_size;
};
/* Kept for bzimage_unload (one load at a time: `boot` starts one kernel). */
static struct load_allocs allocs;

void bzimage_unload(struct bzimage_layout *lay)
{
	dma_free(allocs.kernel, allocs.kernel_size);
	dma_free(allocs.initrd, allocs.initrd_size);
	dma_free(allocs.cmdline, allocs.cmdline_size);
	if (lay->zero_page)
		dma_free(lay->zero_page, ZERO_PAGE_SIZE);
	memset(&allocs, 0, sizeof(allocs));
	memset(lay, 0, sizeof(*lay));
}

static bool below_4g(uint64_t addr, uint64_t len)
{
	return addr < GiB(4) && len <= GiB(4) - addr;
}

static int load_initrds(const struct bzimage_info *bz, struct bzimage_layout *lay)
{
	size_t total = 0;

	/* Concatenated cpio archives, each starting 4-byte aligned (the kernel's initramfs
	 * unpacker skips the zero padding between them). */
	for (struct image *i = image_first(); i; i = i->next)
		if (i->role == IMAGE_ROLE_INITRD)
			total = ALIGN_UP(total, 4) + i->len;
	if (total == 0)
		return 0;
	allocs.initrd_size = total;
	allocs.initrd = dma_alloc(total, 4096);
	if (!allocs.initrd) {
		kprintf("bzImage: no memory for %zu-byte initrd (imgfree?)\n", total);
		return -ENOMEM;
	}
	size_t off = 0;
	for (struct image *i = image_first(); i; i = i->next) {
		if (i->role != IMAGE_ROLE_INITRD)
			continue;
		size_t pad = ALIGN_UP(off, 4) - off;
		memset(allocs.initrd + off, 0, pad);
		off += pad;
		memcpy(allocs.initrd + off, i->data, i->len);
		/* The pin, on the copy the kernel will unpack. */
		int rc = image_trust_check_at(i, allocs.initrd + off, i->len, allocs.initrd);
		if (rc)
			return rc;
		off += i->len;
	}
	lay->initrd_addr = virt_to_bus(allocs.initrd);
	lay->initrd_len = total;
	/* initrd_addr_max is the highest address the initrd's last byte may have. */
	if (!(bz->xloadflags & BZ_XLF_CAN_BE_LOADED_ABOVE_4G) &&
	    lay->initrd_addr + total - 1 > bz->initrd_addr_max) {
		kprintf("bzImage: initrd %#llx..%#llx above initrd_addr_max %#x\n", (unsigned long long)lay->initrd_addr,
			(unsigned long long)(lay->initrd_addr + total - 1), bz->initrd_addr_max);
		return -ERANGE;
	}
	return 0;
}

int bzimage_load(const struct image *kernel, struct bzimage_layout *lay)
{
	struct bzimage_info bz;
	const char *why;
	size_t align = 0;
	int rc = bzimage_parse(kernel->data, kernel->len, &bz, &why);
	bool high_ok;

	memset(lay, 0, sizeof(*lay));
	memset(&allocs, 0, sizeof(allocs));
	if (rc) {
		kprintf("%s: %s\n", kernel->name, why);
		return rc;
	}
	high_ok = bz.xloadflags & BZ_XLF_CAN_BE_LOADED_ABOVE_4G;
	if (!bz.relocatable) {
		kprintf("bzImage: %s not relocatable (fixed at %#llx): needs CONFIG_RELOCATABLE\n",
			kernel->name, (unsigned long long)(bz.pref_address ? bz.pref_address :
							   bz.code32_start));
		return -ENOTSUP;
	}
	allocs.kernel_size = MAX((size_t)bz.init_size, bz.kernel_len);
	allocs.kernel = alloc_kernel(&bz, allocs.kernel_size, &align);
	if (!allocs.kernel) {
		kprintf("bzImage: no %zu MiB block aligned %#x for kernel (imgfree?)\n",
			(allocs.kernel_size + (size_t)MiB(1) - 1) >> 20, bz.kernel_alignment);
		rc = -ENOMEM;
		goto fail;
	}
	lay->kernel_addr = virt_to_bus(allocs.kernel);
	/* Boot protocol (init_size): a relocatable kernel loaded below pref_address runs from
	 * pref_address (aligned up to kernel_alignment) and uses init_size bytes from there, not
	 * from where it was loaded. Everything from the load address to that end must stay ours,
	 * or the initrd placed next would be overwritten by the kernel's own decompression. */
	if (bz.pref_address && lay->kernel_addr < bz.pref_address) {
		uint64_t end = ALIGN_UP(bz.pref_address, (uint64_t)bz.kernel_alignment) +
			       bz.init_size;

		dma_free(allocs.kernel, allocs.kernel_size);
		allocs.kernel_size = (size_t)end;   /* covers [load, end) wherever it lands */
		allocs.kernel = alloc_kernel(&bz, allocs.kernel_size, &align);
		if (!allocs.kernel) {
			kprintf("bzImage: no %zu MiB block up to pref_address %#llx + init_size "
				"(imgfree?)\n",
				(allocs.kernel_size + (size_t)MiB(1) - 1) >> 20,
				(unsigned long long)bz.pref_address);
			rc = -ENOMEM;
			goto fail;
		}
		lay->kernel_addr = virt_to_bus(allocs.kernel);
	}
	if (!high_ok && !below_4g(lay->kernel_addr, allocs.kernel_size)) {
		kprintf("bzImage: kernel at %#llx > 4 GiB without XLF_CAN_BE_LOADED_ABOVE_4G\n",
			(unsigned long long)lay->kernel_addr);
		rc = -ERANGE;
		goto fail;
	}
	memcpy(allocs.kernel, kernel->data + bz.setup_len, bz.kernel_len);
	/* The pin, on the bytes that run: the setup part the zero page is built from and the
	 * protected-mode part where it was just placed. */
	rc = image_trust_check_at(kernel, kernel->data, bz.setup_len, allocs.kernel);
	if (rc)
		goto fail;

	rc = load_initrds(&bz, lay);
	if (rc)
		goto fail;

	size_t clen = strlen(kernel->cmdline);
	if (clen > bz.cmdline_size) {
		kprintf("bzImage: command line %zu chars; kernel takes %u\n",
			clen, bz.cmdline_size);
		rc = -ERANGE;
		goto fail;
	}
	allocs.cmdline_size = clen + 1;
	allocs.cmdline = dma_alloc(allocs.cmdline_size, 16);
	lay->zero_page = dma_alloc(ZERO_PAGE_SIZE, 4096);
	if (!allocs.cmdline || !lay->zero_page) {
		kprintf("bzImage: no memory for zero page and command line\n");
		rc = -ENOMEM;
		goto fail;
	}
	memcpy(allocs.cmdline, kernel->cmdline, clen + 1);
	lay->cmdline_addr = virt_to_bus(allocs.cmdline);
	lay->zero_page_addr = virt_to_bus(lay->zero_page);
	if (!high_ok && (!below_4g(lay->cmdline_addr, clen + 1) || lay->initrd_addr >= GiB(4))) {
		kprintf("bzImage: command line or initrd > 4 GiB without XLF_CAN_BE_LOADED_ABOVE_4G\n");
		rc = -ERANGE;
		goto fail;
	}

	/* boot.rst "64-bit Boot Protocol": the setup header goes to 0x1f1 of a zeroed page. */
	uint8_t *bp = lay->zero_page;
	memset(bp, 0, ZERO_PAGE_SIZE);
	memcpy(bp + HDR_START, kernel->data + HDR_START, bz.header_end - HDR_START);
	bp[HDR_TYPE_OF_LOADER] = LOADER_UNDEFINED;
	wr32(bp + HDR_CODE32_START, (uint32_t)lay->kernel_addr);
	wr32(bp + HDR_CMD_LINE_PTR, (uint32_t)lay->cmdline_addr);
	wr32(bp + BP_EXT_CMD_LINE_PTR, (uint32_t)(lay->cmdline_addr >> 32));
	wr32(bp + HDR_RAMDISK_IMAGE, (uint32_t)lay->initrd_addr);
	wr32(bp + HDR_RAMDISK_SIZE, (uint32_t)lay->initrd_len);
	wr32(bp + BP_EXT_RAMDISK_IMAGE, (uint32_t)(lay->initrd_addr >> 32));
	wr32(bp + BP_EXT_RAMDISK_SIZE, (uint32_t)(lay->initrd_len >> 32));
	kprintf("bzImage: protocol %u.%02u, kernel %zu KiB at %#llx (init_size %u KiB, align "
		"%#zx)\n", bz.version >> 8, bz.version & 0xff, bz.kernel_len >> 10,
		(unsigned long long)lay->kernel_addr, bz.init_size >> 10, align);
	if (lay->initrd_len)
		kprintf("bzImage: initrd %llu KiB at %#llx\n",
			(unsigned long long)(lay->initrd_len >> 10),
			(unsigned long long)lay->initrd_addr);
	kprintf("bzImage: command line \"%s\"\n", kernel->cmdline);
	return 0;
fail:
	bzimage_unload(lay);
	return rc;
}
