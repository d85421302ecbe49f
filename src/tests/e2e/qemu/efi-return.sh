#!/usr/bin/env bash
# bin/ibboot.efi gives the machine back to UEFI when it cannot boot, and takes a command line and
# keys from the firmware — one OVMF boot in our QEMU, machine q35 (PCI Express: OVMF puts the HCA's
# 64-bit BARs above 4 GiB), with the hermon device and no cable:
#   1. the boot manager starts \EFI\BOOT\BOOTX64.EFI (ibboot): the driver brings the HCA up,
#      no port gets a link, so the autoboot fails; after its 2 s key wait ibboot quiesces the HCA,
#      frees its buffer pool and leaves with Exit (UEFI 2.10 §7.4.5), and the boot manager goes on
#      to its next boot option, the UEFI shell;
#   2. the shell runs startup.nsh from the same disk, which starts ibboot again with
#      `ibboot.cmd=echo+...` as its load options (the command line): the echo must appear, and
#      the second run must get a pool as large as the first (the first gave its pages back) and
#      bring the HCA up again (the first left it reset, bus mastering off, no DMA attempted);
#   3. "poweroff" typed on the serial console reaches ibboot through ConIn, and ResetSystem
#      switches the VM off (QEMU exits by itself with status 0).
# QEMU is bounded by a guard and stopped by its PID; nothing asserts on time.
# Logs: build/qemu/tests/efi-return/.
. "$(dirname "$0")/../../framework/lib.sh"
qemu_device_test
SUITE=efi-qemu/return
OVMF=${OVMF:-/usr/share/ovmf/OVMF.fd}
[ -s "$OVMF" ] || skip_all "no OVMF at $OVMF (Debian package ovmf)"
[ -s bin/ibboot.efi ] || { echo "FAIL: $SUITE: bin/ibboot.efi missing (make bin/ibboot.efi)"; exit 1; }
# The file itself (util/efi/elf2efi): PE32+, an EFI application, and one DIR64 base relocation
# for each R_X86_64_RELATIVE ld listed in the ELF it was made from.
pe=$(objdump -p bin/ibboot.efi 2>&1)
dir64=$(grep -c ' DIR64$' <<< "$pe")
relative=$(readelf -rW build/efi/ibboot.elf 2>/dev/null | grep -c 'R_X86_64_RELATIVE')
if grep -q '^Magic[[:space:]]*020b' <<< "$pe" && grep -q 'Subsystem[[:space:]]*0000000a[[:space:]]*(EFI application)' <<< "$pe" &&
   [ "$dir64" -gt 0 ] && [ "$dir64" = "$relative" ]; then
	pass pe-format
else
	fail pe-format "objdump -p bin/ibboot.efi: not a PE32+ EFI application with $relative DIR64 relocations ($dir64 found)"
fi
printf 'echo ibboot-test: the shell runs after ibboot returned\r\nfs0:\\EFI\\BOOT\\BOOTX64.EFI ibboot.cmd=echo+cmdline+from+LoadOptions\r\n' \
	> "$T/startup.nsh"
util/efi/esp "$T/esp.img" bin/ibboot.efi "$T/startup.nsh" > "$T/esp.log" 2>&1 ||
	{ echo "FAIL: $SUITE/esp: util/efi/esp failed: $(tail -3 "$T/esp.log")"; exit 1; }

# The serial port on a pipe pair (QEMU reads con.in, writes con.out), so the test can type.
mkfifo "$T/con.in" "$T/con.out"
timeout --kill-after=5 150 "$QEMU" -machine q35,graphics=off -display none -monitor none \
	-no-reboot -m 512 -net none -vga none -bios "$OVMF" \
	-drive "if=none,id=esp,format=raw,file=$T/esp.img" -device ide-hd,drive=esp,bus=ide.0 \
	-device "hermon,model=$MODEL,device-id=0x1003,log=$T/device.log" \
	-chardev "pipe,id=con,path=$T/con" -serial chardev:con > "$T/qemu.out" 2>&1 &
QEMU_PID=$!
cat "$T/con.out" > "$T/serial.log" &
CAT_PID=$!
exec 3> "$T/con.in"
typed=0
for _ in $(seq 1 300); do
	kill -0 "$QEMU_PID" 2>/dev/null || break
	if [ $typed = 0 ] && grep -aq 'cmdline from LoadOptions' "$T/serial.log" &&
	   grep -aq 'ibboot> *$' <(tail -c 200 "$T/serial.log" | tr -d '\r' | sed 's/\x1b\[[0-9;=?]*[a-zA-Z]//g'); then
		printf 'poweroff\r' >&3
		typed=1
	fi
	sleep 0.5
