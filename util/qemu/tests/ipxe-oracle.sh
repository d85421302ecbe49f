#!/bin/bash
# The oracle: Debian's stock iPXE netboots through the model. QEMU with -device hermon
# (15b3:673c, port 1 cabled into fabsim), OpenSM managing the fabric, dnsmasq + nginx behind the
# server node (util/netboot-env). The iPXE script on the kernel command line gets a DHCP lease
# over IPoIB, fetches one file over TFTP and one over HTTP, checks their sizes and prints a marker.
# Each step is a result line; the device log's HCR trace and iPXE's console are kept in
# build/qemu/tests/ipxe-oracle/ and the last lines printed, so a failure shows where it stopped.
source "$(dirname "$0")/../../../src/tests/framework/lib.sh"
qemu_device_test
need_model

if [ "${1:-}" != --inside ]; then
    # Two served files of known, different sizes (a marker line + padding).
    mkdir -p "$T/serve"
    { echo "ibboot-oracle-tftp"; head -c 20000 /dev/zero | tr '\0' 't'; } > "$T/serve/oracle-tftp.txt"
    { echo "ibboot-oracle-http"; head -c 70000 /dev/zero | tr '\0' 'h'; } > "$T/serve/oracle-http.txt"
    # netboot-env stops everything it started (by PID) when the inner command returns.
    QEMU_TEST_KEEP_DIR=1 util/netboot-env run "$T/env" --hcas 1 --capture "$T/fabric.pcap" --serve "$T/serve/oracle-tftp.txt" \
        --serve "$T/serve/oracle-http.txt" -- "$0" --inside > "$T/netboot-env.log" 2>&1
    rc=$?
    grep -v '^netboot-env:' "$T/netboot-env.log" || true
    [ "$rc" -eq 77 ] && exit 77
    grep -q '^FAIL: ' "$T/netboot-env.log" && exit 1
    grep -q '^PASS: ' "$T/netboot-env.log" || { echo "FAIL: qemu/ipxe-oracle: the environment did not come up (status $rc): $(tail -5 "$T/netboot-env.log")"; exit 1; }
    exit 0
fi

# ---- inside the environment (env.sh is in our environment) ----
TEST_NAME=ipxe-oracle
T=$TOP/build/qemu/tests/ipxe-oracle
mkdir -p "$T"
TFTP_SIZE=$(stat -c %s "$T/serve/oracle-tftp.txt")
HTTP_SIZE=$(stat -c %s "$T/serve/oracle-http.txt")
S=$NETBOOT_SERVER_IP
# iPXE's settings syntax: ${net0/ip}; imgstat prints each image with its length.
SCRIPT="dhcp net0 && echo ORACLE-LEASE \${net0/ip} && imgfetch tftp://$S/oracle-tftp.txt && echo ORACLE-TFTP-OK && imgfetch http://$S/oracle-http.txt && echo ORACLE-HTTP-OK && imgstat && echo ORACLE-NETBOOT-OK || echo ORACLE-STOPPED && ifstat && sleep 1 && reboot"
run_qemu 600 -kernel /usr/lib/ipxe/ipxe.lkrn -append "$SCRIPT" \
    -device "hermon,model=$MODEL,device-id=0x673c,guid=$NETBOOT_HCA1_NODE_GUID,port2=off,fabric=$FABSIM_HCA_SOCKET,fabric-lib=$TOP/bin/libfabsim_client.so,log=$T/device.log"
rc=$?
serial_text > "$T/serial.txt"
"$TOP/build/qemu/hcr-trace" < "$T/device.log" > "$T/hcr-trace.txt"

step() {  # step NAME MARKER-REGEX WHY-IF-MISSING
    if grep -Eq "$2" "$T/serial.txt"; then pass "$1"; else fail "$1" "$3"; fi
}
[ "$rc" -eq 0 ] && pass qemu-runs || fail qemu-runs "QEMU status $rc: $(head -c 300 "$T/qemu.out")"
step dhcp-lease '^ORACLE-LEASE 198\.18\.0\.' "no DHCP lease over IPoIB"
step tftp-fetch '^ORACLE-TFTP-OK' "TFTP fetch of oracle-tftp.txt failed"
step http-fetch '^ORACLE-HTTP-OK' "HTTP fetch of oracle-http.txt failed"
# imgstat: "oracle-tftp.txt : 20019 bytes" (the sizes prove the whole files arrived)
step sizes "oracle-tftp\.txt : $TFTP_SIZE bytes" "imgstat does not show oracle-tftp.txt with $TFTP_SIZE bytes"
step sizes-http "oracle-http\.txt : $HTTP_SIZE bytes" "imgstat does not show oracle-http.txt with $HTTP_SIZE bytes"
step marker '^ORACLE-NETBOOT-OK' "the script did not reach its marker"

echo "--- where it stopped: last HCR commands, model log, fabric events ($T/hcr-trace.txt):"
grep -E '^(completion|unfinished)' "$T/hcr-trace.txt" | grep -v 'status 0x00' | tail -5
grep -E '^(model|fabric|memory)' "$T/hcr-trace.txt" | tail -8
echo "--- iPXE console after its banner:"
sed -n '/Features:/,$p' "$T/serial.txt" | grep -v '^$' | tail -20
finish
