# src/ — what the firmware is made of, and the four ways it is compiled.
#
#   image  freestanding x86_64 (gcc -Os): build/image/<path>.o -> bin/ibboot.lkrn
#   san    hosted, ASan/UBSan (gcc): build/san/<path>.o -> bin/ibboot-hosted and every unit test
#          (through build/san/libibboot.a)
#   fuzz   hosted, libFuzzer + ASan/UBSan (clang): build/fuzz/<path>.o -> build/fuzz/libibboot.a
#   opt    hosted, -O2 without sanitizers (gcc): build/opt/<path>.o -> the benches
# Tests, fuzz targets and benches themselves are built by src/tests/tests.mk.
#
#   make check-qemu-smoke, demo-image

# ---- the sources: one list per component, every file named ----
CORE_SRCS := src/core/console.c src/core/diag.c src/core/dma.c src/core/errno.c src/core/fmt.c \
	src/core/hooks.c src/core/main.c src/core/mmio.c src/core/physmem.c src/core/sha256.c \
	src/core/shell.c src/core/timer.c src/core/checksum.c src/core/hex.c \
	src/core/memmap.c src/core/tsc_rate.c src/core/random.c \
	src/core/console_log.c
BUS_SRCS := src/drivers/bus/pci.c src/drivers/bus/pci_driver.c src/drivers/bus/pci_print.c
IB_DRIVER_SRCS := src/drivers/infiniband/hermon.c src/drivers/infiniband/hermon_cmd.c \
	src/drivers/infiniband/hermon_cq.c src/drivers/infiniband/hermon_dump.c \
	src/drivers/infiniband/hermon_eq.c src/drivers/infiniband/hermon_ib.c \
	src/drivers/infiniband/hermon_icm.c src/drivers/infiniband/hermon_mcast.c \
	src/drivers/infiniband/hermon_mr.c src/drivers/infiniband/hermon_port.c \
	src/drivers/infiniband/hermon_qp.c src/drivers/infiniband/hermon_selftest.c
# WIRE_SRCS (the wire formats) is the top Makefile's: util/ compiles them too.
IBCORE_SRCS := src/net/infiniband/ib_core.c src/net/infiniband/ib_mad.c \
	src/net/infiniband/ib_port.c src/net/infiniband/ib_sa.c src/net/infiniband/ib_sma.c
NET_SRCS := src/net/netdev.c src/net/ipoib.c src/net/ipoib_arp.c src/net/ipv4.c src/net/icmp.c \
	src/net/udp.c src/net/dhcp.c src/net/dhcp_settings.c src/net/dns.c src/net/tftp.c \
	src/net/tcp.c src/net/uri.c src/net/http.c src/net/http_client.c \
	src/net/net_commands.c src/net/net_hooks.c src/net/tftp_put.c src/net/report.c
IMAGE_SRCS := src/image/image.c src/image/bzimage.c src/image/multiboot.c \
	src/image/multiboot_load.c src/image/fetch.c src/image/fetch_net.c src/image/boot.c
SCRIPT_SRCS := src/script/script.c src/script/phase.c src/script/firmware.c
CMD_SRCS := src/cmd/core_cmd.c src/cmd/mem_cmd.c src/cmd/pci_cmd.c src/cmd/ib_cmd.c \
	src/cmd/fw_cmd.c src/cmd/net_cmd.c src/cmd/dhcp_cmd.c src/cmd/http_cmd.c src/cmd/image_cmd.c \
	src/cmd/selftest_cmd.c \
	src/cmd/report_cmd.c src/cmd/set_cmd.c

# Everything above is platform-independent: the same files in the image, the hosted program and
# the tests.
FIRMWARE_SRCS := $(CORE_SRCS) $(BUS_SRCS) $(IB_DRIVER_SRCS) $(WIRE_SRCS) $(IBCORE_SRCS) \
	$(NET_SRCS) $(IMAGE_SRCS) $(SCRIPT_SRCS) $(CMD_SRCS)

# Bare metal only.
PCBIOS_SRCS := src/core/string.c src/arch/x86_64/paging.c src/arch/x86_64/exception.c \
	src/platform/pcbios/start.c src/platform/pcbios/bootinfo.c src/platform/pcbios/serial.c \
	src/platform/pcbios/vga.c src/platform/pcbios/keyboard.c src/platform/pcbios/tsc.c \
	src/platform/pcbios/acpi.c src/platform/pcbios/pci_cfg.c src/platform/pcbios/platform.c \
	src/platform/pcbios/biosexit.c src/image/mb_pcbios.c src/arch/x86_64/metal.c
