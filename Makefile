# ibboot — top-level build. Each component keeps its rules in its own fragment (see HACKING.md).
#   make all     images, programs and libraries
#   make check   every test; ends with one line "N passed, N failed"
#   make demo    the main job in QEMU
#   make bench   figures (never asserted by tests)
#   make fuzz    longer fuzzing runs
#   make clean
# check, demo and bench first install what this machine lacks (util/deps.sh; instant otherwise).

.DEFAULT_GOAL := all
SHELL := /bin/bash
# Prerequisites may name variables of other fragments as $$(VAR): expanded once all are read.
.SECONDEXPANSION:

HOST_CC     ?= gcc
HOST_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc/include -Ibuild/include
SAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_CC     ?= clang
HAVE_CLANG  := $(shell command -v $(FUZZ_CC) >/dev/null 2>&1 && echo yes)
PRM_TXT     := util/prm/hermon-prm.txt
PRM_H       := build/include/ibboot/hermon_prm.h
VERSION     := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
# The InfiniBand wire formats: the firmware's, also compiled into the model, fabsim and the
# server node.
WIRE_SRCS   := src/net/infiniband/wire/crc.c src/net/infiniband/wire/mad.c \
	src/net/infiniband/wire/packet.c
WIRE_HDRS   := src/include/ibboot/wire/attrs.h src/include/ibboot/wire/bytes.h \
	src/include/ibboot/wire/crc.h src/include/ibboot/wire/mad.h src/include/ibboot/wire/packet.h

ALL_TARGETS   :=
BENCH_TARGETS :=
FUZZ_TARGETS  :=
CLEAN_FILES   := build bin
# The main job: QEMU with the hermon model netboots Debian's Linux over IPoIB (util/demo/run).
DEMO_TARGET   ?= demo-netboot

# The fragments define rules and append to ALL_TARGETS / FUZZ_TARGETS / CLEAN_FILES; the order
# they are read in does not matter.
include util/prmgen/prmgen.mk
include src/src.mk
include src/platform/efi/efi.mk
include src/tests/tests.mk
include util/hcasim/hcasim.mk
include util/fabsim/fabsim.mk
include util/fabsim/servernode/servernode.mk
include util/fabsim/rogue/rogue.mk
include util/payload/payload.mk
include util/qemu/qemu.mk
include util/demo/demo.mk
include src/tests/e2e/oracle/oracle.mk
include util/fwdump/fwdump.mk
include util/media/media.mk
include src/arch/x86_64/rom.mk

# What make check runs, in this order: unit tests first, then the model and fabric, programs on
# a TUN or the simulated fabric, QEMU last.
CHECK_TARGETS := check-unit check-iblib check-ibcore check-net check-driver check-hcasim \
	check-dhcp check-tcp check-fabsim check-servernode check-rogue-sa check-fwdump check-hosted-e2e check-selftest-e2e \
	check-dhcp-ipoib check-report check-image check-payload check-qemu-smoke check-zimage check-boot check-ibcore-e2e \
	check-driver-qemu check-autoboot-qemu check-qemu-device check-qemu-plugin check-qemu-oracle check-linux-oracle check-selftest-qemu check-tftp-faults-qemu check-demo-qemu check-iso-qemu check-efi-qemu check-efirom-qemu check-rom-qemu
BENCH_TARGETS := bench-size bench-iblib bench-ibcore bench-driver bench-fastpath bench-tcp bench-hosted bench-qemu-ipxe \
	bench-netboot bench-rig
FUZZ_TARGETS  := fuzz-iblib fuzz-sma fuzz-ibcore fuzz-dhcp fuzz-tcp fuzz-boot fuzz-fabsim fuzz-servernode fuzz-fwdump fuzz-zcm

.PHONY: all check bench fuzz demo clean prm deps
all: $(ALL_TARGETS)

# Installs the Debian packages the build and the tests need (util/deps.d); prints nothing and
# takes well under a second when nothing is missing.
deps:
	@util/deps.sh

# Every check target runs even if an earlier one failed; the summary decides.
check: deps
	@rm -rf build/check && mkdir -p build/check
	@for t in $(CHECK_TARGETS); do \
		echo "=== $$t"; \
		$(MAKE) --no-print-directory $$t || util/run-test-failed "$$t" "make $$t exited with status $$?"; \
	done
	@util/check-summary build/check

# Benches run one after another (they time things).
bench: deps
	@for t in $(BENCH_TARGETS); do $(MAKE) --no-print-directory $$t || exit 1; done
fuzz: fuzz-table

demo: deps
	@$(MAKE) --no-print-directory $(DEMO_TARGET)

clean:
	rm -rf $(CLEAN_FILES)
