#!/usr/bin/env bash
# QEMU smoke tests of bin/ibboot.lkrn in Debian's stock qemu-system-x86_64 (TCG, no KVM needed).
# Each boot runs commands from the kernel command line (ibboot.cmd=...) and must leave QEMU by
# itself: isa-debug-exit (status = value*2+1), ACPI S5 or reset (status 0 with -no-reboot).
# A boot that does not finish within $QEMU_TIMEOUT seconds is killed (timeout signals QEMU's PID)
# and fails.
set -u
cd "$(dirname "$0")/../../../.."
. src/tests/framework/lib.sh

IMAGE=${IMAGE:-bin/ibboot.lkrn}
QEMU=${QEMU:-qemu-system-x86_64}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-120}
OUT=build/check/qemu-smoke
mkdir -p "$OUT"
# QEMU instances started in the background are stopped by PID whatever happens to this script.
qemu_pid=
trap 'if [ -n "$qemu_pid" ]; then kill "$qemu_pid" 2>/dev/null; fi' EXIT

if ! command -v "$QEMU" >/dev/null; then
	echo "SKIP: qemu-smoke: $QEMU is not installed (Debian package qemu-system-x86; util/deps.sh installs it)"
	exit 77
fi
if [ ! -s "$IMAGE" ]; then
	fail qemu-smoke "$IMAGE missing; run make bin/ibboot.lkrn"
	exit 1
fi

# boot NAME KERNEL CMDLINE QEMU-ARGS... — runs QEMU, log in $OUT/NAME.log, status in $status.
boot() {
	local name=$1 kernel=$2 cmdline=$3
	shift 3
	timeout --kill-after=5 "$QEMU_TIMEOUT" "$QEMU" -nographic -no-reboot -nodefaults \
		-serial stdio -monitor none -kernel "$kernel" -append "$cmdline" "$@" \
		</dev/null >"$OUT/$name.log" 2>&1
	status=$?
	# Serial output arrives with CR LF.
	sed -i 's/\r$//' "$OUT/$name.log"
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		fail "qemu/$name" "QEMU still running after ${QEMU_TIMEOUT}s; killed (log: $OUT/$name.log)"
		return 1
	fi
	return 0
}

# check_mem NAME LOG LOW HIGH — the "memory: N MiB RAM" line must give LOW <= N <= HIGH.
check_mem() {
	local mib
	mib=$(extract "$2" '^memory: ([0-9]+) MiB RAM.*')
	if [ -z "$mib" ] || [ "$mib" -lt "$3" ] || [ "$mib" -gt "$4" ]; then
		fail "$1" "memory reported as '${mib:-nothing}' MiB, expected $3..$4 for this -m"
		return 1
	fi
}

check_status() {
	if [ "$status" -ne "$2" ]; then
		fail "$1" "QEMU exited with status $status, expected $2 ($3)"
		return 1
	fi
}

# A file for the loader to bring along (initrd / multiboot module), and its byte sum mod 2^32.
blob=$OUT/module.bin
head -c 1048576 /dev/urandom >"$blob"
blob_sum=$(od -An -v -tu1 "$blob" | awk '{ for (i = 1; i <= NF; i++) s += $i } END { printf "%u", s % 4294967296 }')

# check_module NAME LOG — the module was found, and memcheck (which writes every free chunk)
# left it intact: both `modules` listings give the host's byte sum.
check_module() {
	local sums
	sums=$(extract "$2" '^module 0: 0x[0-9a-f]+, 1048576 bytes, byte sum ([0-9]+)$')
	if [ "$(grep -ac "^module 0: .* byte sum $blob_sum\$" "$2")" -ne 2 ]; then
		fail "$1" "boot module not kept intact across memcheck (host sum $blob_sum, ibboot '${sums:-none}')"
		return 1
	fi
}