PCBIOS_ASM_SRCS := src/arch/x86_64/setup16.S src/arch/x86_64/head.S src/arch/x86_64/linux64.S \
	src/arch/x86_64/romexit.S src/image/mb_enter.S

# Linux only: software PCI devices; --hca/--fabric put the HCA model (util/hcasim) on fabsim
# (util/fabsim) on the hosted PCI bus.
HOSTED_PLAT_SRCS := src/platform/hosted/platform.c src/platform/hosted/pci.c \
	src/platform/hosted/soft_cfg.c src/platform/hosted/fakedev.c
HOSTED_MAIN_SRCS := src/platform/hosted/main.c src/platform/hosted/hca.c \
	util/fabsim/hca_attach.c util/fabsim/fabsim_client.c

# The one list of image objects (hooks and commands are ordered by their table keys, not by it).
IMG_OBJS := $(patsubst %.S,build/image/%.o,$(PCBIOS_ASM_SRCS)) \
	$(patsubst %.c,build/image/%.o,$(FIRMWARE_SRCS) $(PCBIOS_SRCS))

# What the hosted variants share: the firmware and the hosted platform (not its main).
LIB_SRCS := $(FIRMWARE_SRCS) $(HOSTED_PLAT_SRCS)

# ---- flags ----
IBBOOT_VERSION_DEF := -DIBBOOT_VERSION='"$(VERSION)"'
# Objects that print the version are rebuilt when it changes (the stamp changes only then).
IBBOOT_VERSION_STAMP := build/ibboot-version.stamp
$(shell mkdir -p build && (echo '$(VERSION)' | cmp -s - $(IBBOOT_VERSION_STAMP) || echo '$(VERSION)' > $(IBBOOT_VERSION_STAMP)))
$(foreach v,image san fuzz opt,build/$(v)/src/core/main.o build/$(v)/src/net/http_client.o \
	build/$(v)/src/net/report.o): \
	$(IBBOOT_VERSION_STAMP)

# make TRUST=enforce: bin/ibboot.lkrn starts in the enforcing trust policy (config.h
# TRUST_ENFORCE); image.o is rebuilt when the choice changes. The hosted builds and tests keep
# the default (a test turns it on with imgtrust).
ifneq ($(filter-out enforce,$(TRUST)),)
$(error TRUST=$(TRUST): the only choice is TRUST=enforce)
endif
TRUST_STAMP := build/ibboot-trust.stamp
$(shell mkdir -p build && (echo '$(TRUST)' | cmp -s - $(TRUST_STAMP) || echo '$(TRUST)' > $(TRUST_STAMP)))
build/image/src/image/image.o: $(TRUST_STAMP)
build/image/src/image/image.o: IMG_CFLAGS += $(if $(TRUST),-DTRUST_ENFORCE=1)

IMG_CC := gcc
IMG_COMMA := ,
IMG_LD := ld
IMG_OBJCOPY := objcopy
# -ffunction-sections/-fdata-sections + --gc-sections: what nothing calls is not linked.
# IMG_PACK_CFLAGS: -Os passes whose output our coder (ZCM, src/arch/x86_64/zcm.c) packs worse than
# the code gcc writes without them: conditional moves (if-conversion), tail calls as jumps, merged
# and threaded tails, shrink-wrapped prologues, hoisted loop invariants, peephole rewrites, jump
# tables and the rest below make a body that is a little smaller raw but less regular. Measured one
# flag at a time, then together, each recompiling every file, on the body of f21ce9e: packed body
# 63,020 -> 61,002 B (raw 156,208 -> 157,008). Every one turns an optimisation off, none changes
# what the C means. src/arch/x86_64/README.md lists the flags that did not pay.
# Without jump threading (-fno-thread-jumps, -fno-tree-dominator-opts: -208 B) gcc's
# maybe-uninitialized analysis no longer sees that an out-parameter is set on every path that
# reads it (dma.c, hermon_ib.c, tftp.c), so that warning is off for these objects; every other
# build of the same sources (hosted -O2 with -Werror, the per-packet files below, clang's fuzz
# build) keeps it.
IMG_PACK_CFLAGS := -fno-if-conversion -fno-optimize-sibling-calls -fno-caller-saves \
	-fno-tree-tail-merge -fno-shrink-wrap -fno-partial-inlining -fno-move-loop-invariants \
	-fno-peephole2 -fno-tree-loop-im -fno-tree-copy-prop -fno-jump-tables -fno-ipa-sra \
	-fno-ira-hoist-pressure -fno-ipa-pure-const -fno-tree-scev-cprop -fno-thread-jumps -fno-tree-dominator-opts -Wno-maybe-uninitialized
