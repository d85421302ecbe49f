#!/usr/bin/env bash
# src/tests/e2e/hosted/report-e2e.sh [IBBOOT-HOSTED] — the boot report arriving at the boot
# server after a failed netboot: bin/ibboot-hosted with the HCA model on fabsim under the stock
# OpenSM, the server node and dnsmasq (DHCP only) behind it (util/netboot-env --no-tftp), atftpd
# serving TFTP with writes allowed, and a small HTTP receiver taking POSTs (report-receiver.py).
#   1. autoboot: DHCP (this client's reservation carries option 225, the report URL) names a boot
#      file the server does not have, so the autoboot fails and the report is POSTed;
#   2. `report` with no URL set (the other client-id gets no option 225): a TFTP write of
#      ibboot-report-<node GUID>.txt to the DHCP next-server; then `report` to a closed port
#      gives up with a message and the script goes on.
# Each report must arrive intact: the version line, the port ACTIVE, the console lines of the
# failure, the self-test line, the dump section (which the host decoder accepts), the end marker.
# Results as PASS:/FAIL: lines; logs in build/report-e2e/.
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
cd "$TOP"
BIN=$(realpath "${1:-bin/ibboot-hosted}")
T=$TOP/build/report-e2e
SUITE=report
rm -rf "$T" && mkdir -p "$T/http" "$T/tftp"
source src/tests/framework/lib.sh

for f in "$BIN" bin/fabsim bin/fabsim-servernode bin/ibboot-fwdump-decode; do
	[ -x "$f" ] || { echo "FAIL: $SUITE: $f missing (run: make all)"; exit 1; }
done
command -v atftpd >/dev/null || { echo "FAIL: $SUITE: atftpd not installed (util/deps.d/report.list)"; exit 1; }
chmod 777 "$T/tftp"   # atftpd writes as the user it runs as

# Port 1 of HCA slot 1: GUID 0x0002c90300d00011 in netboot-env's topology; the node GUID is one less.
guid=00:02:c9:03:00:d0:00:11
node_guid=0002c90300d00010
URL=http://198.18.0.1:8080/ibboot/report
cat > "$T/guest.sh" <<INNER
#!/usr/bin/env bash
node=\$(printf '0x%016x' \$((NETBOOT_HCA1_PORT1_GUID - 1)))
[ "\$node" = 0x$node_guid ] || echo "GUID-MISMATCH \$node"
\$NETBOOT_EXEC python3 "$TOP/src/tests/e2e/hosted/report-receiver.py" 198.18.0.1 8080 "$T/http" \\
	2> "$T/receiver.log" &
receiver=\$!
\$NETBOOT_EXEC atftpd --daemon --no-fork --user root --bind-address 198.18.0.1 --port 69 \\
	--logfile "$T/atftpd.log" --verbose=5 "$T/tftp" 2> "$T/atftpd.err" &
atftpd=\$!
for i in \$(seq 1 100); do
	[ -e "$T/http/ready" ] && \$NETBOOT_EXEC grep -q ':0045 ' /proc/net/udp && break
	sleep 0.1
done
run_guest() {   # log-name, then ibboot-hosted's arguments
	local log=\$1 i; shift
	timeout --kill-after=5 300 "$BIN" --hca --hca-guid=\$node --fabric=\$FABSIM_HCA_SOCKET "\$@" \\
		< /dev/null > "$T/\$log.log" 2> "$T/\$log.stderr" &
	local guest=\$!
	# The SM is (re)started once the guest waits for it (as in ipoib-e2e.sh).
	for i in \$(seq 1 300); do
		grep -q 'waiting for the subnet manager' "$T/\$log.log" 2>/dev/null && break
		grep -q 'ib0: link up' "$T/\$log.log" 2>/dev/null && break
		sleep 0.2
	done
	grep -q 'ib0: link up' "$T/\$log.log" 2>/dev/null ||
		$TOP/util/netboot-env sm-restart "$T/env" >> "$T/sm-start.log" 2>&1
	wait \$guest
	echo \$? > "$T/\$log.status"
}
# 1: the autoboot (no ibboot.cmd; the console's input is closed) fails and POSTs the report.
run_guest autoboot
# 2: the command, without a report URL: TFTP write; then a closed port.
run_guest command "ibboot.cmd=dhcp+client-id=ib,report,report+http://198.18.0.1:8081/nobody,echo+AFTER-REPORT,poweroff"
kill \$receiver \$atftpd 2>/dev/null
wait \$receiver \$atftpd 2>/dev/null
exit 0
INNER
chmod +x "$T/guest.sh"
util/netboot-env run "$T/env" --hcas 1 --no-tftp --dhcp-boot missing-boot-file.efi \
	--dhcp-host "id:ff:00:00:00:00:00:02:00:00:02:c9:00:$guid,set:report,198.18.0.60" \
	--dhcp-host "id:20:$guid,198.18.0.61" \
	--dhcp-option "tag:report,225,\"$URL\"" -- "$T/guest.sh" > "$T/netboot-env.log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: $SUITE: this machine cannot create the test network (see $T/netboot-env.log)"
	exit 77
