#!/bin/sh
# util/iblib/fuzz/smoke.sh FUZZER RUNS
# A short, seeded libFuzzer run for `make check`: a crash, leak or sanitizer report fails it.
bin=$1
runs=$2
name=$(basename "$bin")
log=build/iblib/$name.smoke.log
if "$bin" -runs="$runs" -seed=1 -max_len=4300 -artifact_prefix=build/iblib/ >"$log" 2>&1 && grep -q "^Done $runs runs" "$log"; then
	echo "PASS: iblib/$name: $runs runs without a crash"
else
	tail -30 "$log"
	echo "FAIL: iblib/$name: libFuzzer found a problem (full log: $log)"
	exit 1
fi
