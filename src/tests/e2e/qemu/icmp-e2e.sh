#!/usr/bin/env bash
# The driver end to end, in one of two settings (argument):
#   qemu    bin/ibboot.lkrn in QEMU with `-device hermon` (the model), i.e. bare metal
#   hosted  bin/ibboot-hosted with the model in-process, under ASan/UBSan
# either way cabled to fabsim with the stock OpenSM (util/netboot-env). The port must reach ACTIVE
# under an SM that starts late, IPoIB must join the broadcast group, ICMP echoes to the server
# node (the Linux kernel behind the TUN) must be answered; after an SM restart the groups must be
# joined again and echo must work again; `fwdump` must show the local-only key and no error CQE.
# Results as PASS:/FAIL: lines; logs in build/driver/e2e-MODE/.
set -uo pipefail
MODE=${1:-qemu}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
cd "$TOP"
T=$TOP/build/driver/e2e-$MODE
rm -rf "$T"
mkdir -p "$T"
SUITE=driver-$MODE
source src/tests/framework/lib.sh
CMDS="ipconfig+198.18.0.60/24,ping+198.18.0.1+3,echo+SM-RESTART-NOW,sleep+10000,ping+198.18.0.1+3,ibstat,fwdump,poweroff"

if [ "$MODE" = hosted ]; then
	QEMU=
elif ! QEMU=$(util/qemu/build --print-path 2>/dev/null); then
	# The device wrapper changed since the last build: the previous QEMU still runs the same
	# model (it dlopens bin/libhcasim.so), so it is good enough to test the driver.
	QEMU=$(cat build/qemu/qemu-path 2>/dev/null)
	if [ -z "$QEMU" ] || [ ! -x "$QEMU" ]; then
		echo "FAIL: driver-qemu: QEMU with the hermon device is not built (run: make qemu)"
		exit 1
	fi
	echo "note: using the last built QEMU, $QEMU"
fi
for f in bin/ibboot.lkrn bin/ibboot-hosted bin/libhcasim.so bin/fabsim bin/fabsim-servernode; do
	[ -e "$f" ] || { echo "FAIL: driver-qemu: $f missing (run: make all)"; exit 1; }
done

# The SM is (re)started once the image has opened its ports: an SM that comes late must still
# bring the port up, and it sidesteps the simulation's link being up before INIT_PORT
# (SMPs sent then are lost and stall OpenSM). Then the SM is
# restarted between two pings: ClientReregister must lead to a rejoin and echo must work again.
cat > "$T/guest.sh" <<INNER
#!/usr/bin/env bash
# Runs inside util/netboot-env (env.sh sourced): one HCA slot, port 1 cabled.
# The model's node GUID (hosted --hca-guid, QEMU guid=); its port p has GUID node + p.
node=\$(printf '0x%x' \$((NETBOOT_HCA1_PORT1_GUID - 1)))
if [ "$MODE" = hosted ]; then
	timeout --kill-after=5 150 $TOP/bin/ibboot-hosted --hca --hca-guid=\$node \\
		--fabric=\$FABSIM_HCA_SOCKET "ibboot.cmd=$CMDS" > "$T/serial.log" 2> "$T/stderr.log" &
else
	timeout --kill-after=5 150 "$QEMU" -display none -machine graphics=off -monitor none -no-reboot \\
		-m 256 -net none -nodefaults -serial "file:$T/serial.log" -device isa-debug-exit \\
		-device hermon,model=$TOP/bin/libhcasim.so,guid=\$node,fabric=\$FABSIM_HCA_SOCKET,log=$T/device.log \\
		-kernel $TOP/bin/ibboot.lkrn -append "ibboot.cmd=$CMDS" > "$T/qemu.out" 2>&1 &
fi
guest=\$!
wait_serial() {
	for i in \$(seq 1 300); do
		grep -q "\$1" "$T/serial.log" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}
# SM started late: only once the image waits for it.
wait_serial 'waiting for the subnet manager' && \\
	$TOP/util/netboot-env sm-restart "$T/env" > "$T/sm-start.log" 2>&1
# SM restarted: the new SM sets ClientReregister; groups must be joined again.
wait_serial '^SM-RESTART-NOW' && \\
	$TOP/util/netboot-env sm-restart "$T/env" > "$T/sm-restart.log" 2>&1
wait \$guest
echo \$? > "$T/guest.status"
INNER
chmod +x "$T/guest.sh"

util/netboot-env run "$T/env" --hcas 1 -- "$T/guest.sh" > "$T/netboot-env.log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: driver-qemu: this machine cannot create the test network (see $T/netboot-env.log)"
	exit 0
fi
[ -f "$T/serial.log" ] || { fail run "no console log (netboot-env status $rc; see $T)"; exit 1; }
S=$(tr -d '\r' < "$T/serial.log")
# QEMU: isa-debug-exit turns `poweroff` (status 0) into exit status 1; hosted exits 0.
want=1
[ "$MODE" = hosted ] && want=0
[ "$(cat "$T/guest.status" 2>/dev/null)" = "$want" ] && pass poweroff ||
	fail poweroff "exit status $(cat "$T/guest.status" 2>/dev/null), expected $want"
grep -q 'registered' <<<"$S" && pass probe || fail probe "no 'registered' line"
grep -Eq 'port 1: ACTIVE, LID 0x[0-9a-f]+, SM LID' <<<"$S" && pass port-active || fail port-active "port 1 never ACTIVE under OpenSM"
# Each ping's first echo may miss its window while ARP and the path record resolve.
[ "$(grep -Ec 'ping 198.18.0.1: 3 sent, [123] received' <<<"$S")" -ge 1 ] && pass icmp-echo ||
	fail icmp-echo "no echo reply"
grep -q 'joining groups again' <<<"$S" && pass sm-restart-rejoin ||
	fail sm-restart-rejoin "no re-registration after the SM restarted"
[ "$(grep -Ec 'ping 198.18.0.1: 3 sent, [123] received' <<<"$S")" -eq 2 ] && pass icmp-after-sm-restart ||
	fail icmp-after-sm-restart "no echo reply after the SM restarted"
grep -q ' mpt=[0-9]* access=lr,lw' <<<"$S" && pass fwdump || fail fwdump "no fwdump output"
# The model refuses and logs any DMA while bus mastering is off (util/hcasim/dma_guard.c); after
# the final reset (poweroff quiesces the HCA) bus mastering must stay off.
if [ "$MODE" = qemu ]; then
	if grep -q 'without bus mastering' "$T/device.log"; then
		fail no-dma-without-bus-master "$(grep -m1 'without bus mastering' "$T/device.log")"
	else
		pass no-dma-without-bus-master
	fi
	last=$(grep 'hcasim: bus mastering' "$T/device.log" | tail -n1)
	case $last in
	*"bus mastering off"*) pass bus-master-off-after-final-reset ;;
	*) fail bus-master-off-after-final-reset "the model's last word on bus mastering: '${last:-none}' ($T/device.log)" ;;
	esac
fi
if grep -Eq 'completion error|treated as an error|failed: status' <<<"$S"; then
	fail no-errors "$(grep -Em1 'completion error|treated as an error|failed: status' <<<"$S")"
else
	pass no-errors
fi
finish
