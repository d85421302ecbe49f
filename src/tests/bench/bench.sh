#!/bin/sh
# src/tests/bench/bench.sh BENCH_BINARY [COUNT] — instructions per packet of the IB core + IPoIB +
# IPv4 + ICMP (over the fake device), counted by callgrind inside bench_tx_one / bench_rx_one.
set -u
bin=$1 count=${2:-1000}
out=build/ibcore/bench
mkdir -p "$out"
if ! command -v valgrind >/dev/null 2>&1; then
	echo "INFO: ibcore bench skipped: valgrind is not installed (util/deps.d/ibcore.list)"
	exit 0
fi
for dir in tx rx; do
	fn=bench_${dir}_one
	valgrind --tool=callgrind --toggle-collect="$fn" --callgrind-out-file="$out/callgrind.$dir" \
		"$bin" "$dir" "$count" >"$out/valgrind.$dir.log" 2>&1 || {
		echo "INFO: ibcore bench $dir failed:"; tail -n 5 "$out/valgrind.$dir.log"; exit 1; }
	total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out/callgrind.$dir" | head -n1)
	[ -n "$total" ] || total=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out/callgrind.$dir" | head -n1)
	what="84-byte ICMP echo request sent and its completion reaped"
	[ "$dir" = rx ] && what="84-byte UDP datagram polled up to its protocol handler, buffer reposted"
	echo "INFO: ibcore $(echo "$dir" | tr a-z A-Z) instructions/packet (IB core + IPoIB + IPv4 over the fake device; $what): $((total / count))"
done
