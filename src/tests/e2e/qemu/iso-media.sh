#!/usr/bin/env bash
# The boot media (bin/ibboot.iso, util/media/mkiso): its layout, and the four ways a machine boots
# it, in our QEMU. make check-iso-qemu runs the modes in this order:
#
#   iso-media.sh static        make bin/ibboot.iso (a build failure is a FAIL line; the BIOS boots
#                              then use an image mkiso makes without the UEFI half), and check it
#                              with xorriso's reports and the raw bytes: the El Torito BIOS entry
#                              (no emulation, isolinux.bin, boot info table) and, with the UEFI
#                              half, the EFI entry (platform 0xEF); sector 0 is isohdpfx.bin with
#                              an MBR partition table; the GPT's EFI System Partition is the
#                              El Torito EFI image's blocks and its \EFI\BOOT\BOOTX64.EFI is
#                              bin/ibboot.efi; /ibboot.lkrn is bin/ibboot.lkrn
#   iso-media.sh netboot bios  SeaBIOS boots the ISO from the IDE CD-ROM (-cdrom): isolinux loads
#                              ibboot, which netboots the demo's Linux over InfiniBand to its
#                              marker (util/demo/run --check --until-marker with the ISO: every
#                              phase up to the marker asserted)
#   iso-media.sh netboot uefi  the same under OVMF: its El Torito EFI entry runs ibboot.efi
#   iso-media.sh disk bios     SeaBIOS boots the ISO as a raw IDE hard disk (a USB stick is a disk
#                              to the BIOS): the MBR's code starts isolinux (its banner says
#                              "EHDD", the hybrid-disk path), ibboot starts through the Linux boot
#                              protocol and, with no HCA in this VM, its autoboot says so
#   iso-media.sh disk uefi     OVMF boots the same raw disk: the GPT ESP's BOOTX64.EFI, ibboot.efi,
#                              starts and says there is no HCA
#
# ISO_EFI (from util/media/media.mk): bin/ibboot.efi when the tree builds it, else empty; the
# UEFI modes SKIP only then.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
TOP=$(pwd)
. src/tests/framework/lib.sh

MODE=${1:-}; FORM=${2:-}
ISO_EFI=${ISO_EFI:-}
OVMF=${OVMF:-/usr/share/ovmf/OVMF.fd}
OUT=$TOP/build/check/iso
mkdir -p "$OUT"
ISO=$TOP/bin/ibboot.iso
FALLBACK=$OUT/bios-only.iso
GUARD=${ISO_GUARD:-300}

# The build of the image, once per check run (static does it; a mode run alone does it too).
build_iso() {
	[ -f "$OUT/build.status" ] && return 0
	make --no-print-directory bin/ibboot.iso > "$OUT/make.log" 2>&1
	echo $? > "$OUT/build.status"
}
# The first line of make.log that says what went wrong (a compiler's, the linker's, or make's).
make_error() {
	grep -m1 -E ' error: |undefined reference|No rule to make' "$OUT/make.log" ||
		grep -m1 -F '***' "$OUT/make.log"
}
built() { [ "$(cat "$OUT/build.status" 2>/dev/null)" = 0 ]; }
# The image a BIOS test boots: bin/ibboot.iso, or without it one with the BIOS half only.
bios_iso() {
	if built; then echo "$ISO"; return 0; fi
	make --no-print-directory bin/ibboot.lkrn > "$OUT/fallback.log" 2>&1 || return 1
	[ -s "$FALLBACK" ] || util/media/mkiso --out "$FALLBACK" --lkrn bin/ibboot.lkrn --work "$OUT" \
		>> "$OUT/fallback.log" 2>&1 || return 1
	echo "$FALLBACK"
}
need_uefi() {   # SUITE-NAME: SKIP when the tree has no UEFI build; FAIL when it did not build
	if [ -z "$ISO_EFI" ]; then
		skip_all "this tree has no UEFI build (no fragment lists bin/ibboot.efi), so the image has no UEFI half"
	fi
	[ -f "$OVMF" ] || { echo "FAIL: $1: $OVMF missing (Debian package ovmf; util/deps.sh)"; exit 1; }
	if ! built; then
		echo "FAIL: $1: bin/ibboot.iso did not build (with $ISO_EFI): $(make_error)"
		exit 1
	fi
}

