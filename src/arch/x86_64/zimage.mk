# The compressed image, bin/ibboot-z.lkrn (bin/ibboot.lkrn is a copy): the setup sectors, then a 32-bit stub (zhead.S,
# zstub.c, unlzma.c; ibboot-z.ld) carrying the body of build/image/ibboot.elf (.text: code, rodata,
# data; .bss is not stored) as raw LZMA1 after the x86 BCJ filter (util/zimage/pack, xz). The stub
# unpacks the body to its link address, checks its CRC-32 and enters it. Included from src/src.mk.
#
#   make bin/ibboot-z.lkrn check-zimage

ZIMG_CFLAGS := -std=c11 -Os -m32 -march=i686 -Wall -Wextra -Werror -ffreestanding -nostdinc \
	-isystem $(shell $(IMG_CC) -print-file-name=include) -fno-pic -fno-pie -mgeneral-regs-only \
	-fno-stack-protector -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-fno-tree-loop-distribute-patterns -ffunction-sections -fdata-sections -Isrc/arch/x86_64
ZIMG_OBJS := build/zimage/setup16.o build/zimage/zhead.o build/zimage/zstub.o \
	build/zimage/unlzma.o build/zimage/zpayload.o

build/zimage/%.o: src/arch/x86_64/%.c
	@mkdir -p $(@D)
	$(IMG_CC) $(ZIMG_CFLAGS) -MMD -MP -c -o $@ $<
build/zimage/%.o: src/arch/x86_64/%.S
	@mkdir -p $(@D)
	$(IMG_CC) -m32 $(IMG_ASFLAGS) -Ibuild/zimage -MMD -MP -c -o $@ $<
build/zimage/zpayload.o: build/zimage/body.ibz

build/zimage/body.bin: build/image/ibboot.elf
	@mkdir -p $(@D)
	$(IMG_OBJCOPY) -O binary -j .text $< $@
build/zimage/body.ibz: build/zimage/body.bin util/zimage/pack
	util/zimage/pack $< $@
# What the stub needs to know of the body: where its run-time extent ends, its length, its entry.
build/zimage/body.syms: build/image/ibboot.elf
	@mkdir -p $(@D)
	nm $< | awk '$$3 == "_end" { print "--defsym=zbody_end=0x" $$1 } \
		$$3 == "common32" { print "--defsym=zbody_common32=0x" $$1 }' > $@.tmp
	echo "--defsym=zbody_len=$$(($$(nm $< | awk '$$3 == "_edata" { print "0x" $$1 }') - \
		$$(nm $< | awk '$$3 == "_text" { print "0x" $$1 }')))" >> $@.tmp
	test $$(wc -l < $@.tmp) -eq 3 && mv $@.tmp $@

build/zimage/ibboot-z.elf: $(ZIMG_OBJS) src/arch/x86_64/ibboot-z.ld build/zimage/body.syms
	$(IMG_LD) -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
		--build-id=none --gc-sections -T src/arch/x86_64/ibboot-z.ld \
		$$(cat build/zimage/body.syms) -o $@ $(ZIMG_OBJS)

bin/ibboot-z.lkrn: build/zimage/ibboot-z.elf
	@mkdir -p $(@D)
	$(IMG_OBJCOPY) -O binary $< $@
	@echo "$@: $$(stat -c %s $@) bytes (stub $$(size -A build/zimage/unlzma.o build/zimage/zstub.o \
		build/zimage/zhead.o | awk '/^\.text|^\.rodata/ { s += $$2 } END { print s }') bytes of code)"

-include $(ZIMG_OBJS:.o=.d)

# ---- the decoder's tests: hosted (ASan/UBSan) unit program and a libFuzzer target ----
build/tests/unit-arch: src/tests/unit/arch/test_unlzma.c src/arch/x86_64/unlzma.c \
		src/arch/x86_64/unlzma.h src/tests/framework/test_runner.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Isrc/tests/framework -Isrc/arch/x86_64 -o $@ \
		src/tests/unit/arch/test_unlzma.c src/arch/x86_64/unlzma.c src/tests/framework/test_runner.c
build/tests/fuzz-unlzma: src/tests/fuzz/unlzma/fuzz_unlzma.c src/arch/x86_64/unlzma.c \
		src/arch/x86_64/unlzma.h
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -Isrc/arch/x86_64 \
		-fsanitize=fuzzer,address,undefined -o $@ src/tests/fuzz/unlzma/fuzz_unlzma.c \
		src/arch/x86_64/unlzma.c

# The decoder against xz (round trips, corrupt and truncated streams, the image's own body), the
# fuzz smoke run, and damaged images refused in QEMU. (check-qemu-smoke boots bin/ibboot.lkrn,
# which is this image, through every loader.)
.PHONY: check-zimage fuzz-unlzma
check-zimage: build/tests/unit-arch $(if $(HAVE_CLANG),build/tests/fuzz-unlzma) bin/ibboot-z.lkrn
	@IBZ_FILE=build/zimage/body.ibz IBZ_BODY=build/zimage/body.bin util/run-test unit-arch \
		build/tests/unit-arch
	@$(call FUZZ_SMOKE,zimage,unlzma,50000,8192)
	@util/run-test zimage-damaged src/tests/e2e/qemu/zimage-damaged.sh
fuzz-unlzma: $(if $(HAVE_CLANG),build/tests/fuzz-unlzma)
	@$(call FUZZ_LONG,unlzma,8192,60)

# make bench's size row: the compressed image against the goal (64 KiB: an option ROM that fits
# every BIOS's ROM space) and iPXE's hermon-only x86_64 lkrn (95,155 B), with where the bytes go.
.PHONY: bench-size
bench-size: bin/ibboot.lkrn bin/ibboot-raw.lkrn
	@lkrn=$$(stat -c %s bin/ibboot.lkrn); ibz=$$(stat -c %s build/zimage/body.ibz); \
	printf 'bench-size: %-28s %7d B  goal %d B (%+d)  iPXE hermon-only lkrn %d B (ratio %.2f)\n' \
		bin/ibboot.lkrn $$lkrn 65536 $$((lkrn - 65536)) 95155 $$(echo "95155 / $$lkrn" | bc -l); \
	printf 'bench-size: %-28s %7d B  (setup sectors + stub %d B, packed body %d B)\n' \
		'  of which' $$lkrn $$((lkrn - ibz)) $$ibz; \
	printf 'bench-size: %-28s %7d B  (body as objcopy writes it; compresses to %d%%)\n' \
		bin/ibboot-raw.lkrn $$(stat -c %s bin/ibboot-raw.lkrn) \
		$$((100 * ibz / $$(stat -c %s build/zimage/body.bin)))
