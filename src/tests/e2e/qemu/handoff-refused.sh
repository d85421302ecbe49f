#!/usr/bin/env bash
# `boot` refuses the Linux handoff when the HCA could not be stopped, end to end in QEMU: ibboot
# (entered by multiboot, the payload's kernel as module 0, no network) probes the hermon model,
# loads the kernel and runs `boot`; the model (HCASIM_FAULT=reset-stuck-after=1: the probe's reset
# is the last that works, the hardware semaphore stays held after it) lets the driver's final reset
# fail. The console must show the driver's failed reset, the PCI layer's last resort and
# "boot: refusing to start Linux"; Linux must print nothing; the script's next command (poweroff 5)
# must run, so QEMU leaves by itself with status 11. A control run without the fault shows the
# same command line reaching Linux, so the refusal is the fault's doing.
# Each QEMU is bounded by a guard and stopped by its PID (run_qemu); nothing asserts on time.
. "$(dirname "$0")/../../framework/lib.sh"
qemu_device_test
need_model

KERNEL=$TOP/bin/payload/vmlinuz
for f in "$TOP/bin/ibboot.lkrn" "$KERNEL"; do
	[ -s "$f" ] || { echo "FAIL: $SUITE: $f missing (make bin/ibboot.lkrn payload)"; exit 1; }
done
# QEMU's multiboot loader takes modules; its Linux loader would win while the setup magic is there.
mb=$T/ibboot-multiboot.bin
cp "$TOP/bin/ibboot.lkrn" "$mb" && printf 'XXXX' | dd of="$mb" bs=1 seek=$((0x202)) conv=notrunc status=none
CMD="ibboot.cmd=kernel+module:0+console=ttyS0,boot,poweroff+5"

# boot NAME FAULT — one QEMU; serial in $T/NAME.serial.txt, the device log in $T/NAME.dev.log.
boot() {
	local name=$1
	HCASIM_FAULT=$2 run_qemu 90 -m 512 -device isa-debug-exit \
		-device "hermon,model=$MODEL,device-id=0x1003,log=$T/$name.dev.log" \
		-kernel "$mb" -initrd "$KERNEL" -append "$CMD"
	status=$?
	serial_text > "$T/$name.serial.txt"
	cp "$T/qemu.out" "$T/$name.qemu.out"
}

has() { grep -Eq "$2" "$T/$1"; }
check() { # NAME FILE REGEX WHAT
	if has "$2" "$3"; then pass "$1"; else fail "$1" "$4 ($T/$2)"; fi
}

boot refused reset-stuck-after=1
check model-fault refused.dev.log 'model: hcasim: fault from HCASIM_FAULT: reset-stuck-after=1 ' \
	"the model did not take HCASIM_FAULT"
check model-semaphore-held refused.dev.log 'model: hcasim: fault: software reset 1 is the last that works' \
	"the probe's reset was not the one the fault counted"
check probe refused.serial.txt 'ConnectX-3 registered' "the HCA was not brought up by the probe"
check handoff-started refused.serial.txt 'starting Linux at 0x[0-9a-f]+; shutting down devices' \
	"boot did not reach the handoff"
check driver-reset-failed refused.serial.txt 'HW semaphore busy .*: no reset' \
	"no failed-reset message from the driver"
check driver-memory-kept refused.serial.txt 'HCA did not reset: [0-9]+ KiB host memory kept' \
	"the driver did not say it keeps the HCA's memory"
check pci-last-resort refused.serial.txt 'pci 00:0[0-9a-f]\.0: could not be stopped; bus mastering cleared' \
	"the PCI layer did not report the device it could not stop"
check boot-refused refused.serial.txt '^boot: refusing to start Linux: a device could not be reset' \
	"boot did not refuse the handoff"
if has refused.serial.txt 'Linux version|Command line:|Kernel panic|BIOS-e820'; then
	fail linux-never-ran "Linux printed something after the refusal ($T/refused.serial.txt)"
else
	pass linux-never-ran
fi
if [ "$status" -eq 11 ]; then
	pass exit-after-refusal
else
	fail exit-after-refusal "QEMU status $status, expected 11 (the script's poweroff 5 after the refused boot)"
fi

# Control: the same boot without the fault reaches Linux (stopped by the guard's PID once it has).
control() {
	local i
	rm -f "$T/serial.log"
	timeout --kill-after=5 90 "$QEMU" -display none -machine graphics=off -monitor none \
		-no-reboot -m 512 -net none -serial "file:$T/serial.log" -device isa-debug-exit \
		-device "hermon,model=$MODEL,device-id=0x1003,log=$T/control.dev.log" \
		-kernel "$mb" -initrd "$KERNEL" -append "$CMD" > "$T/control.qemu.out" 2>&1 &
	QEMU_PID=$!
	for ((i = 0; i < 90 * 5; i++)); do
		kill -0 "$QEMU_PID" 2>/dev/null || break
		grep -aq 'Linux version' "$T/serial.log" 2>/dev/null && break
		sleep 0.2
	done
	stop_qemu
	serial_text > "$T/control.serial.txt"
}
control
if has control.serial.txt 'Linux version' && ! has control.serial.txt 'boot: refusing'; then
	pass control-linux-starts
else
	fail control-linux-starts "without the fault the same boot did not reach Linux ($T/control.serial.txt)"
fi
finish
