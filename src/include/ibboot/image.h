/* SPDX-License-Identifier: MIT */
/*
 * Images: named files held in memory from the platform allocator (kernel, initrds, scripts), each
 * with a command line, as iPXE's image list. Commands: imgfetch/kernel/initrd/chain/imgargs/
 * imgstat/imgfree/sha256/boot (src/cmd/image_cmd.c). Loaders: Linux bzImage (bzimage.c),
 * multiboot v1 (multiboot.c); scripts run through src/script.
 */
#ifndef IBBOOT_IMAGE_H
#define IBBOOT_IMAGE_H

#include <ibboot/compiler.h>
#include <ibboot/sha256.h>

#define IMAGE_NAME_MAX    32
#define IMAGE_URI_MAX     256
#define IMAGE_CMDLINE_MAX 2048

enum image_role {
	IMAGE_ROLE_NONE,     /* imgfetch: kept, passed to a multiboot kernel as a module */
	IMAGE_ROLE_KERNEL,   /* kernel: the one `boot` starts */
	IMAGE_ROLE_INITRD,   /* initrd: concatenated into the Linux initramfs, in order */
};

struct image {
	char name[IMAGE_NAME_MAX];
	char uri[IMAGE_URI_MAX];
	char cmdline[IMAGE_CMDLINE_MAX];
	uint8_t *data;           /* dma_alloc'd, `alloc` bytes */
	size_t len, alloc;
	enum image_role role;
	/* sha256: 1 = checked and matched, -1 = checked and did not match (boot refused). */
	int verified;
	/* The SHA-256 it must have (`pinned` says when it was given; see the trust policy). */
	uint8_t pin[SHA256_DIGEST_LEN];
	enum image_pin_when {
		IMAGE_UNPINNED,
		IMAGE_PINNED_AFTER_FETCH,    /* a `sha256 NAME HEX` line after the fetch */
		IMAGE_PINNED_BEFORE_FETCH,   /* --sha256 HEX on the fetch, or the DHCP boot-file pin */
	} pinned;
	struct image *next;
};

/* Registers a copy of data[0..len) under `name` (replacing an image of that name). NULL with a
 * message when memory runs out or the name is too long. */
struct image *image_add(const char *name, const void *data, size_t len);
/* Takes ownership of a dma_alloc'd buffer of `alloc` bytes holding `len` bytes of file. */
struct image *image_adopt(const char *name, uint8_t *buf, size_t len, size_t alloc);
struct image *image_find(const char *name);
struct image *image_first(void);
/* The image `boot` would start: the last with role KERNEL, else NULL. */
struct image *image_selected(void);
void image_free(struct image *img);
void image_free_all(void);
/* Sets the command line from argv[0..argc) joined by spaces; -ERANGE if too long. */
int image_set_cmdline(struct image *img, int argc, char **argv);
/* The last path component of a URI ("http://h/a/b.img?x" → "b.img"), truncated to fit. */
void image_name_from_uri(const char *uri, char *name, size_t size);

/* `sha256 NAME HEX`: 0 on a match; -EPERM (and the image marked so `boot` refuses it) on a
 * mismatch, both with a message. */
int image_verify_sha256(struct image *img, const char *hex);
/* Hashes img's bytes and compares them with `want`, printing "sha256: NAME OK (...)" or the
 * MISMATCH lines; before_fetch says whether `want` is a pin given before the fetch (a mismatch
 * then discards the download) or a `sha256` line's (the image will not boot). 0 or -EPERM. */
int image_sha256_match(const struct image *img, const uint8_t want[SHA256_DIGEST_LEN],
		       bool before_fetch);

/*
 * Trust policy (image.c), as iPXE's `imgtrust --permanent` but with SHA-256 pins. Permissive
 * (the default): a pinned image boots only if its bytes match the pin; an unpinned one boots.
 * Enforcing (`make TRUST=enforce`, or the `imgtrust` command; never turned off again): nothing
 * is fetched, booted or run as a script unless its SHA-256 was pinned before it was fetched.
 * Pins are checked again on the bytes that boot, once the loaders have put them in place.
 */
bool image_trust_enforcing(void);
/* Turns enforcing mode on for the rest of this boot (there is no way back). */
void image_trust_enforce(void);
/* Parses 64 hex digits into pin; -EINVAL with "WHO: 'HEX' is not ..." when it is not. */
int image_pin_parse(const char *who, const char *hex, uint8_t pin[SHA256_DIGEST_LEN]);
/* Whether `img` may be used at all under the policy: -EPERM with the reason when it failed a
 * pin, or when enforcing and it was not pinned before its fetch. */
int image_trust_allowed(const struct image *img);
/* The policy and the pin against `digest`, the SHA-256 of the bytes that will boot or run for
 * img (the loaders' final copies): 0, or -EPERM with a message naming img. */
int image_trust_check(const struct image *img, const uint8_t digest[SHA256_DIGEST_LEN]);
/* image_trust_check on img->data[0..len). */
int image_trust_check_data(const struct image *img);
/* image_trust_check on img->len bytes placed as head[0..head_len) then rest (a loader's copy). */
int image_trust_check_at(const struct image *img, const void *head, size_t head_len,
			 const void *rest);
