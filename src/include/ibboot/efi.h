/* SPDX-License-Identifier: MIT */
/*
 * The few UEFI definitions the efi platform uses, written from the UEFI Specification 2.x (section
 * numbers below are those of 2.10): the system table, the boot and runtime services it calls, the
 * text console, the loaded-image, device-path, PCI root bridge I/O and LoadFile2 protocols.
 * Only what is called is spelled out; the other slots of each table are placeholders so that the
 * offsets stay those of the specification.
 *
 * Calls into the firmware use the Microsoft x64 calling convention (UEFI 2.3.4.2), hence
 * EFIAPI on every function-pointer type; the rest of ibboot stays System V.
 */
#ifndef IBBOOT_EFI_H
#define IBBOOT_EFI_H

#include <ibboot/compiler.h>

#define EFIAPI __attribute__((ms_abi))

typedef uint64_t efi_status;
typedef void *efi_handle;
typedef void *efi_event;
typedef uint16_t efi_char16;
typedef uint64_t efi_phys_addr;

/* Appendix D: error codes have the top bit set. */
#define EFI_ERR(n)                 ((1ull << 63) | (n))
#define EFI_SUCCESS                0
#define EFI_LOAD_ERROR             EFI_ERR(1)
#define EFI_INVALID_PARAMETER      EFI_ERR(2)
#define EFI_UNSUPPORTED            EFI_ERR(3)
#define EFI_BUFFER_TOO_SMALL       EFI_ERR(5)
#define EFI_NOT_READY              EFI_ERR(6)
#define EFI_OUT_OF_RESOURCES       EFI_ERR(9)
#define EFI_NOT_FOUND              EFI_ERR(14)
#define EFI_SECURITY_VIOLATION     EFI_ERR(26)
#define EFI_ERROR(s)               (((s) >> 63) != 0)

typedef struct {
	uint32_t d1;
	uint16_t d2, d3;
	uint8_t d4[8];
} efi_guid;

/* 4.2 EFI_TABLE_HEADER */
struct efi_table_header {
	uint64_t signature;
	uint32_t revision, header_size, crc32, reserved;
};

/* 12.3 Simple Text Input Protocol */
struct efi_input_key {
	uint16_t scan_code;
	efi_char16 unicode_char;
};
struct efi_simple_text_input {
	efi_status (EFIAPI *reset)(struct efi_simple_text_input *self, bool extended);
	efi_status (EFIAPI *read_key_stroke)(struct efi_simple_text_input *self,
					     struct efi_input_key *key);
	efi_event wait_for_key;
};

/* 12.4 Simple Text Output Protocol */
struct efi_simple_text_output_mode {
	int32_t max_mode, mode, attribute, cursor_column, cursor_row;
	bool cursor_visible;
};
struct efi_simple_text_output {
	efi_status (EFIAPI *reset)(struct efi_simple_text_output *self, bool extended);
	efi_status (EFIAPI *output_string)(struct efi_simple_text_output *self,
					   const efi_char16 *s);
	void *test_string;
	efi_status (EFIAPI *query_mode)(struct efi_simple_text_output *self, uint64_t mode,
					uint64_t *columns, uint64_t *rows);
	efi_status (EFIAPI *set_mode)(struct efi_simple_text_output *self, uint64_t mode);
	void *set_attribute, *clear_screen, *set_cursor_position, *enable_cursor;
	struct efi_simple_text_output_mode *mode;
};

/* 8.5.1 ResetSystem */
enum efi_reset_type { EFI_RESET_COLD = 0, EFI_RESET_WARM = 1, EFI_RESET_SHUTDOWN = 2 };

/* 8 Services — Runtime Services */
struct efi_runtime_services {
	struct efi_table_header hdr;
	void *get_time, *set_time, *get_wakeup_time, *set_wakeup_time;
	void *set_virtual_address_map, *convert_pointer;
	void *get_variable, *get_next_variable_name, *set_variable;
	void *get_next_high_monotonic_count;
	void (EFIAPI *reset_system)(enum efi_reset_type type, efi_status status, uint64_t size,
				    void *data);
};

