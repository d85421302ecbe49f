# util/media — boot media: bin/ibboot.iso, one hybrid image for a CD/DVD or a USB stick that boots
# under BIOS (El Torito no-emulation entry: isolinux loads bin/ibboot.lkrn; raw on a disk the
# isohybrid MBR does the same) and under UEFI (El Torito EFI entry, and on a disk a GPT EFI System
# Partition: \EFI\BOOT\BOOTX64.EFI = bin/ibboot.efi). util/media/mkiso says how it is laid out.
#   make bin/ibboot.iso
#   make check-iso-qemu   the layout checked statically (El Torito entries, MBR, GPT, the ESP's
#                         file), then four boots in our QEMU: SeaBIOS from the CD and OVMF from the
#                         CD netboot to the demo's Linux marker (util/demo/run with the ISO), SeaBIOS
#                         and OVMF from the ISO as a raw hard disk (what a USB stick is to them)
#                         start ibboot (src/tests/e2e/qemu/iso-media.sh)
# The UEFI half is in the image whenever the tree can build bin/ibboot.efi (a fragment lists it
# in ALL_TARGETS); the UEFI checks SKIP only when it cannot.

ISO_EFI = $(filter bin/ibboot.efi,$(ALL_TARGETS))

bin/ibboot.iso: bin/ibboot.lkrn $$(filter bin/ibboot.efi,$$(ALL_TARGETS)) util/media/mkiso
	@mkdir -p $(@D) build/media
	util/media/mkiso --out $@ --lkrn bin/ibboot.lkrn $(if $(ISO_EFI),--efi $(ISO_EFI)) --work build/media

ISO_PIECES := bin/ibboot.lkrn bin/libhcasim.so bin/libfabsim_client.so bin/fabsim \
	bin/fabsim-servernode bin/fabsimctl payload qemu

# The image is built by the test itself (iso-media.sh static), so that an image that does not
# build is a FAIL line and the BIOS boots still run on an image without the UEFI half.
.PHONY: check-iso-qemu
check-iso-qemu: $(ISO_PIECES)
	@ISO_EFI="$(ISO_EFI)" util/run-test iso-static src/tests/e2e/qemu/iso-media.sh static
	@ISO_EFI="$(ISO_EFI)" util/run-test iso-bios-cdrom src/tests/e2e/qemu/iso-media.sh netboot bios
	@ISO_EFI="$(ISO_EFI)" util/run-test iso-bios-disk src/tests/e2e/qemu/iso-media.sh disk bios
	@ISO_EFI="$(ISO_EFI)" util/run-test iso-uefi-cdrom src/tests/e2e/qemu/iso-media.sh netboot uefi
	@ISO_EFI="$(ISO_EFI)" util/run-test iso-uefi-disk src/tests/e2e/qemu/iso-media.sh disk uefi

ALL_TARGETS += bin/ibboot.iso
