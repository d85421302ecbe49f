#!/usr/bin/env bash
# bin/ibboot.efi under UEFI, end to end, in one QEMU boot: OVMF (Debian's ovmf) starts it from a
# FAT disk as \EFI\BOOT\BOOTX64.EFI (util/efi/esp) in our QEMU with the hermon device (the HCA
# model) cabled into fabsim under the stock OpenSM. No command line: the embedded autoboot runs
# `dhcp && chain ${filename}`; dnsmasq's lease names boot.ipxe (TFTP), which
#   1. fetches nostub.img — the payload's kernel with its "MZ" cleared, i.e. a bzImage without
#      an EFI stub — and boots it: ibboot must refuse it with its message and carry on;
#   2. fetches a multiboot kernel (src/tests/e2e/qemu/mbkernel.S as ELF32) and boots it: refused
#      too (no 32-bit handoff under UEFI), and the script carries on;
#   3. fetches the payload's kernel and initrd over HTTP (nginx), pins both, and boots: Linux
#      starts through its EFI stub (LoadImage/StartImage), takes the command line from
#      LoadOptions and the initrd from our LoadFile2 protocol (its own "Loaded initrd from
#      LINUX_EFI_INITRD_MEDIA_GUID device path" line), and the payload prints its marker with
#      this run's nonce.
# With --rom the same netboot starts from the HCA's UEFI option ROM instead (bin/ibboot.efirom
# given to the device as its ROM BAR, no disk at all): OVMF's PCI bus driver starts the ROM's
# driver, the boot manager boots its LoadFile boot option; only step 3 is run (check-efirom-qemu).
# Also asserted: the platform lines (UEFI, AllocatePages pool, PCI through the root bridge
# protocol), and that the HCA was quiesced before StartImage (a second reset, no host memory
# held, no register write after it, no DMA with bus mastering off, bus mastering left off).
# QEMU is bounded by a guard and stopped by its PID; nothing asserts on time.
# Logs: build/qemu/tests/efi-netboot/.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$TOP"
SUITE=efi-qemu
T=$TOP/build/qemu/tests/efi-netboot
ROM=0
if [ "${1:-}" = --rom ] || [ "${2:-}" = --rom ]; then
	ROM=1; SUITE=efirom-qemu; T=$TOP/build/qemu/tests/efirom-netboot
fi
OVMF=${OVMF:-/usr/share/ovmf/OVMF.fd}
if [ "${1:-}" != --inside ]; then
	rm -rf "$T"; mkdir -p "$T/srv"
	for f in bin/ibboot.efi $([ $ROM = 1 ] && echo bin/ibboot.efirom) bin/payload/vmlinuz bin/payload/initrd.img bin/libhcasim.so \
		bin/libfabsim_client.so bin/fabsim bin/fabsim-servernode; do
		[ -s "$f" ] || { echo "FAIL: $SUITE: $f missing (make check-efi-qemu builds it)"; exit 1; }
	done
	[ -s "$OVMF" ] || { echo "SKIP: $SUITE: no OVMF at $OVMF (Debian package ovmf)"; exit 77; }
	if [ $ROM = 0 ]; then
		util/efi/esp "$T/esp.img" bin/ibboot.efi > "$T/esp.log" 2>&1 ||
			{ echo "FAIL: $SUITE/esp: util/efi/esp failed: $(tail -3 "$T/esp.log")"; exit 1; }
		echo "PASS: $SUITE/esp"
	fi
	cp bin/payload/vmlinuz bin/payload/initrd.img "$T/srv/"
	# The same kernel without its EFI stub: no "MZ", so no PE header; the setup header stays.
	cp bin/payload/vmlinuz "$T/srv/nostub.img"
	printf '\0\0' | dd of="$T/srv/nostub.img" bs=1 seek=0 conv=notrunc status=none
	# A multiboot kernel, as the multiboot loader's QEMU test builds it.
	as --32 -o "$T/mbe.o" src/tests/e2e/qemu/mbkernel.S &&
		ld -m elf_i386 -N -e entry -Ttext=0x100000 --no-warn-rwx-segments \
			-o "$T/srv/mbkernel.elf" "$T/mbe.o" ||
		{ echo "FAIL: $SUITE/mbkernel: the multiboot test kernel did not build"; exit 1; }
	nonce=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
	ksum=$(sha256sum bin/payload/vmlinuz | cut -c1-64)
	isum=$(sha256sum bin/payload/initrd.img | cut -c1-64)
	cat > "$T/srv/boot.ipxe" <<EOS
