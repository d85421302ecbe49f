#!/bin/sh
# src/net/apps-fuzz/smoke.sh FUZZER RUNS — a short, deterministic libFuzzer run for make check.
# One PASS/FAIL line named after the fuzzer; a crash, a hang (-timeout) or a sanitizer report fails.
set -u
bin=$1 runs=$2
name=$(basename "$bin")
out=$("$bin" -runs="$runs" -seed=1 -max_len=4096 -timeout=10 2>&1)
status=$?
if [ $status -eq 0 ]; then
	echo "PASS: dhcp/$name ($(echo "$out" | grep -ao 'Done [0-9]* runs' | tail -n1))"
else
	echo "$out" | tail -n 40
	echo "FAIL: dhcp/$name: libFuzzer exited with status $status"
fi
exit 0
