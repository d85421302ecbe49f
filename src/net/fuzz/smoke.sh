#!/bin/sh
# src/net/fuzz/smoke.sh FUZZER RUNS — a short, deterministic libFuzzer run for make check.
# Prints one PASS/FAIL line named after the fuzzer; a crash or sanitizer report fails it.
set -u
bin=$1 runs=$2
name=$(basename "$bin")
out=$("$bin" -runs="$runs" -seed=1 -max_len=4096 2>&1)
status=$?
if [ $status -eq 0 ]; then
	echo "PASS: ibcore/$name ($(echo "$out" | grep -ao 'Done [0-9]* runs' | tail -n1))"
else
	echo "$out" | tail -n 40
	echo "FAIL: ibcore/$name: libFuzzer exited with status $status"
fi
exit 0