case $MODE in
static)
	SUITE=iso
	rm -f "$OUT/build.status" "$FALLBACK"
	build_iso
	if ! built; then
		fail build "make bin/ibboot.iso failed ($OUT/make.log): $(make_error)"
		img=$(bios_iso) || { fail build-bios-only "bin/ibboot.lkrn does not build either, or mkiso failed ($OUT/fallback.log)"; finish; }
		echo "iso: checking the BIOS-only image $img instead"
	else
		pass build
		img=$ISO
	fi
	echo "iso: $img: $(stat -c %s "$img") bytes$([ -n "$ISO_EFI" ] && [ -f "$ISO_EFI" ] && echo " (bin/ibboot.lkrn $(stat -c %s bin/ibboot.lkrn) bytes, $ISO_EFI $(stat -c %s "$ISO_EFI") bytes)")"
	xorriso -indev "$img" -report_el_torito plain -report_system_area plain > "$OUT/report.txt" 2>&1
	r=$OUT/report.txt
	# El Torito: the catalog's initial entry for the BIOS.
	expect el-torito-bios "$r" '^El Torito boot img : +1 +BIOS +y +none ' "no bootable no-emulation BIOS entry in the boot catalog" &&
	expect el-torito-bios "$r" '^El Torito img path : +1 +/isolinux/isolinux\.bin$' "the BIOS entry is not isolinux.bin" &&
	expect el-torito-bios "$r" '^El Torito img opts : +1 +boot-info-table' "isolinux.bin has no boot info table" &&
	pass el-torito-bios
	# Sector 0: isohdpfx.bin's code (its 432 bytes; xorriso writes the table after them) and the
	# 0x55AA signature.
	if cmp -s -n 432 "$img" /usr/lib/ISOLINUX/isohdpfx.bin &&
	   [ "$(od -An -tx1 -j 510 -N2 "$img" | tr -d ' \n')" = 55aa ]; then
		pass mbr-code
	else
		fail mbr-code "sector 0 is not isohdpfx.bin's code with the 0x55AA signature"
	fi
	# The ISO's files: the image isolinux loads, its configuration and ldlinux.c32.
	rm -rf "$OUT/files" && mkdir -p "$OUT/files"
	xorriso -osirrox on -indev "$img" -extract /ibboot.lkrn "$OUT/files/ibboot.lkrn" \
		-extract /isolinux/isolinux.cfg "$OUT/files/isolinux.cfg" \
		-extract /isolinux/ldlinux.c32 "$OUT/files/ldlinux.c32" > "$OUT/extract.log" 2>&1
	if cmp -s "$OUT/files/ibboot.lkrn" bin/ibboot.lkrn && [ -s "$OUT/files/ldlinux.c32" ] &&
	   grep -qE '^ *KERNEL /ibboot\.lkrn$' "$OUT/files/isolinux.cfg" 2>/dev/null; then
		pass iso-files
	else
		fail iso-files "/ibboot.lkrn differs from bin/ibboot.lkrn, or isolinux.cfg/ldlinux.c32 missing ($OUT/extract.log)"
	fi
	# The same inputs give the same bytes (mkiso pins every date to SOURCE_DATE_EPOCH).
	efi_arg=(); built && [ -n "$ISO_EFI" ] && efi_arg=(--efi "$ISO_EFI")
	if SOURCE_DATE_EPOCH=1000000000 util/media/mkiso --out "$OUT/again1.iso" --lkrn bin/ibboot.lkrn \
		"${efi_arg[@]}" --work "$OUT" > "$OUT/again.log" 2>&1 &&
	   SOURCE_DATE_EPOCH=1000000000 util/media/mkiso --out "$OUT/again2.iso" --lkrn bin/ibboot.lkrn \
		"${efi_arg[@]}" --work "$OUT" >> "$OUT/again.log" 2>&1 &&
	   cmp -s "$OUT/again1.iso" "$OUT/again2.iso"; then
		pass reproducible
	else
		fail reproducible "two mkiso runs on the same inputs gave different images, or failed ($OUT/again.log)"
	fi
	rm -f "$OUT/again1.iso" "$OUT/again2.iso"
	if [ -z "$ISO_EFI" ]; then
		# BIOS only: the isohybrid table, partition 1 (active) is the whole ISO.
		expect mbr-partitions "$r" '^MBR partition +: +1 +0x80 +0x(17|00) +0 +[0-9]+$' "no active MBR partition 1 covering the ISO" &&
		pass mbr-partitions
		skip el-torito-efi "this tree has no UEFI build (no fragment lists bin/ibboot.efi)"
		skip gpt-esp "this tree has no UEFI build"
		finish
	fi
	if ! built; then
		fail el-torito-efi "no image with the UEFI half to check (the build failed)"
		finish
	fi
	# The EFI entry: platform 0xEF, bootable, no emulation; its LBA (2048-byte blocks) and its
	# load size (512-byte sectors).
	efi=$(awk '/^El Torito boot img :/ && $7 == "UEFI" && $8 == "y" && $9 == "none" { print $NF, $(NF-1) }' "$r")
	if [ -n "$efi" ]; then pass el-torito-efi; else fail el-torito-efi "no bootable no-emulation UEFI entry in the boot catalog ($r)"; fi
	# The disk view: a protective MBR entry (0xEE from LBA 1, UEFI 2.x 5.2.3) and a GPT whose EFI
	# System Partition (type C12A7328-F81F-11D2-BA4B-00A0C93EC93B, on disk 28732ac1...) holds
	# the El Torito EFI image's blocks: one FAT image serves the CD and the disk.
	expect mbr-partitions "$r" '^MBR partition +: +[1-4] +0x[08]0 +0xee +1 +[0-9]+$' "no protective (0xEE) MBR entry for the GPT" &&
	expect mbr-partitions "$r" '^MBR partition +: +[1-4] +0x80 ' "no MBR entry marked active (some BIOSes boot only such a disk)" &&
	pass mbr-partitions
	esp=$(awk '/^GPT type GUID/ && $NF == "28732ac11ff8d211ba4b00a0c93ec93b" { n = $(NF-1) }
		/^GPT start and size/ && n != "" && $(NF-2) == n { print $(NF-1), $NF; exit }' "$r")
	read -r el_lba el_blocks <<< "$efi"
	read -r esp_start esp_size <<< "$esp"
	if [ -z "$esp" ]; then
		fail gpt-esp "the GPT has no EFI System Partition ($r)"
	elif [ -z "$efi" ] || [ $((el_lba * 4)) -ne "$esp_start" ] || [ "$el_blocks" -ne "$esp_size" ]; then
		fail gpt-esp "the ESP (512-byte LBA $esp_start, $esp_size blocks) is not the El Torito EFI image (2048-byte LBA ${el_lba:-?}, ${el_blocks:-?} blocks)"
	else
		pass gpt-esp
	fi
	# The ESP's file system: \EFI\BOOT\BOOTX64.EFI is bin/ibboot.efi byte for byte.
	if [ -n "$esp" ]; then
		dd if="$img" of="$OUT/esp.img" bs=512 skip="$esp_start" count="$esp_size" status=none
		rm -f "$OUT/BOOTX64.EFI"
		if MTOOLS_SKIP_CHECK=1 mcopy -n -i "$OUT/esp.img" ::/EFI/BOOT/BOOTX64.EFI "$OUT/BOOTX64.EFI" > "$OUT/mcopy.log" 2>&1 &&
		   cmp -s "$OUT/BOOTX64.EFI" "$ISO_EFI"; then
			pass esp-bootx64
		else
			fail esp-bootx64 "the ESP's \\EFI\\BOOT\\BOOTX64.EFI is missing or differs from $ISO_EFI ($OUT/mcopy.log)"
		fi
	else
		fail esp-bootx64 "no ESP to read"
	fi
	finish
	;;
netboot)
	case $FORM in bios|uefi) ;; *) echo "usage: iso-media.sh netboot bios|uefi" >&2; exit 2 ;; esac
	SUITE=iso-$FORM-cdrom
	build_iso
	fw=()
	if [ "$FORM" = uefi ]; then
		need_uefi "$SUITE"
		img=$ISO
		fw=(DEMO_UEFI=1 DEMO_OVMF="$OVMF")
	else
		img=$(bios_iso) || { echo "FAIL: $SUITE: no image to boot ($OUT/fallback.log)"; exit 1; }
	fi
	# The demo's own flow and checks, with the CD-ROM instead of -kernel.
	dout=build/demo/check-iso-$FORM
	env DEMO_ISO="$img" DEMO_SUITE="$SUITE" "${fw[@]}" \
		util/demo/run --check --no-build --until-marker --timeout "$GUARD" --out "$dout"
	rc=$?
	# ... and that it was the CD's El Torito entry that started ibboot.
	log=$dout/serial.txt
	if [ "$FORM" = bios ]; then
		expect el-torito-path "$log" '^ISOLINUX [^ ]+ [^ ]+ ETCD' "isolinux did not start from the CD's El Torito entry (no 'ISOLINUX ... ETCD' banner)" &&
		expect el-torito-path "$log" 'booted via Linux boot protocol \(real-mode entry\)' "isolinux did not enter ibboot through the Linux boot protocol" &&
		pass el-torito-path
	else
		expect el-torito-path "$log" 'BdsDxe: starting Boot[0-9A-F]+ "UEFI QEMU DVD-ROM' "OVMF did not start a boot option from the CD-ROM" &&
		expect el-torito-path "$log" '^ibboot [^ ]+ \(efi\)' "the CD's EFI entry did not start ibboot.efi" &&
		pass el-torito-path
	fi
	[ "$rc" = 0 ] || exit "$rc"
	finish
	;;
