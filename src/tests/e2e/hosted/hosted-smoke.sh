#!/usr/bin/env bash
# bin/ibboot-hosted: the same core as a Linux program, its software PCI device, commands from the
# command line and from stdin, and exit statuses.
set -u
cd "$(dirname "$0")/../../../.."
. src/tests/framework/lib.sh
hosted_test hosted-smoke

t=hosted/cmdline
timeout 60 "$BIN" ibboot.cmd=help,pci,mem,poweroff </dev/null >"$OUT/cmdline.log" 2>&1
status=$?
log=$OUT/cmdline.log
expect $t "$log" '^ibboot [^ ]+ \(hosted\)$' "no banner" &&
expect $t "$log" '^00:01\.0 1234:0b1b class ff0000' "the test device is not listed" &&
expect $t "$log" '^    BAR2 mem64 0x[0-9a-f]{10,} size 64 KiB prefetchable$' "64-bit BAR not above 4 GiB" &&
expect $t "$log" '^memory: 64 MiB RAM' "buffer arena not reported" &&
{ [ ! -d src/net ] || expect $t "$log" '^  ping ' "network commands (linker table) missing from help"; } &&
expect_status $t "$status" 0 &&
pass $t

t=hosted/mmio-memcheck
timeout 60 "$BIN" ibboot.cmd=mmio+00:01.0+0,mmio+00:01.0+2+0x20+0xfeedf00d,memcheck,poweroff \
	</dev/null >"$OUT/mmio.log" 2>&1
status=$?
log=$OUT/mmio.log
expect $t "$log" '^mmio 00:01\.0 BAR0 at 0xc0000000 \+0x0: 0x1b1b0001$' "ID register of the test device" &&
expect $t "$log" '^mmio 00:01\.0 BAR2 at 0x[0-9a-f]+ \+0x20: 0xfeedf00d$' "BAR2 write did not read back" &&
expect $t "$log" '^memcheck: (6[0-4]) MiB in [0-9]+ chunks verified, .* 0 bad; all freed$' "memcheck" &&
expect_status $t "$status" 0 &&
pass $t

# Without ibboot.cmd= the firmware first offers autoboot and takes one key press to stop it (the
# leading space below); the lines after it go to the console.
t=hosted/stdin
printf ' echo from-stdin\nbogus\npoweroff 5\n' | timeout 60 "$BIN" >"$OUT/stdin.log" 2>&1
status=$?
expect $t "$OUT/stdin.log" '^from-stdin$' "echo did not run" &&
expect $t "$OUT/stdin.log" '^bogus: unknown command' "unknown command not reported" &&
expect_status $t "$status" 5 "from 'poweroff 5'" &&
pass $t

t=hosted/crlf
# Terminals send CR, LF or CR LF: each of these lines must run exactly once, with no empty
# command between them (which would show as an extra prompt).
printf ' echo one\r\necho two\recho three\n' | timeout 60 "$BIN" >"$OUT/crlf.log" 2>&1
prompts=$(grep -o 'ibboot> ' "$OUT/crlf.log" | wc -l)
expect $t "$OUT/crlf.log" '^one$' "CR LF line did not run" &&
expect $t "$OUT/crlf.log" '^two$' "CR line did not run" &&
expect $t "$OUT/crlf.log" '^three$' "LF line did not run" &&
{ [ "$prompts" -eq 4 ] || { fail $t "$prompts prompts for 3 lines (expected 4: one per line + the last)"; false; }; } &&
pass $t

t=hosted/options
timeout 60 "$BIN" --ram=16 ibboot.cmd=poweroff </dev/null >"$OUT/ram.log" 2>&1
status=$?
timeout 60 "$BIN" --no-such-option </dev/null >"$OUT/badopt.log" 2>&1
badopt=$?
expect $t "$OUT/ram.log" '^memory: 16 MiB RAM' "--ram=16 not honoured" &&
expect $t "$OUT/badopt.log" 'unknown option --no-such-option' "bad option not reported" &&
{ [ "$status" -eq 0 ] && [ "$badopt" -eq 2 ] || { fail $t "exit statuses $status/$badopt, expected 0/2"; false; }; } &&
pass $t

t=hosted/eof
timeout 60 "$BIN" </dev/null >"$OUT/eof.log" 2>&1
status=$?
expect $t "$OUT/eof.log" 'console input closed; powering off' "end of input not handled" &&
expect_status $t "$status" 0 &&
pass $t

[ "$failures" -eq 0 ]
