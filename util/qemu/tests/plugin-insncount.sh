#!/bin/bash
# Our TCG plugin (util/qemu/plugins/insncount.c) loads into the cached QEMU and counts guest
# instructions: bin/ibboot.lkrn powering off at once executes some, the same image polling for a
# second first (`sleep 1000`: its wait loop runs the devices' poll and reads the clock) executes
# more, by at least a million; the sampling thread wrote samples whose counts never go down and
# end at the total; the per-block counters (hot=) were written at exit.
source "$(dirname "$0")/../../../src/tests/framework/lib.sh"
qemu_device_test
PLUGIN=$(util/qemu/plugins/build 2> "$T/plugin-build.log") ||
	{ echo "FAIL: $SUITE: the plugin does not build: $(tail -3 "$T/plugin-build.log")"; exit 1; }
[ -s bin/ibboot.lkrn ] || { echo "FAIL: $SUITE: bin/ibboot.lkrn is missing"; exit 1; }

count() {   # NAME CMDLINE: boot with the plugin, print the count (empty if none)
	run_qemu 120 -m 128 -kernel bin/ibboot.lkrn -append "$2" \
		-plugin "$PLUGIN,out=$T/$1.insns,samples=$T/$1.samples,hot=$T/$1.hot" > /dev/null
	sed -n 's/^insns //p' "$T/$1.insns" 2>/dev/null
}
short=$(count short "ibboot.cmd=poweroff")
long=$(count long "ibboot.cmd=sleep+1000,poweroff")
if [ -z "$short" ] || [ "$short" -le 0 ]; then
	fail counts-instructions "no count from the plugin (got '${short}'; $T/short.insns, $T/qemu.out)"
else
	pass counts-instructions
fi
if [ -n "$short" ] && [ -n "$long" ] && [ "$long" -gt $((short + 1000000)) ]; then
	pass longer-run-counts-more
else
	fail longer-run-counts-more "poweroff: '${short}', sleep 1000 + poweroff: '${long}' (want more by a million at least)"
fi
if [ -s "$T/long.samples" ] && awk -v total="$long" '$2 < prev { bad = 1 } { prev = $2 } END { exit bad || prev != total }' "$T/long.samples"; then
	pass samples-rise-to-the-total
else
	fail samples-rise-to-the-total "samples missing, going down or not ending at $long: $T/long.samples"
fi
if [ -s "$T/long.hot.exit" ] && awk '{ s += $2 * $3 } END { exit !(s > 0) }' "$T/long.hot.exit"; then
	pass hot-blocks-written
else
	fail hot-blocks-written "no per-block counts in $T/long.hot.exit"
fi
finish