# 1. Linux boot protocol (QEMU -kernel takes the setup header), i440fx, port 0xcf8 config access,
#    plus a second e1000 on an extra root bus (pxb, bus 0x40) that no bridge on bus 0 leads to,
#    and an initrd the allocator must not hand out.
t=qemu/linux-boot
if boot linux-boot "$IMAGE" "ibboot.cmd=help,pci,mem,modules,memcheck,modules,poweroff" -m 256 \
	-device isa-debug-exit -device e1000 -initrd "$blob" \
	-device pxb,id=pxb1,bus_nr=0x40 -device e1000,bus=pxb1,addr=2; then
	log=$OUT/linux-boot.log
	expect $t "$log" '^ibboot [^ ]+ \(pcbios\)$' "no banner" &&
	expect $t "$log" 'booted via Linux boot protocol \(real-mode entry\)' "wrong boot path" &&
	expect $t "$log" '^random: TSC jitter only \(no RDRAND\)$' "QEMU's default CPU (qemu64) has no RDRAND: the random source line must say so" &&
	check_mem $t "$log" 248 256 &&
	expect $t "$log" '^00:0[0-9a-f]\.0 8086:100e class 020000' "e1000 (8086:100e) not listed" &&
	expect $t "$log" '^4[0-9a-f]:02\.0 8086:100e class 020000' "e1000 on the extra root bus not found" &&
	expect $t "$log" '^    BAR0 mem32 0x[0-9a-f]+ size 128 KiB$' "e1000 BAR0 (128 KiB) not sized" &&
	expect $t "$log" '^    BAR1 io +0x[0-9a-f]+ size 64 B$' "e1000 I/O BAR (64 B) not sized" &&
	expect $t "$log" 'config access: port 0xcf8' "unexpected config access method" &&
	check_module $t "$log" &&
	expect $t "$log" '^ibboot> mem$' "ibboot.cmd did not run" &&
	expect $t "$log" '^  memcheck ' "built-in commands missing from help" &&
	{ [ ! -d src/net ] || expect $t "$log" '^  ibstat ' "network commands (linker table) missing from help"; } &&
	expect $t "$log" '^powering off$' "poweroff did not run" &&
	check_status $t 1 "isa-debug-exit with value 0" &&
	pass $t
fi

# 2. Multiboot v1: the same image with the Linux magic blanked, so QEMU must use the multiboot
#    header. Also checks that a poweroff status reaches the host, that (on a CPU with 1 GiB pages)
#    whole gigabytes of RAM are mapped with them (memcheck touches all of it), and that a
#    multiboot module is kept out of the allocator.
t=qemu/multiboot
mb=$OUT/ibboot-multiboot.bin
cp "$IMAGE" "$mb" && printf 'XXXX' | dd of="$mb" bs=1 seek=$((0x202)) conv=notrunc status=none
if boot multiboot "$mb" "ibboot.cmd=mem,modules,memcheck,modules,poweroff+7" -m 3072 -cpu max \
	-device isa-debug-exit -initrd "$blob"; then
	log=$OUT/multiboot.log
	expect $t "$log" '^ibboot [^ ]+ \(pcbios\)$' "no banner" &&
	expect $t "$log" 'booted via multiboot' "QEMU did not take the multiboot path" &&
	expect $t "$log" '^random: (RDRAND|RDSEED)\+TSC$' "-cpu max offers RDRAND (TCG in QEMU 7.2: RDRAND, no RDSEED): the random source line must name it" &&
	check_mem $t "$log" 3064 3072 &&
	expect $t "$log" '^paging: RAM identity-mapped with 1 GiB and 2 MiB pages; 1 of' "1-2 GiB not mapped by one 1 GiB page (2-3 GiB needs one page directory)" &&
	expect $t "$log" '^memcheck: .* 0 bad; all freed$' "memcheck failed" &&
	check_module $t "$log" &&
	check_status $t 15 "isa-debug-exit with value 7" &&
	pass $t
fi

