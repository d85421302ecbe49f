#!/usr/bin/env bash
# The demo's netboot chainloaded over Ethernet PXE: QEMU with no -kernel, an e1000 whose PXE ROM
# (iPXE, from the QEMU bundle) gets bin/ibboot.pxe from the user-mode network's TFTP server
# (-boot n); the NBP stops the PXE stack, places ibboot, and ibboot netboots over InfiniBand
# (fabsim + OpenSM + dnsmasq + nginx as in `make demo`) up to the payload's Linux marker
# (util/demo/run --pxe --check --until-marker; one PASS/FAIL line per phase, plus
# pxe-stack-stopped and started-by-pxe).
TOP=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$TOP" || exit 1
DEMO_SUITE=pxe-netboot exec util/demo/run --pxe --check --until-marker --no-build --timeout 170 \
	--out "$TOP/build/rom/pxe-netboot"