#!ipxe
echo efi test: lease \${ip} from \${next-server}
kernel http://\${next-server}/nostub.img console=ttyS0
boot || echo efi test: the kernel without an EFI stub was not booted
imgfree nostub.img
kernel http://\${next-server}/mbkernel.elf
boot || echo efi test: the multiboot kernel was not booted
imgfree mbkernel.elf
kernel http://\${next-server}/vmlinuz console=ttyS0 loglevel=6 no_timer_check ibboot.nonce=$nonce
initrd http://\${next-server}/initrd.img
sha256 vmlinuz $ksum
sha256 initrd.img $isum
boot
EOS
	if [ $ROM = 1 ]; then   # the Linux boot only
		sed -i -e '/nostub\|mbkernel\|not booted/d' "$T/srv/boot.ipxe"
	fi
	echo "$nonce" > "$T/nonce"
	util/netboot-env run "$T/env" --hcas 1 --root "$T/srv" --dhcp-boot boot.ipxe \
		-- "$0" --inside $([ $ROM = 1 ] && echo --rom) > "$T/netboot-env.log" 2>&1
	rc=$?
	grep -E '^(PASS|FAIL|SKIP)' "$T/netboot-env.log"
	[ "$rc" -eq 77 ] && exit 77
	grep -q '^PASS: ' "$T/netboot-env.log" ||
		{ echo "FAIL: $SUITE: the environment did not come up (status $rc): $(tail -5 "$T/netboot-env.log")"; exit 1; }
	exit 0
fi

QEMU=${QEMU_BIN:-$(util/qemu/build --print-path 2>/dev/null)} ||
	{ echo "SKIP: $SUITE: QEMU with the hermon device is not built (make qemu)"; exit 77; }
nonce=$(cat "$T/nonce")
BOOT=(-drive "if=ide,format=raw,file=$T/esp.img")
ROMFILE=
[ $ROM = 1 ] && { BOOT=(); ROMFILE=",romfile=$TOP/bin/ibboot.efirom"; }
# -vga none: ConOut is the serial terminal only (OVMF's default console includes the serial port).
timeout --kill-after=5 300 "$QEMU" -display none -machine graphics=off -monitor none -no-reboot \
	-m 1G -net none -vga none -serial "file:$T/serial.log" -bios "$OVMF" \
	"${BOOT[@]}" \
	-device "hermon,model=$TOP/bin/libhcasim.so,device-id=0x1003,guid=$NETBOOT_HCA1_NODE_GUID,port2=off,fabric=$FABSIM_HCA_SOCKET,fabric-lib=$TOP/bin/libfabsim_client.so,log=$T/device.log$ROMFILE" \
	> "$T/qemu.out" 2>&1 &
qpid=$!
# Bounded: the guard stops QEMU after 300 s whatever happens; done at the marker or a failure.
for _ in $(seq 1 600); do
	kill -0 $qpid 2>/dev/null || break
	grep -aq 'IBBOOT-PAYLOAD-OK' "$T/serial.log" 2>/dev/null && sleep 2 && break
	grep -aq 'autoboot failed\|boot: the kernel.s EFI stub returned' "$T/serial.log" 2>/dev/null && sleep 1 && break
	sleep 0.5
done
if kill -0 $qpid 2>/dev/null; then kill $qpid; fi
wait $qpid 2>/dev/null
sed -e 's/\r//g' -e 's/\x1b\[[0-9;=?]*[a-zA-Z]//g' "$T/serial.log" > "$T/serial.txt"
step() {  # step NAME REGEX WHY
	if grep -aEq "$2" "$T/serial.txt"; then echo "PASS: $SUITE/$1"; else echo "FAIL: $SUITE/$1: $3 (log: $T/serial.txt)"; fi
}
step banner '^ibboot .* \(efi\)$' "OVMF did not start bin/ibboot.efi, or its banner did not reach the serial port"
step platform '^platform: UEFI [0-9.]+ application \(EDK II' "no UEFI platform line"
step memory-pool '^memory: [0-9]+ MiB pool at 0x[0-9a-f]+ from AllocatePages \(below 4 GiB\)' \
	"no buffer pool from AllocatePages below 4 GiB"
