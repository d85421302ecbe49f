/* SPDX-License-Identifier: MIT */
/*
 * The EFI driver form of ibboot (bin/ibboot.efirom, the HCA's UEFI option ROM): the PCI bus driver
 * loads and starts the ROM's image while it enumerates the bus (UEFI 2.10 §14.4.2); its entry only
 * puts a LoadFile protocol (§13.1) on a child of the HCA's device path, which the boot manager
 * offers as a boot option (§3.1.2, network boot through LoadFile). Booting that option calls
 * LoadFile, which runs ibboot as the application would: a netboot that starts Linux never comes
 * back; one that fails unwinds here (efi_longjmp) with its memory given back and the HCA quiesced,
 * and LoadFile says EFI_NOT_FOUND so the boot manager tries its next option.
 */
#include "efi_plat.h"
#include <ibboot/string.h>

#define EFI_LOAD_FILE_PROTOCOL_GUID \
	{ 0x56ec3091, 0x954c, 0x11d2, { 0x8e, 0x3f, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b } }
/* Our vendor node's GUID (10.3.4.9 Vendor-Defined Messaging Device Path): names the boot option. */
#define IBBOOT_VENDOR_GUID \
	{ 0x6962626f, 0x6f74, 0x4962, { 0x89, 0x6e, 0x66, 0x69, 0x6e, 0x69, 0x62, 0x61 } }
#define EFI_DP_TYPE_MESSAGING 0x03
#define EFI_DP_MSG_VENDOR     0x0a

int efi_setjmp(uint64_t ctx[8]) __attribute__((returns_twice));
__noreturn void efi_longjmp(uint64_t ctx[8]);

static const efi_guid loaded_image_guid = EFI_LOADED_IMAGE_PROTOCOL_GUID;
static const efi_guid device_path_guid = EFI_DEVICE_PATH_PROTOCOL_GUID;
static const efi_guid load_file_guid = EFI_LOAD_FILE_PROTOCOL_GUID;
static const efi_guid vendor_guid = IBBOOT_VENDOR_GUID;

static uint64_t unwind[8];
static bool ran;

static void leave_load_file(void)
{
	efi_longjmp(unwind);
}

static efi_status EFIAPI ibboot_load_file(struct efi_load_file2 *self __unused,
					  struct efi_device_path *path __unused,
					  bool boot_policy __unused, uint64_t *size __unused,
					  void *buf __unused)
{
	/* One netboot per machine start: the drivers' state of a run that gave up is not reused. */
	if (ran)
		return EFI_NOT_FOUND;
	ran = true;
	efi_leave = leave_load_file;
	if (efi_setjmp(unwind) == 0) {
		efi_bs->set_watchdog_timer(0, 0, 0, NULL);
		efi_console_init();
		efi_time_init();
		efi_memory_init();
		efi_pci_init();
		ibboot_main();   /* powers off or starts Linux; a failure comes back by efi_leave */
	}
	efi_console_flush();
	return EFI_NOT_FOUND;
}

static struct efi_load_file2 load_file = { ibboot_load_file };

static size_t path_len(const struct efi_device_path *p)
{
	size_t n = 0;

	for (int i = 0; i < 64 && p->type != EFI_DP_TYPE_END; i++) {
		size_t l = (size_t)(p->length[0] | p->length[1] << 8);

		if (l < 4)
			break;
		n += l;
		p = (const void *)((const uint8_t *)p + l);
	}
	return n;
}

efi_status EFIAPI efi_driver_main(efi_handle image, struct efi_system_table *st);
efi_status EFIAPI efi_driver_main(efi_handle image, struct efi_system_table *st)
{
	struct efi_loaded_image *li = NULL;
	struct efi_device_path *parent = NULL;
	efi_handle h = NULL;
	uint8_t *dp;
	efi_status s;

	efi_image = image;
	efi_st = st;
	efi_bs = st->boot_services;
	/* The PCI bus driver loads a ROM image from the device's own path (plus a ROM-offset
	 * node), so the loaded image's device is the HCA. */
	s = efi_bs->handle_protocol(image, &loaded_image_guid, (void **)&li);
	if (s != EFI_SUCCESS || !li->device_handle)
		return EFI_UNSUPPORTED;
	s = efi_bs->handle_protocol(li->device_handle, &device_path_guid, (void **)&parent);
	if (s != EFI_SUCCESS)
		return EFI_UNSUPPORTED;
	size_t n = path_len(parent);
	if (efi_bs->allocate_pool(EFI_BOOT_SERVICES_DATA, n + 20 + 4, (void **)&dp) != EFI_SUCCESS)
		return EFI_OUT_OF_RESOURCES;
	memcpy(dp, parent, n);
	dp[n] = EFI_DP_TYPE_MESSAGING;
	dp[n + 1] = EFI_DP_MSG_VENDOR;
	dp[n + 2] = 20;
	dp[n + 3] = 0;
	memcpy(dp + n + 4, &vendor_guid, 16);
	dp[n + 20] = EFI_DP_TYPE_END;
	dp[n + 21] = EFI_DP_END_ENTIRE;
	dp[n + 22] = 4;
	dp[n + 23] = 0;
	s = efi_bs->install_protocol_interface(&h, &device_path_guid, EFI_NATIVE_INTERFACE, dp);
	if (s == EFI_SUCCESS)
		s = efi_bs->install_protocol_interface(&h, &load_file_guid, EFI_NATIVE_INTERFACE,
						       &load_file);
	return s;
}
