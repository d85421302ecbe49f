#!/bin/bash
# src/tests/e2e/tun/atftpd-e2e.sh TUN-CLIENT — ibboot's TFTP client against Debian's atftpd, a
# server that implements RFC 7440 windowsize, over a TUN device in a network namespace this
# script creates (198.18.0.0/24 only; dnsmasq hands out the lease and next-server, with its own
# TFTP off). Checks: windowsize 8 is negotiated and 16 MiB arrive intact; with every 33rd packet
# lost at the client the windowed transfer recovers (the gap is acknowledged at once, RFC 7440
# §4) and the file is intact; atftpd started with --no-windowsize gives a clean fall-back to
# lock-step. Both daemons are stopped by their PIDs and the namespace deleted.
set -u
client=$(realpath "$1")
suite=tftp-atftpd
guid=00:02:c9:03:00:00:10:02
work=$(realpath -m build/dhcp/atftpd-e2e)
tun=ibbtun1

SUITE=$suite
source "$(dirname "$0")/../../framework/lib.sh"

for prog in dnsmasq atftpd; do
	command -v "$prog" >/dev/null ||
		{ echo "SKIP: $suite: $prog is not installed (util/deps.d/dhcp.list)"; exit 77; }
done
in_private_netns ATFTPD_E2E_IN_NS "$@"

# ---- inside the private namespace from here on ----
rm -rf "$work" && mkdir -p "$work/tftp"
dnsmasq_pid=
atftpd_pid=
stop_atftpd() {
	[ -n "$atftpd_pid" ] && kill "$atftpd_pid" 2>/dev/null && wait "$atftpd_pid" 2>/dev/null
	atftpd_pid=
}
cleanup() {
	stop_atftpd
	[ -n "$dnsmasq_pid" ] && kill "$dnsmasq_pid" 2>/dev/null && wait "$dnsmasq_pid" 2>/dev/null
	ip link del "$tun" 2>/dev/null
}
trap cleanup EXIT

tun_up "$tun" || { echo "FAIL: $suite: cannot create $tun"; exit 1; }

head -c $((16 << 20)) /dev/urandom > "$work/tftp/big.bin"
head -c 600000 /dev/urandom > "$work/tftp/lossy.bin"
chmod 755 "$work/tftp" && chmod 644 "$work/tftp/"*

cat > "$work/dnsmasq.conf" <<CONF
interface=$tun
bind-interfaces
except-interface=lo
listen-address=198.18.0.1
port=0
dhcp-range=$tun,198.18.0.100,198.18.0.150,255.255.255.0,1h
dhcp-authoritative
no-ping
dhcp-boot=big.bin,,198.18.0.1
dhcp-leasefile=$work/leases
pid-file=$work/dnsmasq.pid
log-facility=$work/dnsmasq.log
log-dhcp
user=root
group=root
CONF
if ! start_dnsmasq "$work/dnsmasq.conf" "$work/dnsmasq.log" "DHCP, IP range"; then
	cat "$work/dnsmasq.log" 2>/dev/null
	echo "FAIL: $suite: dnsmasq did not start"; exit 1
fi

# start_atftpd [FLAGS...] — atftpd in the foreground of a background job, ready once port 69
# on 198.18.0.1 is bound.
start_atftpd() {
	local _
	atftpd --daemon --no-fork --port 69 --bind-address 198.18.0.1 --user root.root \
		--logfile "$work/atftpd.log" --verbose=5 "$@" "$work/tftp" &
	atftpd_pid=$!
	for _ in $(seq 100); do
		ss -Hlun 2>/dev/null | grep -q '198\.18\.0\.1:69 ' && break
		kill -0 "$atftpd_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$atftpd_pid" 2>/dev/null
}

same() { [ "$(sha256sum < "$1" | cut -d' ' -f1)" = "$(sha256sum < "$2" 2>/dev/null | cut -d' ' -f1)" ]; }

start_atftpd || { cat "$work/atftpd.log" 2>/dev/null; echo "FAIL: $suite: atftpd did not start"; exit 1; }

# 1. windowsize 8 granted; 16 MiB intact.
out=$(timeout 300 "$client" "$tun" "$guid" dhcp flexboot tftp big.bin "$work/big.out" 8 2>&1)
echo "$out" | grep -E '^(RESULT|tftp:)'
if echo "$out" | grep -q '^tftp: big.bin: blksize [0-9]*, windowsize 8, size 16777216$'; then
	pass windowsize-negotiated
else
	fail windowsize-negotiated "atftpd did not grant windowsize 8 ($work/atftpd.log)"
fi
if same "$work/tftp/big.bin" "$work/big.out"; then
	pass windowed-16MiB-intact
else
	fail windowed-16MiB-intact "big.bin did not arrive intact with windowsize 8"
fi

# 2. Every 33rd packet lost at the client, windowsize 8: intact, losses seen.
out=$(timeout 300 "$client" "$tun" "$guid" dhcp flexboot rx-loss 33 \
	tftp lossy.bin "$work/lossy.out" 8 2>&1)
echo "$out" | grep -E '^(RESULT|tftp:)'
if same "$work/tftp/lossy.bin" "$work/lossy.out" &&
   echo "$out" | grep -q "^RESULT tftp lossy.bin .* rx-dropped=[1-9]"; then
	pass windowed-with-receive-loss
else
	fail windowed-with-receive-loss "lossy.bin not intact with windowsize 8 and every 33rd packet dropped"
fi

# 3. A server that ignores windowsize: lock-step, intact.
stop_atftpd
start_atftpd --no-windowsize ||
	{ echo "FAIL: $suite: atftpd --no-windowsize did not start"; exit 1; }
out=$(timeout 300 "$client" "$tun" "$guid" dhcp flexboot rx-loss 33 \
	tftp lossy.bin "$work/lockstep.out" 8 2>&1)
echo "$out" | grep -E '^(RESULT|tftp:)'
if echo "$out" | grep -q '^tftp: lossy.bin: blksize [0-9]*, windowsize 1 (server declined more), size 600000$' &&
   same "$work/tftp/lossy.bin" "$work/lockstep.out"; then
	pass windowsize-refused-falls-back
else
	fail windowsize-refused-falls-back "no clean lock-step fall-back when atftpd ignores windowsize"
fi
stop_atftpd
finish
