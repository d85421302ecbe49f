# src/image/image.mk — image loaders (bzImage, multiboot), the image registry and fetcher,
# SHA-256 (src/core/sha256.c), the iPXE-syntax script interpreter (src/script) and the autoboot.
#
#   build/boot/boot-unit     unit tests: SHA-256 vectors, header parsers, loader, scripts (ASan/UBSan)
#   build/boot/fuzz-*        libFuzzer targets: bzImage header, multiboot header, script parser
#   make check-boot, fuzz-boot
#
# src/src.mk has no list for these sources, so this fragment (included after it) appends its
# objects to the image and the hosted program itself; the guard keeps them from being linked
# twice should src.mk ever list them.

# Platform-independent: also in the unit tests and fuzzers.
BOOT_CORE_SRCS := src/core/sha256.c src/image/image.c src/image/bzimage.c src/image/multiboot.c \
	src/image/multiboot_load.c src/image/fetch.c src/image/boot.c src/script/script.c src/script/phase.c
# The firmware glue and the image commands: need the network stack (settings, TFTP, HTTP).
BOOT_FW_SRCS := $(if $(NET_SRCS),src/cmd/image_cmd.c src/image/fetch_net.c src/script/firmware.c)

# Bare metal only: entering multiboot kernels (a trampoline that leaves long mode).
BOOT_PCBIOS_SRCS := src/image/mb_pcbios.c src/image/mb_enter.S

ifeq ($(filter build/image/src/core/sha256.o,$(IMG_OBJS)),)
BOOT_IMG_OBJS := $(patsubst %.c,build/image/%.o,$(BOOT_CORE_SRCS) $(filter %.c,$(BOOT_PCBIOS_SRCS)) \
	$(BOOT_FW_SRCS)) $(patsubst %.S,build/image/%.o,$(filter %.S,$(BOOT_PCBIOS_SRCS)))
BOOT_HOSTED_OBJS := $(patsubst %.c,build/hosted/%.o,$(BOOT_CORE_SRCS) $(BOOT_FW_SRCS))
IMG_OBJS += $(BOOT_IMG_OBJS)
HOSTED_OBJS += $(BOOT_HOSTED_OBJS)
build/image/ibboot.elf: $(BOOT_IMG_OBJS)
bin/ibboot-hosted: $(BOOT_HOSTED_OBJS)
-include $(BOOT_IMG_OBJS:.o=.d) $(BOOT_HOSTED_OBJS:.o=.d)
endif

# ---- unit tests ----
BOOT_TEST_SRCS := src/tests/unit/core/test_sha256.c src/tests/unit/image/test_bzimage.c \
	src/tests/unit/image/test_multiboot.c src/tests/unit/image/test_fetch.c \
	src/tests/unit/script/test_script.c src/tests/framework/test_runner.c
BOOT_UNIT_SRCS := $(BOOT_TEST_SRCS) $(BOOT_CORE_SRCS) $(UNIT_LIB_SRCS)
BOOT_UNIT_OBJS := $(patsubst %.c,build/boot/san/%.o,$(BOOT_UNIT_SRCS))

build/boot/san/%.o: %.c | $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Isrc/tests/framework -MMD -MP -c -o $@ $<

build/boot/boot-unit: $(BOOT_UNIT_OBJS)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

-include $(BOOT_UNIT_OBJS:.o=.d)

# ---- libFuzzer targets (clang) ----
BOOT_FUZZ_CC    ?= clang
BOOT_HAVE_CLANG := $(shell command -v $(BOOT_FUZZ_CC) >/dev/null 2>&1 && echo yes)
BOOT_FUZZ_NAMES := bzimage multiboot script
BOOT_FUZZ_BINS  := $(patsubst %,build/boot/fuzz-%,$(BOOT_FUZZ_NAMES))
BOOT_FUZZ_FLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc/include -Ibuild/include
BOOT_FUZZ_LIB_OBJS := $(patsubst %.c,build/boot/fz/%.o,$(BOOT_CORE_SRCS) $(UNIT_LIB_SRCS))
BOOT_FUZZ_RUNS  ?= 20000

build/boot/fz/%.o: %.c | $(PRM_H)
	@mkdir -p $(@D)
	$(BOOT_FUZZ_CC) $(BOOT_FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP \
		-c -o $@ $<

build/boot/fuzz-%: src/tests/fuzz/$$*/fuzz_$$*.c $(BOOT_FUZZ_LIB_OBJS)
	$(BOOT_FUZZ_CC) $(BOOT_FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< \
		$(BOOT_FUZZ_LIB_OBJS)

-include $(BOOT_FUZZ_LIB_OBJS:.o=.d)

.PHONY: check-boot fuzz-boot check-boot-qemu check-boot-netboot
check-boot: build/boot/boot-unit bin/ibboot.lkrn $(if $(BOOT_HAVE_CLANG),$(BOOT_FUZZ_BINS))
	@util/run-test boot-unit build/boot/boot-unit
ifeq ($(BOOT_HAVE_CLANG),yes)
	@for f in $(BOOT_FUZZ_NAMES); do \
		util/run-test boot-fuzz-$$f src/tests/framework/fuzz-smoke.sh boot build/boot/fuzz-$$f \
			$(BOOT_FUZZ_RUNS) src/tests/fuzz/$$f/seeds -max_len=16384 -close_fd_mask=1; \
	done
else
	@util/run-test boot-fuzz sh -c 'echo "SKIP: boot-fuzz: clang is not installed"; exit 77'
endif
	@$(MAKE) --no-print-directory check-boot-qemu
	@$(MAKE) --no-print-directory check-boot-netboot

# The payload (Debian's kernel + initramfs) booted by ibboot from multiboot modules in QEMU.
check-boot-qemu: bin/ibboot.lkrn payload
	@util/run-test boot-qemu-linux src/tests/e2e/qemu/qemu-linux.sh

# The demo's flow on the embedded default script: QEMU + hermon model + fabsim/OpenSM + dnsmasq/
# nginx (util/netboot-env); DHCP, boot.ipxe over TFTP, kernel and initrd over HTTP with SHA-256
# pins, Linux prints its marker. SKIPs when the QEMU with the hermon device is not built.
check-boot-netboot: bin/ibboot.lkrn payload bin/libhcasim.so bin/libfabsim_client.so bin/fabsim qemu \
		bin/fabsim-servernode
	@util/run-test boot-netboot src/tests/e2e/qemu/netboot-qemu.sh

fuzz-boot: $(BOOT_FUZZ_BINS)
	@for f in $(BOOT_FUZZ_NAMES); do \
		mkdir -p build/boot/corpus-$$f; \
		cp -n src/tests/fuzz/$$f/seeds/* build/boot/corpus-$$f/ 2>/dev/null; \
		build/boot/fuzz-$$f -max_total_time=120 -max_len=65536 -close_fd_mask=1 \
			-artifact_prefix=build/boot/ build/boot/corpus-$$f || exit 1; \
	done

ALL_TARGETS   += build/boot/boot-unit
CHECK_TARGETS += check-boot
FUZZ_TARGETS  += fuzz-boot
CLEAN_FILES   += build/boot
