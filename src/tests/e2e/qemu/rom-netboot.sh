#!/usr/bin/env bash
# The demo's netboot started from bin/ibboot.rom: QEMU with no -kernel, the HCA's option ROM
# (-device hermon,romfile=bin/ibboot.rom) booted by SeaBIOS (-boot order=n), fabsim + OpenSM +
# dnsmasq + nginx as in `make demo`, up to the payload's Linux marker (util/demo/run --rom
# --check --until-marker; one PASS/FAIL line per phase, plus started-by-rom).
TOP=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$TOP" || exit 1
DEMO_SUITE=rom-netboot exec util/demo/run --rom --check --until-marker --no-build --timeout 170 \
	--out "$TOP/build/rom/netboot"
