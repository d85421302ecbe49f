#!/bin/bash
# The stock iPXE's baseline on our platform: QEMU + hermon device + model,
# fabsim + OpenSM, dnsmasq + nginx (util/netboot-env). Per run, from the time iPXE prints its
# banner: (a) DHCP lease over IPoIB, (b) a 64 MiB file over HTTP (nginx), (c) the same over TFTP
# (dnsmasq); medians of BENCH_RUNS runs (default 3), host wall-clock time stamped on the serial
# lines as they arrive. Also the model's account of host memory iPXE gave the HCA (peak).
# A step iPXE does not reach is shown as "n/a" with where it stopped. Figures only: nothing here
# passes or fails.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
B=$TOP/build/qemu/bench
RUNS=${BENCH_RUNS:-3}
SIZE_MIB=${BENCH_SIZE_MIB:-64}
MODEL=$(realpath -m "${HCASIM_SO:-$TOP/bin/libhcasim.so}")

if [ "${1:-}" != --inside ]; then
    rm -rf "$B"; mkdir -p "$B/serve"
    head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$B/serve/big.bin"
    util/netboot-env run "$B/env" --hcas 1 --serve "$B/serve/big.bin" -- "$0" --inside \
        > "$B/netboot-env.log" 2>&1
    rc=$?
    grep -v '^netboot-env:' "$B/netboot-env.log"
    [ "$rc" -eq 0 ] || echo "(the environment or a run exited with status $rc: $B/netboot-env.log)"
    rm -f "$B/serve/big.bin" "$B/env/srv/big.bin"
    exit 0
fi

QEMU=$(util/qemu/build --print-path) || { echo "QEMU not built (make qemu)"; exit 1; }
S=$NETBOOT_SERVER_IP
SCRIPT="echo BENCH-START && dhcp net0 && echo BENCH-LEASE && imgfetch -n h http://$S/big.bin && echo BENCH-HTTP && imgfree h && imgfetch -n t tftp://$S/big.bin && echo BENCH-TFTP || echo BENCH-STOPPED && sleep 1 && reboot"
QEMU_PID=
trap '[ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null; wait 2>/dev/null' EXIT

# Each serial line with the host time it arrived (seconds since the epoch).
stamp_lines() {
    local line
    while IFS= read -r line; do
        printf '%s %s\n' "$(date +%s.%N)" "$(printf '%s' "$line" | sed -e 's/\r//g' -e 's/\x1b\[[0-9;]*[a-zA-Z]//g')"
    done
}
# seconds between the first lines matching two patterns in a stamped log, or n/a
interval() {
    local a b
    a=$(grep -m1 -E "^[0-9.]+ .*$2" "$1" | cut -d' ' -f1)
    b=$(grep -m1 -E "^[0-9.]+ $3" "$1" | cut -d' ' -f1)
    if [ -n "$a" ] && [ -n "$b" ]; then awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b - a }'; else echo n/a; fi
}
median() {
    tr ' ' '\n' | grep -v '^n/a$' | grep -v '^$' | sort -n |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

secs() { local v; v=$(median); [ "$v" = n/a ] && echo n/a || echo "$v s"; }

lease=() http=() tftp=() peak=0 stops=()
for run in $(seq "$RUNS"); do
    R=$B/run$run; mkdir -p "$R"
    timeout --kill-after=5 900 "$QEMU" -display none -machine graphics=off -monitor none -no-reboot \
        -m 512 -net none -serial stdio -kernel /usr/lib/ipxe/ipxe.lkrn -append "$SCRIPT" \
        -device "hermon,model=$MODEL,device-id=0x673c,guid=$NETBOOT_HCA1_NODE_GUID,port2=off,fabric=$FABSIM_HCA_SOCKET,fabric-lib=$TOP/bin/libfabsim_client.so,log=$R/device.log" \
        < /dev/null 2> "$R/qemu.err" > >(stamp_lines > "$R/serial.ts") &
    QEMU_PID=$!
    wait "$QEMU_PID"; QEMU_PID=
    sleep 0.5                                   # let the stamping reader drain
    lease+=("$(interval "$R/serial.ts" 'Features:' 'BENCH-LEASE')")
    http+=("$(interval "$R/serial.ts" 'BENCH-LEASE' 'BENCH-HTTP')")
    tftp+=("$(interval "$R/serial.ts" 'BENCH-HTTP' 'BENCH-TFTP')")
    p=$(sed -n 's/.*memory: .* peak \([0-9]*\) bytes.*/\1/p' "$R/device.log" | tail -1)
    [ -n "$p" ] && [ "$p" -gt "$peak" ] && peak=$p
    grep -q 'BENCH-STOPPED' "$R/serial.ts" &&
        stops+=("run $run: $(grep -v 'BENCH-\|^[0-9.]* $' "$R/serial.ts" | tail -2 | cut -d' ' -f2- | tr '\n' ' ')")
done

echo "stock iPXE (Debian 1.0.0+git-20190125.36a4c85) on QEMU + hcasim + fabsim/OpenSM, $RUNS runs, median:"
printf '  %-44s %10s\n' "DHCP lease over IPoIB (from iPXE banner)" "$(echo "${lease[*]}" | secs)"
printf '  %-44s %10s\n' "HTTP download, $SIZE_MIB MiB (nginx)" "$(echo "${http[*]}" | secs)"
printf '  %-44s %10s\n' "TFTP download, $SIZE_MIB MiB (dnsmasq)" "$(echo "${tftp[*]}" | secs)"
printf '  %-44s %10s\n' "host memory iPXE gave the HCA (model, peak)" "$((peak / 1024)) KiB"
echo "  per run (lease / http / tftp s): ${lease[*]} / ${http[*]} / ${tftp[*]}"
for s in "${stops[@]+"${stops[@]}"}"; do echo "  stopped: $s"; done
echo "  logs: $B/run*/ (serial.ts: host-time-stamped console, device.log: HCR trace, build/qemu/hcr-trace decodes it)"
