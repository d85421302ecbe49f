#!/bin/bash
# The device refuses to realize, with a message naming the problem, when the model is absent,
# unloadable or not libhcasim — QEMU then exits with status 1 instead of crashing or booting.
source "$(dirname "$0")/../../../src/tests/framework/lib.sh"
qemu_device_test

# expect_refusal CASE MESSAGE-SUBSTRING DEVICE-OPTIONS
expect_refusal() {
    local name=$1 want=$2 opts=$3 rc
    run_qemu 60 -device "hermon$opts"; rc=$?
    if [ "$rc" -ne 1 ]; then
        fail "$name" "QEMU exited with status $rc, want 1 (refused realize); output: $(head -c 400 "$T/qemu.out")"
    elif ! grep -qF -- "$want" "$T/qemu.out"; then
        fail "$name" "message lacks '$want': $(head -c 400 "$T/qemu.out")"
    else
        pass "$name"
    fi
}

expect_refusal no-model-property "model= is required" ""
expect_refusal missing-file "cannot load the model /nonexistent/libhcasim.so" \
    ",model=/nonexistent/libhcasim.so"
# A real shared object that is not the model (zlib is always present: QEMU links it).
ZLIB=$(ldd "$QEMU" | awk '/libz\.so/ {print $3}')
expect_refusal not-the-model "lacks hcasim_create" ",model=$ZLIB"
finish
