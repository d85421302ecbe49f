/* SPDX-License-Identifier: MIT */
/* `boot`: what kind of image it is, whether it may run, and the handoff. */
#include <ibboot/image.h>
#include <ibboot/script.h>
#include <ibboot/console.h>
#include <ibboot/errno.h>
#include <ibboot/pci.h>
#include <ibboot/platform.h>
#include <ibboot/string.h>

int (*image_run_script)(struct image *img);

/* The trust policy, before anything is loaded: a failed pin, or (enforcing) no pin given before
 * the fetch. The loaders check every pin again on the bytes they place — kernel, initrds,
 * multiboot modules — and image_boot on a script's own buffer. */
static int refuse_unverified(const struct image *kernel)
{
	return image_trust_allowed(kernel);
}

int (*image_linux_boot)(struct image *kernel);

static int boot_linux(struct image *img)
{
	struct bzimage_layout lay;
	int rc;

	if (image_linux_boot)   /* the platform starts Linux its own way (UEFI: the EFI stub) */
		return image_linux_boot(img);
	rc = bzimage_load(img, &lay);
	if (rc)
		return rc;
	/* plat_boot_linux64's own conditions, checked while the devices still work. */
	if (lay.zero_page_addr >= GiB(4)) {
		kprintf("boot: no memory below 4 GiB for the zero page\n");
		bzimage_unload(&lay);
		return -ERANGE;
	}
	boot_phase("starting Linux at %#llx; shutting down devices (HCA quiesced)",
		   (unsigned long long)(lay.kernel_addr + 0x200));
	if (pci_remove_drivers() != 0) {
		/* A device that did not reset may still write into memory Linux would own: refused
		 * rather than fenced off in the e820 map (src/image/README.md says why). */
		kprintf("boot: refusing to start Linux: a device could not be reset and may still "
			"write into memory (see above); power-cycle the machine and try again\n");
		bzimage_unload(&lay);
		return -EBUSY;
	}
	rc = (image_linux64_handoff ? image_linux64_handoff : plat_boot_linux64)(
		lay.kernel_addr + 0x200, lay.zero_page);
	kprintf("boot: the platform refused the handoff (%s); devices are shut down — reboot to "
		"use the network again\n", ib_strerror(rc));
	bzimage_unload(&lay);
	return rc;
}

static int boot_multiboot(struct image *img)
{
	struct multiboot_plan plan;
	int rc;

	if (!image_multiboot_handoff) {
		kprintf("boot: %s is a multiboot kernel; this platform cannot enter one (it needs "
			"a bare-metal 32-bit handoff)\n", img->name);
		return -ENOTSUP;
	}
	rc = multiboot_load(img, &plan);
	if (rc)
		return rc;
	boot_phase("starting multiboot kernel at %#x; shutting down devices (HCA quiesced)",
		   plan.mb.entry);
	if (pci_remove_drivers() != 0) {
		kprintf("boot: refusing to start the multiboot kernel: a device could not be reset "
			"and may still write into memory (see above); power-cycle the machine\n");
		multiboot_unload(&plan);
		return -EBUSY;
	}
	rc = image_multiboot_handoff(plan.param);
	kprintf("boot: multiboot handoff refused (%s); devices are shut down — reboot to use "
		"the network again\n", ib_strerror(rc));
	multiboot_unload(&plan);
	return rc;
}

int image_boot(struct image *img)
{
	struct multiboot_info_parsed mb;
	const char *why;
	int rc;

	if (!img)
		img = image_selected();
	if (!img) {
		kprintf("boot: no kernel; fetch one with 'kernel URL [ARGS]' or 'chain URL'\n");
		return -ENOENT;
	}
	rc = refuse_unverified(img);
	if (rc)
		return rc;
	if (script_is_script(img->data, img->len)) {
		if (!image_run_script) {
			kprintf("boot: %s is a script, and no script interpreter is built in\n",
				img->name);
			return -ENOTSUP;
		}
		rc = image_trust_check_data(img);   /* the bytes the interpreter will read */
		if (rc)
			return rc;
		return image_run_script(img);
	}
	if (img->len > 0x206 && memcmp(img->data + 0x202, "HdrS", 4) == 0)
		return boot_linux(img);
	rc = multiboot_parse(img->data, img->len, &mb, &why);
	if (rc == 0)
		return boot_multiboot(img);
	if (rc != -ENOENT) {
		kprintf("boot: %s: %s\n", img->name, why);
		return rc;
	}
	kprintf("boot: %s (%zu bytes) is neither a Linux bzImage, a multiboot kernel nor an "
		"iPXE script — check the URL serves the file you meant\n", img->name, img->len);
	return -ENOTSUP;
}
