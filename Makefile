# ibboot — top-level build. Each component keeps its rules in its own fragment (see HACKING.md).
#   make all     images, programs and libraries
#   make check   every test; ends with one line "N passed, N failed"
#   make demo    the main job in QEMU
#   make bench   figures (never asserted by tests)
#   make fuzz    longer fuzzing runs
#   make clean

.DEFAULT_GOAL := all
# Fuzz targets live in src/tests/fuzz/<name>/fuzz_<name>.c: rules name the source with $$*.
.SECONDEXPANSION:
SHELL := /bin/bash

HOST_CC     ?= gcc
HOST_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc/include -Ibuild/include
SAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
PRM_TXT     := util/prm/hermon-prm.txt
PRM_H       := build/include/ibboot/hermon_prm.h
VERSION     := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

ALL_TARGETS   :=
CHECK_TARGETS :=
BENCH_TARGETS :=
FUZZ_TARGETS  :=
CLEAN_FILES   := build bin
# The main job: QEMU with the hermon model netboots Debian's Linux over IPoIB (util/demo/run).
DEMO_TARGET   ?= demo-netboot

# Order matters: check targets run in include order (fast unit tests first, QEMU last).
include util/prmgen/prmgen.mk
-include src/src.mk
-include src/drivers/infiniband/infiniband.mk
-include src/net/infiniband/wire/wire.mk
-include util/hcasim/hcasim.mk
-include util/fabsim/fabsim.mk
-include src/net/apps.mk
-include src/net/tcp.mk
-include src/image/image.mk
-include util/payload/payload.mk
-include util/qemu/qemu.mk
-include util/demo/demo.mk

.PHONY: all check bench fuzz demo clean prm
all: $(ALL_TARGETS)

# Every check target runs even if an earlier one failed; the summary decides.
check:
	@rm -rf build/check && mkdir -p build/check
	@for t in $(CHECK_TARGETS); do \
		echo "=== $$t"; \
		$(MAKE) --no-print-directory $$t || util/run-test-failed "$$t" "make $$t exited with status $$?"; \
	done
	@util/check-summary build/check

bench: $(BENCH_TARGETS)
fuzz: $(FUZZ_TARGETS)

demo: $(DEMO_TARGET)

clean:
	rm -rf $(CLEAN_FILES)
