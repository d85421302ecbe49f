#!/bin/sh
# util/fabsim/servernode/fuzz/smoke.sh FUZZER RUNS — a short, seeded libFuzzer run for `make check`
# from the committed seeds in a fresh scratch corpus (the same every run). A crash, leak or
# sanitizer report fails it.
bin=$1
runs=$2
seeds=util/fabsim/servernode/fuzz/seeds
work=build/servernode/fuzz-corpus
log=build/servernode/fuzz-smoke.log
rm -rf "$work" && mkdir -p "$work"
if "$bin" -runs="$runs" -seed=1 -max_len=4300 -artifact_prefix=build/servernode/ "$work" "$seeds" \
	>"$log" 2>&1 && grep -q "^Done $runs runs" "$log"; then
	echo "PASS: servernode-fuzz: $runs runs from $(ls "$seeds" | wc -l) seeds without a crash ($(grep -o 'cov: [0-9]*' "$log" | tail -1))"
else
	tail -30 "$log"
	echo "FAIL: servernode-fuzz: libFuzzer found a problem (full log: $log)"
	exit 1
fi
