#!/bin/bash
# -device hermon,fabric=SOCKET attaches the model's ports to fabsim: port 1 (cabled in the
# topology) is accepted and fabsim's LINK message reaches the device; port 2 (no cable) stays
# unplugged with a warning naming fabsim's reason; QEMU leaving detaches the port at fabsim.
source "$(dirname "$0")/../../../src/tests/framework/lib.sh"
qemu_device_test
need_model
FABSIM=$TOP/bin/fabsim
[ -x "$FABSIM" ] || { echo "FAIL: qemu/$TEST_NAME: $FABSIM missing (make bin/fabsim)"; exit 1; }

NODE_GUID=0x0002c90300001000
GUID=0x0002c90300001001                 # port 1 = node GUID + 1
cat > "$T/topology" <<TOPO
switch sw0 0x0002c90300aa0000 4 "qemu device test switch"
hca-port qemu1 $GUID
cable sw0:1 qemu1
TOPO
SOCK=$T/hca.sock
"$FABSIM" --topology "$T/topology" --hca-socket "$SOCK" -v > "$T/fabsim.log" 2>&1 &
FABSIM_PID=$!
trap 'stop_qemu; kill "$FABSIM_PID" 2>/dev/null; wait "$FABSIM_PID" 2>/dev/null' EXIT
# fabsim says "ready" once its sockets listen (a guard, not a timing assertion).
for _ in $(seq 100); do
    grep -q 'ready' "$T/fabsim.log" && break
    kill -0 "$FABSIM_PID" 2>/dev/null || break
    sleep 0.1
done
grep -q 'ready' "$T/fabsim.log" || { fail fabsim-starts "$(cat "$T/fabsim.log")"; finish; }

# device-id 0x1003: the stock iPXE has no driver for it, so only the fabric side acts.
run_qemu 120 -kernel /usr/lib/ipxe/ipxe.lkrn -append 'sleep 1 && reboot' \
    -device "hermon,model=$MODEL,device-id=0x1003,guid=$NODE_GUID,fabric=$SOCK,fabric-lib=$TOP/bin/libfabsim_client.so,log=$T/device.log"
rc=$?
[ "$rc" -eq 0 ] && pass qemu-runs || fail qemu-runs "QEMU status $rc: $(head -c 600 "$T/qemu.out")"

grep -q "fabric port 1: attached to $SOCK as GUID $GUID" "$T/device.log" && pass port1-attached ||
    fail port1-attached "device log: $(grep fabric "$T/device.log")"
grep -q 'fabric port 1: link up' "$T/device.log" && pass port1-link-up-from-fabsim ||
    fail port1-link-up-from-fabsim "device log: $(grep fabric "$T/device.log")"
grep -q 'port 2 (GUID 0x0002c90300001002) stays unplugged: .*no cable' "$T/qemu.out" &&
    pass port2-unplugged-with-reason || fail port2-unplugged-with-reason "$(head -c 600 "$T/qemu.out")"
# fabsim notices the closed socket on its own schedule: give it a moment (a guard only).
for _ in $(seq 50); do grep -q "qemu1 (GUID $GUID) detached" "$T/fabsim.log" && break; sleep 0.1; done
grep -q "hca-port qemu1 (GUID $GUID) detached" "$T/fabsim.log" && pass detached-on-exit ||
    fail detached-on-exit "fabsim log: $(tail -5 "$T/fabsim.log")"
finish
