#!/usr/bin/env bash
# src/tests/e2e/hosted/ipoib-e2e.sh [IBBOOT-HOSTED] — the UDP applications over the whole stack:
# bin/ibboot-hosted with the HCA model, cabled into fabsim under the stock OpenSM, talking IPoIB to
# the server node and the real dnsmasq behind it (util/netboot-env). Checks both client-id
# reservations (dhcp-host=id:...) and a 16 MiB TFTP download whose SHA-256 (computed by the
# firmware's src/core/sha256.c, compared with sha256sum's) matches the file.
# Results as PASS:/FAIL: lines; logs in build/dhcp/ipoib-e2e/.
#   IPOIB_E2E_SIZE=BYTES     size of the TFTP file (default 16 MiB)
#   IPOIB_E2E_FAULT="all loss=0.03 reorder=0.03"  fabsim faults once ib0's link is up; the steps
#                            after the first lease wait for them (they reach ibboot on its stdin only
#                            once fabsimctl has answered), then a second DHCP and the downloads run
#                            under them (dnsmasq resends a lost TFTP DATA only after ~2 s)
#   IPOIB_E2E_STEPS="lease-flexboot tftp lease-ib http"  which checks to run (default: all); under
#                            faults the lossy run uses "lease-flexboot http", since dnsmasq's TFTP
#                            recovers a lost block only on its own 2 s timer
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
cd "$TOP"
BIN=$(realpath "${1:-bin/ibboot-hosted}")
T=$TOP/build/dhcp/ipoib-e2e${IPOIB_E2E_FAULT:+-faults}
suite=dhcp-ipoib${IPOIB_E2E_FAULT:+-faults}
rm -rf "$T" && mkdir -p "$T"
SUITE=$suite
source src/tests/framework/lib.sh

for f in "$BIN" bin/fabsim bin/fabsim-servernode; do
	[ -x "$f" ] || { echo "FAIL: $suite: $f missing (run: make all)"; exit 1; }
done
size=${IPOIB_E2E_SIZE:-$((16 << 20))}
fault=${IPOIB_E2E_FAULT:-}
head -c "$size" /dev/urandom > "$T/big.bin"

# Port 1 of HCA slot 1 has GUID 0x0002c90300d00011 in netboot-env's topology (checked below).
guid=00:02:c9:03:00:d0:00:11
steps=${IPOIB_E2E_STEPS:-lease-flexboot tftp lease-ib http}
has() { [[ " $steps " == *" $1 "* ]]; }
# Without faults every step is on the boot command line. With them only the first DHCP is: the
# rest goes to ibboot's stdin (a FIFO) once the faults are in place, so that however fast the
# download, it cannot finish before they are (a race this check once lost).
CMDS="dhcp"
LATER=""
[ -n "${IPOIB_E2E_FAULT:-}" ] && LATER+="dhcp\n"
has tftp && LATER+="tftp tftp://198.18.0.1/big.bin\n"
has http && LATER+="http http://198.18.0.1/big.bin\n"
has lease-ib && LATER+="dhcp client-id=ib\n"
LATER+="ifstat\npoweroff\n"
if [ -z "${IPOIB_E2E_FAULT:-}" ]; then
	CMDS+=$(printf "$LATER" | tr ' \n' '+,' | sed 's/^/,/; s/,$//')
	LATER=""
fi
mkfifo "$T/stdin"
cat > "$T/guest.sh" <<INNER
#!/usr/bin/env bash
[ "\$(printf '%x' \$NETBOOT_HCA1_PORT1_GUID)" = 2c90300d00011 ] || echo "GUID-MISMATCH \$NETBOOT_HCA1_PORT1_GUID"
node=\$(printf '0x%x' \$((NETBOOT_HCA1_PORT1_GUID - 1)))
timeout --kill-after=5 600 "$BIN" --hca --hca-guid=\$node --fabric=\$FABSIM_HCA_SOCKET \\
	"ibboot.cmd=$CMDS" < "$T/stdin" > "$T/serial.log" 2> "$T/stderr.log" &
guest=\$!
# Read-write: opening does not wait for the reader, and ibboot sees EOF only when this closes.
exec 3<> "$T/stdin"
# The SM is (re)started once the image waits for it (see src/tests/e2e/qemu/icmp-e2e.sh).
for i in \$(seq 1 300); do
	grep -q 'waiting for the subnet manager' "$T/serial.log" 2>/dev/null && break
	sleep 0.2
