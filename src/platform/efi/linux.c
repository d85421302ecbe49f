/* SPDX-License-Identifier: MIT */
/*
 * efi: starting Linux through its EFI stub. Under UEFI the kernel is a PE32+ image (a bzImage
 * built with CONFIG_EFI_STUB carries "MZ" and a PE header in front of its setup header) that the
 * firmware loads and starts (UEFI 2.10 §7.4 LoadImage from a memory buffer, StartImage). The
 * stub reads its command line from its loaded image's LoadOptions (UCS-2, §9.1) and, since Linux
 * 5.7, asks for the initrd through a LoadFile2 protocol (§13.4) on a vendor media device path
 * with LINUX_EFI_INITRD_MEDIA_GUID. The stub itself calls ExitBootServices.
 *
 * As on a BIOS machine, every device is quiesced before the kernel runs (pci_remove_drivers: the
 * HCA reset, bus mastering off, no DMA left) and the handoff is refused if one could not be.
 */
#include "efi_plat.h"
#include <ibboot/console.h>
#include <ibboot/dma.h>
#include <ibboot/errno.h>
#include <ibboot/hooks.h>
#include <ibboot/image.h>
#include <ibboot/pci.h>
#include <ibboot/script.h>
#include <ibboot/sha256.h>
#include <ibboot/string.h>

#define PE_MACHINE_X86_64 0x8664

static const efi_guid loaded_image_guid = EFI_LOADED_IMAGE_PROTOCOL_GUID;
static const efi_guid device_path_guid = EFI_DEVICE_PATH_PROTOCOL_GUID;
static const efi_guid load_file2_guid = EFI_LOAD_FILE2_PROTOCOL_GUID;

static struct {
	struct efi_device_path vendor;
	efi_guid guid;
	struct efi_device_path end;
} __packed initrd_path = {
	{ EFI_DP_TYPE_MEDIA, EFI_DP_MEDIA_VENDOR, { 20, 0 } },
	LINUX_EFI_INITRD_MEDIA_GUID,
	{ EFI_DP_TYPE_END, EFI_DP_END_ENTIRE, { 4, 0 } },
};

static uint8_t *initrd;
static size_t initrd_len, initrd_alloc;

/* §13.4.1 LoadFile: with no buffer, or one too small, say the size; BootPolicy TRUE is for boot
 * manager use and never asked of an initrd. */
static efi_status EFIAPI initrd_load(struct efi_load_file2 *self __unused,
				     struct efi_device_path *path __unused, bool boot_policy,
				     uint64_t *size, void *buf)
{
	if (boot_policy)
		return EFI_UNSUPPORTED;
	if (!size)
		return EFI_INVALID_PARAMETER;
	if (!buf || *size < initrd_len) {
		*size = initrd_len;
		return EFI_BUFFER_TOO_SMALL;
	}
	memcpy(buf, initrd, initrd_len);
	*size = initrd_len;
	return EFI_SUCCESS;
}

static struct efi_load_file2 initrd_lf2 = { initrd_load };
static efi_handle initrd_handle;

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* "MZ", then at e_lfanew (0x3c) "PE\0\0" and the COFF machine x86-64 (PE/COFF spec §2-3). */
static bool has_efi_stub(const uint8_t *d, size_t len)
{
	if (len < 0x40 || d[0] != 'M' || d[1] != 'Z')
		return false;
	uint32_t pe = rd32(d + 0x3c);
	return pe <= len - 6 && memcmp(d + pe, "PE\0\0", 4) == 0 &&
	       (d[pe + 4] | d[pe + 5] << 8) == PE_MACHINE_X86_64;
}

static void initrd_release(void)
{
	if (initrd_handle) {
		efi_bs->uninstall_protocol_interface(initrd_handle, &load_file2_guid, &initrd_lf2);
		efi_bs->uninstall_protocol_interface(initrd_handle, &device_path_guid, &initrd_path);
		initrd_handle = NULL;
	}
	dma_free(initrd, initrd_alloc);
	initrd = NULL;
	initrd_len = initrd_alloc = 0;
}

/* Every INITRD image concatenated (each 4-byte aligned, as the bzImage loader does), each pin
 * checked on the copy the kernel will read. */
