/* SPDX-License-Identifier: MIT */
/*
 * Hosted platform only: the registry of software PCI devices that stand in for hardware when
 * ibboot runs as a Linux process. Config and BAR accesses for a registered bdf are forwarded to the
 * device's callbacks (the same shape as hcasim's: BAR data crosses as bytes in bus order).
 * BARs left unassigned by the device get addresses at registration, as a BIOS would assign them.
 */
#ifndef IBBOOT_HOSTED_H
#define IBBOOT_HOSTED_H

#include <ibboot/compiler.h>

struct soft_pci_ops {
	uint32_t (*cfg_read)(void *ctx, unsigned off, unsigned size);
	void (*cfg_write)(void *ctx, unsigned off, uint32_t val, unsigned size);
	void (*bar_read)(void *ctx, unsigned bar, uint64_t off, void *data, unsigned size);
	void (*bar_write)(void *ctx, unsigned bar, uint64_t off, const void *data, unsigned size);
	/* Optional: run the device (called from plat_poll); true if it did any work, so the
	 * platform knows not to doze in plat_cpu_relax() while a device is busy. */
	bool (*poll)(void *ctx);
};

/* -EEXIST if bdf is taken, -ENOSPC if the registry is full, -EINVAL for bad arguments. */
int soft_pci_register(uint32_t bdf, const struct soft_pci_ops *ops, void *ctx);
void soft_pci_unregister(uint32_t bdf);
void soft_pci_unregister_all(void);

/*
 * A ready-made config space for simple software devices and tests: a 256-byte header whose BAR
 * registers behave as hardware's (writes keep only the address bits the BAR decodes), read-only
 * IDs, and a writable rest.
 */
struct soft_cfg {
	uint8_t bytes[256];
	uint64_t bar_size[6];   /* 0 = not implemented; for a 64-bit BAR set the low slot only */
};
void soft_cfg_init(struct soft_cfg *c, uint16_t vendor, uint16_t device, uint32_t class_code,
		   uint8_t header_type);
/* Declares BAR i: flags are the low bits (PCI_BAR_SPACE_IO, PCI_BAR_MEM_64, PCI_BAR_PREFETCH). */
void soft_cfg_set_bar(struct soft_cfg *c, unsigned i, uint32_t flags, uint64_t size, uint64_t addr);
uint32_t soft_cfg_read(void *ctx, unsigned off, unsigned size);
void soft_cfg_write(void *ctx, unsigned off, uint32_t val, unsigned size);

/* The built-in demonstration device (1234:0b1b, "ibboot test device"): BAR0 has an ID register
 * at 0 (0x1b1b0001, little-endian) and a scratch register at 4. */
int fakedev_register(uint32_t bdf);
#define FAKEDEV_VENDOR 0x1234
#define FAKEDEV_DEVICE 0x0b1b
#define FAKEDEV_ID_VALUE 0x1b1b0001u

/* The Hermon model (libhcasim) as a PCI function, optionally cabled to fabsim (only in
 * bin/ibboot-hosted, which links the model). Port p's GUID is node_guid + p (as on mlx4, and as
 * util/netboot-env numbers its HCA slots: pass NETBOOT_HCA<i>_NODE_GUID). */
struct hosted_hca_options {
	uint16_t device_id;    /* 0: ConnectX-3 (0x1003) */
	uint64_t node_guid;    /* 0: HOSTED_HCA_DEFAULT_GUID */
	unsigned num_ports;    /* 0: 2 */
	const char *fabric;    /* fabsim's HCA socket, or NULL for unplugged ports */
	bool log;              /* model log lines on stderr */
};
#define HOSTED_HCA_DEFAULT_GUID 0x0002c90300b0b000ull
/* Returns 0, or -1 with a reason in err. */
int hosted_hca_add(uint32_t bdf, const struct hosted_hca_options *o, char *err, size_t errlen);

/* Runs every software device once (plat_poll; also at every clock read, see plat_counter):
 * 1 if one did work (or a poll is already under way), 0 if all were idle, -1 if there are none. */
int hosted_poll_devices(void);

/* True if a software device did work on the last plat_poll(). */
bool hosted_devices_busy(void);

/* The boot command line plat_cmdline() returns (the program's arguments, joined). */
void hosted_set_cmdline(const char *s);

/* For software devices doing DMA: the host pointer for bus address `bus` if all of
 * [bus, bus+len) lies in the buffer arena, else NULL (a device model should treat that as a bus
 * error, as hardware would see a master abort, rather than touch host memory). */
void *hosted_dma_ptr(uint64_t bus, size_t len);

/* Size of the hosted DMA arena (default 64 MiB); call before first allocation. */
void hosted_set_ram_size(uint64_t bytes);

/* Never doze while idle (--busy-poll): spin like a CPU that only has the firmware to run, as a
 * guest in QEMU does (the rig bench's sink). */
void hosted_set_busy_poll(bool on);

#endif
