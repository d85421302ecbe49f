#!/usr/bin/env bash
# bin/ibboot.efirom, the HCA's UEFI option ROM, when the netboot cannot work: OVMF with the hermon
# device (no cable) whose ROM BAR holds the ROM, no disk. OVMF's PCI bus driver starts the ROM's
# driver, whose LoadFile becomes a boot option; booting it runs ibboot, which finds no link, quiesces
# the HCA, gives its memory back and unwinds to LoadFile, which answers EFI_NOT_FOUND: the boot
# manager reports that option failed and goes on to the next one (the UEFI shell).
# QEMU is bounded by a guard and stopped by its PID; nothing asserts on time.
# Logs: build/qemu/tests/efi-rom-return/.
. "$(dirname "$0")/../../framework/lib.sh"
qemu_device_test
need_model
SUITE=efirom-qemu/return
OVMF=${OVMF:-/usr/share/ovmf/OVMF.fd}
[ -s "$OVMF" ] || skip_all "no OVMF at $OVMF (Debian package ovmf)"
[ -s bin/ibboot.efirom ] || { echo "FAIL: $SUITE: bin/ibboot.efirom missing (make bin/ibboot.efirom)"; exit 1; }

timeout --kill-after=5 120 "$QEMU" -display none -machine graphics=off -monitor none -no-reboot \
	-m 512 -net none -vga none -bios "$OVMF" -serial "file:$T/serial.log" \
	-device "hermon,model=$MODEL,device-id=0x1003,log=$T/device.log,romfile=$TOP/bin/ibboot.efirom" \
	> "$T/qemu.out" 2>&1 &
QEMU_PID=$!
for _ in $(seq 1 240); do
	kill -0 "$QEMU_PID" 2>/dev/null || break
	grep -aq 'Shell> ' "$T/serial.log" 2>/dev/null && break
	sleep 0.5
done
stop_qemu
serial_text | sed -e 's/\x1b\[[0-9;=?]*[a-zA-Z]//g' > "$T/serial.txt"

check() {  # NAME REGEX WHY
	if grep -aEq "$2" "$T/serial.txt"; then pass "$1"; else fail "$1" "$3 ($T/serial.txt)"; fi
}
check rom-driver-ran '^ibboot .* \(efi\)$' "the ROM's driver never ran ibboot (no banner)"
check hca-probed 'ConnectX-3 registered' "the driver did not bring the HCA up"
check no-link 'autoboot failed: no InfiniBand port has a link' "the netboot did not fail for want of a link"
check returns '\] autoboot: returning to the UEFI firmware' "ibboot did not say it returns"
check option-failed 'BdsDxe: failed to load Boot[0-9A-F]+ ".*" from PciRoot\(0x0\)/Pci\(0x2,0x0\)/VenMsg\(6962626F-6F74-4962-896E-66696E696261\): Not Found' \
	"the boot manager did not see the ROM's boot option fail with EFI_NOT_FOUND"
check next-option 'BdsDxe: (loading|starting) Boot[0-9A-F]+ "EFI Internal Shell"' \
	"the boot manager did not go on to its next option"
if grep -aq 'hcasim: bus mastering off' "$T/device.log" && ! grep -aq 'without bus mastering' "$T/device.log"; then
	pass hca-quiesced
else
	fail hca-quiesced "bus mastering never turned off, or DMA attempted without it ($T/device.log)"
fi
finish
