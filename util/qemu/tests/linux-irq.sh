#!/bin/bash
# Interrupts as an OS driver needs them: Debian's kernel (the demo payload's) loads its own
# mlx4_core on the device, with no ibboot in between. mlx4_core switches its command interface
# to event mode and checks with a NOP that the command-done event arrives as an interrupt
# ("NOP command failed to generate ... interrupt" otherwise). Two boots:
#   msix   the device's MSI-X capability, mlx4_core's default: EQ vectors as MSI-X messages
#   intx   msix=off hides the capability, so Linux falls back to the INTx pin, which it lowers
#          through the clear-interrupt register QUERY_FW reports (mlx4_interrupt)
# Either way each interrupt is edge-correct with EQ arming: no storm (bounded count, no EQ
# overrun in the model's log) and no command timing out. The device log shows every delivery.
source "$(dirname "$0")/../../../src/tests/framework/lib.sh"
qemu_device_test
need_model

PAYLOAD=$TOP/bin/payload
[ -s "$PAYLOAD/vmlinuz" ] && [ -s "$PAYLOAD/initrd.img" ] ||
    { echo "FAIL: $SUITE: $PAYLOAD/vmlinuz or initrd.img missing (make payload)"; exit 1; }
# mlx4_core.ko from the payload's initramfs (built for that kernel), in an initramfs of our own
# whose init loads it and prints what Linux said.
mkdir -p "$T/payload" "$T/root/bin" "$T/root/proc" "$T/root/sys" "$T/root/dev"
(cd "$T/payload" && zcat "$PAYLOAD/initrd.img" | cpio -id --quiet 2>/dev/null)
KO=$(find "$T/payload" -name 'mlx4_core.ko' | head -1)
[ -n "$KO" ] || { echo "FAIL: $SUITE: the payload's initramfs has no mlx4_core.ko (make payload: util/payload/build)"; exit 1; }
cp "$KO" "$T/root/mlx4_core.ko"
cp "$T/payload/bin/busybox" "$T/root/bin/busybox"
cat > "$T/root/init" <<'INIT'
#!/bin/busybox sh
B=/bin/busybox
$B mount -t proc proc /proc
$B mount -t sysfs sys /sys
$B mount -t devtmpfs dev /dev 2>/dev/null
echo "IRQTEST insmod"
$B insmod /mlx4_core.ko
echo "IRQTEST insmod status $?"
$B dmesg | $B grep -i mlx4 | $B sed 's/^/IRQTEST dmesg /'
$B grep -i mlx4 /proc/interrupts | $B sed 's/^/IRQTEST interrupts /'
echo "IRQTEST DONE"
$B poweroff -f
INIT
chmod +x "$T/root/init"
(cd "$T/root" && find . | cpio -o -H newc --quiet | gzip -1) > "$T/initrd.img"

boot() {  # boot NAME DEVICE-OPTIONS
    local name=$1 opts=$2
    run_qemu 240 -m 512 -kernel "$PAYLOAD/vmlinuz" -initrd "$T/initrd.img" \
        -append "console=ttyS0 quiet loglevel=4 panic=-1" \
        -device "hermon,model=$MODEL,device-id=0x1003,addr=04.0,log=$T/$name-device.log$opts"
    serial_text > "$T/$name-serial.txt"
    cp "$T/qemu.out" "$T/$name-qemu.out"
    if ! grep -q '^IRQTEST DONE' "$T/$name-serial.txt"; then
        fail "$name-boot" "Linux did not finish its init: $(tail -c 600 "$T/$name-serial.txt")"
        return 1
    fi
    pass "$name-boot"
    "$TOP/build/qemu/hcr-trace" < "$T/$name-device.log" > "$T/$name-hcr.txt"
}

