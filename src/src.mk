# src/ — the firmware image, the hosted build and the unit tests.
#
#   bin/ibboot.lkrn      the freestanding x86_64 image (Linux boot protocol + multiboot v1)
#   bin/ibboot-hosted    the same core as a Linux program (software PCI devices)
#   bin/tests/unit       unit tests (hosted, ASan/UBSan)
#   make check-unit, check-qemu-smoke, demo-image

# The fast unit tests run before the fragments included below add theirs.
CHECK_TARGETS += check-unit

IBBOOT_VERSION_DEF := -DIBBOOT_VERSION='"$(VERSION)"'
# Objects that print the version are rebuilt when it changes (the stamp changes only then).
IBBOOT_VERSION_STAMP := build/ibboot-version.stamp
$(shell mkdir -p build && (echo '$(VERSION)' | cmp -s - $(IBBOOT_VERSION_STAMP) || echo '$(VERSION)' > $(IBBOOT_VERSION_STAMP)))
build/image/src/core/main.o build/hosted/src/core/main.o build/unit/src/core/main.o: $(IBBOOT_VERSION_STAMP)

# Platform-independent code: identical in the image, the hosted program and the tests.
CORE_SRCS := src/core/fmt.c src/core/console.c src/core/errno.c src/core/timer.c \
	src/core/physmem.c src/core/dma.c src/core/mmio.c src/core/shell.c src/core/diag.c \
	src/core/hooks.c src/core/main.c src/core/checksum.c src/core/hex.c \
	src/cmd/core_cmd.c src/cmd/mem_cmd.c src/cmd/pci_cmd.c
BUS_SRCS := src/drivers/bus/pci.c src/drivers/bus/pci_driver.c src/drivers/bus/pci_print.c
HOSTED_PLAT_SRCS := src/platform/hosted/platform.c src/platform/hosted/pci.c \
	src/platform/hosted/soft_cfg.c src/platform/hosted/fakedev.c

