#!/usr/bin/env bash
# The whole netboot in QEMU, on the embedded default script: bin/ibboot.lkrn with the hermon
# device (the HCA model) cabled into fabsim under the stock OpenSM; no ibboot.cmd=, so after the
# key wait ibboot runs `dhcp && chain ${filename}`: a lease from dnsmasq names boot.ipxe, fetched
# over TFTP; that script fetches the payload's kernel and initrd over HTTP from nginx, pins both
# by SHA-256 and boots; the payload's init prints IBBOOT-PAYLOAD-OK with the nonce the script put
# on the kernel command line. Logs: build/boot/netboot/.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$TOP"
T=$TOP/build/boot/netboot
if [ "${1:-}" != --inside ]; then
	rm -rf "$T"; mkdir -p "$T"
	for f in bin/ibboot.lkrn bin/payload/vmlinuz bin/payload/initrd.img bin/libhcasim.so \
		bin/libfabsim_client.so bin/fabsim bin/fabsim-servernode; do
		[ -s "$f" ] || { echo "FAIL: boot-netboot: $f missing (make check-boot-netboot builds it)"; exit 1; }
	done
	nonce=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
	ksum=$(sha256sum bin/payload/vmlinuz | cut -c1-64)
	isum=$(sha256sum bin/payload/initrd.img | cut -c1-64)
	cat >"$T/boot.ipxe" <<EOS
#!ipxe
echo ibboot netboot test: lease \${ip} from \${next-server}
kernel http://\${next-server}/vmlinuz console=ttyS0 quiet ibboot.nonce=$nonce
initrd http://\${next-server}/initrd.img
sha256 vmlinuz $ksum
sha256 initrd.img $isum
boot
EOS
	echo "$nonce" >"$T/nonce"
	util/netboot-env run "$T/env" --hcas 1 --serve "$T/boot.ipxe" --serve bin/payload/vmlinuz \
		--serve bin/payload/initrd.img --dhcp-boot boot.ipxe -- "$0" --inside \
		>"$T/netboot-env.log" 2>&1
	rc=$?
	grep -E '^(PASS|FAIL|SKIP)' "$T/netboot-env.log"
	[ "$rc" -eq 77 ] && exit 77
	grep -q '^PASS: ' "$T/netboot-env.log" || { echo "FAIL: boot-netboot: the environment did not come up (status $rc): $(tail -5 "$T/netboot-env.log")"; exit 1; }
	exit 0
fi

QEMU=${QEMU_BIN:-$(util/qemu/build --print-path 2>/dev/null)} ||
	{ echo "SKIP: boot-netboot: QEMU with the hermon device is not built (make qemu)"; exit 77; }
nonce=$(cat "$T/nonce")
"$QEMU" -display none -machine graphics=off -monitor none -no-reboot -m 512 -net none \
	-serial "file:$T/serial.log" -kernel bin/ibboot.lkrn \
	-device "hermon,model=$TOP/bin/libhcasim.so,device-id=0x1003,guid=$NETBOOT_HCA1_NODE_GUID,port2=off,fabric=$FABSIM_HCA_SOCKET,fabric-lib=$TOP/bin/libfabsim_client.so,log=$T/device.log" \
	>"$T/qemu.out" 2>&1 &
qpid=$!
# Bounded: QEMU is stopped by its PID after 300 s whatever happens.
for _ in $(seq 1 600); do
	kill -0 $qpid 2>/dev/null || break
	grep -aq 'IBBOOT-PAYLOAD-OK' "$T/serial.log" 2>/dev/null && sleep 2 && break
	grep -aq 'autoboot failed' "$T/serial.log" 2>/dev/null && break
	sleep 0.5
done
if kill -0 $qpid 2>/dev/null; then kill $qpid; fi
wait $qpid 2>/dev/null
sed -e 's/\r//g' -e 's/\x1b\[[0-9;]*[a-zA-Z]//g' "$T/serial.log" >"$T/serial.txt"
step() {  # step NAME REGEX WHY
	if grep -aEq "$2" "$T/serial.txt"; then echo "PASS: boot-netboot/$1"; else echo "FAIL: boot-netboot/$1: $3 (log: $T/serial.txt)"; fi
}
step autoboot '^\[ *[0-9]+\.[0-9]{3}\] autoboot: running the embedded script' "the embedded script did not start"
step script-over-tftp '^\[ *[0-9]+\.[0-9]{3}\] running script boot\.ipxe' "boot.ipxe was not fetched and run"
step expansion "^ibboot netboot test: lease 198\.18\.0\.[0-9]+ from $NETBOOT_SERVER_IP\$" "\${ip}/\${next-server} not expanded"
step kernel-over-http '^\[ *[0-9]+\.[0-9]{3}\] vmlinuz: [0-9]+ bytes in ' "the kernel did not arrive over HTTP"
step sha256 '^sha256: initrd\.img OK' "the SHA-256 pins were not confirmed"
step linux-booted "^IBBOOT-PAYLOAD-OK .*ibboot\.nonce=$nonce" "Linux did not print its marker with nonce $nonce"
# Before the jump the HCA was quiesced (README, security): a second software reset
# (the first is at probe), the model holding none of the host's memory any more (no ICM, no
# firmware area), and no register write after that reset.
resets=$(grep -ac 'hcasim: software reset' "$T/device.log")
last_reset=$(grep -an 'hcasim: software reset' "$T/device.log" | tail -1 | cut -d: -f1)
last_mem=$(grep -a 'bytes of host memory held by the HCA' "$T/device.log" | tail -1)
writes_after=$(tail -n +"$((${last_reset:-0} + 1))" "$T/device.log" | grep -ac ' write ')
if [ "$resets" -ge 2 ] && [[ "$last_mem" == *" total 0 "* ]] && [ "$writes_after" -eq 0 ]; then
	echo "PASS: boot-netboot/hca-quiesced-before-linux"
else
	echo "FAIL: boot-netboot/hca-quiesced-before-linux: resets $resets, last '$last_mem', $writes_after register writes after the last reset (log: $T/device.log)"
fi