step pci-root-bridge '^pci: [0-9]+ functions \(config access: UEFI PCI Root Bridge I/O\)' \
	"PCI was not reached through the root bridge protocol"
step hca-probed 'ConnectX-3 registered' "the driver did not bring the HCA up"
step port-active 'port 1: ACTIVE, LID 0x' "the port never became ACTIVE under OpenSM"
step dhcp-lease "DHCP lease 198\\.18\\.0\\.[0-9]+ .* from $NETBOOT_SERVER_IP" "no DHCP lease from dnsmasq"
step script-runs "^efi test: lease 198\\.18\\.0\\.[0-9]+ from $NETBOOT_SERVER_IP\$" "boot.ipxe did not run"
[ $ROM = 0 ] && step nostub-refused '^boot: nostub\.img is a Linux kernel without an EFI stub \(no PE32\+ header behind "MZ"\)' \
	"the kernel without an EFI stub was not refused with the message"
[ $ROM = 0 ] && step nostub-carries-on '^efi test: the kernel without an EFI stub was not booted$' \
	"the script did not go on after the refusal"
[ $ROM = 0 ] && step multiboot-refused '^boot: mbkernel\.elf is a multiboot kernel; this platform cannot enter one' \
	"the multiboot kernel was not refused with the message"
[ $ROM = 0 ] && step multiboot-carries-on '^efi test: the multiboot kernel was not booted$' \
	"the script did not go on after the multiboot refusal"
step sha256 '^sha256: initrd\.img OK' "the SHA-256 pins were not confirmed"
step loadimage '^efi: vmlinuz loaded by the firmware at 0x[0-9a-f]+ \([0-9]+ KiB\); initrd [0-9]+ KiB through LoadFile2' \
	"the firmware did not load the kernel's PE image"
step handoff '\] starting Linux at its EFI stub \(StartImage\); shutting down devices' "no handoff"
step stub-initrd '^EFI stub: Loaded initrd from LINUX_EFI_INITRD_MEDIA_GUID device path' \
	"Linux's EFI stub did not take the initrd from our LoadFile2 protocol"
step linux-cmdline "Kernel command line: .*ibboot\\.nonce=$nonce" "Linux did not get the command line from LoadOptions"
step linux-booted "^IBBOOT-PAYLOAD-OK .*ibboot\\.nonce=$nonce" "Linux did not print its marker with nonce $nonce"
# Before StartImage the HCA was quiesced as on a BIOS machine: a second software reset (the first
# is at probe), the model holding none of the host's memory, no register write after that reset,
# no DMA attempted with bus mastering off, and bus mastering turned off.
resets=$(grep -ac 'hcasim: software reset' "$T/device.log")
last_reset=$(grep -an 'hcasim: software reset' "$T/device.log" | tail -1 | cut -d: -f1)
last_mem=$(grep -a 'bytes of host memory held by the HCA' "$T/device.log" | tail -1)
writes_after=$(tail -n +"$((${last_reset:-0} + 1))" "$T/device.log" | grep -ac ' write ')
if [ "$resets" -ge 2 ] && [[ "$last_mem" == *" total 0 "* ]] && [ "$writes_after" -eq 0 ]; then
	echo "PASS: $SUITE/hca-quiesced-before-linux"
else
	echo "FAIL: $SUITE/hca-quiesced-before-linux: resets $resets, last '$last_mem', $writes_after register writes after the last reset (log: $T/device.log)"
fi
if grep -aq 'without bus mastering' "$T/device.log"; then
	echo "FAIL: $SUITE/no-dma-without-bus-master: $(grep -am1 'without bus mastering' "$T/device.log")"
else
	echo "PASS: $SUITE/no-dma-without-bus-master"
fi
if grep -aq 'hcasim: bus mastering off' "$T/device.log"; then
	echo "PASS: $SUITE/bus-master-cleared"
else
	echo "FAIL: $SUITE/bus-master-cleared: the model never saw bus mastering turned off ($T/device.log)"
fi
