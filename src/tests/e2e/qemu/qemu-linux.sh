#!/usr/bin/env bash
# ibboot boots Linux without a network: bin/ibboot.lkrn in the stock qemu-system-x86_64, entered
# by multiboot (the Linux magic blanked in a copy, so QEMU's multiboot loader can hand over
# several modules), with the payload's vmlinuz and initrd.img as modules 0 and 1. ibboot fetches
# them as images (module:N), checks their SHA-256, builds the zero page and enters the kernel by
# the 64-bit boot protocol; the payload's init prints IBBOOT-PAYLOAD-OK with its command line,
# which must carry this run's nonce. Each QEMU is bounded by a timeout and stopped by its PID.
set -u
cd "$(dirname "$0")/../../../.."
. src/tests/framework/lib.sh

QEMU=${QEMU:-qemu-system-x86_64}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-180}
OUT=build/check/boot-qemu
KERNEL=bin/payload/vmlinuz
INITRD=bin/payload/initrd.img
mkdir -p "$OUT"

if ! command -v "$QEMU" >/dev/null; then
	echo "SKIP: boot-qemu: $QEMU is not installed (Debian package qemu-system-x86)"
	exit 77
fi
for f in bin/ibboot.lkrn "$KERNEL" "$INITRD"; do
	[ -s "$f" ] || { fail boot-qemu "$f missing (make bin/ibboot.lkrn payload)"; exit 1; }
done
mb=$OUT/ibboot-multiboot.bin
cp bin/ibboot.lkrn "$mb" && printf 'XXXX' | dd of="$mb" bs=1 seek=$((0x202)) conv=notrunc status=none

qemu_pid=
trap 'if [ -n "$qemu_pid" ]; then kill "$qemu_pid" 2>/dev/null; fi' EXIT

# run NAME CMDLINE MODULES — QEMU in the background, stopped by PID after QEMU_TIMEOUT s.
run() {
	local name=$1 cmdline=$2 modules=$3 log=$OUT/$1.log
	"$QEMU" -nographic -no-reboot -nodefaults -serial stdio -monitor none -m 1024 \
		-device isa-debug-exit -kernel "$mb" -initrd "$modules" -append "$cmdline" \
		</dev/null >"$log" 2>&1 &
	qemu_pid=$!
	for _ in $(seq $((QEMU_TIMEOUT * 5))); do
		kill -0 "$qemu_pid" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$qemu_pid" 2>/dev/null; then
		kill "$qemu_pid"
		wait "$qemu_pid" 2>/dev/null
		qemu_pid=
		sed -i 's/\r$//' "$log"
		fail "boot/qemu-$name" "QEMU still running after ${QEMU_TIMEOUT}s; killed (log: $log)"
		return 1
	fi
	wait "$qemu_pid"
	status=$?
	qemu_pid=
	sed -i 's/\r$//' "$log"
	return 0
}

nonce=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
ksum=$(sha256sum "$KERNEL" | cut -c1-64)
isum=$(sha256sum "$INITRD" | cut -c1-64)

# 1. kernel + initrd from modules, the kernel pinned by its SHA-256, the nonce on its command line.
t=boot/qemu-linux-payload
if run payload "ibboot.cmd=kernel+module:0+console=ttyS0+quiet+ibboot.nonce=$nonce,initrd+module:1,sha256+module:0+$ksum,imgstat,boot,poweroff+6" \
	"$KERNEL,$INITRD"; then
	log=$OUT/payload.log
	expect $t "$log" "^sha256: module:0 OK \($ksum\)$" "the kernel's SHA-256 was not confirmed" &&
	expect $t "$log" '^bzImage: protocol 2\.[0-9]+, kernel [0-9]+ KiB at 0x[0-9a-f]+' "bzImage loader did not describe the kernel" &&
	expect $t "$log" '^\[ *[0-9]+\.[0-9]{3}\] starting Linux at 0x[0-9a-f]+200; shutting down devices' "no handoff phase line" &&
	expect $t "$log" "^IBBOOT-PAYLOAD-OK .*cmdline=.*ibboot\.nonce=$nonce" "payload marker with nonce $nonce missing" &&
	pass $t
fi

