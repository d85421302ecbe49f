#!/usr/bin/env bash
# The HCA self-test against a real subnet manager, in one of two settings (argument):
#   hosted  bin/ibboot-hosted (ASan/UBSan) with the HCA model in-process (default)
#   qemu    bin/ibboot.lkrn in QEMU with `-device hermon` (the model), i.e. bare metal
# cabled to fabsim + the stock OpenSM (util/netboot-env; the HCA in slot 2: two ports, only port 2
# cabled). One run:
#   selftest            port 2 ACTIVE under OpenSM: all seven steps ok, OpenSM's SA answering the
#                       PathRecord Get of step 7, nothing left allocated, well under a second
#   selftest --port 2   after OpenSM is stopped: the port stays ACTIVE, step 7 fails with
#                       "no PathRecord from SM LID ...", the other six still pass
#   selftest --port 1   the uncabled port: steps 5 and 7 fail saying the port is DOWN
# Result lines PASS:/FAIL: selftest-MODE/...; logs in build/selftest/MODE/.
set -uo pipefail
MODE=${1:-hosted}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
cd "$TOP"
T=$TOP/build/selftest/$MODE
rm -rf "$T"
mkdir -p "$T"
SUITE=selftest-$MODE
source src/tests/framework/lib.sh
QEMU=
if [ "$MODE" = qemu ] && ! QEMU=$(util/qemu/build --print-path 2>/dev/null); then
	echo "FAIL: $SUITE: QEMU with the hermon device is not built (run: make qemu)"
	exit 1
fi
for f in bin/fabsim bin/fabsim-servernode util/netboot-env \
	 $([ -n "$QEMU" ] && echo bin/ibboot.lkrn bin/libhcasim.so || echo bin/ibboot-hosted); do
	[ -e "$f" ] || { echo "FAIL: $SUITE: $f missing (run: make all)"; exit 1; }
done
IP=198.18.0.61
SERVER=198.18.0.1

# Runs inside util/netboot-env with env.sh in its environment: ibboot, then OpenSM stopped at
# the marker line.
cat > "$T/guest.sh" <<'INNER'
#!/usr/bin/env bash
set -uo pipefail
T=$1 CMDS=$2 TOP=$3 QEMU=$4
if [ -z "$QEMU" ]; then
	timeout --kill-after=5 120 "$TOP/bin/ibboot-hosted" --hca --hca-guid="$NETBOOT_HCA2_NODE_GUID" \
		--hca-ports=2 --fabric="$FABSIM_HCA_SOCKET" "ibboot.cmd=$CMDS" \
		> "$T/serial.log" 2> "$T/serial.stderr" &
else
	: > "$T/serial.stderr"
	timeout --kill-after=5 120 "$QEMU" -display none -machine graphics=off -monitor none \
		-no-reboot -m 256 -net none -nodefaults -serial "file:$T/serial.log" \
		-device isa-debug-exit -device hermon,model=$TOP/bin/libhcasim.so,guid=$NETBOOT_HCA2_NODE_GUID,port1-cable=off,fabric=$FABSIM_HCA_SOCKET,log=$T/device.log \
		-kernel "$TOP/bin/ibboot.lkrn" -append "ibboot.cmd=$CMDS" > "$T/qemu.out" 2>&1 &
fi
ibboot_pid=$!
for _ in $(seq 1 900); do
	grep -q '^SM-STOP-NOW' "$T/serial.log" 2>/dev/null && break
	kill -0 "$ibboot_pid" 2>/dev/null || break
	sleep 0.1
done
"$TOP/util/netboot-env" sm-stop "$NETBOOT_DIR" > "$T/sm-stop.log" 2>&1
echo "sm-stop status $?" >> "$T/sm-stop.log"
wait "$ibboot_pid"
echo $? > "$T/serial.status"
INNER
chmod +x "$T/guest.sh"

