# src/tests/framework/lib.sh — the one shell library of the tests (sourced by bash scripts).
# Results go to stdout, one per line, at the start of the line (HACKING.md, "Tests").
#
#   SUITE=name              set before sourcing (optional): results are named SUITE/NAME
#   pass NAME               PASS: SUITE/NAME
#   fail NAME WHY           FAIL: SUITE/NAME: WHY   (counted in $failures)
#   skip NAME WHY           SKIP: SUITE/NAME: WHY
#   skip_all WHY            SKIP: SUITE: WHY, then exit 77 (this machine cannot run the test)
#   finish                  exit 1 if anything failed, else 0
#   expect NAME LOG REGEX WHAT   fail NAME unless LOG has a line matching REGEX (extended)
#   expect_status NAME GOT WANT [WHY]  fail NAME unless exit status GOT is WANT
#   expect_clean NAME LOG   fail NAME if LOG has an ASan/UBSan report
#   hosted_test NAME        $BIN=bin/ibboot-hosted, $OUT=build/check/NAME (created)
#   servernode_test NAME    set-up of the server-node netboot tests (util/fabsim/tests/servernode):
#                           results named NAME ($T too), $WORK a temporary directory removed on
#                           exit, $CLIENT the raw IPoIB client (IPOIB_CLIENT overrides)
#   expect_output NAME EXPECTED CMD...  pass NAME if CMD prints EXPECTED (trailing blanks and
#                           empty lines dropped), else fail it and show both
#   tshark_ib PCAP ARGS...  tshark -T fields over an InfiniBand capture (LINKTYPE_INFINIBAND, 247).
#                           tshark 4.0 has no mapping for 247, so it reads a copy (PCAP.147) whose
#                           link type is DLT_USER0 (147), mapped to "infiniband" by a user DLT table
#   start_dnsmasq CONF LOG READY  start dnsmasq in the background ($dnsmasq_pid) and wait (up to
#                           10 s, readiness, not a timing assertion) for a line matching READY in
#                           LOG; returns 1 if dnsmasq is not running
#   tun_up TUN              (in a private namespace) lo up, and a TUN device TUN with MTU 2044
#                           and 198.18.0.1/24, no IPv6; returns 1 if it cannot be created
#   extract LOG SED-EXPR    the first match of a sed -E expression with one group, or empty
#   in_private_netns VAR ARGS...  re-run this script (with ARGS) inside a network namespace of
#                           its own: `ip netns add` as root, else `unshare -rn`; SKIPs (exit 77)
#                           when neither works. VAR marks the inner run. Returns inside it.
#   qemu_device_test        set-up of the QEMU device tests (util/qemu/tests): $QEMU, $MODEL, $T,
#                           run_qemu, serial_text, need_model (see there)
failures=0
SUITE=${SUITE:-}

_result_name() { if [ -n "$SUITE" ]; then echo "$SUITE/$1"; else echo "$1"; fi; }
pass() { echo "PASS: $(_result_name "$1")"; }
fail() { echo "FAIL: $(_result_name "$1"): $2"; failures=$((failures + 1)); }
skip() { echo "SKIP: $(_result_name "$1"): $2"; }
skip_all() { echo "SKIP: ${SUITE:-$(basename "$0")}: $1"; exit 77; }
finish() { [ "$failures" -eq 0 ] && exit 0; exit 1; }

expect() {
	if ! grep -aqE "$3" "$2"; then
		fail "$1" "$4 (no line matching /$3/ in $2)"
		return 1
	fi
}

expect_status() {
	[ "$2" -eq "$3" ] && return 0
	fail "$1" "exit status $2, expected $3${4:+ $4}"
	return 1
}

expect_clean() {
	grep -q 'ERROR: AddressSanitizer\|runtime error' "$2" || return 0
	fail "$1" "sanitizer report in $2"
	return 1
}

hosted_test() {
	BIN=bin/ibboot-hosted
	OUT=build/check/$1
	mkdir -p "$OUT"
}

servernode_test() {
	T=$1
	SUITE=$T
	WORK=$(mktemp -d "/tmp/$T.XXXXXX") || exit 1
	trap 'rm -rf "$WORK"' EXIT
	CLIENT=${IPOIB_CLIENT:-build/tests/ipoib-client}
}

expect_output() {
	local name=$1 expected=$2 got
	shift 2
	got=$("$@" | sed 's/ *$//' | grep -v '^$')
	if [ "$got" = "$expected" ]; then
		pass "$name"
	else
		fail "$name" "$1 printed something else"
		echo "--- expected"; echo "$expected"; echo "--- $1"; echo "$got"
	fi
}