# 2. A wrong pinned hash: ibboot refuses to boot and says why; Linux never runs.
t=boot/qemu-sha256-mismatch
bad=$(printf '%s' "$ksum" | tr '0-9a-f' '1-9a-f0')
if run mismatch "ibboot.cmd=kernel+module:0+console=ttyS0,sha256+module:0+$bad,boot,poweroff+5" \
	"$KERNEL,$INITRD"; then
	log=$OUT/mismatch.log
	expect $t "$log" "^sha256: module:0 MISMATCH: expected $bad\$" "no mismatch report" &&
	expect $t "$log" '^boot: refusing: module:0 failed its sha256 check' "boot did not refuse" &&
	{ ! grep -q 'IBBOOT-PAYLOAD-OK' "$log" || { fail $t "Linux ran despite the mismatch"; false; }; } &&
	{ [ "$status" -eq 11 ] || { fail $t "QEMU status $status, expected 11 (poweroff 5)"; false; }; } &&
	pass $t
fi

# 3. An iPXE-syntax script (module 2) run by `chain`: set, ${} expansion, || and goto, sha256 of
#    both images, then boot.
t=boot/qemu-script-chain
script=$OUT/boot.ipxe
cat >"$script" <<EOS
#!ipxe
# a comment, then a label and a failing command rescued by ||
set nonce $nonce
isset \${nonce} || exit 3
iseq \${nonce} $nonce || exit 4
isset \${no-such-setting} || echo unset-ok
imgfetch module:9 || goto fetch
echo never
:fetch
echo -n no-newline-
echo here
kernel -n vmlinuz --autofree module:0 console=ttyS0 quiet ibboot.nonce=\${nonce} via="script chain"
initrd module:1
sha256 vmlinuz $ksum && sha256 module:1 $isum
imgstat
boot
EOS
if run script "ibboot.cmd=chain+module:2,poweroff+6" "$KERNEL,$INITRD,$script"; then
	log=$OUT/script.log
	expect $t "$log" '^\[ *[0-9]+\.[0-9]{3}\] running script module:2' "the script did not run" &&
	expect $t "$log" '^module:9: the boot loader brought 3 module' "the failing fetch was not reported" &&
	{ ! grep -q '^never$' "$log" || { fail $t "goto did not skip"; false; }; } &&
	expect $t "$log" '^no-newline-here$' "echo -n did not suppress the newline" &&
	expect $t "$log" '^unset-ok$' "isset of an unset setting did not fail" &&
	expect $t "$log" '^sha256: module:1 OK' "the initrd's SHA-256 was not confirmed" &&
	expect $t "$log" "^IBBOOT-PAYLOAD-OK .*ibboot\.nonce=$nonce via=script chain" "payload marker with the script's command line missing" &&
	pass $t
fi

# 4, 5. Multiboot kernels (src/tests/e2e/qemu/mbkernel.S), a.out kludge and ELF32: linked at 1 MiB
#    where ibboot itself runs, with 2 MiB of bss over the loader's buffers; the stand-in checks
#    the machine state and the boot information and exits with 0x21 (QEMU status 67).
modtext=$OUT/modtext
echo "module-text-$nonce" >"$modtext"
if as --32 --defsym KLUDGE=1 -o "$OUT/mbk.o" src/tests/e2e/qemu/mbkernel.S &&
   ld -m elf_i386 -N -e entry -Ttext=0x100000 --no-warn-rwx-segments -o "$OUT/mbk.elf" "$OUT/mbk.o" &&
   objcopy -O binary -j .text "$OUT/mbk.elf" "$OUT/mbkernel-aout.bin" &&
   as --32 -o "$OUT/mbe.o" src/tests/e2e/qemu/mbkernel.S &&
   ld -m elf_i386 -N -e entry -Ttext=0x100000 --no-warn-rwx-segments -o "$OUT/mbkernel.elf" "$OUT/mbe.o"; then
	for flavour in aout elf; do
		t=boot/qemu-multiboot-$flavour
		k=$OUT/mbkernel-aout.bin
		[ $flavour = elf ] && k=$OUT/mbkernel.elf
		if run mb-$flavour "ibboot.cmd=kernel+module:0+hello+nonce=$nonce,imgfetch+module:1+modarg,boot,poweroff+6" \
			"$k,$modtext"; then
			log=$OUT/mb-$flavour.log
			want=$([ $flavour = elf ] && echo ELF32 || echo 'a\.out kludge')
			expect $t "$log" "^multiboot: module:0: $want, entry 0x100[0-9a-f]{3}, 1 segment" "loader did not describe the kernel" &&
			expect $t "$log" "^mbkernel: cmdline=module:0 hello nonce=$nonce\$" "kernel command line wrong" &&
			expect $t "$log" "^mbkernel: module0=module-text-$nonce\$" "module contents wrong" &&
			expect $t "$log" '^mbkernel: magic, paging off, bss zeroed, info ok$' "machine state wrong" &&
			{ [ "$status" -eq 67 ] || { fail $t "QEMU status $status, expected 67 (the stand-in's 0x21)"; false; }; } &&
			pass $t
		fi
	done
