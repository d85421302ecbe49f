#!/bin/sh
# src/tests/framework/fuzz-table.sh RUNS WORKDIR ENTRY...
# `make fuzz`: every fuzz target, one libFuzzer process after another, RUNS executions each, and
# one table line per target: executions, crashes, seconds. ENTRY is NAME:BINARY:SEEDS:MAX_LEN
# (SEEDS a directory, may be absent). Each target starts from a scratch corpus WORKDIR/corpus-NAME
# seeded with a copy of SEEDS (the committed seeds are never written); what it finds stays there,
# crash inputs go to WORKDIR/NAME-crash-* (and leak-, timeout-, oom-). A crash stops that target
# (libFuzzer's rule) and the next one runs; the exit status is 1 if any target crashed, could not
# be run or did not reach RUNS executions.
set -u
runs=$1 work=$2
shift 2
mkdir -p "$work"
bad=0
total_runs=0
printf '%-12s %12s %8s %8s  %s\n' target executions crashes seconds notes
for entry in "$@"; do
	name=${entry%%:*}; rest=${entry#*:}
	bin=${rest%%:*}; rest=${rest#*:}
	seeds=${rest%%:*}; max_len=${rest#*:}
	corpus=$work/corpus-$name
	log=$work/$name.log
	if [ ! -x "$bin" ]; then
		printf '%-12s %12s %8s %8s  %s\n' "$name" - - - "not built: $bin"
		bad=1
		continue
	fi
	rm -rf "$corpus" "$work/$name"-crash-* "$work/$name"-leak-* "$work/$name"-timeout-* \
		"$work/$name"-oom-*
	mkdir -p "$corpus"
	[ -d "$seeds" ] && cp "$seeds"/* "$corpus"/ 2>/dev/null
	start=$(date +%s)
	"$bin" -runs="$runs" -max_len="$max_len" -timeout=30 -rss_limit_mb=4096 -close_fd_mask=1 \
		-print_final_stats=1 -artifact_prefix="$work/$name-" "$corpus" > "$log" 2>&1
	status=$?
	secs=$(( $(date +%s) - start ))
	done_runs=$(sed -n 's/^Done \([0-9]*\) runs in .*/\1/p' "$log" | tail -n 1)
	[ -n "$done_runs" ] || done_runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	[ -n "$done_runs" ] || done_runs=0
	crashes=$(ls "$work/$name"-crash-* "$work/$name"-leak-* "$work/$name"-timeout-* \
		"$work/$name"-oom-* 2>/dev/null | wc -l)
	note=
	if [ "$status" -ne 0 ]; then
		[ "$crashes" -gt 0 ] || crashes=1
		note="libFuzzer status $status: $(ls "$work/$name"-*-* 2>/dev/null | head -n 1) (log $log)"
		bad=1
	elif [ "$done_runs" -lt "$runs" ]; then
		note="fewer than $runs executions (log $log)"
		bad=1
	fi
	total_runs=$((total_runs + done_runs))
	printf '%-12s %12s %8s %8s  %s\n' "$name" "$done_runs" "$crashes" "$secs" "$note"
done
echo "fuzz: $# targets, $total_runs executions in all, $([ "$bad" = 0 ] && echo 'no crashes' || echo 'FAILED (see the notes)')"
exit "$bad"
