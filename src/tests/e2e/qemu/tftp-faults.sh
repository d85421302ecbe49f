#!/usr/bin/env bash
# The demo's netboot with the kernel and initrd over TFTP from the stock dnsmasq while the server
# node's cable loses, duplicates and reorders packets (util/demo/run --check prints a result per
# phase: the boot must complete, both SHA-256 pins must match). On top of that, the transfer must
# not be silent: a lock-step transfer from dnsmasq pays the server's retransmission timer for
# every lost block, so it is slow, and the console must say where it is while it runs (a status
# line at least every 10 s), never stop without a message naming the file and the block.
#   TFTP_FAULTS   the fabsim knobs (default "loss=0.005 dup=0.02 reorder=0.02")
#   DEMO_IMAGE    another image to boot (e.g. an older build, to see these checks fail)
set -uo pipefail
cd "$(dirname "$0")/../../../.." || exit 1
TOP=$(pwd)
FAULTS=${TFTP_FAULTS:-loss=0.005 dup=0.02 reorder=0.02}
OUT=${TFTP_FAULTS_OUT:-$TOP/build/demo/check-tftp-faults}
SUITE=tftp-faults

util/demo/run --check --no-build --transport tftp --faults "$FAULTS" --timeout 280 --out "$OUT" |
	sed "s/^\\(PASS\\|FAIL\\|SKIP\\): demo-faults\\//\\1: $SUITE\\//"
rc=${PIPESTATUS[0]}
[ "$rc" = 77 ] && exit 77
serial=$OUT/serial.txt
if [ ! -f "$serial" ]; then
	echo "FAIL: $SUITE/status-lines: no console log ($serial)"
	exit 1
fi
ksize=$(stat -c %s "$OUT/srv/vmlinuz" 2>/dev/null || echo 0)
if grep -Eq "^tftp: vmlinuz: [0-9]+ of $ksize bytes after [0-9]+ s, [0-9]+ ACKs resent" "$serial"; then
	echo "PASS: $SUITE/status-lines"
else
	echo "FAIL: $SUITE/status-lines: the kernel's TFTP transfer printed no status line ($serial)"
	rc=1
fi
if grep -q "no new data for" "$serial"; then
	echo "FAIL: $SUITE/no-stall: a transfer stopped: $(grep -m1 'no new data for' "$serial")"
	rc=1
else
	echo "PASS: $SUITE/no-stall"
fi
exit "$rc"