else
	fail boot/qemu-multiboot "could not assemble src/tests/e2e/qemu/mbkernel.S (binutils)"
fi

# 6. No ibboot.cmd=: after the key wait the autoboot starts; this QEMU has no HCA, so it fails at
#    once naming that reason (not after dhcp's wait for a link) and the console comes up (typed
#    commands then work).
t=boot/qemu-autoboot
log=$OUT/autoboot.log
fifo=$OUT/autoboot.fifo
rm -f "$fifo" && mkfifo "$fifo"
"$QEMU" -nographic -no-reboot -nodefaults -serial stdio -monitor none -m 256 \
	-device isa-debug-exit -kernel bin/ibboot.lkrn <"$fifo" >"$log" 2>&1 &
qemu_pid=$!
exec 3>"$fifo"
for _ in $(seq $((QEMU_TIMEOUT * 5))); do
	grep -aq '^ibboot> ' "$log" && break
	kill -0 $qemu_pid 2>/dev/null || break
	sleep 0.2
done
printf 'poweroff 4\r' >&3
for _ in $(seq 50); do kill -0 $qemu_pid 2>/dev/null || break; sleep 0.2; done
if kill -0 $qemu_pid 2>/dev/null; then
	kill $qemu_pid
	wait $qemu_pid 2>/dev/null
	fail $t "QEMU still running; killed (log: $log)"
else
	wait $qemu_pid
	status=$?
	sed -i 's/\r$//' "$log"
	expect $t "$log" '^Press any key within 2 s for the ibboot console; otherwise: dhcp && chain \$\{filename\}' "no autoboot prompt" &&
	expect $t "$log" '^\[ *[0-9]+\.[0-9]{3}\] autoboot failed: no InfiniBand HCA found on PCI \(see '"'"'pci'"'"'\)' "no immediate failure naming the missing HCA" &&
	{ [ "$status" -eq 9 ] || { fail $t "QEMU status $status, expected 9 (poweroff 4 typed at the console)"; false; }; } &&
	pass $t
fi
qemu_pid=
exec 3>&-

# 7. A key pressed while the prompt offers the console: no script runs, the console comes up.
t=boot/qemu-autoboot-key
log=$OUT/autoboot-key.log
"$QEMU" -nographic -no-reboot -nodefaults -serial stdio -monitor none -m 256 \
	-device isa-debug-exit -kernel bin/ibboot.lkrn <"$fifo" >"$log" 2>&1 &
qemu_pid=$!
exec 3>"$fifo"
for _ in $(seq $((QEMU_TIMEOUT * 5))); do
	grep -aq '^Press any key' "$log" && break
	kill -0 $qemu_pid 2>/dev/null || break
	sleep 0.2
done
printf ' ' >&3
for _ in $(seq $((QEMU_TIMEOUT * 5))); do
	grep -aq '^ibboot> ' "$log" && break
	kill -0 $qemu_pid 2>/dev/null || break
	sleep 0.2
done
# The console speaks script syntax: settings expand per command, && chains.
printf 'set x 42 && echo got-${x} "quoted  words"\rpoweroff 4\r' >&3
for _ in $(seq 50); do kill -0 $qemu_pid 2>/dev/null || break; sleep 0.2; done
if kill -0 $qemu_pid 2>/dev/null; then
	kill $qemu_pid
	wait $qemu_pid 2>/dev/null
	fail $t "QEMU still running; killed (log: $log)"
else
	wait $qemu_pid
	status=$?
	sed -i 's/\r$//' "$log"
	expect $t "$log" "^console: 'help' lists the commands" "the key did not open the console" &&
	expect $t "$log" '^got-42 quoted  words$' "the console did not expand \${x} or keep the quoted spaces" &&
	{ ! grep -q 'autoboot: running' "$log" || { fail $t "the script ran despite the key"; false; }; } &&
	{ [ "$status" -eq 9 ] || { fail $t "QEMU status $status, expected 9 (poweroff 4)"; false; }; } &&
	pass $t
fi
qemu_pid=
exec 3>&-
rm -f "$fifo"
[ "$failures" -eq 0 ]
