#!/usr/bin/env bash
# Integration test: fabsim's fault knobs reach the running fabric through util/netboot-env
# (control socket), and the IPoIB path copes: with loss, duplication, reordering and corruption
# on the server node's cable — every DHCP/TFTP packet crosses it; corrupted packets are dropped by
# the CRC check on the next hop — a client still gets its lease and a byte-exact file, by
# retransmission. The cable's counters must show that faults really happened, so a knob that
# silently does nothing fails the test.
set -u
cd "$(dirname "$0")/../../../.." || exit 1
. src/tests/framework/lib.sh
servernode_test servernode-faults
CTL=${FABSIMCTL:-bin/fabsimctl}
[ -x "$CTL" ] || { echo "FAIL: $T: $CTL is not built"; exit 1; }

head -c 40000 /dev/urandom >"$WORK/f.bin"
want=$(sha256sum "$WORK/f.bin" | cut -d' ' -f1)

inner() {
	# Faults start once the client's port is ACTIVE and joined: OpenSM (through umad2sim) gets
	# no timeout for an SMP lost on the wire, so SM traffic is kept out of it.
	"$CLIENT" --socket "$FABSIM_HCA_SOCKET" --guid "$NETBOOT_HCA1_PORT1_GUID" --port-num 1 \
		--fetch f.bin --out "$WORK/got" --on-joined "$CTL $FABSIM_CONTROL_SOCKET fault servernode \
		loss=0.05 dup=0.05 reorder=0.05 corrupt=0.05 >$WORK/ctl.out 2>&1" || { echo "client failed"; return 1; }
	"$CTL" "$FABSIM_CONTROL_SOCKET" counters servernode >"$WORK/stats.out" 2>&1
	return 0
}
export -f inner
export WORK CLIENT CTL
util/netboot-env run "$WORK/env" --hcas 1 --serve "$WORK/f.bin" --fabsim-arg=--seed --fabsim-arg=7 \
	-- bash -c inner >"$WORK/out" 2>"$WORK/err"
rc=$?
grep -E "^client: (DHCPACK|TFTP)|failed" "$WORK/out"
if [ "$rc" -eq 77 ]; then
	grep -h '^SKIP: ' "$WORK/out" "$WORK/err" | sed "s/^SKIP: [^:]*:/SKIP: $T:/" | head -1
	exit 77
fi
[ "$rc" -eq 0 ] || { tail -5 "$WORK/err"; cat "$WORK/ctl.out" 2>/dev/null; fail run "exited with status $rc"; }
grep -q "^ok fault servernode loss=0.05 dup=0.05 reorder=0.05 corrupt=0.05" "$WORK/ctl.out" && pass fault-knobs-accepted \
	|| fail fault-knobs-accepted "fabsim did not confirm the fault knobs: $(head -1 "$WORK/ctl.out" 2>/dev/null)"
grep "^link" "$WORK/stats.out"
faults=$(awk '/^link/ { for (i = 1; i < NF; i++) if ($i ~ /^(lost|duplicated|reordered|corrupted)$/) n += $(i + 1) } END { print n + 0 }' "$WORK/stats.out")
[ "$faults" -gt 0 ] && pass faults-happened || fail faults-happened "the server node's cable counted no faults"
got=$(sha256sum "$WORK/got" 2>/dev/null | cut -d' ' -f1)
[ "$got" = "$want" ] && pass sha256-under-faults || fail sha256-under-faults "SHA-256 ${got:-missing} != $want"
# The server node runs under ASan/UBSan in make check: any report fails the test.
if grep -qE "runtime error|AddressSanitizer|LeakSanitizer" "$WORK/env/logs/servernode.log" 2>/dev/null; then
	fail sanitizers "$(grep -m1 -E "runtime error|AddressSanitizer|LeakSanitizer" "$WORK/env/logs/servernode.log")"
fi
finish