/* 7.2 Memory Allocation Services */
enum efi_allocate_type {
	EFI_ALLOCATE_ANY_PAGES = 0, EFI_ALLOCATE_MAX_ADDRESS = 1, EFI_ALLOCATE_ADDRESS = 2,
};
enum efi_memory_type {
	EFI_RESERVED_MEMORY = 0, EFI_LOADER_CODE = 1, EFI_LOADER_DATA = 2,
	EFI_BOOT_SERVICES_CODE = 3, EFI_BOOT_SERVICES_DATA = 4,
	EFI_RUNTIME_SERVICES_CODE = 5, EFI_RUNTIME_SERVICES_DATA = 6,
	EFI_CONVENTIONAL_MEMORY = 7, EFI_UNUSABLE_MEMORY = 8, EFI_ACPI_RECLAIM_MEMORY = 9,
	EFI_ACPI_MEMORY_NVS = 10, EFI_MEMORY_MAPPED_IO = 11, EFI_MEMORY_MAPPED_IO_PORT_SPACE = 12,
	EFI_PAL_CODE = 13, EFI_PERSISTENT_MEMORY = 14,
};
/* GetMemoryMap: descriptors are descriptor_size apart, which may exceed this struct. */
struct efi_memory_descriptor {
	uint32_t type;
	efi_phys_addr physical_start;
	uint64_t virtual_start, number_of_pages, attribute;
};

/* 7.3 Protocol Handler Services */
enum efi_locate_search_type { EFI_ALL_HANDLES = 0, EFI_BY_REGISTER_NOTIFY = 1, EFI_BY_PROTOCOL = 2 };
enum efi_interface_type { EFI_NATIVE_INTERFACE = 0 };

struct efi_device_path;

/* 4.4 EFI Boot Services Table */
struct efi_boot_services {
	struct efi_table_header hdr;
	void *raise_tpl, *restore_tpl;
	efi_status (EFIAPI *allocate_pages)(enum efi_allocate_type type, enum efi_memory_type mt,
					    uint64_t pages, efi_phys_addr *memory);
	efi_status (EFIAPI *free_pages)(efi_phys_addr memory, uint64_t pages);
	efi_status (EFIAPI *get_memory_map)(uint64_t *size, struct efi_memory_descriptor *map,
					    uint64_t *key, uint64_t *descriptor_size,
					    uint32_t *descriptor_version);
	efi_status (EFIAPI *allocate_pool)(enum efi_memory_type mt, uint64_t size, void **buffer);
	efi_status (EFIAPI *free_pool)(void *buffer);
	void *create_event, *set_timer, *wait_for_event, *signal_event, *close_event, *check_event;
	efi_status (EFIAPI *install_protocol_interface)(efi_handle *handle, const efi_guid *protocol,
							enum efi_interface_type type,
							void *interface);
	void *reinstall_protocol_interface;
	efi_status (EFIAPI *uninstall_protocol_interface)(efi_handle handle,
							  const efi_guid *protocol,
							  void *interface);
	efi_status (EFIAPI *handle_protocol)(efi_handle handle, const efi_guid *protocol,
					     void **interface);
	void *reserved;
	void *register_protocol_notify, *locate_handle, *locate_device_path;
	void *install_configuration_table;
	efi_status (EFIAPI *load_image)(bool boot_policy, efi_handle parent,
					struct efi_device_path *path, void *source, uint64_t size,
					efi_handle *image);
	efi_status (EFIAPI *start_image)(efi_handle image, uint64_t *exit_data_size,
					 efi_char16 **exit_data);
	efi_status (EFIAPI *exit)(efi_handle image, efi_status status, uint64_t data_size,
				  efi_char16 *data);
	efi_status (EFIAPI *unload_image)(efi_handle image);
	void *exit_boot_services;
	void *get_next_monotonic_count;
	efi_status (EFIAPI *stall)(uint64_t microseconds);
	efi_status (EFIAPI *set_watchdog_timer)(uint64_t timeout, uint64_t code, uint64_t size,
						const efi_char16 *data);
	void *connect_controller, *disconnect_controller;
	void *open_protocol, *close_protocol, *open_protocol_information;
	void *protocols_per_handle;
	efi_status (EFIAPI *locate_handle_buffer)(enum efi_locate_search_type type,
						  const efi_guid *protocol, void *key,
						  uint64_t *count, efi_handle **buffer);
	efi_status (EFIAPI *locate_protocol)(const efi_guid *protocol, void *registration,
					     void **interface);
	void *install_multiple_protocol_interfaces, *uninstall_multiple_protocol_interfaces;
	void *calculate_crc32, *copy_mem, *set_mem, *create_event_ex;
};