done
$TOP/util/netboot-env sm-restart "$T/env" > "$T/sm-start.log" 2>&1 3>&-
if [ -n "$fault" ]; then
	for i in \$(seq 1 300); do
		grep -q 'ib0: link up' "$T/serial.log" 2>/dev/null && break
		sleep 0.2
	done
	$TOP/bin/fabsimctl \$FABSIM_CONTROL_SOCKET fault $fault > "$T/fault.log" 2>&1 3>&-
fi
printf '$LATER' >&3
exec 3>&-
wait \$guest
echo \$? > "$T/guest.status"
[ -n "$fault" ] && $TOP/bin/fabsimctl \$FABSIM_CONTROL_SOCKET counters > "$T/counters.log" 2>&1
INNER
chmod +x "$T/guest.sh"
util/netboot-env run "$T/env" --hcas 1 --serve "$T/big.bin" --dhcp-boot boot.bin \
	--dhcp-host "id:ff:00:00:00:00:00:02:00:00:02:c9:00:$guid,198.18.0.60" \
	--dhcp-host "id:20:$guid,198.18.0.61" -- "$T/guest.sh" > "$T/netboot-env.log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: $suite: this machine cannot create the test network (see $T/netboot-env.log)"
	exit 77
fi
log=$T/serial.log
grep -q GUID-MISMATCH "$T/netboot-env.log" && fail topology "netboot-env's port GUID changed"
# Under faults the second lease (taken once they were in place) must come too.
leases=1; [ -n "$fault" ] && leases=2
if [ "$(grep -c "ib0: DHCP lease 198.18.0.60 " "$log")" -ge "$leases" ] &&
   grep -q "client-id ff:00:00:00:00:00:02:00:00:02:c9:00:$guid" "$log"; then
	pass lease-flexboot-client-id
else
	fail lease-flexboot-client-id "no lease 198.18.0.60 over IPoIB"
fi
want_sha=$(sha256sum < "$T/big.bin" | cut -d' ' -f1)
if ! has tftp; then :
elif grep -q "tftp: big.bin: blksize 2012" "$log" &&
   grep -q "tftp: big.bin: $size bytes in [0-9]* ms, sha256 $want_sha" "$log"; then
	pass tftp-16MiB-over-ipoib
else
	fail tftp-16MiB-over-ipoib "no intact $size-byte download (want sha256 $want_sha)"
fi
# The same file over HTTP from nginx: the firmware's SHA-256 of what TCP delivered.
if ! has http; then :
elif grep -q "http: http://198.18.0.1/big.bin: $size bytes" "$log" &&
   grep -q "http: sha256 $want_sha" "$log"; then
	pass "http-over-ipoib${fault:+-under-faults}"
else
	fail "http-over-ipoib${fault:+-under-faults}" "no intact $size-byte HTTP download (want sha256 $want_sha)"
fi
if ! has lease-ib; then :
elif grep -q "ib0: DHCP lease 198.18.0.61 " "$log" && grep -q "client-id 20:$guid" "$log"; then
	pass lease-ib-hwtype-client-id
else
	fail lease-ib-hwtype-client-id "no lease 198.18.0.61 for the 20:GUID form"
fi
if grep -qE "ERROR: AddressSanitizer|runtime error" "$log" "$T/stderr.log"; then
	fail sanitizers "sanitizer report (see $T/stderr.log)"
fi
[ "$(cat "$T/guest.status" 2>/dev/null)" = 0 ] || fail guest-exit "ibboot-hosted exited $(cat "$T/guest.status" 2>/dev/null)"
if [ -n "$fault" ]; then
	# The faults must really have hit this run's traffic on the HCA's cable.
	lost=$(awk '/^link .*hca1-p1/ {for (i = 1; i < NF; i++) if ($i == "lost") print $(i + 1)}' "$T/counters.log")
	reord=$(awk '/^link .*hca1-p1/ {for (i = 1; i < NF; i++) if ($i == "reordered") print $(i + 1)}' "$T/counters.log")
	if [ "${lost:-0}" -gt 0 ] && [ "${reord:-0}" -gt 0 ]; then
		pass faults-were-applied
		echo "    hca1-p1 cable: lost $lost, reordered $reord"
	else
		fail faults-were-applied "no loss/reordering counted on hca1-p1 (see $T/counters.log)"
	fi
fi
[ "$failures" -eq 0 ] || { echo "--- serial"; tail -40 "$log"; }
[ "$failures" -eq 0 ]