fi
grep -q GUID-MISMATCH "$T/netboot-env.log" && fail topology "netboot-env's port GUID changed"
version=$(sed -n 's/^ibboot \([^ ]*\) (.*/\1/p' "$T/autoboot.log" | head -n1 | tr -d '\r')

# What every report must hold. $1: name, $2: the received file, $3: the reason line.
check_report() {
	local name=$1 r=$2 reason=$3 why=
	[ -s "$r" ] || { fail "$name" "no report arrived (see $T)"; return; }
	head -n1 "$r" | grep -qx 'ibboot-report: 1' || why+="no format line; "
	grep -qx "version: $version" "$r" || why+="no 'version: $version'; "
	grep -qx "reason: $reason" "$r" || why+="no 'reason: $reason'; "
	grep -q "^hca: hermon-[0-9a-f:.]* pci 15b3:1003 fw [0-9.]* node-guid 0002:c903:00d0:0010 " "$r" ||
		why+="no hca identity line; "
	grep -Eq '^port: hermon-[0-9a-f:.]*/1 ACTIVE lid 0x[0-9a-f]+ sm-lid 0x[0-9a-f]+ rate [0-9]+X [SDQ]DR \([0-9]+ Gb/s\)' "$r" ||
		why+="no ACTIVE port line; "
	grep -Eq '^selftest: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped on hermon ' "$r" ||
		why+="no selftest summary line; "
	grep -qx '=== selftest ===' "$r" || why+="no selftest section; "
	grep -qx '=== console ===' "$r" || why+="no console section; "
	grep -qx '=== fwdump ===' "$r" || why+="no fwdump section; "
	[ "$(tail -n1 "$r")" = '=== end ===' ] || why+="does not end with '=== end ==='; "
	grep -q '^=== truncated' "$r" && why+="truncated; "
	[ "$(stat -c %s "$r")" -le 16384 ] || why+="larger than 16 KiB; "
	if ! bin/ibboot-fwdump-decode "$r" > "$r.decoded" 2>&1; then
		why+="the decoder refused its dump: $(tail -n1 "$r.decoded"); "
	fi
	[ -z "$why" ] && pass "$name" || fail "$name" "$why(see $r)"
}

# 1: the HTTP POST after the failed autoboot.
r=$T/http/report-1.txt
check_report report-posted-after-failed-autoboot "$r" "autoboot failed"
if [ -s "$r" ]; then
	# The console section holds the failure itself: the TFTP error and the autoboot's verdict.
	if grep -q '^| .*tftp: server 198.18.0.1: error 1' "$r" && grep -q '^| .*autoboot failed (' "$r"; then
		pass report-console-holds-the-failure
	else
		fail report-console-holds-the-failure "no '| ... tftp: ... error 1' / '| ... autoboot failed' line in the console section"
	fi
	sent=$(sed -n 's/.*report: \([0-9]*\) bytes to .*(HTTP POST).*/\1/p' "$T/autoboot.log" | head -n1)
	meta=$T/http/report-1.meta
	if [ "$sent" = "$(stat -c %s "$r")" ] && grep -q '^POST /ibboot/report$' "$meta" &&
	   grep -qi '^Content-Type: text/plain' "$meta" && grep -q 'report: sent' "$T/autoboot.log"; then
		pass report-post-intact
	else
		fail report-post-intact "firmware sent ${sent:-?} bytes, $(stat -c %s "$r") arrived ($(head -n1 "$meta"))"
	fi
	grep -q 'ib0: DHCP lease 198.18.0.60 ' "$T/autoboot.log" && grep -q "^ip: 198.18.0.60$" "$r" &&
		pass report-url-from-dhcp-option-225 ||
		fail report-url-from-dhcp-option-225 "the reserved client did not get its lease and option 225"
fi

# 2: the TFTP write (no report URL for this client).
r=$T/tftp/ibboot-report-$node_guid.txt
check_report report-tftp-write-fallback "$r" "requested"
[ -e "$T/http/report-2.txt" ] && fail report-no-url-no-post "a report was POSTed though the client had no report URL"
if grep -q 'report: .* (TFTP write; no report-url set)' "$T/command.log" &&
   grep -q 'tftp put: ibboot-report-' "$T/command.log"; then
	pass report-tftp-says-where
else
	fail report-tftp-says-where "no 'report: ... (TFTP write ...)' line (see $T/command.log)"
fi
# A server that is not there: a message, and the script goes on.
if grep -q 'report: not sent' "$T/command.log" && grep -q '^AFTER-REPORT' "$T/command.log"; then
	pass report-unreachable-gives-up
else
	fail report-unreachable-gives-up "no 'report: not sent' then the next command (see $T/command.log)"
fi
for g in autoboot command; do
	if grep -qE "ERROR: AddressSanitizer|runtime error" "$T/$g.log" "$T/$g.stderr"; then
		fail "sanitizers-$g" "sanitizer report (see $T/$g.stderr)"
	fi
done
[ "$(cat "$T/command.status" 2>/dev/null)" = 0 ] || fail guest-exit "ibboot-hosted exited $(cat "$T/command.status" 2>/dev/null)"
finish
