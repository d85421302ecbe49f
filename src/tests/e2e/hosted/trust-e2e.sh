#!/usr/bin/env bash
# src/tests/e2e/hosted/trust-e2e.sh [IBBOOT-HOSTED] — the first script's pin from DHCP, over the
# whole stack: bin/ibboot-hosted with the HCA model in fabsim under the stock OpenSM, the server
# node, and the real dnsmasq (util/netboot-env) sending the SHA-256 of boot.ipxe as option 175
# sub-option 112 (dhcp-option=encap:175,112,"HEX"). ibboot runs its own autoboot (no ibboot.cmd):
# the embedded `dhcp && chain ${filename}`.
#   1. boot.ipxe on the server was changed: ibboot refuses it, and none of its lines run.
#   2. the real boot.ipxe: it runs.
# Results as PASS:/FAIL: lines; logs in build/trust/e2e/.
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
cd "$TOP"
BIN=$(realpath "${1:-bin/ibboot-hosted}")
T=$TOP/build/trust/e2e
SUITE=trust-e2e
rm -rf "$T" && mkdir -p "$T/srv"
source src/tests/framework/lib.sh

for f in "$BIN" bin/fabsim bin/fabsim-servernode; do
	[ -x "$f" ] || { echo "FAIL: $SUITE: $f missing (run: make all)"; exit 1; }
done
printf '#!ipxe\necho TRUST-E2E-GOOD-SCRIPT-RAN ${ip}\n' > "$T/boot.good"
printf '#!ipxe\necho TRUST-E2E-TAMPERED-SCRIPT-RAN\n' > "$T/boot.tampered"
pin=$(sha256sum < "$T/boot.good" | cut -d' ' -f1)
cp "$T/boot.tampered" "$T/srv/boot.ipxe"

# One autoboot per run; stdin is empty, so the 2 s key wait and the console after it end at once
# and ibboot-hosted powers off.
cat > "$T/guest.sh" <<INNER
#!/usr/bin/env bash
node=\$(printf '0x%x' \$((NETBOOT_HCA1_PORT1_GUID - 1)))
run() {
	timeout --kill-after=5 300 "$BIN" --hca --hca-guid=\$node --fabric=\$FABSIM_HCA_SOCKET \\
		< /dev/null > "$T/serial-\$1.log" 2> "$T/stderr-\$1.log"
	echo \$? > "$T/status-\$1"
}
run tampered &
guest=\$!
# The SM is (re)started once the image waits for it (as in ipoib-e2e.sh).
for i in \$(seq 1 300); do
	grep -q 'waiting for the subnet manager' "$T/serial-tampered.log" 2>/dev/null && break
	sleep 0.2
done
$TOP/util/netboot-env sm-restart "$T/env" > "$T/sm-start.log" 2>&1
wait \$guest
cp "$T/boot.good" "$T/srv/boot.ipxe"
run good
INNER
chmod +x "$T/guest.sh"
util/netboot-env run "$T/env" --hcas 1 --root "$T/srv" --dhcp-boot boot.ipxe \
	--dhcp-option "encap:175,112,\"$pin\"" -- "$T/guest.sh" > "$T/netboot-env.log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: $SUITE: this machine cannot create the test network (see $T/netboot-env.log)"
	exit 77
fi

bad=$T/serial-tampered.log good=$T/serial-good.log
if grep -q "sha256: boot.ipxe is pinned by DHCP (filename-sha256 $pin)" "$bad"; then
	pass dhcp-option-175-pin-received
else
	fail dhcp-option-175-pin-received "no 'pinned by DHCP' line naming $pin (see $bad)"
fi
if grep -q "sha256: boot.ipxe MISMATCH: pinned $pin before the fetch" "$bad" &&
   grep -q "chain: nothing run" "$bad" && ! grep -q "TRUST-E2E-TAMPERED-SCRIPT-RAN" "$bad"; then
	pass tampered-first-script-refused
else
	fail tampered-first-script-refused "the changed boot.ipxe was not refused, or it ran (see $bad)"
fi
if grep -q "sha256: boot.ipxe OK ($pin, pinned before the fetch)" "$good" &&
   grep -q "^TRUST-E2E-GOOD-SCRIPT-RAN 198\.18\.0\." "$good"; then
	pass pinned-first-script-runs
else
	fail pinned-first-script-runs "the real boot.ipxe did not run under its pin (see $good)"
fi
if grep -qE "ERROR: AddressSanitizer|runtime error" "$T"/serial-*.log "$T"/stderr-*.log; then
	fail sanitizers "sanitizer report (see $T/stderr-*.log)"
fi
for r in tampered good; do
	[ "$(cat "$T/status-$r" 2>/dev/null)" = 0 ] ||
		fail "guest-exit-$r" "ibboot-hosted exited $(cat "$T/status-$r" 2>/dev/null)"
done
[ "$failures" -eq 0 ] || { echo "--- serial (tampered)"; tail -30 "$bad"; echo "--- serial (good)"; tail -30 "$good"; }
[ "$failures" -eq 0 ]
