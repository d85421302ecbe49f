/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics that exercise the platform for real (the `memcheck` and `exec64` commands call
 * them): memcheck takes every chunk of buffer memory the allocator can give, writes and verifies
 * a pattern in it, and gives it back; exec64 enters a boot module by the Linux 64-bit boot
 * protocol.
 */
#include <ibboot/ibboot.h>
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/pci.h>
#include <ibboot/string.h>
#include <ibboot/platform.h>

#define MEMCHECK_CHUNK  (64u << 20)
#define MEMCHECK_MAX    4096
#define MEMCHECK_PROBES 3

/* The chunk list lives in its own first bytes, so memcheck needs no memory of its own. */
struct chunk {
	struct chunk *next;
	size_t size;
};

static uint64_t pattern_at(uint64_t addr)
{
	return addr * 0x9e3779b97f4a7c15ull ^ 0x5a5a5a5a5a5a5a5aull;
}

/* Writes at the start, the middle and the end of the chunk: each touches a different page. */
static bool touch_chunk(uint8_t *p, size_t size, bool write)
{
	size_t offs[MEMCHECK_PROBES] = { sizeof(struct chunk), size / 2, size - 8 };

	for (unsigned i = 0; i < MEMCHECK_PROBES; i++) {
		volatile uint64_t *w = (volatile uint64_t *)(p + (offs[i] & ~(size_t)7));
		uint64_t want = pattern_at(virt_to_bus((const void *)w));

		if (write)
			*w = want;
		else if (*w != want)
			return false;
	}
	return true;
}

int memcheck(void)
{
	struct dma_stats before, after;
	struct chunk *list = NULL;
	uint64_t bytes = 0, highest = 0;
	unsigned n = 0, bad = 0;
	size_t size = MEMCHECK_CHUNK;

	dma_get_stats(&before);
	/* Big naturally aligned chunks first, then smaller ones for the remainder. */
	while (n < MEMCHECK_MAX && size >= 4096) {
		uint8_t *p = dma_alloc(size, size);

		if (!p) {
			size /= 2;
			continue;
		}
		struct chunk *c = (struct chunk *)p;
		c->next = list;
		c->size = size;
		list = c;
		touch_chunk(p, size, true);
		bytes += size;
		if (virt_to_bus(p) + size - 1 > highest)
			highest = virt_to_bus(p) + size - 1;
		n++;
	}
	while (list) {
		struct chunk *c = list;

		list = c->next;
		if (!touch_chunk((uint8_t *)c, c->size, false)) {
			kprintf("memcheck: pattern lost in %#llx+%#zx\n",
				(unsigned long long)virt_to_bus(c), c->size);
			bad++;
		}
		dma_free(c, c->size);
	}
	dma_get_stats(&after);
	kprintf("memcheck: %llu MiB in %u chunks verified, highest %#llx, %u bad; %s\n",
		(unsigned long long)(bytes >> 20), n, (unsigned long long)highest, bad,
		after.free == before.free ? "all freed" : "FREE COUNT CHANGED");
	return bad || after.free != before.free ? -EIO : 0;
}

/*
 * Enters boot module `idx` as a 64-bit kernel image (entry at +0x200) by the Linux 64-bit boot
 * protocol, with a fresh zero page and `cmdline`: the handoff the kernel loader uses, for trying it
 * out. Quiesces the devices first.
 */
#define EXEC64_ZERO_PAGE 4096
#define EXEC64_CMDLINE   2048
#define BP_TYPE_OF_LOADER 0x210
#define BP_CMD_LINE_PTR   0x228

int exec64_module(unsigned idx, const char *cmdline)
{
	const struct plat_mem_region *mods;
	unsigned n = plat_boot_modules(&mods);
	size_t len = strlen(cmdline);
	uint8_t *bp;
	char *cmd;

	if (idx >= n || mods[idx].len <= 0x200) {
		kprintf("exec64: no boot module %u with a 64-bit entry at +0x200\n",
			idx);
		return -ENOENT;
	}
	if (len >= EXEC64_CMDLINE)
		len = EXEC64_CMDLINE - 1;
	bp = dma_alloc(EXEC64_ZERO_PAGE, 4096);
	cmd = dma_alloc(EXEC64_CMDLINE, 16);
	if (!bp || !cmd || virt_to_bus(cmd) >= (1ull << 32)) {
		kprintf("exec64: no memory below 4 GiB\n");
		dma_free(bp, EXEC64_ZERO_PAGE);
		dma_free(cmd, EXEC64_CMDLINE);
		return -ENOMEM;
	}
	memset(bp, 0, EXEC64_ZERO_PAGE);
	memcpy(cmd, cmdline, len);
	cmd[len] = '\0';
	uint32_t cmd_ptr = (uint32_t)virt_to_bus(cmd);
	memcpy(bp + BP_CMD_LINE_PTR, &cmd_ptr, 4);
	bp[BP_TYPE_OF_LOADER] = 0xff;   /* "undefined" loader, per the boot protocol */
	kprintf("exec64: entering module %u at %#llx\n", idx,
		(unsigned long long)(mods[idx].base + 0x200));
	pci_remove_drivers();
	int rc = plat_boot_linux64(mods[idx].base + 0x200, bp);
	kprintf("exec64: handoff refused: %s\n", ib_strerror(rc));
	dma_free(bp, EXEC64_ZERO_PAGE);
	dma_free(cmd, EXEC64_CMDLINE);
	return rc;
}
