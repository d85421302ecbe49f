#!/usr/bin/env bash
# Integration test: a raw IPoIB endpoint — build/tests/ipoib-client, a second CA port
# attached to fabsim, built on the same IPoIB core and firmware SMA library as the server node
# (not an hcasim QP) — gets an RFC 4390 DHCP lease from the real dnsmasq through the fabric the
# stock OpenSM brought up, then fetches a file by TFTP; the file's SHA-256 must match.
#
# Everything runs inside a namespace util/netboot-env creates and deletes; all processes are
# stopped by PID. Exit 77 (SKIP) only when this machine cannot create a namespace + TUN.
set -u
cd "$(dirname "$0")/../../../.." || exit 1
. src/tests/framework/lib.sh
servernode_test "${SN_TEST_NAME:-servernode-netboot}"


# Overridable for debugging a build elsewhere; netboot-env honours FABSIM and SERVERNODE too.
for b in "${FABSIM:-bin/fabsim}" "${SERVERNODE:-bin/fabsim-servernode}" "$CLIENT"; do
	if [ ! -x "$b" ]; then
		echo "FAIL: $T: $b is not built"
		exit 1
	fi
done

# A file that is not a multiple of the block size, so the last DATA packet is short.
head -c 300001 /dev/urandom >"$WORK/boot.bin"
want=$(sha256sum "$WORK/boot.bin" | cut -d' ' -f1)

# The client's port: HCA slot 1, port 1. Its RFC 4390 client-id gets a reservation.
guid=0x0002c90300d00011
clid=$(printf 'ff:00:00:00:00:00:02:00:00:02:c9:00:%s' "$(printf '%016x' $((guid)) | sed 's/../&:/g; s/:$//')")
reserved=198.18.0.60

# Inside the environment: the client gets its lease, the file by TFTP, then the same file over
# HTTP from nginx (TCP through the fabric, the server node and the TUN).
inner() {
	"$CLIENT" --socket "$FABSIM_HCA_SOCKET" --guid "$NETBOOT_HCA1_PORT1_GUID" --port-num 1 \
		--fetch boot.bin --out "$WORK/boot.got" --blksize 2048 --expect-ip "$reserved" \
		--http boot.bin --http-out "$WORK/http.got"
}
export -f inner
export WORK CLIENT reserved
util/netboot-env run "$WORK/env" --hcas 2 --serve "$WORK/boot.bin" --dhcp-boot boot.bin \
	--dhcp-host "id:$clid,$reserved" --capture "$WORK/capture.pcap" -- bash -c inner \
	>"$WORK/client.out" 2>"$WORK/env.err"
rc=$?
L=$WORK/env/logs
cat "$WORK/client.out"
if [ "$rc" -eq 77 ]; then
	grep -h '^SKIP: ' "$WORK/client.out" "$WORK/env.err" | sed "s/^SKIP: [^:]*:/SKIP: $T:/" | head -1
	grep -q '^SKIP: ' "$WORK/client.out" "$WORK/env.err" || echo "SKIP: $T: netboot-env could not create a namespace/TUN here"
	exit 77
fi
if [ "$rc" -ne 0 ]; then
	echo "--- netboot-env stderr"; tail -20 "$WORK/env.err"
	for l in servernode fabsim opensm dnsmasq; do
		[ -f "$L/$l.log" ] && { echo "--- $l.log (tail)"; tail -15 "$L/$l.log"; }
	done
	fail dhcp-tftp "client exited with status $rc"
	exit 1
fi

grep -m1 "SUBNET UP" "$L/opensm.log" && pass opensm-subnet-up || fail opensm-subnet-up "no SUBNET UP in opensm.log"
grep -m1 "joined broadcast group ff12:401b:ffff:0000:0000:0000:ffff:ffff Q_Key 0x00000b1b" "$L/servernode.log" \
	&& pass servernode-joined || fail servernode-joined "server node did not join ff12:401b:ffff::ffff:ffff with Q_Key 0x0B1B"
