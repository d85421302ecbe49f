#!/bin/bash
# src/tests/e2e/tun/dnsmasq-e2e.sh TUN-CLIENT — ibboot's DHCP, DNS and TFTP code against the real
# dnsmasq, over a TUN device in a network namespace this script creates (198.18.0.0/24 only).
# As root: `ip netns add`; otherwise the script re-runs itself under `unshare -rn`; if neither
# works it prints SKIP and exits 77. dnsmasq is stopped by its PID and the namespace deleted.
set -u
client=$(realpath "$1")
suite=dhcp-dnsmasq
guid=00:02:c9:03:00:00:10:01
id_flexboot=ff:00:00:00:00:00:02:00:00:02:c9:00:$guid
id_ib=20:$guid
work=$(realpath -m build/dhcp/e2e)
tun=ibbtun0

SUITE=$suite
source "$(dirname "$0")/../../framework/lib.sh"

if ! command -v dnsmasq >/dev/null; then
	echo "SKIP: $suite: dnsmasq is not installed (util/deps.d/dhcp.list)"; exit 77
fi
in_private_netns DHCP_E2E_IN_NS "$@"

# ---- inside the private namespace from here on ----
rm -rf "$work" && mkdir -p "$work/tftp"
dnsmasq_pid=
cleanup() {
	[ -n "$dnsmasq_pid" ] && kill "$dnsmasq_pid" 2>/dev/null && wait "$dnsmasq_pid" 2>/dev/null
	ip link del "$tun" 2>/dev/null
}
trap cleanup EXIT

tun_up "$tun" || { echo "FAIL: $suite: cannot create $tun"; exit 1; }

head -c $((16 << 20)) /dev/urandom > "$work/tftp/big.bin"
head -c 200000 /dev/urandom > "$work/tftp/lossy.bin"
echo '#!ipxe' > "$work/tftp/boot.bin"
chmod 644 "$work/tftp/"*

cat > "$work/dnsmasq.conf" <<CONF
interface=$tun
bind-interfaces
except-interface=lo
listen-address=198.18.0.1
no-resolv
no-hosts
host-record=boot.ibboot.test,198.18.0.1
dhcp-range=$tun,198.18.0.100,198.18.0.150,255.255.255.0,1h
dhcp-authoritative
no-ping
dhcp-option=option:router,198.18.0.1
dhcp-option=option:dns-server,198.18.0.1
dhcp-host=id:$id_flexboot,198.18.0.60
dhcp-host=id:$id_ib,198.18.0.61
dhcp-boot=boot.bin,,198.18.0.1
enable-tftp=$tun
tftp-root=$work/tftp
dhcp-leasefile=$work/leases
pid-file=$work/dnsmasq.pid
log-facility=$work/dnsmasq.log
log-dhcp
user=root
group=root
CONF
# Ready once it logs its TFTP root.
if ! start_dnsmasq "$work/dnsmasq.conf" "$work/dnsmasq.log" "TFTP root"; then
	cat "$work/dnsmasq.log" 2>/dev/null
	echo "FAIL: $suite: dnsmasq did not start"; exit 1
fi

# 1. FlexBoot client-id: the reservation's address, next-server, boot file, DNS, 16 MiB TFTP.
out=$(timeout 300 "$client" "$tun" "$guid" dhcp flexboot nslookup boot.ibboot.test \
	tftp big.bin "$work/big.out" 8 tftp boot.bin "$work/boot.out" 0 tftp-fail missing.bin 2>&1)
rc=$?
echo "$out"
if echo "$out" | grep -q "^RESULT dhcp ip=198.18.0.60 next-server=198.18.0.1 filename=boot.bin dns=1"; then
	pass lease-flexboot-client-id
else
	fail lease-flexboot-client-id "no lease 198.18.0.60 (dhcp-host=id:$id_flexboot)"
fi
if echo "$out" | grep -q "^RESULT dns boot.ibboot.test 198.18.0.1"; then
	pass dns-a-record