# The per-packet and per-byte path keeps every pass: without them the HTTP download took a third
# more guest instructions per MiB (make bench-netboot: 2.34 -> 3.12 M). These files are compiled
# without IMG_PACK_CFLAGS (in the image and the EFI image alike).
IMG_FAST_SRCS := src/core/string.c src/core/checksum.c src/core/timer.c src/net/netdev.c \
	src/net/infiniband/ib_core.c src/drivers/infiniband/hermon_cq.c src/drivers/infiniband/hermon_eq.c
IMG_CFLAGS := -std=c11 -Os -g -Wall -Wextra -Werror -ffreestanding -nostdinc \
	-isystem $(shell $(IMG_CC) -print-file-name=include) -fno-pic -fno-pie -mno-red-zone \
	-mgeneral-regs-only -mcmodel=small -fno-stack-protector -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fno-tree-loop-distribute-patterns --param=min-pagesize=0 -fno-strict-aliasing \
	-ffunction-sections -fdata-sections $(IMG_PACK_CFLAGS) \
	-Isrc/include -Ibuild/include -Isrc/arch/x86_64/include $(IBBOOT_VERSION_DEF)
IMG_ASFLAGS := -Isrc/arch/x86_64 -D__ASSEMBLY__
IMG_LDFLAGS := -nostdlib -static -z noexecstack --no-warn-rwx-segments --build-id=none \
	--gc-sections -T src/arch/x86_64/ibboot.ld
# Link-time optimisation (one partition: the whole image is one program to gcc): inlining and
# dead-code removal across files, 3.8 KB off the compressed image. Every function keeps the -O
# level it was compiled with (gcc records it per function in the LTO object). The image is then
# linked by gcc, which hands IMG_LDFLAGS to ld. The image's objects are rebuilt when this changes.
# (Objects and the image are written through per-process temporaries, and the link reads a
# private copy of the objects: two makes in this tree may build them at once, and gcc's LTO reads
# each object twice, its symbols for ld, then its code, which must be the same file.)
IMG_LTO_CFLAGS := -flto -flto-partition=none
# (The stamp holds IMG_PACK_CFLAGS as well: the image's and the EFI image's objects are rebuilt
# when they change.)
IMG_LTO_STAMP := build/image-lto.stamp
$(shell mkdir -p build && (echo '$(IMG_LTO_CFLAGS) $(IMG_PACK_CFLAGS) $(IMG_FAST_SRCS)' | \
	cmp -s - $(IMG_LTO_STAMP) || \
	echo '$(IMG_LTO_CFLAGS) $(IMG_PACK_CFLAGS) $(IMG_FAST_SRCS)' > $(IMG_LTO_STAMP)))
$(patsubst %.c,build/image/%.o,$(IMG_FAST_SRCS)): IMG_CFLAGS := \
	$(filter-out $(IMG_PACK_CFLAGS),$(IMG_CFLAGS))
$(patsubst %.c,build/image/%.o,$(FIRMWARE_SRCS) $(PCBIOS_SRCS)): $(IMG_LTO_STAMP)

# The hosted variants see the test framework, the fakes and the model's headers (the hosted HCA).
HOSTED_INCS := -Isrc/tests/framework -Isrc/tests/fakes -Isrc/drivers/infiniband \
	-Iutil/hcasim/include -Iutil/fabsim
