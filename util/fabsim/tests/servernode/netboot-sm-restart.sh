#!/usr/bin/env bash
# Integration test: the server node survives an SM restart and a pulled cable. OpenSM is stopped
# and started again (util/netboot-env sm-restart); the new SM's first sweep sets ClientReregister
# (IBA 14.4.11), the server node must join the broadcast group again, and a client that attaches
# afterwards (HCA slot 2, the two-port HCA's port 2) must still get a DHCP lease and its file.
# Then the server node's cable is pulled and plugged back (fabsimctl link): its port goes DOWN,
# OpenSM brings it back to ACTIVE, it joins again, and a third client boots.
set -u
cd "$(dirname "$0")/../../../.." || exit 1
. src/tests/framework/lib.sh
servernode_test servernode-sm-restart

head -c 20000 /dev/urandom >"$WORK/f.bin"
want=$(sha256sum "$WORK/f.bin" | cut -d' ' -f1)

# Waits (TRIES x 0.1 s at most, not asserted on) until the server node's log has COUNT lines
# matching PATTERN.
wait_servernode_log() {
	local _
	for _ in $(seq 1 "$3"); do
		[ "$(grep -c "$2" "$NETBOOT_LOG_DIR/servernode.log")" -ge "$1" ] && return 0
		sleep 0.1
	done
}

inner() {
	"$CLIENT" --socket "$FABSIM_HCA_SOCKET" --guid "$NETBOOT_HCA1_PORT1_GUID" --port-num 1 \
		--fetch f.bin --out "$WORK/got1" || { echo "client 1 failed"; return 1; }
	util/netboot-env sm-restart "$NETBOOT_DIR" || { echo "sm-restart failed"; return 1; }
	# The rejoin is asynchronous to the restart: wait for it (bounded, not asserted on time).
	wait_servernode_log 2 'joined broadcast group' 300
	"$CLIENT" --socket "$FABSIM_HCA_SOCKET" --guid "$NETBOOT_HCA2_PORT2_GUID" --port-num 2 \
		--fetch f.bin --out "$WORK/got2" || { echo "client 2 failed"; return 1; }
	bin/fabsimctl "$FABSIM_CONTROL_SOCKET" link servernode down >/dev/null || { echo "link down failed"; return 1; }
	wait_servernode_log 1 'physical link down' 100
	bin/fabsimctl "$FABSIM_CONTROL_SOCKET" link servernode up >/dev/null || { echo "link up failed"; return 1; }
	wait_servernode_log 3 'joined broadcast group' 300
	"$CLIENT" --socket "$FABSIM_HCA_SOCKET" --guid "$NETBOOT_HCA1_PORT1_GUID" --port-num 1 \
		--fetch f.bin --out "$WORK/got3" || { echo "client 3 failed"; return 1; }
}
export -f inner wait_servernode_log
export WORK CLIENT
util/netboot-env run "$WORK/env" --hcas 2 --serve "$WORK/f.bin" -- bash -c inner >"$WORK/out" 2>"$WORK/err"
rc=$?
L=$WORK/env/logs
grep -E "^client: (DHCPACK|TFTP)|failed" "$WORK/out"
if [ "$rc" -eq 77 ]; then
	grep -h '^SKIP: ' "$WORK/out" "$WORK/err" | sed "s/^SKIP: [^:]*:/SKIP: $T:/" | head -1
	exit 77
fi
[ "$rc" -eq 0 ] || { tail -5 "$WORK/err"; tail -8 "$L/servernode.log"; fail run "exited with status $rc"; }
n=$(grep -c "SUBNET UP" "$L/opensm.log" 2>/dev/null)
[ "${n:-0}" -ge 2 ] && pass second-sm-subnet-up || fail second-sm-subnet-up "OpenSM log has ${n:-0} SUBNET UP lines, want 2"
grep -q "ClientReregister from the SM" "$L/servernode.log" && pass client-reregister-seen \
	|| fail client-reregister-seen "the server node logged no ClientReregister after the restart"
n=$(grep -c "joined broadcast group" "$L/servernode.log" 2>/dev/null)
[ "${n:-0}" -ge 2 ] && pass rejoined || fail rejoined "server node joined ${n:-0} times, want >= 2"
grep -q "port state 4 -> 1" "$L/servernode.log" && [ "${n:-0}" -ge 3 ] && pass rejoined-after-link-flap \
	|| fail rejoined-after-link-flap "no DOWN and third join after the cable was pulled (joins: ${n:-0})"
for i in 1 2 3; do
	got=$(sha256sum "$WORK/got$i" 2>/dev/null | cut -d' ' -f1)
	[ "$got" = "$want" ] && pass "client$i-sha256" || fail "client$i-sha256" "SHA-256 ${got:-missing} != $want"
done
# The server node runs under ASan/UBSan in make check: any report fails the test.
if grep -qE "runtime error|AddressSanitizer|LeakSanitizer" "$WORK/env/logs/servernode.log" 2>/dev/null; then
	fail sanitizers "$(grep -m1 -E "runtime error|AddressSanitizer|LeakSanitizer" "$WORK/env/logs/servernode.log")"
fi
finish
