#!/bin/sh
# util/fabsim/fuzz/smoke.sh FUZZER RUNS — a short, seeded libFuzzer run for `make check-fabsim`,
# from the committed seeds (valid packets for each path through the fabric) in a fresh scratch
# corpus, so every run is the same. A crash, leak or sanitizer report fails it.
bin=$1
runs=$2
seeds=util/fabsim/fuzz/seeds
work=build/fabsim/smoke-corpus
log=build/fabsim/fuzz-fabric.smoke.log
rm -rf "$work" && mkdir -p "$work"
if "$bin" -runs="$runs" -seed=1 -max_len=4300 -artifact_prefix=build/fabsim/ "$work" "$seeds" \
	>"$log" 2>&1 && grep -q "^Done $runs runs" "$log"; then
	echo "PASS: fabsim-fuzz/fabric: $runs packets at random ports without a crash ($(grep -o 'cov: [0-9]*' "$log" | tail -1))"
else
	tail -30 "$log"
	echo "FAIL: fabsim-fuzz/fabric: libFuzzer found a problem (full log: $log)"
	exit 1
fi