else
	fail dns-a-record "boot.ibboot.test did not resolve to 198.18.0.1"
fi
want=$(sha256sum < "$work/tftp/big.bin" | cut -d' ' -f1)
got=$(sha256sum < "$work/big.out" 2>/dev/null | cut -d' ' -f1)
if [ -n "$got" ] && [ "$want" = "$got" ] &&
   echo "$out" | grep -q "^RESULT tftp big.bin bytes=16777216 tsize=16777216 .* monotonic=1"; then
	pass tftp-16MiB-sha256
else
	fail tftp-16MiB-sha256 "sha256 ${got:-none} != $want"
fi
# dnsmasq grants blksize 2012 on MTU 2044 and ignores windowsize: ibboot falls back to lock-step.
if grep -q "sent $work/tftp/big.bin to 198.18.0.60" "$work/dnsmasq.log" &&
   [ "$(sha256sum < "$work/boot.out" 2>/dev/null | cut -d' ' -f1)" = \
     "$(sha256sum < "$work/tftp/boot.bin" | cut -d' ' -f1)" ]; then
	pass tftp-small-file
else
	fail tftp-small-file "boot.bin not fetched intact"
fi
if echo "$out" | grep -q "^tftp: big.bin: blksize 2012, windowsize 1 (server declined more), size 16777216"; then
	pass tftp-blksize-2012-windowsize-fallback
else
	fail tftp-blksize-2012-windowsize-fallback "expected blksize 2012 and lock-step after dnsmasq ignored windowsize 8"
fi
if echo "$out" | grep -q "^RESULT tftp-fail missing.bin rc=-" &&
   echo "$out" | grep -q "error 1: file .*missing.bin not found"; then
	pass tftp-server-error-verbatim
else
	fail tftp-server-error-verbatim "dnsmasq's 'file not found' was not shown"
fi
[ $rc -eq 0 ] || fail client-exit "tun-client exited with $rc"

# 2. The 20:GUID form gets the other reservation (one host, two identities, both honoured).
#    Without 67 in option 55 dnsmasq names the boot file in the BOOTP file field instead.
out=$(timeout 120 "$client" "$tun" "$guid" dhcp ib-nofile67 2>&1)
echo "$out"
if echo "$out" | grep -q "^RESULT dhcp ip=198.18.0.61 "; then
	pass lease-ib-hwtype-client-id
else
	fail lease-ib-hwtype-client-id "no lease 198.18.0.61 (dhcp-host=id:$id_ib)"
fi
if echo "$out" | grep -q "^RESULT dhcp .* filename=boot.bin "; then
	pass bootfile-from-file-field
else
	fail bootfile-from-file-field "no boot file when dnsmasq used the file field"
fi
# 3. ~3 % receive loss (every 33rd packet dropped by the client's device): the transfer recovers
#    and still matches. dnsmasq ignores duplicate ACKs (RFC 1123 §4.2.3.1) and resends a lost DATA
#    only on its own timer (about 1.7 s per loss, measured), so this uses a 200 kB file.
out=$(timeout 120 "$client" "$tun" "$guid" dhcp flexboot rx-loss 33 tftp lossy.bin "$work/lossy.out" 0 2>&1)
echo "$out" | grep -E "^RESULT|tftp:"
got=$(sha256sum < "$work/lossy.out" 2>/dev/null | cut -d' ' -f1)
if [ -n "$got" ] && [ "$(sha256sum < "$work/tftp/lossy.bin" | cut -d' ' -f1)" = "$got" ] &&
   echo "$out" | grep -q "^RESULT tftp lossy.bin .* rx-dropped=[1-9]"; then
	pass tftp-with-receive-loss
else
	fail tftp-with-receive-loss "lossy.bin (sha256 ${got:-none}) not intact with every 33rd packet dropped"
fi
echo "--- dnsmasq log (DHCP)"
grep -E "DHCP(DISCOVER|OFFER|REQUEST|ACK)|sent .* to|failed|error" "$work/dnsmasq.log" | head -20
[ "$failures" -eq 0 ]