# ping waits for port 2 to be ACTIVE and ib0 joined; sleep gives the SM stop time to land.
CMDS="ipconfig+$IP/24,ping+$SERVER+1,selftest,echo+SM-STOP-NOW,sleep+3000,selftest+--port+2,selftest+--port+1,poweroff"
util/netboot-env run "$T/env" --hcas 2 -- "$T/guest.sh" "$T" "$CMDS" "$TOP" "$QEMU" \
	> "$T/netboot-env.log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: $SUITE: this machine cannot create the test network namespace/TUN ($(tail -1 "$T/netboot-env.log"))"
	exit 77
fi
[ -s "$T/serial.log" ] || { fail run "no console log (netboot-env status $rc; see $T)"; exit 1; }
S=$(tr -d '\r' < "$T/serial.log")
# The lines of the n-th selftest run (1-based), header to summary.
run_of() { awk -v n="$1" '/^selftest hermon /{ k++ } k == n { print } k == n && /^selftest: /{ exit }' <<<"$S"; }
R1=$(run_of 1) R2=$(run_of 2) R3=$(run_of 3)
printf '%s\n' "$R1" "$R2" "$R3" > "$T/selftest.txt"

# poweroff: the hosted program exits 0, QEMU's isa-debug-exit makes it (0 << 1) | 1.
status=$(cat "$T/serial.status" 2>/dev/null)
expect_status exit "${status:-1}" "$([ -n "$QEMU" ] && echo 1 || echo 0)" "(poweroff; see $T)" && pass exit
[ -n "$QEMU" ] || { expect_clean sanitizers "$T/serial.stderr" && pass sanitizers; }

# Healthy, under OpenSM: every step ok, on the ACTIVE port 2 by default.
if grep -q '^selftest hermon .* port 2$' <<<"$R1" && grep -q '^selftest: 7 passed, 0 failed in ' <<<"$R1" &&
   grep -q ' ms; nothing leaked$' <<<"$R1"; then
	pass healthy-all-ok
else
	fail healthy-all-ok "$(grep -E 'FAIL|skipped|^selftest' <<<"$R1" | tr '\n' ';')"
fi
grep -Eq '^  7 port and SM +ok \(LID 0x[0-9a-f]+; SM LID 0x[0-9a-f]+ answered PathRecord in [0-9]+ ms\)$' <<<"$R1" &&
	pass opensm-answered-pathrecord || fail opensm-answered-pathrecord "$(grep '  7 ' <<<"$R1")"
ms=$(sed -nE 's/^selftest: 7 passed, 0 failed in ([0-9]+) ms.*/\1/p' <<<"$R1")
echo "INFO: $SUITE: healthy run took ${ms:-?} ms under the real OpenSM"

# OpenSM gone, the port still ACTIVE: the SA query times out, the rest passes.
grep -q 'sm-stop status 0' "$T/sm-stop.log" 2>/dev/null || fail sm-stopped "OpenSM was not stopped (see $T/sm-stop.log)"
if grep -Eq '^  7 port and SM +FAIL: no PathRecord from SM LID 0x[0-9a-f]+ in [0-9]+ ms$' <<<"$R2" &&
   grep -q '^selftest: 6 passed, 1 failed in ' <<<"$R2"; then
	pass no-sm-sa-timeout
else
	fail no-sm-sa-timeout "$(grep -E 'FAIL|^selftest' <<<"$R2" | tr '\n' ';')"
fi

# The uncabled port: no datagram and no SM through it, said plainly.
if grep -q '^selftest hermon .* port 1$' <<<"$R3" &&
   grep -Eq '^  5 UD loopback +FAIL: port 1 is DOWN' <<<"$R3" &&
   grep -Eq '^  7 port and SM +FAIL: port 1 is DOWN \(Polling\): no link: check cable' <<<"$R3" &&
   grep -q '^selftest: 5 passed, 2 failed in ' <<<"$R3"; then
	pass uncabled-port
else
	fail uncabled-port "$(grep -E 'FAIL|^selftest' <<<"$R3" | tr '\n' ';')"
fi
finish
