#!/bin/sh
# src/net/tcp-fuzz/smoke.sh FUZZER RUNS [SEEDS] — a short, deterministic libFuzzer run for make
# check, starting from a copy of the committed seeds. One PASS/FAIL line named after the fuzzer;
# a crash, a hang (-timeout) or a sanitizer report fails it.
set -u
bin=$1 runs=$2 seeds=${3:-}
name=$(basename "$bin")
corpus=$(dirname "$bin")/smoke-corpus-$name
rm -rf "$corpus" && mkdir -p "$corpus"
[ -n "$seeds" ] && [ -d "$seeds" ] && cp "$seeds"/* "$corpus"/
out=$("$bin" -runs="$runs" -seed=1 -max_len=8192 -timeout=10 "$corpus" 2>&1)
status=$?
rm -rf "$corpus"
if [ $status -eq 0 ]; then
	echo "PASS: tcp/$name ($(echo "$out" | grep -ao 'Done [0-9]* runs' | tail -n1), $(echo "$out" | grep -ao 'cov: [0-9]*' | tail -n1))"
else
	echo "$out" | tail -n 40
	echo "FAIL: tcp/$name: libFuzzer exited with status $status"
fi
exit 0
