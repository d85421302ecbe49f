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

int (*image_linux_boot)(struct image *kernel);

/* Stops the devices before `what` starts at `entry`. One that did not reset may still write into
 * memory the kernel would own: refused rather than fenced off in the memory map
 * (src/image/README.md says why). */
static int stop_devices(const char *what, uint64_t entry)
{
	boot_phase("starting %s at %#llx; shutting down devices (HCA quiesced)", what,
		   (unsigned long long)entry);
	if (pci_remove_drivers() == 0)
		return 0;
	kprintf("boot: refusing to start %s: a device could not be reset (may still DMA); "
		"power-cycle\n", what);
	return -EBUSY;
}

static void handoff_failed(int rc)
{
	kprintf("boot: handoff refused (%s); devices shut down: reboot\n", ib_strerror(rc));
}

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
		kprintf("boot: no zero page below 4 GiB\n");
		rc = -ERANGE;
	} else if (!(rc = stop_devices("Linux", lay.kernel_addr + 0x200))) {
		rc = (image_linux64_handoff ? image_linux64_handoff : plat_boot_linux64)(
			lay.kernel_addr + 0x200, lay.zero_page);
		handoff_failed(rc);
	}
	bzimage_unload(&lay);
	return rc;
}

static int boot_multiboot(struct image *img, struct multiboot_plan *plan)
{
	int rc;

	if (!image_multiboot_handoff) {
		kprintf("boot: %s is a multiboot kernel; this platform cannot enter one\n",
			img->name);
		return -ENOTSUP;
	}
	rc = multiboot_load(img, plan);
	if (rc)
		return rc;
	if (!(rc = stop_devices("multiboot kernel", plan->mb.entry))) {
		rc = image_multiboot_handoff(plan->param);
		handoff_failed(rc);
	}
	multiboot_unload(plan);
	return rc;
}

int image_boot(struct image *img)
{
	struct multiboot_plan plan;
	const char *why;
	int rc;

	if (!img)
		img = image_selected();
	if (!img) {
		kprintf("boot: no kernel (kernel URL first)\n");
		return -ENOENT;
	}
	/* The trust policy, before anything is loaded: a failed pin, or (enforcing) no pin given
	 * before the fetch. The loaders check every pin again on the bytes they place — kernel,
	 * initrds, multiboot modules — and a script is checked on its own buffer below. */
	rc = image_trust_allowed(img);
	if (rc)
		return rc;
	if (script_is_script(img->data, img->len)) {
		if (!image_run_script) {
			kprintf("boot: %s: script, no interpreter\n", img->name);
			return -ENOTSUP;
		}
		rc = image_trust_check_data(img);   /* the bytes the interpreter will read */
		if (rc)
			return rc;
		return image_run_script(img);
	}
	if (img->len > 0x206 && memcmp(img->data + 0x202, "HdrS", 4) == 0)
		return boot_linux(img);
	rc = multiboot_parse(img->data, img->len, &plan.mb, &why);
	if (rc == 0)
		return boot_multiboot(img, &plan);
	if (rc != -ENOENT) {
		kprintf("boot: %s: %s\n", img->name, why);
		return rc;
	}
	kprintf("boot: %s (%zu bytes): not bzImage, multiboot or script: check the URL\n",
		img->name, img->len);
	return -ENOTSUP;
}