tshark_ib() {
	local pcap=$1
	shift
	# byte 20 of the pcap header is the low byte of the link type (little-endian file)
	{ head -c 20 "$pcap"; printf '\223'; tail -c +22 "$pcap"; } > "$pcap.147"
	tshark -o 'uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""' \
		-r "$pcap.147" -T fields -E separator=' ' "$@" 2>/dev/null
}

start_dnsmasq() {
	local _
	dnsmasq --keep-in-foreground --conf-file="$1" &
	dnsmasq_pid=$!
	for _ in $(seq 100); do
		grep -q "$3" "$2" 2>/dev/null && break
		kill -0 "$dnsmasq_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$dnsmasq_pid" 2>/dev/null
}

tun_up() {
	ip link set lo up
	ip tuntap add dev "$1" mode tun || return 1
	ip link set "$1" mtu 2044
	ip addr add 198.18.0.1/24 dev "$1"
	sysctl -qw "net.ipv6.conf.$1.disable_ipv6=1" 2>/dev/null
	ip link set "$1" up
}

extract() {
	sed -nE "s/$2/\\1/p" "$1" | head -n1
}

in_private_netns() {
	local var=$1 ns
	shift
	[ -n "${!var:-}" ] && return 0
	if [ "$(id -u)" -eq 0 ]; then
		ns=ibboot-$(basename "$0" .sh)-$$
		ip netns add "$ns" 2>/dev/null || skip_all "cannot create a network namespace (ip netns add)"
		trap 'ip netns del "$ns" 2>/dev/null' EXIT
		env "$var=1" ip netns exec "$ns" "$0" "$@"
		exit $?
	fi
	unshare -rn true 2>/dev/null ||
		skip_all "neither root nor unprivileged user namespaces (unshare -rn)"
	exec env "$var=1" unshare -rn "$0" "$@"
}

# ---- QEMU device tests (util/qemu/tests) ----
#   $QEMU   the cached ibboot QEMU (util/qemu/build --print-path; `make qemu` builds it)
#   $MODEL  bin/libhcasim.so (absolute)
#   $T      a fresh directory for this test's logs: build/qemu/tests/<test>/
#   run_qemu GUARD_SECONDS ARGS...   run QEMU headless, serial to $T/serial.log, stdout+stderr to
#                                    $T/qemu.out; returns QEMU's exit status. graphics=off makes
#                                    SeaBIOS mirror the text console (where the stock iPXE writes)
#                                    to the serial port. GUARD_SECONDS only stops a hung guest
#                                    (status 124); nothing asserts on time.
#   serial_text                      the serial log without CRs and ANSI colour codes
#   need_model                       FAIL (exit 1) unless $MODEL exists
# Results are named qemu/<test>/NAME.
qemu_device_test() {
	set -uo pipefail
	TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
	cd "$TOP"
	TEST_NAME=$(basename "$0" .sh)
	SUITE=qemu/$TEST_NAME
	T=$TOP/build/qemu/tests/$TEST_NAME
	# A test that re-runs itself inside an environment (ipxe-oracle) keeps the outer run's logs.
	[ -n "${QEMU_TEST_KEEP_DIR:-}" ] || rm -rf "$T"
	mkdir -p "$T"
	MODEL=$(realpath -m "${HCASIM_SO:-$TOP/bin/libhcasim.so}")
	QEMU_PID=
	trap stop_qemu EXIT
	if ! QEMU=$(util/qemu/build --print-path 2>/dev/null); then
		echo "FAIL: $SUITE: QEMU with the hermon device is not built (run: make qemu)"
		exit 1
	fi
}

stop_qemu() {
	if [ -n "${QEMU_PID:-}" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill "$QEMU_PID" 2>/dev/null
		wait "$QEMU_PID" 2>/dev/null
	fi
	QEMU_PID=
}

run_qemu() {
	local guard=$1 rc
	shift
	# `timeout` is the process we own; it passes our TERM on to QEMU.
	timeout --kill-after=5 "$guard" "$QEMU" -display none -machine graphics=off -monitor none \
		-no-reboot -m 256 -net none -serial "file:$T/serial.log" "$@" > "$T/qemu.out" 2>&1 &
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
		echo "FAIL: $SUITE: $MODEL is missing (make bin/libhcasim.so)"
		exit 1
	fi
}
