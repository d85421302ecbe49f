# Sourced by the hermon device tests (bash). Gives:
#   $QEMU   the cached ibboot QEMU (util/qemu/build --print-path; `make qemu` builds it)
#   $MODEL  bin/libhcasim.so (absolute)
#   $T      a fresh directory for this test's logs: build/qemu/tests/<test>/
#   run_qemu GUARD_SECONDS ARGS...   run QEMU headless, serial to $T/serial.log, stdout+stderr to
#                                    $T/qemu.out; returns QEMU's exit status. graphics=off makes
#                                    SeaBIOS mirror the text console (where the stock iPXE writes)
#                                    to the serial port. GUARD_SECONDS only stops a hung guest
#                                    (status 124); nothing asserts on time.
#   pass NAME / fail NAME WHY        result lines; fail makes the test exit non-zero at the end
#   serial_text                      the serial log without CRs and ANSI colour codes
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$TOP"
TEST_NAME=$(basename "$0" .sh)
T=$TOP/build/qemu/tests/$TEST_NAME
# A test that re-runs itself inside an environment (ipxe-oracle) keeps the outer run's logs.
[ -n "${QEMU_TEST_KEEP_DIR:-}" ] || rm -rf "$T"
mkdir -p "$T"
MODEL=$(realpath -m "${HCASIM_SO:-$TOP/bin/libhcasim.so}")
FAILED=0
QEMU_PID=

pass() { echo "PASS: qemu/$TEST_NAME/$1"; }
fail() { echo "FAIL: qemu/$TEST_NAME/$1: $2"; FAILED=1; }
finish() { exit "$FAILED"; }

stop_qemu() {
    if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
        kill "$QEMU_PID" 2>/dev/null
        wait "$QEMU_PID" 2>/dev/null
    fi
    QEMU_PID=
}
trap stop_qemu EXIT

if ! QEMU=$(util/qemu/build --print-path 2>/dev/null); then
    echo "FAIL: qemu/$TEST_NAME: QEMU with the hermon device is not built (run: make qemu)"
    exit 1
fi

run_qemu() {
    local guard=$1 rc
    shift
    # `timeout` is the process we own; it passes our TERM on to QEMU.
    timeout --kill-after=5 "$guard" "$QEMU" -display none -machine graphics=off -monitor none -no-reboot -m 256 \
        -net none -serial "file:$T/serial.log" "$@" > "$T/qemu.out" 2>&1 &
    QEMU_PID=$!
    wait "$QEMU_PID"; rc=$?
    QEMU_PID=
    return "$rc"
}

serial_text() {
    sed -e 's/\r//g' -e 's/\x1b\[[0-9;]*[a-zA-Z]//g' "$T/serial.log"
}

need_model() {
    if [ ! -f "$MODEL" ]; then
        echo "FAIL: qemu/$TEST_NAME: $MODEL is missing (make bin/libhcasim.so)"
        exit 1
    fi
}