# The NOP went out in event mode (token set, not the polling token 0xffff) and completed.
nop_by_event() {
    local name=$1
    if grep -A1 -E 'opcode 0x031 .* token 0x(0[0-9a-f]{3}|f[0-9a-e][0-9a-f]{2})' "$T/$name-hcr.txt" |
       grep -q 'completion: opcode 0x031 .* status 0x00'; then
        pass "$name-nop-by-event"
    else
        fail "$name-nop-by-event" "no event-mode NOP completed (see $T/$name-hcr.txt)"
    fi
}

no_storm() {
    local name=$1 n=$2
    if grep -q 'overrun' "$T/$name-device.log"; then
        fail "$name-no-storm" "the model dropped events: $(grep -m1 overrun "$T/$name-device.log")"
    elif grep -q 'timed out' "$T/$name-serial.txt"; then
        fail "$name-no-storm" "a command timed out: $(grep -m1 'timed out' "$T/$name-serial.txt")"
    elif [ "$n" -gt 1000 ]; then
        fail "$name-no-storm" "$n interrupts for a driver start-up (a storm?)"
    else
        pass "$name-no-storm"
    fi
}

# Linux's own count: mlx4_core's interrupt line in /proc/interrupts (it stays requested once the
# probe succeeded) counted at least one interrupt.
linux_counted() {
    local name=$1 n
    n=$(sed -n 's/^IRQTEST interrupts *[0-9]*: *\([0-9]*\) .*mlx4.*/\1/p' "$T/$name-serial.txt" | head -1)
    [ "${n:-0}" -gt 0 ] && pass "$name-linux-counts-interrupts" ||
        fail "$name-linux-counts-interrupts" "no mlx4 interrupt counted in /proc/interrupts (did the probe fail? $(grep -m2 'IRQTEST dmesg.*\(fail\|abort\)' "$T/$name-serial.txt"))"
}

if boot msix ""; then
    sent=$(grep -c 'irq: MSI-X vector' "$T/msix-device.log")
    grep -q 'failed to generate\|without MSI-X' "$T/msix-serial.txt" &&
        fail msix-nop-interrupt "$(grep -m2 'failed to generate\|without MSI-X' "$T/msix-serial.txt")" ||
        pass msix-nop-interrupt
    [ "$sent" -gt 0 ] && ! grep -q 'irq: INTx asserted' "$T/msix-device.log" && pass msix-messages-not-intx ||
        fail msix-messages-not-intx "$sent MSI-X messages; INTx: $(grep -c 'irq: INTx asserted' "$T/msix-device.log")"
    nop_by_event msix
    no_storm msix "$sent"
    linux_counted msix
    echo "msix: $sent MSI-X messages; Linux: $(sed -n 's/^IRQTEST interrupts *//p' "$T/msix-serial.txt" | tr -s ' ' | tr '\n' ';')"
fi

if boot intx ",msix=off"; then
    up=$(grep -c 'irq: INTx asserted' "$T/intx-device.log")
    down=$(grep -c 'irq: INTx deasserted' "$T/intx-device.log")
    grep -q 'failed to generate' "$T/intx-serial.txt" &&
        fail intx-nop-interrupt "$(grep -m1 'failed to generate' "$T/intx-serial.txt")" || pass intx-nop-interrupt
    # every assertion lowered again by mlx4_interrupt's write to the clear register
    [ "$up" -gt 0 ] && [ "$down" -eq "$up" ] && pass intx-asserted-and-cleared ||
        fail intx-asserted-and-cleared "INTx asserted $up times, deasserted $down times"
    grep -q 'MSI-X capability at 0x[0-9a-f]* hidden' "$T/intx-device.log" &&
        ! grep -q 'irq: MSI-X vector' "$T/intx-device.log" && pass intx-msix-hidden ||
        fail intx-msix-hidden "$(grep -m3 'irq:' "$T/intx-device.log")"
    nop_by_event intx
    no_storm intx "$up"
    linux_counted intx
    echo "intx: INTx asserted $up times, cleared $down times; Linux: $(sed -n 's/^IRQTEST interrupts *//p' "$T/intx-serial.txt" | tr -s ' ' | tr '\n' ';')"
fi
finish