# Device drivers go into the image and the hosted program (their tests live in their own
# fragments, which the top Makefile includes after this one).
DRIVER_SRCS := $(sort $(wildcard src/drivers/infiniband/*.c)) src/cmd/fw_cmd.c

# The IB core, IPoIB and IP layers: their fragment (owned by the ibcore work) defines their tests
# and exports NET_SRCS, NET_IBLIB_SRCS and NET_CFLAGS for the programs built here.
-include src/net/net.mk
STACK_SRCS := $(if $(NET_SRCS),$(NET_SRCS) $(NET_IBLIB_SRCS) src/cmd/ib_cmd.c src/cmd/net_cmd.c \
	src/cmd/dhcp_cmd.c src/cmd/http_cmd.c)

# ---- hosted program ----
# It carries the HCA model (libhcasim, built by util/hcasim/hcasim.mk) and fabsim's attachment
# client, so --hca/--fabric put a simulated ConnectX-3 on its PCI bus.
HOSTED_MODEL_SRCS := $(if $(wildcard util/hcasim/hcasim.mk),src/platform/hosted/hca.c \
	util/fabsim/hca_attach.c util/fabsim/fabsim_client.c)
HOSTED_MODEL_LIBS := $(if $(HOSTED_MODEL_SRCS),build/hcasim/libhcasim.a build/wire/libwire.a)
HOSTED_SRCS := $(CORE_SRCS) $(BUS_SRCS) $(DRIVER_SRCS) $(STACK_SRCS) $(HOSTED_PLAT_SRCS) \
	$(HOSTED_MODEL_SRCS) src/platform/hosted/main.c
HOSTED_OBJS := $(patsubst %.c,build/hosted/%.o,$(HOSTED_SRCS))

build/hosted/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(NET_CFLAGS) -Iutil/hcasim/include -Iutil/fabsim \
		$(IBBOOT_VERSION_DEF) -MMD -MP -c -o $@ $<

bin/ibboot-hosted: $(HOSTED_OBJS) $(HOSTED_MODEL_LIBS)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $(HOSTED_OBJS) $(HOSTED_MODEL_LIBS)

-include $(HOSTED_OBJS:.o=.d)

# ---- unit tests: everything above but the hosted main ----
UNIT_LIB_SRCS := $(CORE_SRCS) $(BUS_SRCS) $(HOSTED_PLAT_SRCS)
UNIT_TEST_SRCS := src/tests/framework/test_runner.c src/tests/unit/core/test_alloc.c \
	src/tests/unit/core/test_fmt.c src/tests/unit/core/test_tables.c src/tests/unit/core/tables_other.c src/tests/unit/core/test_shell.c \
	src/tests/unit/core/test_timer.c src/tests/unit/core/test_checksum.c src/tests/unit/core/test_hex.c \
	src/tests/unit/drivers/bus/test_pci.c src/tests/unit/prm/test_prm.c
UNIT_OBJS := $(patsubst %.c,build/unit/%.o,$(UNIT_TEST_SRCS) $(UNIT_LIB_SRCS))

build/unit/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(IBBOOT_VERSION_DEF) -Isrc/tests/framework -MMD -MP -c -o $@ $<

bin/tests/unit: $(UNIT_OBJS)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

-include $(UNIT_OBJS:.o=.d)

.PHONY: check-unit
check-unit: bin/tests/unit bin/ibboot-hosted
	@util/run-test unit bin/tests/unit
	@util/run-test hosted-smoke src/tests/e2e/hosted/hosted-smoke.sh
	@util/run-test hosted-hca src/tests/e2e/hosted/hosted-hca.sh

ALL_TARGETS += bin/tests/unit bin/ibboot-hosted

# ---- the freestanding image ----
IMG_CC := gcc
IMG_LD := ld
IMG_OBJCOPY := objcopy
IMG_CFLAGS := -std=c11 -Os -g -Wall -Wextra -Werror -ffreestanding -nostdinc \
	-isystem $(shell $(IMG_CC) -print-file-name=include) -fno-pic -fno-pie -mno-red-zone \
	-mgeneral-regs-only -mcmodel=small -fno-stack-protector -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fno-tree-loop-distribute-patterns --param=min-pagesize=0 -fno-strict-aliasing \
	-Isrc/include -Ibuild/include -Isrc/arch/x86_64/include $(NET_CFLAGS) $(IBBOOT_VERSION_DEF)
IMG_ASFLAGS := -Isrc/arch/x86_64 -D__ASSEMBLY__
IMG_LDFLAGS := -nostdlib -static -z noexecstack --no-warn-rwx-segments --build-id=none \
	-T src/arch/x86_64/ibboot.ld

IMG_ASM_SRCS := src/arch/x86_64/setup16.S src/arch/x86_64/head.S src/arch/x86_64/linux64.S
IMG_C_SRCS := $(CORE_SRCS) $(BUS_SRCS) $(DRIVER_SRCS) $(STACK_SRCS) src/core/string.c \
	src/arch/x86_64/paging.c src/arch/x86_64/exception.c \
	src/platform/pcbios/start.c src/platform/pcbios/bootinfo.c src/platform/pcbios/serial.c src/platform/pcbios/vga.c \
	src/platform/pcbios/keyboard.c \
	src/platform/pcbios/tsc.c src/platform/pcbios/acpi.c src/platform/pcbios/pci_cfg.c \
	src/platform/pcbios/platform.c
IMG_OBJS := $(patsubst %.S,build/image/%.o,$(IMG_ASM_SRCS)) $(patsubst %.c,build/image/%.o,$(IMG_C_SRCS))

build/image/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(IMG_CC) $(IMG_CFLAGS) -MMD -MP -c -o $@ $<

build/image/%.o: %.S
	@mkdir -p $(@D)
	$(IMG_CC) $(IMG_ASFLAGS) -MMD -MP -c -o $@ $<

build/image/ibboot.elf: $(IMG_OBJS) src/arch/x86_64/ibboot.ld
	$(IMG_LD) $(IMG_LDFLAGS) -o $@ $(IMG_OBJS)

bin/ibboot.lkrn: build/image/ibboot.elf
	@mkdir -p $(@D)
	$(IMG_OBJCOPY) -O binary $< $@
	@echo "$@: $$(stat -c %s $@) bytes"

-include $(IMG_OBJS:.o=.d)

ALL_TARGETS += bin/ibboot.lkrn

# ---- QEMU smoke test and the interim demo ----
.PHONY: check-qemu-smoke demo-image
check-qemu-smoke: bin/ibboot.lkrn
	@util/run-test qemu-smoke src/tests/e2e/qemu/smoke.sh

CHECK_TARGETS += check-qemu-smoke

# Boots the image in QEMU with an e1000 beside it: banner, memory, PCI scan, then power off.
# (isa-debug-exit turns the poweroff into QEMU exit status 1, which is the success here.)
demo-image: bin/ibboot.lkrn
	@echo "== booting bin/ibboot.lkrn in QEMU (TCG): qemu-system-x86_64 -kernel bin/ibboot.lkrn -m 256 -device e1000"
	@timeout --kill-after=5 120 qemu-system-x86_64 -nographic -no-reboot -nodefaults -serial stdio \
		-monitor none -m 256 -device isa-debug-exit -device e1000 -kernel bin/ibboot.lkrn \
		-append "ibboot.cmd=help,mem,poweroff" </dev/null | tr -d '\r'; \
	status=$${PIPESTATUS[0]}; \
	if [ $$status -eq 1 ]; then echo "== ibboot powered the VM off cleanly"; \
	else echo "== QEMU exited with status $$status (expected 1: isa-debug-exit)"; exit 1; fi
