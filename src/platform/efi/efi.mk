# bin/ibboot.efi — ibboot as a UEFI application (x86_64 PE32+, subsystem 10), built with gcc, GNU
# ld and util/efi/elf2efi only. The same firmware sources as bin/ibboot.lkrn, compiled as
# position-independent code (-fpie: RIP-relative, so the only absolute addresses left are 64-bit
# pointers in data, which ld lists as R_X86_64_RELATIVE and elf2efi turns into
# IMAGE_REL_BASED_DIR64 base relocations the firmware's loader applies wherever it puts the
# image), on src/platform/efi instead of pcbios: no paging.c (UEFI owns paging, memory
# identity-mapped), no e820, no real-mode setup, no IDT of ours.
#
#   make bin/ibboot.efi, check-efi-qemu

EFI_PLAT_SRCS := src/core/string.c src/platform/efi/start.c src/platform/efi/memory.c \
	src/platform/efi/pci.c src/platform/efi/linux.c src/arch/x86_64/metal.c
EFI_OBJS := $(patsubst %.c,build/efi/%.o,$(FIRMWARE_SRCS) $(EFI_PLAT_SRCS))

# (No LTO: the objects go to a plain ld -pie, which needs real code in them.)
EFI_CFLAGS := $(filter-out -fno-pic -fno-pie -flto -flto-partition=%,$(IMG_CFLAGS)) -fpie \
	-include src/platform/efi/hidden.h
# An ELF PIE linked at 0 (efi.ld), then util/efi/elf2efi writes the PE32+ file (subsystem 10)
# with its base relocations. --gc-sections keeps what efi_main reaches plus the KEEPt tables.
EFI_LDFLAGS := -pie --no-dynamic-linker -z text -z noexecstack --no-warn-rwx-segments \
	--build-id=none --gc-sections -e efi_main -T src/arch/x86_64/efi.ld

build/efi/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(IMG_CC) $(EFI_CFLAGS) -MMD -MP -c -o $@ $<

build/efi/src/image/image.o: $(TRUST_STAMP)
# (IMG_PACK_CFLAGS are in EFI_CFLAGS: rebuilt when they change)
$(EFI_OBJS): $$(IMG_LTO_STAMP)
$(patsubst %.c,build/efi/%.o,$(IMG_FAST_SRCS)): EFI_CFLAGS := \
	$(filter-out $(IMG_PACK_CFLAGS),$(EFI_CFLAGS))
build/efi/src/image/image.o: EFI_CFLAGS += $(if $(TRUST),-DTRUST_ENFORCE=1)
$(foreach o,src/core/main.o src/net/http_client.o src/net/report.o,build/efi/$(o)): \
	$(IBBOOT_VERSION_STAMP)

build/efi/ibboot.elf: $(EFI_OBJS) src/arch/x86_64/efi.ld
	$(IMG_LD) $(EFI_LDFLAGS) -o $@ $(EFI_OBJS)

bin/ibboot.efi: build/efi/ibboot.elf util/efi/elf2efi
	@mkdir -p $(@D)
	util/efi/elf2efi $< $@
	@echo "$@: $$(stat -c %s $@) bytes"

-include $(EFI_OBJS:.o=.d)

ALL_TARGETS += bin/ibboot.efi

# OVMF boots bin/ibboot.efi from a FAT disk in our QEMU with the HCA model on the fabric: the
# netboot reaches the payload's marker through Linux's EFI stub, and a kernel without an EFI stub
# is refused with its message, so is a multiboot kernel (src/tests/e2e/qemu/efi-netboot.sh); on
# q35 with the HCA uncabled it gives the machine back (HCA quiesced, memory freed, Exit: the boot
# manager's next option), takes ibboot.cmd= from its load options and keys from ConIn, and powers
# off by ResetSystem (src/tests/e2e/qemu/efi-return.sh).
.PHONY: check-efi-qemu
check-efi-qemu: bin/ibboot.efi payload bin/libhcasim.so bin/libfabsim_client.so bin/fabsim qemu \
		bin/fabsim-servernode
	@util/run-test efi-qemu src/tests/e2e/qemu/efi-netboot.sh
	@util/run-test efi-qemu-return src/tests/e2e/qemu/efi-return.sh

# bin/ibboot.efirom — the same firmware as an EFI driver (subsystem 11) in a PCI option ROM for
# the HCA (driver.c: a LoadFile boot option; efi_jmp.S: the way back from a failed netboot).
EFIROM_DEVICE_ID ?= 0x1003
EFI_DRV_OBJS := $(EFI_OBJS) build/efi/src/platform/efi/driver.o build/efi/src/arch/x86_64/efi_jmp.o
build/efi/%.o: %.S
	@mkdir -p $(@D)
	$(IMG_CC) $(IMG_ASFLAGS) -c -o $@ $<

build/efi/ibboot-drv.elf: $(EFI_DRV_OBJS) src/arch/x86_64/efi.ld
	$(IMG_LD) $(filter-out -e efi_main,$(EFI_LDFLAGS)) -e efi_driver_main -o $@ $(EFI_DRV_OBJS)

build/efi/ibboot-drv.efi: build/efi/ibboot-drv.elf util/efi/elf2efi
	util/efi/elf2efi $< $@ --subsystem 11

bin/ibboot.efirom: build/efi/ibboot-drv.efi util/efi/efirom
	@mkdir -p $(@D)
	util/efi/efirom $< $@ --vendor 0x15b3 --device $(EFIROM_DEVICE_ID)
	@echo "$@: $$(stat -c %s $@) bytes"

# The netboot from the option ROM: OVMF's PCI bus driver starts the ROM's driver from the HCA's
# ROM BAR, the boot manager boots its LoadFile option; no disk (efi-netboot.sh --rom). Uncabled,
# the option fails with the HCA quiesced and the boot manager goes on (efi-rom-return.sh).
.PHONY: check-efirom-qemu
check-efirom-qemu: bin/ibboot.efi bin/ibboot.efirom payload bin/libhcasim.so bin/libfabsim_client.so \
		bin/fabsim qemu bin/fabsim-servernode
	@util/run-test efirom-qemu src/tests/e2e/qemu/efi-netboot.sh --rom
	@util/run-test efirom-qemu-return src/tests/e2e/qemu/efi-rom-return.sh
ALL_TARGETS += bin/ibboot.efirom
