#!/bin/sh
# The compressed image refuses a damaged payload: bin/ibboot-z.lkrn with one byte of its packed
# stream changed, again cut short, and with one byte of its packed stub (stage 0's stream)
# changed, booted by QEMU -kernel; and the intact image in 12 MiB of RAM, less than the decoders'
# tables need (stage 0 checks the memory map first). The stub or stage 0 must say why on COM1 and
# halt (the body's banner never appears); QEMU is stopped by timeout once the stub has had time
# to decode the whole stream under TCG (a damaged stream is found out at its end).
set -u
. src/tests/framework/lib.sh
IMAGE=${IMAGE:-bin/ibboot-z.lkrn}
QEMU=${QEMU:-qemu-system-x86_64}
OUT=build/check/zimage-damaged
mkdir -p "$OUT"
if [ ! -s "$IMAGE" ]; then
	fail zimage/damaged "$IMAGE missing; run make bin/ibboot-z.lkrn"
	exit 1
fi
if ! command -v "$QEMU" >/dev/null 2>&1; then
	echo "SKIP: zimage/damaged: $QEMU is not installed"
	exit 77
fi
size=$(stat -c %s "$IMAGE")
# one flipped byte in the middle of the payload
cp "$IMAGE" "$OUT/flipped.lkrn"
off=$((size / 2))
b=$(od -An -tu1 -j "$off" -N1 "$IMAGE" | tr -d ' ')
printf "\\$(printf %03o $(((b ^ 0x5a) & 255)))" | dd of="$OUT/flipped.lkrn" bs=1 seek="$off" conv=notrunc status=none
# the file cut 4 KiB short (the loader loads what is there; the rest of the payload reads as zeros)
head -c $((size - 4096)) "$IMAGE" > "$OUT/cut.lkrn"
# one flipped byte in the middle of stage 0's packed stub (zstage0.S, between zs0_in and zs0_in_end)
ELF=${ELF:-build/zimage/ibboot-z.elf}
sym() { nm "$ELF" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
off=$(($(sym _setup_size) + ($(sym zs0_in) + $(sym zs0_in_end)) / 2 - $(sym _ztext)))
cp "$IMAGE" "$OUT/stage0.lkrn"
b=$(od -An -tu1 -j "$off" -N1 "$IMAGE" | tr -d ' ')
printf "\\$(printf %03o $(((b ^ 0x5a) & 255)))" | dd of="$OUT/stage0.lkrn" bs=1 seek="$off" conv=notrunc status=none
cp "$IMAGE" "$OUT/smallram.lkrn"
for kind in flipped cut stage0 smallram; do
	t=45 mem=128
	[ $kind = stage0 ] && t=15	# (found out before the body's decoder runs)
	[ $kind = smallram ] && t=15 mem=12
	timeout --kill-after=5 $t "$QEMU" -nographic -no-reboot -nodefaults -serial "file:$OUT/$kind.log" \
		-monitor none -kernel "$OUT/$kind.lkrn" -m $mem -append "ibboot.cmd=poweroff" \
		>"$OUT/$kind.qemu.out" 2>&1
	if ! grep -q '^ibboot: cannot unpack: .*; halting' "$OUT/$kind.log"; then
		fail zimage/damaged-$kind "no refusal on the serial console ($OUT/$kind.log)"
	elif [ $kind = stage0 ] && ! grep -q 'decoder damaged' "$OUT/$kind.log"; then
		fail zimage/damaged-$kind "the refusal does not name the stub's decoder ($OUT/$kind.log)"
	elif [ $kind = smallram ] && ! grep -q '16 MiB of RAM needed' "$OUT/$kind.log"; then
		fail zimage/damaged-$kind "the refusal does not say how much RAM is needed ($OUT/$kind.log)"
	elif grep -q 'powering off' "$OUT/$kind.log"; then
		fail zimage/damaged-$kind "the damaged body ran ($OUT/$kind.log)"
	else
		echo "  $kind: $(grep -o 'cannot unpack.*' "$OUT/$kind.log" | tr -d '\r')"
		pass zimage/damaged-$kind
	fi
done
finish