# 3. q35: ECAM from ACPI MCFG, a device behind a PCI bridge, RAM above 4 GiB (memcheck writes and
#    verifies every chunk the allocator hands out, so the page tables must cover it), a 1 GiB
#    64-bit BAR that firmware places above 4 GiB (ivshmem: plain memory, so a write must read
#    back through the on-demand uncached mapping), debug exit at 0xf4.
t=qemu/q35-ecam-bridge
if boot q35 "$IMAGE" "ibboot.cmd=memcheck,mmio+00:05.0+2+0x100+0x5eed1234,poweroff" -M q35 -m 4608 \
	-device isa-debug-exit,iobase=0xf4,iosize=4 \
	-device pci-bridge,id=br1,chassis_nr=1 -device e1000,bus=br1,addr=3 \
	-object memory-backend-ram,id=shm,size=1G -device ivshmem-plain,memdev=shm,addr=5; then
	log=$OUT/q35.log
	high=$(extract "$log" '^memcheck: .*highest 0x([0-9a-f]+), 0 bad; all freed$')
	bar2=$(extract "$log" '^    BAR2 mem64 0x([0-9a-f]+) size 1 GiB prefetchable$')
	expect $t "$log" 'config access: ECAM 0x[0-9a-f]+' "ECAM not used on q35" &&
	expect $t "$log" '^00:[0-9a-f]{2}\.0 1b36:0001 class 060400' "PCI bridge not listed" &&
	expect $t "$log" '^0[1-9a-f]:03\.0 8086:100e class 020000' "e1000 behind the bridge not found" &&
	check_mem $t "$log" 4600 4608 &&
	expect $t "$log" '^paging: RAM identity-mapped with 2 MiB pages; [1-9][0-9]* of' "RAM above 1 GiB not mapped with 2 MiB pages" &&
	{ [ -n "$high" ] && [ $((0x$high)) -gt $((0x100000000)) ] ||
		{ fail $t "memcheck did not verify memory above 4 GiB (highest '${high:-none}')"; false; }; } &&
	{ [ -n "$bar2" ] && [ $((0x$bar2)) -ge $((0x100000000)) ] ||
		{ fail $t "ivshmem BAR2 not above 4 GiB ('${bar2:-none}')"; false; }; } &&
	expect $t "$log" '^mmio 00:05\.0 BAR2 at 0x[0-9a-f]+ \+0x100: 0x5eed1234$' "BAR above 4 GiB did not read back" &&
	check_status $t 1 "isa-debug-exit at 0xf4 with value 0" &&
	pass $t
fi

# 4. No isa-debug-exit: poweroff must switch the machine off through ACPI (FADT + \_S5).
t=qemu/acpi-poweroff
if boot acpi-poweroff "$IMAGE" "ibboot.cmd=poweroff" -m 128; then
	expect $t "$OUT/acpi-poweroff.log" '^powering off$' "poweroff did not run" &&
	check_status $t 0 "ACPI S5 shutdown" &&
	pass $t
fi

# 5. reboot resets the machine (QEMU -no-reboot turns the reset into an exit).
t=qemu/reboot
if boot reboot "$IMAGE" "ibboot.cmd=reboot" -m 128; then
	expect $t "$OUT/reboot.log" '^rebooting$' "reboot did not run" &&
	check_status $t 0 "reset with -no-reboot" &&
	pass $t
fi

# 5b. A CPU exception is reported (vector, fault address) and ends the run with a distinct status.
t=qemu/exception
if boot exception "$IMAGE" "ibboot.cmd=fault" -m 128 -device isa-debug-exit; then
	expect $t "$OUT/exception.log" '^\*\*\* CPU exception 14 \(#PF\)' "no exception report" &&
	expect $t "$OUT/exception.log" 'cr2 0x400000000000' "faulting address not reported" &&
	check_status $t 171 "isa-debug-exit with value 0x55 after an exception" &&
	pass $t
fi

# 5c. The 64-bit Linux boot-protocol handoff: a stand-in kernel (src/tests/e2e/qemu/linux64-payload.S,
#    assembled here) passed as the initrd is entered by `exec64`; it checks the segments,
#    interrupts and e820 table the protocol promises, prints its command line and exits.
t=qemu/linux64-handoff
if as --64 -o "$OUT/linux64-payload.o" src/tests/e2e/qemu/linux64-payload.S &&
   objcopy -O binary -j .text "$OUT/linux64-payload.o" "$OUT/linux64-payload.bin"; then
	if boot linux64 "$IMAGE" "ibboot.cmd=exec64+0+handed+over" -m 256 -device isa-debug-exit \
		-initrd "$OUT/linux64-payload.bin"; then
		expect $t "$OUT/linux64.log" '^exec64: entering module 0 at 0x[0-9a-f]+200$' "exec64 did not run" &&
		expect $t "$OUT/linux64.log" '^linux64 entry ok; cmdline: handed over$' "entry conditions or command line wrong" &&
		check_status $t 133 "the stand-in kernel's isa-debug-exit value 0x42" &&
		pass $t
	fi
else
	fail $t "could not assemble src/tests/e2e/qemu/linux64-payload.S"
fi

# 6. The interactive console: commands typed on the serial line once the prompt shows (bytes sent
#    before the firmware runs are lost, as on a real serial line).
t=qemu/serial-console
log=$OUT/serial-console.log
fifo=$OUT/console-input.fifo
rm -f "$fifo" && mkfifo "$fifo"
"$QEMU" -nographic -no-reboot -nodefaults -serial stdio -monitor none -kernel "$IMAGE" -m 128 \
	-device isa-debug-exit <"$fifo" >"$log" 2>&1 &
