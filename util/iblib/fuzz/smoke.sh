#!/bin/sh
# util/iblib/fuzz/smoke.sh FUZZER RUNS
# A short, seeded libFuzzer run for `make check`: starts from the committed seeds
# (util/iblib/fuzz/seeds/<name>, valid packets/MADs so the CRC and class checks are passed) in a
# fresh scratch corpus, so every run is the same. A crash, leak or sanitizer report fails it.
bin=$1
runs=$2
name=$(basename "$bin")
seeds=util/iblib/fuzz/seeds/${name#fuzz-}
work=build/iblib/smoke-corpus-$name
log=build/iblib/$name.smoke.log
rm -rf "$work" && mkdir -p "$work"
if "$bin" -runs="$runs" -seed=1 -max_len=4300 -artifact_prefix=build/iblib/ "$work" "$seeds" \
	>"$log" 2>&1 && grep -q "^Done $runs runs" "$log"; then
	echo "PASS: iblib/$name: $runs runs from $(ls "$seeds" | wc -l) seeds without a crash ($(grep -o 'cov: [0-9]*' "$log" | tail -1))"
else
	tail -30 "$log"
	echo "FAIL: iblib/$name: libFuzzer found a problem (full log: $log)"
	exit 1
fi