# dnsmasq saw the RFC 4390 request and answered from its reservation.
grep -m1 "DHCPACK(ibsim0) $reserved" "$L/dnsmasq.log" && pass dhcp-ack \
	|| fail dhcp-ack "dnsmasq did not log DHCPACK for $reserved"
grep -q "client: DHCPACK $reserved .* htype 32 hlen 0 flags 0x8000" "$WORK/client.out" && pass dhcp-rfc4390-reply \
	|| fail dhcp-rfc4390-reply "client did not report an htype 32 / hlen 0 / broadcast ACK"
grep -q "OACK blksize 2012 " "$WORK/client.out" && pass tftp-blksize-2012 \
	|| fail tftp-blksize-2012 "dnsmasq did not cap blksize at 2012 (MTU 2044)"
got=$(sha256sum "$WORK/boot.got" 2>/dev/null | cut -d' ' -f1)
if [ -n "$got" ] && [ "$got" = "$want" ]; then
	echo "sha256 $got"
	pass tftp-sha256
else
	fail tftp-sha256 "SHA-256 differs: served $want, received ${got:-nothing}"
fi
# HTTP through the fabric: same bytes, and full-size segments (MSS 2004 = TUN MTU 2044 - 40,
# i.e. 2048-byte IPoIB payloads: the IB MTU exactly).
got=$(sha256sum "$WORK/http.got" 2>/dev/null | cut -d' ' -f1)
[ -n "$got" ] && [ "$got" = "$want" ] && pass http-sha256 || fail http-sha256 "HTTP body SHA-256 ${got:-missing} != $want"
grep -q "client: HTTP GET /boot.bin: 'HTTP/1.1 200 OK', 300001 body bytes, largest TCP segment 2004" "$WORK/client.out" \
	&& pass http-full-mtu-segments || fail http-full-mtu-segments "no 2004-byte TCP segments seen"
# The capture decodes: tshark 4.0 knows LINKTYPE_INFINIBAND (247) only as a user DLT, so the link
# type is rewritten to DLT_USER0 (147) and mapped to its InfiniBand dissector.
if command -v tshark >/dev/null 2>&1 && [ -s "$WORK/capture.pcap" ]; then
	{ head -c 20 "$WORK/capture.pcap"; printf '\223'; tail -c +22 "$WORK/capture.pcap"; } >"$WORK/cap147.pcap"
	ts() { tshark -o 'uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""' -r "$WORK/cap147.pcap" "$@" 2>/dev/null; }
	ts -Y 'dhcp.option.dhcp == 5' -T fields -e dhcp.hw.type -e dhcp.hw.len -e dhcp.flags.bc -e dhcp.ip.your \
		>"$WORK/ts.ack"
	ts -Y 'arp.opcode == 2 && arp.src.proto_ipv4 == 198.18.0.1' -T fields -e arp.hw.type -e arp.hw.size >"$WORK/ts.arp"
	ts -Y 'tftp.opcode == 6' -T fields -e tftp.option.value >"$WORK/ts.oack"
	if grep -q "^0x20	0	1	$reserved" "$WORK/ts.ack" && grep -q "^32	20" "$WORK/ts.arp" && grep -q "2012" "$WORK/ts.oack"; then
		pass tshark-decodes-capture
	else
		fail tshark-decodes-capture "tshark did not find the IPoIB DHCPACK/ARP reply/OACK: $(head -2 "$WORK/ts.ack" "$WORK/ts.arp" "$WORK/ts.oack" | tr '\n\t' '  ')"
	fi
fi
# Nothing left behind: no namespace of ours and none of the processes.
if ip netns list 2>/dev/null | grep -q "^ibboot-$(echo "$WORK/env" | md5sum | cut -c1-8)"; then
	fail teardown "namespace still exists"
else
	pass teardown
fi
# The server node runs under ASan/UBSan in make check: any report fails the test.
if grep -qE "runtime error|AddressSanitizer|LeakSanitizer" "$WORK/env/logs/servernode.log" 2>/dev/null; then
	fail sanitizers "$(grep -m1 -E "runtime error|AddressSanitizer|LeakSanitizer" "$WORK/env/logs/servernode.log")"
fi
finish
