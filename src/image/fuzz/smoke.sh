#!/bin/sh
# src/image/fuzz/smoke.sh FUZZER RUNS [SEEDS] — a short deterministic libFuzzer run for
# check-boot from the committed seeds; a crash, hang (-timeout) or sanitizer report fails it.
set -u
bin=$1 runs=$2 seeds=${3:-}
name=$(basename "$bin")
corpus=$(dirname "$bin")/smoke-corpus-$name
rm -rf "$corpus" && mkdir -p "$corpus"
[ -n "$seeds" ] && [ -d "$seeds" ] && cp "$seeds"/* "$corpus"/
# -close_fd_mask=1: the parsers' console messages (stdout) would drown the log.
out=$("$bin" -runs="$runs" -seed=1 -max_len=16384 -timeout=10 -close_fd_mask=1 "$corpus" 2>&1)
status=$?
rm -rf "$corpus"
if [ $status -eq 0 ]; then
	echo "PASS: boot/$name ($(echo "$out" | grep -ao 'Done [0-9]* runs' | tail -n1), $(echo "$out" | grep -ao 'cov: [0-9]*' | tail -n1))"
else
	echo "$out" | tail -n 40
	echo "FAIL: boot/$name: libFuzzer exited with status $status"
fi
exit 0