#if __STDC_HOSTED__
void image_trust_reset_for_tests(void);   /* hosted test programs only */
#endif

/* ---- Linux bzImage (Documentation/arch/x86/boot.rst) ---- */
#define BZ_XLF_KERNEL_64            (1u << 0)
#define BZ_XLF_CAN_BE_LOADED_ABOVE_4G (1u << 1)
struct bzimage_info {
	uint16_t version;          /* boot protocol, 0x020c = 2.12 */
	uint8_t setup_sects, loadflags, relocatable;
	uint16_t xloadflags;
	uint32_t code32_start, initrd_addr_max, kernel_alignment, cmdline_size, init_size;
	uint8_t min_alignment;     /* log2 */
	uint64_t pref_address;
	size_t setup_len;          /* real-mode part: (setup_sects + 1) * 512 */
	size_t kernel_len;         /* protected-mode part (the rest of the file) */
	size_t header_end;         /* 0x202 + byte 0x201: the setup header's end */
};
/* For the format parsers: formats the reason into a shared buffer, points *why (if given) at it,
 * and returns rc. */
int image_fail(const char **why, int rc, const char *fmt, ...) __printf(3, 4);
/* Validates the setup header of a bzImage that we can enter by the 64-bit protocol. 0, or
 * -EINVAL / -ENOTSUP with *why ("bzImage: protocol 2.02 too old for a 64-bit entry ..."). */
int bzimage_parse(const uint8_t *data, size_t len, struct bzimage_info *out, const char **why);
/* The placement the loader chose (for tests and the console). */
struct bzimage_layout {
	uint64_t kernel_addr;      /* protected-mode kernel; entry = kernel_addr + 0x200 */
	uint64_t initrd_addr, initrd_len;
	uint64_t cmdline_addr, zero_page_addr;
	uint8_t *zero_page;        /* boot_params (4 KiB) */
};
/* Places kernel, initrds (all images with role INITRD, concatenated) and command line and
 * builds the zero page. Allocations are released by bzimage_unload. */
int bzimage_load(const struct image *kernel, struct bzimage_layout *lay);
void bzimage_unload(struct bzimage_layout *lay);

/* ---- Multiboot v1 (Multiboot Specification 0.6.96) ---- */
#define MB_HEADER_MAGIC  0x1badb002u
#define MB_SEARCH_LEN    8192
#define MB_FLAG_PAGE_ALIGN (1u << 0)
#define MB_FLAG_MEMINFO    (1u << 1)
#define MB_FLAG_VIDEO      (1u << 2)
#define MB_FLAG_AOUT_KLUDGE (1u << 16)
#define MB_MAX_SEGMENTS  8
struct mb_segment {
	uint32_t paddr;            /* where it goes */
	size_t file_off, file_len; /* what to copy from the image */
	uint32_t mem_len;          /* file_len plus zeroed bss */
};
struct multiboot_info_parsed {
	size_t header_off;
	uint32_t flags, entry;
	unsigned n_segments;
	struct mb_segment seg[MB_MAX_SEGMENTS];
	bool elf;                  /* segments from ELF32 program headers, else the a.out kludge */
};
/* Finds and validates the multiboot header and the load segments (a.out kludge or ELF32
 * PT_LOAD). 0, -ENOENT (no header: not a multiboot image), or -EINVAL / -ENOTSUP with *why. */
int multiboot_parse(const uint8_t *data, size_t len, struct multiboot_info_parsed *out,
		    const char **why);

/* A multiboot kernel ready to enter: the information block and the trampoline's page, both
 * below 4 GiB where no segment lands; image data moved out of the segments' way. */
struct multiboot_plan {
	struct multiboot_info_parsed mb;
	uint8_t *area;             /* information block, strings, memory map, module list */
	uint8_t *param;            /* the trampoline's page (src/image/mb_trampoline.h) */
	uint32_t mbi_addr;
};
/* plan->mb: the kernel's multiboot_parse result. */
int multiboot_load(struct image *kernel, struct multiboot_plan *plan);
/* The kernel and every module it would get (every other image but scripts and other kernels)
 * under the trust policy; with `hash`, each pin against the image's buffer as it is now
 * (multiboot_load calls it once the modules are where the kernel will find them). */
int multiboot_check_pins(const struct image *kernel, bool hash);
void multiboot_unload(struct multiboot_plan *plan);
/* Leaves long mode through the trampoline and enters the kernel (set on pcbios only). */
extern int (*image_multiboot_handoff)(void *param_page);

/* Boots `img` (or the selected kernel when NULL): detects its type, refuses images that failed
 * sha256, quiesces the devices and hands over. Returns only on failure. */
int image_boot(struct image *img);
/* How the last step hands over: plat_boot_linux64 in the firmware; tests replace it. */
extern int (*image_linux64_handoff)(uint64_t entry, void *boot_params);
/* When set, `boot` hands a Linux kernel to it instead of the bzImage loader: the efi platform
 * starts the kernel through its EFI stub (src/platform/efi/linux.c). Returns only on failure. */
extern int (*image_linux_boot)(struct image *kernel);
/* Runs a script image (src/script sets it in the firmware). */
extern int (*image_run_script)(struct image *img);

#endif
