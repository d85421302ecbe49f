#!/bin/bash
# A guest reboot resets the PCI device: the hermon device then starts a fresh model instance, and
# the stock iPXE probing again after the reboot finds a device that answers from reset (second
# reset + QUERY_FW after the "PCI reset" line, completed with status 0 like the first).
source "$(dirname "$0")/../../../src/tests/framework/lib.sh"
qemu_device_test
need_model
HCR_TRACE=$TOP/build/qemu/hcr-trace

# No -no-reboot here: iPXE's `reboot` resets the machine and it boots again, indefinitely, so the
# test stops QEMU itself once the second probe is in the log (the timeout is only a guard).
timeout --kill-after=5 180 "$QEMU" -display none -machine graphics=off -monitor none -m 256 -net none \
    -serial "file:$T/serial.log" -kernel /usr/lib/ipxe/ipxe.lkrn -append 'reboot' \
    -device "hermon,model=$MODEL,device-id=0x673c,log=$T/device.log" > "$T/qemu.out" 2>&1 &
QEMU_PID=$!
second_probe() {
    [ -f "$T/device.log" ] || return 1
    "$HCR_TRACE" < "$T/device.log" 2>/dev/null |
        sed -n '/^PCI reset/,$p' | grep -q '^completion: opcode 0x004 QUERY_FW'
}
while kill -0 "$QEMU_PID" 2>/dev/null && ! second_probe; do
    sleep 0.5
done
stop_qemu
"$HCR_TRACE" < "$T/device.log" > "$T/hcr-trace.txt"

after=$(sed -n '/^PCI reset/,$p' "$T/hcr-trace.txt")
if [ -z "$after" ]; then
    fail pci-reset-recreates-model "no 'PCI reset' in the device log: $(tail -c 400 "$T/qemu.out")"
    finish
fi
pass pci-reset-recreates-model
echo "$after" | grep -q '^reset: write 00000001 to 0xf0010' && pass ipxe-resets-again ||
    fail ipxe-resets-again "no HCA reset after the reboot"
status=$(echo "$after" | sed -n 's/^completion: opcode 0x004 QUERY_FW status //p' | head -1)
[ "$status" = 0x00 ] && pass query-fw-after-reboot ||
    fail query-fw-after-reboot "QUERY_FW after the reboot completed with '${status:-nothing}'"
finish
