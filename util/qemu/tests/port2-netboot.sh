#!/usr/bin/env bash
# A dual-port HCA with only its second port cabled netboots: -device hermon with port1-cable=off
# and port2-cable=on in util/netboot-env's HCA slot 2 (the topology cables only that slot's port 2),
# bin/ibboot.lkrn on its embedded default script. Port 1 never gets a link; ibboot's port policy
# takes the first port that comes ACTIVE, ib0 comes up on port 2, and DHCP, boot.ipxe over TFTP,
# kernel and initrd over HTTP and the payload's marker follow as in the port-1 netboot.
source "$(dirname "$0")/../../../src/tests/framework/lib.sh"
if [ "${1:-}" != --inside ]; then
    qemu_device_test
    need_model
    for f in bin/ibboot.lkrn bin/payload/vmlinuz bin/payload/initrd.img bin/libfabsim_client.so \
        bin/fabsim bin/fabsim-servernode build/qemu/hcr-trace; do
        [ -s "$f" ] || { echo "FAIL: $SUITE: $f missing (make check-qemu-device builds it)"; exit 1; }
    done
    nonce=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
    ksum=$(sha256sum bin/payload/vmlinuz | cut -c1-64)
    isum=$(sha256sum bin/payload/initrd.img | cut -c1-64)
    cat > "$T/boot.ipxe" <<EOS
#!ipxe
echo ibboot port-2 netboot test: lease \${ip} from \${next-server}
kernel http://\${next-server}/vmlinuz console=ttyS0 quiet ibboot.nonce=$nonce
initrd http://\${next-server}/initrd.img
sha256 vmlinuz $ksum
sha256 initrd.img $isum
boot
EOS
    echo "$nonce" > "$T/nonce"
    QEMU_TEST_KEEP_DIR=1 util/netboot-env run "$T/env" --hcas 2 --serve "$T/boot.ipxe" \
        --serve bin/payload/vmlinuz --serve bin/payload/initrd.img --dhcp-boot boot.ipxe \
        -- "$0" --inside > "$T/netboot-env.log" 2>&1
    rc=$?
    grep -E '^(PASS|FAIL|SKIP)' "$T/netboot-env.log"
    [ "$rc" -eq 77 ] && exit 77
    grep -q '^PASS: ' "$T/netboot-env.log" ||
        { echo "FAIL: $SUITE: the environment did not come up (status $rc): $(tail -5 "$T/netboot-env.log")"; exit 1; }
    grep -q '^FAIL: ' "$T/netboot-env.log" && exit 1
    exit 0
fi

QEMU_TEST_KEEP_DIR=1 qemu_device_test
nonce=$(cat "$T/nonce")
[ "$NETBOOT_HCA2_CABLED_PORT" = 2 ] ||
    { fail topology "netboot-env's HCA slot 2 has port $NETBOOT_HCA2_CABLED_PORT cabled, not port 2"; finish; }
timeout --kill-after=5 300 "$QEMU" -display none -machine graphics=off -monitor none -no-reboot \
    -m 512 -net none -serial "file:$T/serial.log" -kernel bin/ibboot.lkrn \
    -device "hermon,model=$MODEL,device-id=0x1003,guid=$NETBOOT_HCA2_NODE_GUID,port1-cable=off,port2-cable=on,fabric=$FABSIM_HCA_SOCKET,fabric-lib=$TOP/bin/libfabsim_client.so,log=$T/device.log" \
    > "$T/qemu.out" 2>&1 &
QEMU_PID=$!
# Bounded: QEMU (through timeout, our child) is stopped by its PID once the marker or a failure shows.
for _ in $(seq 1 600); do
    kill -0 "$QEMU_PID" 2>/dev/null || break
    grep -aq 'IBBOOT-PAYLOAD-OK' "$T/serial.log" 2>/dev/null && sleep 2 && break
    grep -aq 'autoboot failed' "$T/serial.log" 2>/dev/null && break
    sleep 0.5
done
stop_qemu
serial_text > "$T/serial.txt"

grep -q 'fabric port 1: not cabled (port1-cable=off)' "$T/device.log" &&
    grep -q "fabric port 2: attached to .* as GUID $NETBOOT_HCA2_PORT2_GUID" "$T/device.log" &&
    pass device-cables-port2-only || fail device-cables-port2-only "device log: $(grep fabric "$T/device.log")"
grep -q 'fabric port 1: attached' "$T/device.log" && fail port1-stays-unplugged "$(grep 'fabric port 1' "$T/device.log")" ||
    pass port1-stays-unplugged
expect port2-active "$T/serial.txt" '^(\[ *[0-9]+\.[0-9]{3}\] )?[^ ]+ port 2: ACTIVE, LID' "port 2 did not become ACTIVE" &&
    pass port2-active
grep -aEq '^(\[ *[0-9]+\.[0-9]{3}\] )?[^ ]+ port 1: ACTIVE' "$T/serial.txt" &&
    fail port1-never-active "$(grep -a 'port 1: ACTIVE' "$T/serial.txt")" || pass port1-never-active
expect ib0-on-port2 "$T/serial.txt" '^(\[ *[0-9]+\.[0-9]{3}\] )?ib0: link up on [^ ]+ port 2,' "ib0 did not come up on port 2" && pass ib0-on-port2
expect lease "$T/serial.txt" "^ibboot port-2 netboot test: lease 198\.18\.0\.[0-9]+ from $NETBOOT_SERVER_IP\$" \
    "no lease / boot.ipxe not run over port 2" && pass lease
expect linux-booted "$T/serial.txt" "^IBBOOT-PAYLOAD-OK .*ibboot\.nonce=$nonce" \
    "Linux did not print its marker with nonce $nonce" && pass linux-booted
finish
