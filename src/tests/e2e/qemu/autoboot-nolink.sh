#!/usr/bin/env bash
# The autoboot with nothing to boot from fails at once, saying why, instead of letting `dhcp`
# wait 30 s for a link that cannot come:
#   no-hca    QEMU without -device hermon: "no InfiniBand HCA found"
#   no-cable  -device hermon with the model but no fabric: both ports stay Polling, each named
#             "no cable", then "no InfiniBand port has a link"
# Each QEMU is stopped by its PID as soon as the failure line is on the serial console (a guard
# stops a hung one); nothing asserts on time: the old behaviour shows as the "waiting for link"
# lines of dhcp and the missing reason.
. "$(dirname "$0")/../../framework/lib.sh"
qemu_device_test
need_model

# boot NAME GUARD QEMU-ARGS... — start QEMU, wait for "autoboot failed" (or the guard), stop it.
boot() {
	local name=$1 guard=$2 i
	shift 2
	rm -f "$T/serial.log"
	timeout --kill-after=5 "$guard" "$QEMU" -display none -machine graphics=off -monitor none \
		-no-reboot -m 256 -net none -serial "file:$T/serial.log" "$@" \
		-kernel "$TOP/bin/ibboot.lkrn" > "$T/$name.qemu.out" 2>&1 &
	QEMU_PID=$!
	for ((i = 0; i < guard * 5; i++)); do
		kill -0 "$QEMU_PID" 2>/dev/null || break
		grep -q 'autoboot failed' "$T/serial.log" 2>/dev/null && { sleep 0.3; break; }
		sleep 0.2
	done
	stop_qemu
	serial_text > "$T/$name.serial.txt"
}

has() { grep -Eq "$2" "$T/$1.serial.txt"; }

boot no-hca 60
if has no-hca '\] autoboot failed: no InfiniBand HCA found'; then
	pass no-hca/reason
else
	fail no-hca/reason "no 'autoboot failed: no InfiniBand HCA found' ($T/no-hca.serial.txt)"
fi
if has no-hca 'waiting for link|no link after|running the embedded script'; then
	fail no-hca/no-wait "the autoboot ran the script and waited for a link ($T/no-hca.serial.txt)"
else
	pass no-hca/no-wait
fi

boot no-cable 60 -device "hermon,model=$MODEL,device-id=0x1003"
for port in 1 2; do
	if has no-cable "port $port: no cable \\(physical state (Polling|Disabled|Sleep) "; then
		pass "no-cable/port-$port-named"
	else
		fail "no-cable/port-$port-named" "port $port not reported as 'no cable' ($T/no-cable.serial.txt)"
	fi
done
if has no-cable '\] autoboot failed: no InfiniBand port has a link'; then
	pass no-cable/reason
else
	fail no-cable/reason "no 'autoboot failed: no InfiniBand port has a link' ($T/no-cable.serial.txt)"
fi
if has no-cable 'waiting for link|no link after|running the embedded script'; then
	fail no-cable/no-wait "the autoboot ran the script and waited for a link ($T/no-cable.serial.txt)"
else
	pass no-cable/no-wait
fi
finish