SAN_CFLAGS := $(HOST_CFLAGS) $(SAN_FLAGS) $(HOSTED_INCS) $(IBBOOT_VERSION_DEF)
OPT_CFLAGS := $(HOST_CFLAGS) $(HOSTED_INCS) $(IBBOOT_VERSION_DEF)
FUZZ_CC ?= clang
HAVE_CLANG := $(shell command -v $(FUZZ_CC) >/dev/null 2>&1 && echo yes)
# (-Wno-string-plus-int: clang flags `STRING + offset`, which the script code uses on purpose.)
FUZZ_CFLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -Wno-string-plus-int -D_GNU_SOURCE \
	-Isrc/include -Ibuild/include \
	$(HOSTED_INCS) $(IBBOOT_VERSION_DEF)

# ---- the four variants ----
build/image/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(IMG_CC) $(IMG_CFLAGS) $(IMG_LTO_CFLAGS) -MMD -MP -MT $@ -MF $(@:.o=.d) -c -o $@.$$$$.tmp $< && \
		mv $@.$$$$.tmp $@

build/image/%.o: %.S
	@mkdir -p $(@D)
	$(IMG_CC) $(IMG_ASFLAGS) -MMD -MP -c -o $@ $<

build/san/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_CFLAGS) -MMD -MP -c -o $@ $<

build/opt/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(OPT_CFLAGS) -MMD -MP -c -o $@ $<

build/fuzz/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<

SAN_LIB_OBJS := $(patsubst %.c,build/san/%.o,$(LIB_SRCS))
OPT_LIB_OBJS := $(patsubst %.c,build/opt/%.o,$(LIB_SRCS))
FUZZ_LIB_OBJS := $(patsubst %.c,build/fuzz/%.o,$(LIB_SRCS))

# Archives for the test programs: a test links only what it calls, and its fakes (linked first as
# objects) stand in for what they replace.
build/san/libibboot.a: $(SAN_LIB_OBJS)
	rm -f $@ && ar rcs $@ $^
build/opt/libibboot.a: $(OPT_LIB_OBJS)
	rm -f $@ && ar rcs $@ $^
build/fuzz/libibboot.a: $(FUZZ_LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

# ---- products ----
build/image/ibboot.elf: $(IMG_OBJS) src/arch/x86_64/ibboot.ld
	t=$@.$$$$.objs; rm -rf $$t && mkdir -p $$t && cp --parents $(IMG_OBJS) $$t/ && \
	$(IMG_CC) $(IMG_CFLAGS) $(IMG_LTO_CFLAGS) -nostdlib -static \
		$(foreach f,$(IMG_LDFLAGS),-Wl$(IMG_COMMA)$(f)) -o $$t/ibboot.elf \
		$(addprefix $$t/,$(IMG_OBJS)) && mv $$t/ibboot.elf $@; rc=$$?; rm -rf $$t; exit $$rc

# bin/ibboot.lkrn is the compressed image: a stub that unpacks the body at boot (bin/ibboot-z.lkrn,
# src/arch/x86_64/zimage.mk). bin/ibboot-raw.lkrn is the same body uncompressed, as objcopy writes
# it (bootable the same way; for comparison and debugging).
bin/ibboot-raw.lkrn: build/image/ibboot.elf
	@mkdir -p $(@D)
	$(IMG_OBJCOPY) -O binary $< $@
	@echo "$@: $$(stat -c %s $@) bytes"
bin/ibboot.lkrn: bin/ibboot-z.lkrn
	cp $< $@
	@echo "$@: $$(stat -c %s $@) bytes (compressed; make bin/ibboot-raw.lkrn for the body as is)"

include src/arch/x86_64/zimage.mk

# The hosted program: every firmware object (its link-time tables take whatever is linked) and
# the HCA model.
HOSTED_OBJS := $(SAN_LIB_OBJS) $(patsubst %.c,build/san/%.o,$(HOSTED_MAIN_SRCS))
bin/ibboot-hosted: $(HOSTED_OBJS) build/hcasim/libhcasim.a
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $(HOSTED_OBJS) build/hcasim/libhcasim.a

-include $(IMG_OBJS:.o=.d) $(HOSTED_OBJS:.o=.d) $(OPT_LIB_OBJS:.o=.d) $(FUZZ_LIB_OBJS:.o=.d)

ALL_TARGETS += bin/ibboot.lkrn bin/ibboot-hosted

# ---- QEMU smoke test and the interim demo ----
.PHONY: check-qemu-smoke demo-image
check-qemu-smoke: bin/ibboot.lkrn
	@util/run-test qemu-smoke src/tests/e2e/qemu/smoke.sh

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
