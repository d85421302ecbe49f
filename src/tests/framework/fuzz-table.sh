#!/bin/bash
# src/tests/framework/fuzz-table.sh RUNS WORKDIR ENTRY...
# `make fuzz`: every fuzz target for RUNS executions each, FUZZ_JOBS (default 2) libFuzzer
# processes at a time, then one table line per target (in the order given): executions, crashes,
# seconds; and a last line with the totals and the wall-clock time. ENTRY is
# NAME:BINARY:SEEDS:MAX_LEN (SEEDS a directory, may be absent). Each target starts from a scratch
# corpus WORKDIR/corpus-NAME seeded with a copy of SEEDS (the committed seeds are never written);
# what it finds stays there, crash inputs go to WORKDIR/NAME-crash-* (and leak-, timeout-, oom-).
# A crash stops that target (libFuzzer's rule) and the others go on; the exit status is 1 if any
# target crashed, could not be run or did not reach RUNS executions.
set -u
runs=$1 work=$2
shift 2
jobs=${FUZZ_JOBS:-2}
mkdir -p "$work"

# One target; its table line goes to WORKDIR/NAME.row, "bad" to WORKDIR/NAME.bad.
run_one() {
	local entry=$1 name rest bin seeds max_len corpus log start status secs done_runs crashes note
	name=${entry%%:*}; rest=${entry#*:}
	bin=${rest%%:*}; rest=${rest#*:}
	seeds=${rest%%:*}; max_len=${rest#*:}
	corpus=$work/corpus-$name
	log=$work/$name.log
	rm -f "$work/$name.row" "$work/$name.bad" "$work/$name.runs"
	if [ ! -x "$bin" ]; then
		printf '%-12s %12s %8s %8s  %s\n' "$name" - - - "not built: $bin" > "$work/$name.row"
		: > "$work/$name.bad"
		echo 0 > "$work/$name.runs"
		return
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
		: > "$work/$name.bad"
	elif [ "$done_runs" -lt "$runs" ]; then
		note="fewer than $runs executions (log $log)"
		: > "$work/$name.bad"
	fi
	echo "$done_runs" > "$work/$name.runs"
	printf '%-12s %12s %8s %8s  %s\n' "$name" "$done_runs" "$crashes" "$secs" "$note" \
		> "$work/$name.row"
}

t0=$(date +%s)
running=0
for entry in "$@"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$entry" &
	running=$((running + 1))
done
wait
wall=$(( $(date +%s) - t0 ))

bad=0
total_runs=0
printf '%-12s %12s %8s %8s  %s\n' target executions crashes seconds notes
for entry in "$@"; do
	name=${entry%%:*}
	if [ -f "$work/$name.row" ]; then
		cat "$work/$name.row"
	else
		printf '%-12s %12s %8s %8s  %s\n' "$name" - - - "no result"
		bad=1
	fi
	[ -f "$work/$name.bad" ] && bad=1
	[ -f "$work/$name.runs" ] && total_runs=$((total_runs + $(cat "$work/$name.runs")))
done
echo "fuzz: $# targets, $total_runs executions in all, $([ "$bad" = 0 ] && echo 'no crashes' || echo 'FAILED (see the notes)'), $wall s wall clock with $jobs at a time"
exit "$bad"