/* 4.3 EFI System Table */
struct efi_system_table {
	struct efi_table_header hdr;
	efi_char16 *firmware_vendor;
	uint32_t firmware_revision;
	efi_handle console_in_handle;
	struct efi_simple_text_input *con_in;
	efi_handle console_out_handle;
	struct efi_simple_text_output *con_out;
	efi_handle standard_error_handle;
	struct efi_simple_text_output *std_err;
	struct efi_runtime_services *runtime_services;
	struct efi_boot_services *boot_services;
	uint64_t number_of_table_entries;
	void *configuration_table;
};

/* 9.1 EFI Loaded Image Protocol */
#define EFI_LOADED_IMAGE_PROTOCOL_GUID \
	{ 0x5b1b31a1, 0x9562, 0x11d2, { 0x8e, 0x3f, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b } }
struct efi_loaded_image {
	uint32_t revision;
	efi_handle parent_handle;
	struct efi_system_table *system_table;
	efi_handle device_handle;
	struct efi_device_path *file_path;
	void *reserved;
	uint32_t load_options_size;
	void *load_options;
	void *image_base;
	uint64_t image_size;
	enum efi_memory_type image_code_type, image_data_type;
	void *unload;
};

/* 10.2 EFI Device Path Protocol: a node header; paths end with an end node. */
#define EFI_DEVICE_PATH_PROTOCOL_GUID \
	{ 0x09576e91, 0x6d3f, 0x11d2, { 0x8e, 0x39, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b } }
struct efi_device_path {
	uint8_t type, sub_type;
	uint8_t length[2];
};
#define EFI_DP_TYPE_MEDIA      0x04
#define EFI_DP_MEDIA_VENDOR    0x03   /* 10.3.5.3 Vendor-Defined Media Device Path */
#define EFI_DP_TYPE_END        0x7f
#define EFI_DP_END_ENTIRE      0xff

/* 13.4 EFI Load File 2 Protocol */
#define EFI_LOAD_FILE2_PROTOCOL_GUID \
	{ 0x4006c0c1, 0xfcb3, 0x403e, { 0x99, 0x6d, 0x4a, 0x6c, 0x87, 0x24, 0xe0, 0x6d } }
struct efi_load_file2 {
	efi_status (EFIAPI *load_file)(struct efi_load_file2 *self, struct efi_device_path *path,
				       bool boot_policy, uint64_t *size, void *buffer);
};

/* Linux (drivers/firmware/efi/libstub, since 5.7): the initrd is asked of a LoadFile2 protocol
 * on a vendor media device path with this GUID. */
#define LINUX_EFI_INITRD_MEDIA_GUID \
	{ 0x5568e427, 0x68fc, 0x4f3d, { 0xac, 0x74, 0xca, 0x55, 0x52, 0x31, 0xcc, 0x68 } }

/* 14.2 PCI Root Bridge I/O Protocol */
#define EFI_PCI_ROOT_BRIDGE_IO_PROTOCOL_GUID \
	{ 0x2f707ebb, 0x4a1a, 0x11d4, { 0x9a, 0x38, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d } }
enum efi_pci_width { EFI_PCI_WIDTH_U8 = 0, EFI_PCI_WIDTH_U16 = 1, EFI_PCI_WIDTH_U32 = 2 };
struct efi_pci_root_bridge_io;
struct efi_pci_root_bridge_io_access {
	efi_status (EFIAPI *read)(struct efi_pci_root_bridge_io *self, enum efi_pci_width width,
				  uint64_t address, uint64_t count, void *buffer);
	efi_status (EFIAPI *write)(struct efi_pci_root_bridge_io *self, enum efi_pci_width width,
				   uint64_t address, uint64_t count, void *buffer);
};
struct efi_pci_root_bridge_io {
	efi_handle parent_handle;
	void *poll_mem, *poll_io;
	struct efi_pci_root_bridge_io_access mem, io, pci;
	void *copy_mem, *map, *unmap, *allocate_buffer, *free_buffer, *flush;
	void *get_attributes, *set_attributes;
	/* ACPI 2.0+ resource descriptors (QWORD address space, 0x8a) ending with an end tag */
	efi_status (EFIAPI *configuration)(struct efi_pci_root_bridge_io *self, void **resources);
	uint32_t segment_number;
};
/* The address of a configuration register (14.2.1, PciRead): register in bits 0-7 (or bits
 * 32-63 for extended registers), function 8-15, device 16-23, bus 24-31. */
#define EFI_PCI_ADDRESS(bus, dev, fn, reg)                                                  \
	((uint64_t)(bus) << 24 | (uint64_t)(dev) << 16 | (uint64_t)(fn) << 8 |              \
	 ((reg) < 256 ? (uint64_t)(reg) : (uint64_t)(reg) << 32))

#endif