disk)
	case $FORM in bios|uefi) ;; *) echo "usage: iso-media.sh disk bios|uefi" >&2; exit 2 ;; esac
	SUITE=iso-$FORM-disk
	build_iso
	fw=()
	if [ "$FORM" = uefi ]; then
		need_uefi "$SUITE"
		img=$ISO
		fw=(-bios "$OVMF")
	else
		img=$(bios_iso) || { echo "FAIL: $SUITE: no image to boot ($OUT/fallback.log)"; exit 1; }
	fi
	QEMU=${QEMU:-$(util/qemu/build --print-path 2>/dev/null)} || { echo "FAIL: $SUITE: QEMU is not built (make qemu)"; exit 1; }
	log=$OUT/disk-$FORM.log
	rm -f "$log"
	# The ISO as the first IDE hard disk (snapshot=on: the VM's writes never reach the file); no
	# CD-ROM, no HCA. Stopped, by PID, once ibboot's autoboot has said what it found.
	timeout --kill-after=5 "$GUARD" "$QEMU" -display none -machine graphics=off -monitor none \
		-no-reboot -m 512 -net none -serial "file:$log" "${fw[@]}" \
		-drive "file=$img,format=raw,if=ide,snapshot=on" > "$OUT/disk-$FORM.qemu.out" 2>&1 &
	qpid=$!
	trap 'kill "$qpid" 2>/dev/null' EXIT
	while kill -0 "$qpid" 2>/dev/null; do
		grep -aqE 'autoboot failed|ibboot> ' "$log" 2>/dev/null && break
		sleep 0.5
	done
	if kill -0 "$qpid" 2>/dev/null; then
		kill "$qpid" 2>/dev/null; wait "$qpid"; status=stopped
	else
		wait "$qpid"; status=$?
	fi
	trap - EXIT
	sed -i -e 's/\r//g' -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$log"
	if [ "$status" = 124 ] || [ "$status" = 137 ]; then
		fail boot "QEMU still running after $GUARD s with no word from ibboot's autoboot ($log)"
		finish
	fi
	if [ "$FORM" = bios ]; then
		expect isolinux-from-disk "$log" '^ISOLINUX [^ ]+ [^ ]+ EHDD' "isolinux did not start from the hard disk's MBR (no 'ISOLINUX ... EHDD' banner)" &&
		pass isolinux-from-disk
		expect ibboot-up "$log" '^ibboot [^ ]+ \(pcbios\)$' "no ibboot banner" &&
		expect ibboot-up "$log" 'booted via Linux boot protocol \(real-mode entry\)' "not entered through the Linux boot protocol" &&
		pass ibboot-up
	else
		expect esp-from-disk "$log" 'BdsDxe: starting Boot[0-9A-F]+ "UEFI QEMU HARDDISK' "OVMF did not start a boot option from the hard disk" &&
		pass esp-from-disk
		expect ibboot-up "$log" '^ibboot [^ ]+ \(efi\)' "no ibboot.efi banner" &&
		pass ibboot-up
	fi
	expect autoboot "$log" 'autoboot failed: no InfiniBand HCA found' "ibboot's autoboot did not run to its end (this VM has no HCA)" &&
	pass autoboot
	finish
	;;
*)
	echo "usage: iso-media.sh static | netboot bios|uefi | disk bios|uefi" >&2
	exit 2
	;;
esac