done
exec 3>&-
status=0
if kill -0 "$QEMU_PID" 2>/dev/null; then
	kill "$QEMU_PID"; status=-1
	wait "$QEMU_PID" 2>/dev/null
else
	wait "$QEMU_PID"; status=$?
fi
QEMU_PID=
kill "$CAT_PID" 2>/dev/null; wait "$CAT_PID" 2>/dev/null
sed -e 's/\r//g' -e 's/\x1b\[[0-9;=?]*[a-zA-Z]//g' "$T/serial.log" > "$T/serial.txt"

check() {  # NAME REGEX WHY
	if grep -aEq "$2" "$T/serial.txt"; then pass "$1"; else fail "$1" "$3 ($T/serial.txt)"; fi
}
line_of() { grep -anE "$1" "$T/serial.txt" | head -1 | cut -d: -f1; }
check bar-above-4g '^    BAR0 mem64 0x[0-9a-f]{9,} size 1 MiB' "OVMF did not put the HCA's BAR0 above 4 GiB"
check no-link 'autoboot failed: no InfiniBand port has a link' "the first run did not fail for want of a link"
check returns '\] autoboot: returning to the UEFI firmware \(its next boot option\)' \
	"ibboot did not say it returns to the firmware"
ret=$(line_of 'autoboot: returning to the UEFI firmware')
shell=$(line_of 'BdsDxe: (loading|starting) Boot[0-9A-F]+ "EFI Internal Shell"')
if [ -n "$ret" ] && [ -n "$shell" ] && [ "$shell" -gt "$ret" ]; then
	pass next-boot-option
else
	fail next-boot-option "the boot manager did not go on to its next option (the shell) after ibboot returned ($T/serial.txt)"
fi
check shell-ran '^ibboot-test: the shell runs after ibboot returned' "startup.nsh did not run"
runs=$(grep -acE '^ibboot .* \(efi\)$' "$T/serial.txt")
if [ "$runs" -eq 2 ]; then pass started-twice; else fail started-twice "$runs banners, expected 2 ($T/serial.txt)"; fi
hcas=$(grep -ac 'ConnectX-3 registered' "$T/serial.txt")
if [ "$hcas" -eq 2 ]; then pass hca-up-twice; else fail hca-up-twice "the HCA was brought up $hcas times, expected 2 ($T/serial.txt)"; fi
# Before Exit the HCA was stopped: once the model held none of the host's memory again, bus
# mastering went off (or already was) before the second run turned it on again; no DMA was ever
# attempted without it. (The driver gives the memory back by command, then resets, and the reset
# clears bus mastering: the model logs the two a few microseconds apart, in that order.)
quiesced=$(awk '/hcasim: bus mastering on/ { if (freed && off) later = 1; bm = "on" }
	/hcasim: bus mastering off/ { bm = "off"; if (freed) off = 1 }
	/bytes of host memory held by the HCA/ && / total 0 / && !freed { freed = 1; if (bm == "off") off = 1 }
	END { print (freed && off && later) ? "yes" : "no" }' "$T/device.log")
if [ "$quiesced" = yes ] && ! grep -aq 'without bus mastering' "$T/device.log"; then
	pass hca-quiesced-before-exit
else
	fail hca-quiesced-before-exit "no point where the HCA held no memory with bus mastering off before the second run, or DMA attempted without it ($T/device.log)"
fi
check cmdline-from-load-options '^cmdline from LoadOptions$' \
	"ibboot.cmd= from the shell's load options did not run"
pools=$(grep -aoE '^memory: [0-9]+ MiB pool' "$T/serial.txt" | awk '{ print $2 }' | tr '\n' ' ')
set -- $pools
# Half of what is free: had the first run kept its pool, the second would get about half as much;
# the shell in between takes a MiB or two.
if [ $# -eq 2 ] && [ "$2" -ge $(($1 - 8)) ]; then
	pass pool-given-back
else
	fail pool-given-back "pools of '$pools' MiB: the second run must get about what the first had (FreePages before Exit)"
fi
if [ $typed = 1 ] && [ "$status" -eq 0 ]; then
	pass conin-poweroff
else
	fail conin-poweroff "typed: $typed, QEMU status $status (expected 0: poweroff typed through ConIn, then ResetSystem)"
fi
finish
