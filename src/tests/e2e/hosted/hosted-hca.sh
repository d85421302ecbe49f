#!/usr/bin/env bash
# bin/ibboot-hosted --hca: the Hermon model (libhcasim) on the hosted PCI bus, the linked-in
# Hermon driver brings it up through the platform's config/MMIO accessors and DMA arena, under
# ASan/UBSan. Without a fabric the ports stay down; that is what this checks (e2e.sh
# cables them to fabsim).
set -u
cd "$(dirname "$0")/../../../.."
. src/tests/framework/lib.sh
hosted_test hosted-hca

if ! "$BIN" --help 2>&1 | grep -q -- '--hca'; then
	echo "SKIP: hosted/hca: this build has no HCA model (util/hcasim missing)"
	exit 77
fi

t=hosted/hca-probe
log=$OUT/probe.log
timeout 120 "$BIN" --hca --hca-guid=0x0002c90300abcd10 ibboot.cmd=pci,ibstat,poweroff \
	</dev/null >"$log" 2>&1
status=$?
expect $t "$log" '^00:04\.0 15b3:1003 class 0c0600' "the model is not on the PCI bus" &&
expect $t "$log" '^    BAR0 mem64 0x[0-9a-f]+ size 1 MiB$' "BAR0 of the model not sized" &&
expect $t "$log" '^pci 00:04\.0: .*\(hermon\)$' "the Hermon driver did not claim the model" &&
expect $t "$log" 'ConnectX-3 registered' "driver bring-up did not complete" &&
expect $t "$log" 'port 1: DOWN' "port 1 state not reported" &&
expect $t "$log" 'GID 0000:0000:0000:0000:0002:c903:00ab:cd11$' "port 1 GUID is not --hca-guid + 1" &&
expect $t "$log" 'GID 0000:0000:0000:0000:0002:c903:00ab:cd12$' "port 2 GUID is not --hca-guid + 2" &&
expect_clean $t "$log" &&
expect_status $t "$status" 0 &&
pass $t

t=hosted/hca-no-fabric
timeout 30 "$BIN" --fabric="$OUT/no-such.sock" </dev/null >"$OUT/nofabric.log" 2>&1
status=$?
expect $t "$OUT/nofabric.log" 'cannot add the HCA model: .*no-such\.sock' "no clear error for a missing fabsim" &&
expect_status $t "$status" 1 &&
pass $t

[ "$failures" -eq 0 ]
