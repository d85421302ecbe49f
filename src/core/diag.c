/* SPDX-License-Identifier: MIT */
/*
 * Diagnostic commands that exercise the platform for real: `memcheck` takes every chunk of buffer
 * memory the allocator can give, writes and verifies a pattern in it, and gives it back; `mmio`
 * maps a PCI memory BAR and reads (and optionally writes) one register.
 */
#include <ibboot/shell.h>
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

int cmd_memcheck(int argc, char **argv);
int cmd_memcheck(int argc __unused, char **argv __unused)
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
	kprintf("memcheck: %llu MiB in %u chunks written and verified, highest address %#llx, "
		"%u bad; %s\n", (unsigned long long)(bytes >> 20), n, (unsigned long long)highest,
		bad, after.free == before.free ? "all freed" : "FREE COUNT CHANGED");
	return bad || after.free != before.free ? -EIO : 0;
}

static bool parse_num(const char *s, uint64_t *v)
{
	unsigned base = 10;

	*v = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned d = *s >= '0' && *s <= '9' ? (unsigned)(*s - '0') :
			     *s >= 'a' && *s <= 'f' ? (unsigned)(*s - 'a' + 10) :
			     *s >= 'A' && *s <= 'F' ? (unsigned)(*s - 'A' + 10) : 99;
		if (d >= base)
			return false;
		*v = *v * base + d;
	}
	return true;
}

/* "bb:dd.f" in hex, as the PCI listing prints it. */
static bool parse_bdf(const char *s, uint32_t *bdf)
{
	char part[3][3] = { { 0 } };
	uint64_t v[3];

	if (strlen(s) != 7 || s[2] != ':' || s[5] != '.')
		return false;
	memcpy(part[0], s, 2);
	memcpy(part[1], s + 3, 2);
	part[2][0] = s[6];
	for (int i = 0; i < 3; i++) {
		char hex[6] = "0x";

		memcpy(hex + 2, part[i], 3);
		if (!parse_num(hex, &v[i]))
			return false;
	}
	if (v[1] > 31 || v[2] > 7)
		return false;
	*bdf = PCI_BDF(v[0], v[1], v[2]);
	return true;
}

/* What the boot loader brought along, with a byte sum so tests can see it was left intact. */
int cmd_modules(int argc, char **argv);
int cmd_modules(int argc __unused, char **argv __unused)
{
	const struct plat_mem_region *mods;
	unsigned n = plat_boot_modules(&mods);

	for (unsigned i = 0; i < n; i++) {
		const uint8_t *p = bus_to_virt(mods[i].base);
		uint32_t sum = 0;

		for (uint64_t j = 0; j < mods[i].len; j++)
			sum += p[j];
		kprintf("module %u: %#llx, %llu bytes, byte sum %u\n", i,
			(unsigned long long)mods[i].base, (unsigned long long)mods[i].len, sum);
	}
	if (n == 0)
		kprintf("no boot modules\n");
	return 0;
}

/*
 * Enters boot module N as a 64-bit kernel image (entry at +0x200) by the Linux 64-bit boot
 * protocol, with a fresh zero page and the remaining arguments as its command line: the handoff
 * the kernel loader will use, for trying it out. Quiesces the devices first.
 */
#define EXEC64_ZERO_PAGE 4096
#define EXEC64_CMDLINE   2048
#define BP_TYPE_OF_LOADER 0x210
#define BP_CMD_LINE_PTR   0x228

int cmd_exec64(int argc, char **argv);
int cmd_exec64(int argc, char **argv)
{
	const struct plat_mem_region *mods;
	unsigned n = plat_boot_modules(&mods), idx = 0;
	uint8_t *bp;
	char *cmd;
	size_t len = 0;

	if (argc < 2 || argv[1][0] < '0' || argv[1][0] > '9' || argv[1][1]) {
		kprintf("usage: exec64 MODULE [COMMAND LINE...]\n");
		return -EINVAL;
	}
	idx = (unsigned)(argv[1][0] - '0');
	if (idx >= n || mods[idx].len <= 0x200) {
		kprintf("exec64: no boot module %u with a 64-bit entry at +0x200 (see 'modules')\n",
			idx);
		return -ENOENT;
	}
	bp = dma_alloc(EXEC64_ZERO_PAGE, 4096);
	cmd = dma_alloc(EXEC64_CMDLINE, 16);
	if (!bp || !cmd || virt_to_bus(cmd) >= (1ull << 32)) {
		kprintf("exec64: no memory below 4 GiB for the zero page and command line\n");
		dma_free(bp, EXEC64_ZERO_PAGE);
		dma_free(cmd, EXEC64_CMDLINE);
		return -ENOMEM;
	}
	memset(bp, 0, EXEC64_ZERO_PAGE);
	cmd[0] = '\0';
	for (int i = 2; i < argc; i++) {
		size_t l = strlen(argv[i]);

		if (len + l + 2 > EXEC64_CMDLINE)
			break;
		if (len)
			cmd[len++] = ' ';
		memcpy(cmd + len, argv[i], l + 1);
		len += l;
	}
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

int cmd_mmio(int argc, char **argv);
int cmd_mmio(int argc, char **argv)
{
	uint32_t bdf;
	uint64_t bar, off = 0, val = 0;
	struct pci_device *d;
	struct mmio m;

	if (argc < 3 || argc > 5 || !parse_bdf(argv[1], &bdf) || !parse_num(argv[2], &bar) ||
	    (argc > 3 && !parse_num(argv[3], &off)) || (argc > 4 && !parse_num(argv[4], &val))) {
		kprintf("usage: mmio BB:DD.F BAR [OFFSET [VALUE]]  (reads, or writes then reads, "
			"32 bits little-endian)\n");
		return -EINVAL;
	}
	for (d = pci_devices(); d && d->bdf != bdf; d = d->next)
		;
	if (!d) {
		kprintf("mmio: no PCI function %s (see 'pci')\n", argv[1]);
		return -ENODEV;
	}
	int rc = pci_map_bar(d, (unsigned)bar, &m);
	if (rc)
		return rc;
	if (argc > 4)
		writel(&m, off, (uint32_t)val);
	kprintf("mmio %s BAR%u at %#llx +%#llx: %#010x\n", argv[1], (unsigned)bar,
		(unsigned long long)m.phys, (unsigned long long)off, readl(&m, off));
	return 0;
}
