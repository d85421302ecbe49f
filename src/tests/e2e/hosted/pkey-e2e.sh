#!/usr/bin/env bash
# src/tests/e2e/hosted/pkey-e2e.sh [IBBOOT-HOSTED] — IPoIB on a partition other than the default:
# the stock OpenSM gets a partitions.conf (util/netboot-env --partitions) in which every port is
# only a limited member of the default partition (0x7fff, no IPoIB group) and a full member of
# P_Key 0x8001 with IPoIB; the server node runs IPoIB on 0x8001 (--pkey). bin/ibboot-hosted with
# the HCA model over fabsim must
#   1. with no ib-pkey setting, choose 0x8001 because its broadcast group exists (SA Get) and
#      say so, get a DHCP lease from dnsmasq and an intact file from nginx over HTTP;
#   2. with ib-pkey set to a P_Key that is not in the port's table, fail at once with that
#      reason (no wait for a link that cannot come).
# Results as PASS:/FAIL: lines; logs in build/dhcp/pkey-e2e/.
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
cd "$TOP"
BIN=$(realpath "${1:-bin/ibboot-hosted}")
T=$TOP/build/dhcp/pkey-e2e
suite=pkey-ipoib
rm -rf "$T" && mkdir -p "$T"
SUITE=$suite
source src/tests/framework/lib.sh

for f in "$BIN" bin/fabsim bin/fabsim-servernode; do
	[ -x "$f" ] || { echo "FAIL: $suite: $f missing (run: make all)"; exit 1; }
done
head -c $((1 << 20)) /dev/urandom > "$T/part.bin"
want_sha=$(sha256sum < "$T/part.bin" | cut -d' ' -f1)
# OpenSM's partition syntax (man opensm, PARTITION CONFIGURATION): no `ipoib` flag on the default
# partition, so no IPoIB broadcast group exists for 0xffff; 0x8001 has one, everyone full member.
cat > "$T/partitions.conf" <<'CONF'
Default=0x7fff : ALL=limited, SELF=full ;
P1=0x8001, ipoib : ALL=full ;
CONF

cat > "$T/guest.sh" <<INNER
#!/usr/bin/env bash
node=\$(printf '0x%x' \$((NETBOOT_HCA1_PORT1_GUID - 1)))
run() {   # name cmds
	timeout --kill-after=5 300 "$BIN" --hca --hca-guid=\$node --fabric=\$FABSIM_HCA_SOCKET \\
		"ibboot.cmd=\$2" > "$T/\$1.log" 2> "$T/\$1.stderr" &
	local guest=\$!
	if [ "\$1" = default ]; then   # as ipoib-e2e.sh: the SM sweeps again once the image waits
		for i in \$(seq 1 300); do
			grep -q 'waiting for the subnet manager' "$T/\$1.log" 2>/dev/null && break
			sleep 0.2
		done
		$TOP/util/netboot-env sm-restart "$T/env" > "$T/sm-start.log" 2>&1
	fi
	wait \$guest
	echo \$? > "$T/\$1.status"
}
run default "dhcp,http+http://198.18.0.1/part.bin,ifstat,poweroff"
run missing "set+ib-pkey+0x8005,dhcp,poweroff"
INNER
chmod +x "$T/guest.sh"
util/netboot-env run "$T/env" --hcas 1 --serve "$T/part.bin" --partitions "$T/partitions.conf" \
	--pkey 0x8001 -- "$T/guest.sh" > "$T/netboot-env.log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: $suite: this machine cannot create the test network (see $T/netboot-env.log)"
	exit 77
fi
log=$T/default.log
if grep -q "joined broadcast group ff12:401b:8001:" "$T/env/logs/servernode.log" 2>/dev/null; then
	pass servernode-on-0x8001
else
	fail servernode-on-0x8001 "the server node did not join ff12:401b:8001::ffff:ffff"
fi
if grep -qE "ib0: P_Key 0x8001 \(index [0-9]+\): IPoIB broadcast group found; 0xffff has none" "$log"; then
	pass default-choice-0x8001
	grep -E "ib0: P_Key 0x8001" "$log" | head -1 | sed 's/^/    /'
else
	fail default-choice-0x8001 "no 'ib0: P_Key 0x8001 (index N): IPoIB broadcast group found; 0xffff has none'"
fi
if grep -q "ib0: DHCP lease 198.18.0." "$log"; then
	pass dhcp-lease-on-0x8001
else
	fail dhcp-lease-on-0x8001 "no DHCP lease over IPoIB on 0x8001"
fi
if grep -q "http: http://198.18.0.1/part.bin: $((1 << 20)) bytes" "$log" &&
   grep -q "http: sha256 $want_sha" "$log"; then
	pass http-on-0x8001
else
	fail http-on-0x8001 "no intact HTTP download (want sha256 $want_sha)"
fi
log=$T/missing.log
if grep -q "ib0: P_Key 0x8005 (setting ib-pkey) is not in .* P_Key table" "$log" &&
   grep -q "ib0: no link: ib-pkey not in P_Key table" "$log" &&
   ! grep -q "ib0: waiting for link" "$log"; then
	pass ib-pkey-not-in-table-fails-at-once
	grep "P_Key 0x8005" "$log" | head -1 | sed 's/^/    /'
else
	fail ib-pkey-not-in-table-fails-at-once "no immediate failure naming P_Key 0x8005"
fi
if grep -qE "ERROR: AddressSanitizer|runtime error" "$T"/*.stderr "$T"/default.log "$T"/missing.log; then
	fail sanitizers "sanitizer report (see $T/*.stderr)"
fi
for c in default missing; do
	[ "$(cat "$T/$c.status" 2>/dev/null)" = 0 ] ||
		fail "guest-exit-$c" "ibboot-hosted exited $(cat "$T/$c.status" 2>/dev/null)"
done
[ "$failures" -eq 0 ] || { echo "--- default"; tail -30 "$T/default.log"; echo "--- missing"; tail -15 "$T/missing.log"; }
[ "$failures" -eq 0 ]