qemu_pid=$!
exec 3>"$fifo"
for _ in $(seq $((QEMU_TIMEOUT * 10))); do
	grep -aq '^ibboot> ' "$log" && break
	kill -0 $qemu_pid 2>/dev/null || break
	sleep 0.1
done
printf 'echo typed-on-serial\rpoweroff 3\r' >&3
for _ in $(seq $((QEMU_TIMEOUT * 10))); do
	kill -0 $qemu_pid 2>/dev/null || break
	sleep 0.1
done
if kill -0 $qemu_pid 2>/dev/null; then
	kill $qemu_pid
	wait $qemu_pid
	fail $t "QEMU still running after ${QEMU_TIMEOUT}s; killed (log: $log)"
else
	wait $qemu_pid
	status=$?
	sed -i 's/\r$//' "$log"
	expect $t "$log" '^typed-on-serial$' "echo typed on the serial console missing" &&
	check_status $t 7 "poweroff 3 typed on the console" &&
	pass $t
fi
exec 3>&-
rm -f "$fifo"

# 6b. The VGA text console and the PS/2 keyboard: with a VGA card in text mode the console is
#    mirrored on screen. Once ibboot waits at its prompt the test types a command on the emulated
#    keyboard (monitor sendkey), then reads the text buffer through the monitor (pmemsave) and
#    quits QEMU through the monitor.
t=qemu/vga-console
log=$OUT/vga-serial.log
fifo=$OUT/vga-monitor.fifo
rm -f "$fifo" "$OUT/vga-text.bin" "$log" && mkfifo "$fifo"
"$QEMU" -display none -no-reboot -nodefaults -vga std -serial "file:$log" -monitor stdio \
	-kernel "$IMAGE" -m 128 -append "ibboot.cmd=echo+shown-on-vga" <"$fifo" >"$OUT/vga-monitor.log" 2>&1 &
qemu_pid=$!
exec 3>"$fifo"
for _ in $(seq $((QEMU_TIMEOUT * 10))); do
	prompts=$(grep -ac '^ibboot> ' "$log" 2>/dev/null)
	[ "${prompts:-0}" -ge 2 ] && break
	kill -0 $qemu_pid 2>/dev/null || break
	sleep 0.1
done
for k in e c h o spc shift-k b d minus 1 ret; do
	printf 'sendkey %s\n' "$k" >&3
done
for _ in $(seq $((QEMU_TIMEOUT * 10))); do
	grep -aq '^Kbd-1' "$log" 2>/dev/null && break
	kill -0 $qemu_pid 2>/dev/null || break
	sleep 0.1
done
printf 'pmemsave 0xb8000 4000 %s\nquit\n' "$OUT/vga-text.bin" >&3
for _ in $(seq $((QEMU_TIMEOUT * 10))); do
	kill -0 $qemu_pid 2>/dev/null || break
	sleep 0.1
done
if kill -0 $qemu_pid 2>/dev/null; then
	kill $qemu_pid
	wait $qemu_pid
	fail $t "QEMU still running after ${QEMU_TIMEOUT}s; killed"
else
	wait $qemu_pid
	# Text cells are (character, attribute 0x07) pairs: drop the attributes to read the screen.
	tr -d '\007' <"$OUT/vga-text.bin" >"$OUT/vga-text.txt" 2>/dev/null
	expect $t "$OUT/vga-text.txt" 'ibboot [^ ]+ \(pcbios\)' "banner not on the VGA screen" &&
	expect $t "$OUT/vga-text.txt" 'shown-on-vga' "command output not on the VGA screen" &&
	expect $t "$log" '^ibboot> echo Kbd-1' "keys typed on the PS/2 keyboard not echoed" &&
	expect $t "$log" '^Kbd-1.?$' "command typed on the PS/2 keyboard did not run" &&
	expect $t "$OUT/vga-text.txt" 'Kbd-1' "keyboard command output not on the VGA screen" &&
	pass $t
fi
exec 3>&-
rm -f "$fifo"

# 7. A real boot loader: syslinux (Debian's package) on a FAT floppy loads the image with
#    KERNEL, through the Linux boot protocol's real-mode entry.
t=qemu/syslinux
if ! command -v syslinux >/dev/null || ! command -v mformat >/dev/null; then
	echo "SKIP: $t: syslinux or mtools not installed (Debian packages syslinux, mtools)"
