#!/usr/bin/env bash
# util/fwdump/tests/fwdump-check.sh — the dump decoder (bin/ibboot-fwdump-decode) on dumps the
# real Hermon driver wrote over the model (build/tests/fwdump-rig: a healthy HCA with traffic, and
# one after a catastrophic error), and malformed dumps, each refused with the reason.
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$TOP"
SUITE=fwdump
source src/tests/framework/lib.sh
T=build/fwdump
rm -rf "$T" && mkdir -p "$T"
DEC=bin/ibboot-fwdump-decode

if ! build/tests/fwdump-rig healthy > "$T/healthy.dump" 2> "$T/rig.log"; then
	fail rig-dump "fwdump-rig healthy failed: $(tail -n 3 "$T/rig.log" | tr '\n' ' ')"
	exit 1
fi
build/tests/fwdump-rig catastrophic > "$T/catas.dump" 2>> "$T/rig.log" ||
	fail rig-dump-catastrophic "fwdump-rig catastrophic failed"

# Healthy: every segment decoded, the contexts' fields named, and they agree with the driver.
if $DEC "$T/healthy.dump" > "$T/healthy.txt" 2> "$T/healthy.err"; then
	d=$T/healthy.txt
	# QP 0x40 is QP0 (SMI) in RTS: the QPC's state field (PRM: 3 = RTS) and service type (7 = MLX).
	qp40=$(awk '/^  qp 0x40$/ {on = 1; next} /^  [a-z]/ {on = 0} on' "$d")
	if grep -q '^device hermon-01:00.0$' "$d" && grep -q 'pci config: vendor 0x15b3 device 0x1003' "$d" &&
	   grep -q 'opcode 0x[0-9a-f]* ([A-Z0-9_]*)' "$d" &&
	   grep -q 'all zero: no catastrophic error recorded' "$d" &&
	   grep -Eq '^      state += 0x3 ' <<<"$qp40" && grep -Eq '^      st += 0x7 ' <<<"$qp40" &&
	   grep -q 'eqc_st (' "$d" && grep -q 'completion_queue_context_st (' "$d" &&
	   grep -Eq "^end of hermon-01:00.0: $(grep -c '^SEG ' "$T/healthy.dump") segments$" "$d"; then
		pass decode-healthy-dump
	else
		fail decode-healthy-dump "decoded text lacks an expected field (see $d)"
	fi
	# A CQ the traffic went through: the context's producer counter is what the driver consumed.
	cons=$(grep -m1 '^SEG cq .*consumer=20 ' "$T/healthy.dump" | sed 's/.*cqn=\(0x[0-9a-f]*\).*/\1/')
	if [ -n "$cons" ] && awk -v q="  cq $cons" '$0 == q {on = 1; next} /^  [a-z]/ {on = 0} on' "$d" |
		grep -Eq '^      producer_counter += 0x14 \(20\)$'; then
		pass decode-cq-context-matches-driver
	else
		fail decode-cq-context-matches-driver "CQ ${cons:-?}: no producer_counter 20 in the decoded context"
	fi
else
	fail decode-healthy-dump "decoder refused the rig's dump: $(cat "$T/healthy.err")"
fi

# After a catastrophic error the buffer's non-zero words are listed.
if $DEC "$T/catas.dump" > "$T/catas.txt" 2>&1 && grep -q 'catastrophic=1' "$T/catas.txt" &&
   grep -Eq '^    \[00\] 0x0*[1-9a-f]' "$T/catas.txt"; then
	pass decode-catastrophic-error-buffer
else
	fail decode-catastrophic-error-buffer "no non-zero catas word decoded (see $T/catas.txt)"
fi

# The dump inside a console log or a report: the noise around it is skipped.
{ echo "ibboot> fwdump"; cat "$T/healthy.dump"; echo "ibboot> poweroff"; } | sed 's/$/\r/' > "$T/console.log"
if $DEC "$T/console.log" | cmp -s - "$T/healthy.txt"; then
	pass decode-from-console-log
else
	fail decode-from-console-log "a CRLF console log around the dump decodes differently"
fi

# Malformed dumps: exit status 1 and the reason on stderr.
refused() {   # name expected-message file
	local out
	out=$($DEC "$3" 2>&1 >/dev/null)
	local rc=$?
	if [ $rc -eq 1 ] && grep -q -- "$2" <<<"$out"; then
		pass "refuse-$1"
	else
		fail "refuse-$1" "exit $rc, message '$out' (want '$2')"
	fi
}
h=$T/healthy.dump
head -n 20 "$h" > "$T/m-cut.dump";                     refused truncated 'input ends' "$T/m-cut.dump"
grep -v '^+0020:' "$h" > "$T/m-noline.dump";           refused missing-word-line 'after 8 of 16 words' "$T/m-noline.dump"
sed '0,/^+0020: /s/^+0020: /+0040: /' "$h" > "$T/m-offset.dump"
refused wrong-offset 'offset 0x40, expected 0x20' "$T/m-offset.dump"
sed '0,/^+0000: /s/^+0000: \([0-9a-f]*\)/+0000: zz\1/' "$h" > "$T/m-hex.dump"
refused bad-hex 'not an 8-digit hex word' "$T/m-hex.dump"
sed 's/^FWEND \(.*\) segments=\([0-9]*\)/FWEND \1 segments=999/' "$h" > "$T/m-count.dump"
refused segment-count 'FWEND says 999 segments' "$T/m-count.dump"
sed '0,/^END hcr/s/^END hcr/END pci/' "$h" > "$T/m-end.dump";  refused wrong-end 'END pci does not close' "$T/m-end.dump"
sed '1s/^FWDUMP 1 /FWDUMP 2 /' "$h" > "$T/m-version.dump";    refused version 'format version 2' "$T/m-version.dump"
sed '0,/^SEG pci 16/s/^SEG pci 16/SEG pci 99999/' "$h" > "$T/m-len.dump"
refused huge-segment 'not a number of words up to' "$T/m-len.dump"
sed '0,/^SEG pci 16/s/^SEG pci 16/SEG pci 15/' "$h" > "$T/m-short.dump"
refused length-mismatch 'more words than the 15' "$T/m-short.dump"
grep -v '^FWEND' "$h" > "$T/m-noend.dump";              refused no-fwend 'no FWEND' "$T/m-noend.dump"
echo "just a console log" > "$T/m-none.dump";         refused no-dump 'no FWDUMP header' "$T/m-none.dump"
sed '0,/^SEG memory 0 /s/ lkey=/ lkey /' "$h" > "$T/m-attr.dump"
refused bad-attribute "is not key=value" "$T/m-attr.dump"
exit 0
