#!/bin/sh
# src/tests/framework/fuzz-smoke.sh SUITE FUZZER RUNS [SEEDS [LIBFUZZER-FLAGS...]]
# A short, deterministic libFuzzer run for `make check`: a fresh scratch corpus beside the fuzzer
# starts as a copy of the committed seeds (SEEDS, a directory; may be empty or absent), -seed=1,
# RUNS inputs. One result line "PASS: SUITE/NAME: ..." or "FAIL: SUITE/NAME: ..."; a crash, a
# hang (-timeout), a leak or a sanitizer report fails it. Extra flags go to libFuzzer after ours
# (a later -max_len overrides the default 4096).
set -u
suite=$1 bin=$2 runs=$3
shift 3
seeds=${1:-}
[ $# -gt 0 ] && shift
name=$(basename "$bin")
dir=$(dirname "$bin")
work=$dir/smoke-corpus-$name
log=$dir/$name.smoke.log
rm -rf "$work" && mkdir -p "$work"
nseeds=0
if [ -n "$seeds" ] && [ -d "$seeds" ]; then
	cp "$seeds"/* "$work"/ 2>/dev/null
	nseeds=$(ls "$seeds" | wc -l)
fi
"$bin" -runs="$runs" -seed=1 -max_len=4096 -timeout=10 -artifact_prefix="$dir/" "$@" "$work" \
	>"$log" 2>&1
status=$?
rm -rf "$work"
if [ $status -eq 0 ] && grep -q "^Done $runs runs" "$log"; then
	echo "PASS: $suite/$name: $runs runs from $nseeds seeds without a crash ($(grep -ao 'cov: [0-9]*' "$log" | tail -n1))"
else
	tail -n 40 "$log"
	echo "FAIL: $suite/$name: libFuzzer exited with status $status (full log: $log)"
fi
exit 0
