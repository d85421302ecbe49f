# bin/ibboot.rom (a legacy PCI expansion ROM for the HCA: BEV "ibboot (InfiniBand)") and
# bin/ibboot.pxe (a PXE NBP chainloaded by another NIC's PXE ROM): a 16-bit prefix and the shared
# real-mode front end (romfront.S) in front of bin/ibboot.lkrn's protected-mode part (the file
# as built less its setup sectors); the front end places it as a Linux 32-bit boot-protocol
# loader does and gets the machine back on a failed autoboot.
# util/rom/fixrom writes the ROM's size byte, image lengths and checksums. Included from the top
# Makefile.
#
#   make bin/ibboot.rom bin/ibboot.pxe check-rom check-rom-qemu
#   make bin/ibboot.rom ROM_DEVICE_ID=0x1007   (the PCIR device ID must equal the card's own)

ROM_DEVICE_ID ?= 0x1003
ROM_ASFLAGS := -m32 -D__ASSEMBLY__ -Isrc/arch/x86_64 -DROM_DEVICE_ID=$(ROM_DEVICE_ID)
ROM_LDFLAGS := -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
	--build-id=none -T src/arch/x86_64/rom.ld

build/rom/%.o: src/arch/x86_64/%.S
	@mkdir -p $(@D)
	$(IMG_CC) $(ROM_ASFLAGS) -MMD -MP -c -o $@ $<
# The lkrn without its setup sectors (their length, code32_start and the multiboot header's place
# from util/rom/fixrom --lkrn); the NBP's copy with the multiboot magic masked.
build/rom/romimage.o build/rom/romimage-pxe.o: src/arch/x86_64/romimage.S \
		src/arch/x86_64/romfront.h bin/ibboot.lkrn util/rom/fixrom
	@mkdir -p $(@D)
	cut=$$(util/rom/fixrom --lkrn bin/ibboot.lkrn) && \
	$(IMG_CC) $(ROM_ASFLAGS) -DROM_IMAGE_FILE='"bin/ibboot.lkrn"' $$cut \
		$(if $(findstring -pxe,$@),-DROM_IMAGE_MASK_MB) -c -o $@ $<
# The device ID is in the header: rebuild when it changes.
build/rom/device-id: rom-device-id-check
	@mkdir -p $(@D)
	@echo $(ROM_DEVICE_ID) | cmp -s - $@ || echo $(ROM_DEVICE_ID) > $@
build/rom/romprefix.o: build/rom/device-id

build/rom/ibboot-rom.elf: build/rom/romprefix.o build/rom/romfront.o build/rom/romimage.o \
		src/arch/x86_64/rom.ld
	$(IMG_LD) $(ROM_LDFLAGS) -o $@ build/rom/romprefix.o build/rom/romfront.o build/rom/romimage.o
build/rom/ibboot-pxe.elf: build/rom/pxeprefix.o build/rom/romfront.o build/rom/romimage-pxe.o \
		src/arch/x86_64/rom.ld
	$(IMG_LD) $(ROM_LDFLAGS) -o $@ build/rom/pxeprefix.o build/rom/romfront.o build/rom/romimage-pxe.o

bin/ibboot.rom: build/rom/ibboot-rom.elf util/rom/fixrom
	@mkdir -p $(@D)
	$(IMG_OBJCOPY) -O binary $< build/rom/ibboot-rom.bin
	util/rom/fixrom --device $(ROM_DEVICE_ID) build/rom/ibboot-rom.bin $@
	@echo "$@: $$(stat -c %s $@) bytes$$( [ $$(stat -c %s $@) -le 65536 ] || echo \
		' (over 64 KiB: fits a legacy image, at most 127.5 KiB, not every BIOS'"'"'s ROM space)')"
bin/ibboot.pxe: build/rom/ibboot-pxe.elf
	@mkdir -p $(@D)
	$(IMG_OBJCOPY) -O binary $< $@
	@echo "$@: $$(stat -c %s $@) bytes"

ALL_TARGETS += bin/ibboot.rom bin/ibboot.pxe
.PHONY: rom-device-id-check
rom-device-id-check:

-include build/rom/romprefix.d build/rom/romfront.d build/rom/pxeprefix.d

# The header tool's unit tests and the built ROM's headers parsed; then the QEMU boots.
.PHONY: check-rom check-rom-qemu
check-rom: bin/ibboot.rom bin/ibboot.pxe
	@util/run-test rom-fixrom src/tests/e2e/qemu/rom-fixrom.sh
check-rom-qemu: check-rom bin/ibboot.rom bin/ibboot.pxe bin/libhcasim.so bin/libfabsim_client.so \
		bin/fabsim bin/fabsim-servernode bin/fabsimctl bin/payload/vmlinuz bin/payload/initrd.img
	@util/run-test rom-return src/tests/e2e/qemu/rom-return.sh
	@util/run-test rom-netboot src/tests/e2e/qemu/rom-netboot.sh
	@util/run-test pxe-netboot src/tests/e2e/qemu/pxe-netboot.sh
