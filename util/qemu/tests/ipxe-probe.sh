#!/bin/bash
# Debian's stock iPXE drives -device hermon,device-id=0x673c (a ConnectX-2, which its hermon driver
# knows): it must reset the HCA and issue QUERY_FW through the HCR, and the model must see both
# (device log, decoded by hcr-trace); the probe must end with iPXE registering net0, and the host
# memory it lent the HCA must be back by the end. The command trace and iPXE's console are printed
# so that wherever a model change makes iPXE stop is on record.
source "$(dirname "$0")/../../../src/tests/framework/lib.sh"
qemu_device_test
need_model
HCR_TRACE=$TOP/build/qemu/hcr-trace
[ -x "$HCR_TRACE" ] || { echo "FAIL: qemu/$TEST_NAME: $HCR_TRACE missing (make check-qemu-device builds it)"; exit 1; }

run_qemu 300 -kernel /usr/lib/ipxe/ipxe.lkrn -append 'ifstat || echo no-netdev && echo probe-done && sleep 1 && reboot' \
    -device "hermon,model=$MODEL,device-id=0x673c,addr=03.0,log=$T/device.log"
rc=$?
serial_text > "$T/serial.txt"
"$HCR_TRACE" < "$T/device.log" > "$T/hcr-trace.txt"

if [ "$rc" -ne 0 ] || ! grep -q '^probe-done' "$T/serial.txt"; then
    fail ipxe-runs "iPXE did not reach its script (QEMU status $rc): $(tail -c 600 "$T/serial.txt") $(head -c 400 "$T/qemu.out")"
else
    pass ipxe-runs
fi

reset_line=$(grep -n -m1 '^reset: write 00000001 to 0xf0010' "$T/hcr-trace.txt" | cut -d: -f1)
fw_line=$(grep -n -m1 '^command [0-9]*: opcode 0x004 QUERY_FW' "$T/hcr-trace.txt" | cut -d: -f1)
[ -n "$reset_line" ] && pass reset-reached-model ||
    fail reset-reached-model "no write of the reset magic to BAR0 0xf0010 in $T/device.log"
if [ -z "$fw_line" ]; then
    fail query-fw-reached-model "no QUERY_FW command in the HCR trace ($T/hcr-trace.txt)"
elif [ -n "$reset_line" ] && [ "$fw_line" -lt "$reset_line" ]; then
    fail query-fw-reached-model "QUERY_FW came before the reset"
else
    pass query-fw-reached-model
fi

# The whole probe (firmware start, ICM, INIT_HCA, MAD_IFC port queries: every mailbox moves by DMA
# through the device) ends with iPXE registering an IPoIB device on our PCI function.
grep -q '^net0: .* using mt26428 on 0000:00:03.0' "$T/serial.txt" && pass ipxe-registers-ib-netdev ||
    fail ipxe-registers-ib-netdev "iPXE lists no net0 on 0000:00:03.0 (see the trace below)"

# The model's account of host memory the HCA holds (FA, ICM AUX, ICM): iPXE stops the HCA at the
# end of its probe and on shutdown, so whatever it mapped must be back to 0 by the end.
last_mem=$(grep '^memory: ' "$T/hcr-trace.txt" | tail -1)
if [ -z "$last_mem" ]; then
    echo "(the model reported no host memory in use: iPXE did not get as far as MAP_FA)"
elif [[ "$last_mem" == *" total 0 "* ]]; then
    pass hca-memory-released
else
    fail hca-memory-released "the HCA still holds host memory at the end: $last_mem"
fi

# On record: how far the stock iPXE got with this model.
echo "--- HCR commands and completions seen by the model ($(grep -c '^command' "$T/hcr-trace.txt") commands):"
grep -E '^(reset|command|completion|unfinished)' "$T/hcr-trace.txt" | tail -25
echo "--- host memory held by the HCA (model's account):"
grep '^memory: ' "$T/hcr-trace.txt" | tail -4
echo "--- last model log lines:"
grep '^model: ' "$T/hcr-trace.txt" | tail -10
echo "--- iPXE console after its banner:"
sed -n '/^Features:/,$p' "$T/serial.txt" | grep -v '^$' | tail -15
finish