static int initrd_build(void)
{
	size_t total = 0, off = 0;

	for (struct image *i = image_first(); i; i = i->next)
		if (i->role == IMAGE_ROLE_INITRD)
			total = ALIGN_UP(total, 4) + i->len;
	if (!total)
		return 0;
	initrd = dma_alloc(total, 4096);
	if (!initrd) {
		kprintf("efi: no memory for %zu bytes of initrd (imgfree what is not needed)\n",
			total);
		return -ENOMEM;
	}
	initrd_alloc = total;
	for (struct image *i = image_first(); i; i = i->next) {
		if (i->role != IMAGE_ROLE_INITRD)
			continue;
		size_t pad = ALIGN_UP(off, 4) - off;

		memset(initrd + off, 0, pad);
		off += pad;
		memcpy(initrd + off, i->data, i->len);
		int rc = image_trust_allowed(i);
		if (!rc && i->pinned != IMAGE_UNPINNED) {
			uint8_t d[SHA256_DIGEST_LEN];

			sha256(initrd + off, i->len, d);
			rc = image_trust_check(i, d);
		}
		if (rc)
			return rc;
		off += i->len;
	}
	initrd_len = total;
	efi_status s = efi_bs->install_protocol_interface(&initrd_handle, &device_path_guid,
							  EFI_NATIVE_INTERFACE, &initrd_path);
	if (s == EFI_SUCCESS)
		s = efi_bs->install_protocol_interface(&initrd_handle, &load_file2_guid,
						       EFI_NATIVE_INTERFACE, &initrd_lf2);
	if (s != EFI_SUCCESS) {
		kprintf("efi: cannot offer the initrd through LoadFile2 (%s)\n", efi_strerror(s));
		return -EIO;
	}
	return 0;
}

static int efi_linux_boot(struct image *img)
{
	efi_handle h = NULL;
	struct efi_loaded_image *li = NULL;
	efi_char16 *opts = NULL;
	size_t clen = strlen(img->cmdline);
	efi_status s;
	int rc;

	if (!has_efi_stub(img->data, img->len)) {
		kprintf("boot: %s is a Linux kernel without an EFI stub (no PE32+ header behind "
			"\"MZ\"); under UEFI ibboot starts Linux only through its EFI stub — use "
			"a kernel built with CONFIG_EFI_STUB, or bin/ibboot.lkrn on a BIOS machine\n",
			img->name);
		return -ENOTSUP;
	}
	/* The pin, on the bytes LoadImage copies. */
	rc = image_trust_check_data(img);
	if (rc)
		return rc;
	rc = initrd_build();
	if (rc)
		goto fail;
	if (efi_bs->allocate_pool(EFI_LOADER_DATA, 2 * (clen + 1), (void **)&opts) != EFI_SUCCESS) {
		kprintf("efi: no memory for the kernel's command line\n");
		rc = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i <= clen; i++)
		opts[i] = (uint8_t)img->cmdline[i];
	/* LoadImage checks the PE image (and, under Secure Boot, its signature) before anything
	 * is shut down: a refusal leaves the network up. */
	s = efi_bs->load_image(false, efi_image, NULL, img->data, img->len, &h);
	if (s != EFI_SUCCESS) {
		kprintf("boot: the firmware's LoadImage refused %s (%s)%s\n", img->name,
			efi_strerror(s), s == EFI_SECURITY_VIOLATION ?
			": Secure Boot rejects its signature" : "");
		rc = s == EFI_SECURITY_VIOLATION ? -EPERM : -ENOTSUP;
		goto fail;
	}
	s = efi_bs->handle_protocol(h, &loaded_image_guid, (void **)&li);
	if (s != EFI_SUCCESS || !li) {
		kprintf("boot: the loaded kernel has no LoadedImage protocol (%s)\n", efi_strerror(s));
		rc = -EIO;
		goto fail;
	}
	li->load_options = opts;
	li->load_options_size = (uint32_t)(2 * (clen + 1));
	kprintf("efi: %s loaded by the firmware at %p (%llu KiB); initrd %zu KiB through "
		"LoadFile2; command line \"%s\"\n", img->name, li->image_base,
		(unsigned long long)(li->image_size >> 10), initrd_len >> 10, img->cmdline);
	boot_phase("starting Linux at its EFI stub (StartImage); shutting down devices (HCA "
		   "quiesced)");
	if (pci_remove_drivers() != 0) {
		kprintf("boot: refusing to start Linux: a device could not be reset and may still "
			"write into memory (see above); power-cycle the machine and try again\n");
		rc = -EBUSY;
		goto fail;
	}
	efi_console_flush();
	s = efi_bs->start_image(h, NULL, NULL);
	/* Only a stub that failed before ExitBootServices comes back. */
	kprintf("boot: the kernel's EFI stub returned %s; devices are shut down — reboot to use "
		"the network again\n", efi_strerror(s));
	h = NULL;   /* StartImage unloads an application that returned */
	rc = -EIO;
fail:
	if (h)
		efi_bs->unload_image(h);
	if (opts)
		efi_bs->free_pool(opts);
	initrd_release();
	return rc;
}

static void efi_linux_start(void)
{
	image_linux_boot = efi_linux_boot;
}

IBBOOT_HOOK(efi_linux, HOOK_ORDER_IMAGE, efi_linux_start, NULL);