else
	img=$OUT/syslinux-floppy.img
	rm -f "$img"
	printf 'SERIAL 0 115200\nPROMPT 0\nDEFAULT ibboot\nLABEL ibboot\n  KERNEL ibboot.lkrn\n  APPEND ibboot.cmd=pci,poweroff+2\n' >"$OUT/syslinux.cfg"
	if mformat -i "$img" -C -f 1440 :: && syslinux --install "$img" &&
	   mcopy -i "$img" "$OUT/syslinux.cfg" ::syslinux.cfg && mcopy -i "$img" "$IMAGE" ::ibboot.lkrn; then
		timeout --kill-after=5 "$QEMU_TIMEOUT" "$QEMU" -nographic -no-reboot -nodefaults \
			-serial stdio -monitor none -m 256 -device isa-debug-exit -device e1000 \
			-drive file="$img",format=raw,if=floppy -boot a </dev/null >"$OUT/syslinux.log" 2>&1
		status=$?
		sed -i 's/\r$//' "$OUT/syslinux.log"
		log=$OUT/syslinux.log
		if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
			fail $t "QEMU still running after ${QEMU_TIMEOUT}s; killed (log: $log)"
		else
			expect $t "$log" 'SYSLINUX' "syslinux did not start" &&
			expect $t "$log" 'booted via Linux boot protocol \(real-mode entry\)' "image not entered through its setup code" &&
			expect $t "$log" '^ibboot> pci$' "command line from syslinux APPEND not seen" &&
			expect $t "$log" '8086:100e class 020000' "e1000 not listed" &&
			check_status $t 5 "isa-debug-exit with value 2" &&
			pass $t
		fi
	else
		fail $t "could not build the syslinux floppy image"
	fi
fi

# 8. GRUB (Debian's grub-pc-bin): linux16 (real-mode entry), linux (32-bit boot protocol: GRUB
#    builds boot_params and jumps to code32_start) and multiboot, all with the unmodified image.
#    GRUB itself is booted by QEMU -kernel: lnxboot.img + a standalone core image whose memdisk
#    holds grub.cfg and the image.
if ! command -v grub-mkstandalone >/dev/null || [ ! -f /usr/lib/grub/i386-pc/lnxboot.img ]; then
	echo "SKIP: qemu/grub: GRUB for BIOS not installed (Debian package grub-pc-bin)"
else
	for mode in linux16 linux multiboot; do
		t=qemu/grub-$mode
		cfg=$OUT/grub-$mode.cfg
		printf '%s\n' 'serial --unit=0 --speed=115200' 'terminal_output serial' \
			'terminal_input serial' "echo \"GRUB: $mode\"" \
			"$mode (memdisk)/ibboot.lkrn ibboot.cmd=pci,poweroff+4" boot >"$cfg"
		if ! grub-mkstandalone -O i386-pc --locales= --themes= --fonts= \
			--install-modules="linux16 linux multiboot serial memdisk tar echo terminal" \
			--modules="serial terminal" -o "$OUT/grub-$mode.core" \
			"boot/grub/grub.cfg=$cfg" "ibboot.lkrn=$IMAGE" >"$OUT/grub-$mode.mk.log" 2>&1; then
			fail $t "grub-mkstandalone failed (see $OUT/grub-$mode.mk.log)"
			continue
		fi
		cat /usr/lib/grub/i386-pc/lnxboot.img "$OUT/grub-$mode.core" >"$OUT/grub-$mode.lkrn"
		case $mode in
		linux16) path='Linux boot protocol \(real-mode entry\)' ;;
		linux) path='Linux boot protocol \(32-bit entry\)' ;;
		multiboot) path='multiboot' ;;
		esac
		if boot grub-$mode "$OUT/grub-$mode.lkrn" "" -m 256 -device isa-debug-exit -device e1000; then
			log=$OUT/grub-$mode.log
			expect $t "$log" "GRUB: $mode" "GRUB did not run its script" &&
			expect $t "$log" "booted via $path\\;" "not entered the way GRUB's $mode enters" &&
			check_mem $t "$log" 248 256 &&
			expect $t "$log" '8086:100e class 020000' "e1000 not listed" &&
			check_status $t 9 "isa-debug-exit with value 4" &&
			pass $t
		fi
	done
fi

[ "$failures" -eq 0 ]
