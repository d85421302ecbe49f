# The compressed image, bin/ibboot-z.lkrn (bin/ibboot.lkrn is a copy): the setup sectors, then
# stage 0 (zstage0.S; ibboot-z.ld) carrying a 32-bit stub (zhead.S, zstub.c, zcm.c;
# zstage0-stub.ld) packed by build/zimage/zs0pack (util/zimage/zs0pack.c, zstage0.h) and the body
# of build/image/ibboot.elf (.text: code, rodata, data; .bss is not stored) packed by our
# context-mixing coder after the x86 call/jump transform (build/zimage/zpack from
# util/zimage/zpack.c and the stub's own zcm.c). Stage 0 unpacks the stub and checks its hash; the
# stub unpacks the body to its link address, checks its CRC-32 and enters it. Included from
# src/src.mk.
#
#   make bin/ibboot-z.lkrn check-zimage

# (-march=pentium4 -mregparm=3: the stub as stage 0 packs it 90 B smaller than -march=i686 with
# stack arguments, -fomit-frame-pointer (not the -m32 default here) 68 B more; every x86-64 CPU
# runs it, and -mgeneral-regs-only keeps SSE out)
ZIMG_CFLAGS := -std=c11 -Os -m32 -march=pentium4 -mregparm=3 -fomit-frame-pointer -Wall -Wextra -Werror -ffreestanding -nostdinc \
	-isystem $(shell $(IMG_CC) -print-file-name=include) -fno-pic -fno-pie -mgeneral-regs-only \
	-fno-stack-protector -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-fno-tree-loop-distribute-patterns -ffunction-sections -fdata-sections -Isrc/arch/x86_64
# The stub (what stage 0 unpacks), then the image: setup sectors, stage 0 with the packed stub,
# the payload.
ZSTUB_OBJS := build/zimage/zhead.o build/zimage/zstub.o build/zimage/zcm.o
ZIMG_OBJS := build/zimage/setup16.o build/zimage/zstage0.o build/zimage/zpayload.o

build/zimage/%.o: src/arch/x86_64/%.c
	@mkdir -p $(@D)
	$(IMG_CC) $(ZIMG_CFLAGS) -MMD -MP -c -o $@ $<
build/zimage/%.o: src/arch/x86_64/%.S
	@mkdir -p $(@D)
	$(IMG_CC) -m32 $(IMG_ASFLAGS) -Ibuild/zimage -MMD -MP -c -o $@ $<
build/zimage/zpayload.o: build/zimage/body.ibz
# (the flags above set the stub's calling convention, which zhead.S follows)
$(ZSTUB_OBJS): src/arch/x86_64/zimage.mk
build/zimage/zstage0.o: build/zimage/zstub.s0z

build/zimage/body.bin: build/image/ibboot.elf
	@mkdir -p $(@D)
	$(IMG_OBJCOPY) -O binary -j .text $< $@
# The packer: the same model source (zcm.c) as the stub's decoder, built for the host.
build/zimage/zpack: util/zimage/zpack.c src/arch/x86_64/zcm.c src/arch/x86_64/zcm.h
	@mkdir -p $(@D)
	$(HOST_CC) -std=c11 -O2 -Wall -Wextra -Werror -Isrc/arch/x86_64 -o $@ util/zimage/zpack.c \
		src/arch/x86_64/zcm.c
# (primed with the stub's image, which the stub holds when it decodes: zstub.c)
build/zimage/body.ibz: build/zimage/body.bin build/zimage/zpack build/zimage/zstub.bin
	build/zimage/zpack --prime build/zimage/zstub.bin $< $@
# What the stub needs to know of the body: where its run-time extent ends, its length, its entry.
build/zimage/body.syms: build/image/ibboot.elf
	@mkdir -p $(@D)
	nm $< | awk '$$3 == "_end" { print "--defsym=zbody_end=0x" $$1 } \
		$$3 == "common32" { print "--defsym=zbody_common32=0x" $$1 }' > $@.tmp
	echo "--defsym=zbody_len=$$(($$(nm $< | awk '$$3 == "_edata" { print "0x" $$1 }') - \
		$$(nm $< | awk '$$3 == "_text" { print "0x" $$1 }')))" >> $@.tmp
	test $$(wc -l < $@.tmp) -eq 3 && mv $@.tmp $@

build/zimage/zstub.elf: $(ZSTUB_OBJS) src/arch/x86_64/zstage0-stub.ld build/zimage/body.syms
	$(IMG_LD) -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
		--build-id=none --gc-sections -T src/arch/x86_64/zstage0-stub.ld \
		$$(cat build/zimage/body.syms) -o $@ $(ZSTUB_OBJS)
build/zimage/zstub.bin: build/zimage/zstub.elf
	$(IMG_OBJCOPY) -O binary -j .text $< $@
# Stage 0's packer (util/zimage/zs0pack.c, the model of src/arch/x86_64/zstage0.h): it decodes
# its output again and writes nothing unless that gives the stub back.
build/zimage/zs0pack: util/zimage/zs0pack.c src/arch/x86_64/zstage0.h
	@mkdir -p $(@D)
	$(HOST_CC) -std=c11 -O2 -Wall -Wextra -Werror -Isrc/arch/x86_64 -o $@ util/zimage/zs0pack.c
build/zimage/zstub.s0z: build/zimage/zstub.bin build/zimage/zs0pack
	build/zimage/zs0pack $< $@
# What stage 0 needs to know of the stub: where it goes, its length and end, the tables' place.
build/zimage/zstub.syms: build/zimage/zstub.elf
	nm $< | awk '$$3 == "_ztext" { print "--defsym=zs0_out=0x" $$1 } \
		$$3 == "_zend" { print "--defsym=zs0_stub_end=0x" $$1 } \
		$$3 == "_zarena" { print "--defsym=zs0_ram=0x" $$1 } \
		$$3 == "_zarena_end" { print "--defsym=zcm_arena_end=0x" $$1 }' > $@.tmp
	echo "--defsym=zs0_out_len=$$(stat -c %s build/zimage/zstub.bin)" >> $@.tmp
	test $$(wc -l < $@.tmp) -eq 5 && mv $@.tmp $@
build/zimage/zstub.syms: build/zimage/zstub.bin

build/zimage/ibboot-z.elf: $(ZIMG_OBJS) src/arch/x86_64/ibboot-z.ld build/zimage/body.syms \
		build/zimage/zstub.syms
	$(IMG_LD) -m elf_i386 -nostdlib -static -z noexecstack --no-warn-rwx-segments \
		--build-id=none -T src/arch/x86_64/ibboot-z.ld \
		$$(cat build/zimage/body.syms build/zimage/zstub.syms) -o $@ $(ZIMG_OBJS)

bin/ibboot-z.lkrn: build/zimage/ibboot-z.elf
	@mkdir -p $(@D)
	$(IMG_OBJCOPY) -O binary $< $@
	@s0z=$$(stat -c %s build/zimage/zstub.s0z); text=$$(size -A $< | awk '$$1 == ".text" { print $$2 }'); \
	echo "$@: $$(stat -c %s $@) bytes (stub $$(stat -c %s build/zimage/zstub.bin) bytes packed to $$s0z" \
		"behind stage 0's $$((text - s0z - $$(stat -c %s build/zimage/body.ibz))) bytes (entries," \
		"decoder, alignment), payload beside them)"

-include $(ZIMG_OBJS:.o=.d) $(ZSTUB_OBJS:.o=.d)

# ---- the decoder's tests: hosted (ASan/UBSan) unit program and a libFuzzer target ----
build/tests/unit-arch: src/tests/unit/arch/test_zcm.c src/arch/x86_64/zcm.c \
		src/arch/x86_64/zcm.h src/tests/framework/test_runner.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Isrc/tests/framework -Isrc/arch/x86_64 -o $@ \
		src/tests/unit/arch/test_zcm.c src/arch/x86_64/zcm.c src/tests/framework/test_runner.c
# Stage 0's model (the packer's, which zstage0.S computes alike).
build/tests/unit-zstage0: util/zimage/test_zstage0.c src/arch/x86_64/zstage0.h \
		src/tests/framework/test_runner.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Isrc/tests/framework -Isrc/arch/x86_64 -o $@ \
		util/zimage/test_zstage0.c src/tests/framework/test_runner.c
# The decoder's speed on the image's body (no sanitizers), for bench-size.
build/tests/zcm-speed: src/tests/unit/arch/zcm_speed.c src/arch/x86_64/zcm.c src/arch/x86_64/zcm.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -Isrc/arch/x86_64 -o $@ src/tests/unit/arch/zcm_speed.c \
		src/arch/x86_64/zcm.c
# (small hash tables: the same code and masks, a quicker start per input)
build/tests/fuzz-zcm: src/tests/fuzz/zcm/fuzz_zcm.c src/arch/x86_64/zcm.c src/arch/x86_64/zcm.h
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -Isrc/arch/x86_64 -DZCM_TN=2048 -DZCM_MBITS=10 \
		-fsanitize=fuzzer,address,undefined -o $@ src/tests/fuzz/zcm/fuzz_zcm.c \
		src/arch/x86_64/zcm.c

# The coder's round trips (the image's own body, synthetic inputs), damaged and truncated
# streams refused, the fuzz smoke run, and damaged images refused in QEMU. (check-qemu-smoke boots
# bin/ibboot.lkrn, which is this image, through every loader.)
.PHONY: check-zimage fuzz-zcm
check-zimage: build/tests/unit-arch build/tests/unit-zstage0 $(if $(HAVE_CLANG),build/tests/fuzz-zcm) \
		bin/ibboot-z.lkrn
	@IBZ_FILE=build/zimage/body.ibz IBZ_BODY=build/zimage/body.bin IBZ_PRIME=build/zimage/zstub.bin \
		util/run-test unit-arch \
		build/tests/unit-arch
	@ZS0_FILE=build/zimage/zstub.s0z ZS0_STUB=build/zimage/zstub.bin util/run-test unit-zstage0 \
		build/tests/unit-zstage0
	@$(call FUZZ_SMOKE,zimage,zcm,500,1024)
	@util/run-test zimage-damaged src/tests/e2e/qemu/zimage-damaged.sh
fuzz-zcm: $(if $(HAVE_CLANG),build/tests/fuzz-zcm)
	@$(call FUZZ_LONG,zcm,4096,60)

# make bench's size row: the compressed image against the goal (64 KiB: an option ROM that fits
# every BIOS's ROM space) and iPXE's hermon-only x86_64 lkrn (95,155 B), with where the bytes go.
.PHONY: bench-size
bench-size: bin/ibboot.lkrn bin/ibboot-raw.lkrn build/tests/zcm-speed bin/ibboot.rom bin/ibboot.pxe \
		bin/ibboot.efi
	@lkrn=$$(stat -c %s bin/ibboot.lkrn); ibz=$$(stat -c %s build/zimage/body.ibz); \
	printf 'bench-size: %-28s %7d B  goal %d B (%+d)  iPXE hermon-only lkrn %d B (ratio %.2f)\n' \
		bin/ibboot.lkrn $$lkrn 65536 $$((lkrn - 65536)) 95155 $$(echo "95155 / $$lkrn" | bc -l); \
	s0z=$$(stat -c %s build/zimage/zstub.s0z); \
	printf 'bench-size: %-28s %7d B  (setup sectors + stage 0 %d B, packed stub %d B of %d, packed body %d B)\n' \
		'  of which' $$lkrn $$((lkrn - ibz - s0z)) $$s0z $$(stat -c %s build/zimage/zstub.bin) $$ibz; \
	printf 'bench-size: %-28s %7d B  (body as objcopy writes it; compresses to %d%%)\n' \
		bin/ibboot-raw.lkrn $$(stat -c %s bin/ibboot-raw.lkrn) \
		$$((100 * ibz / $$(stat -c %s build/zimage/body.bin))); \
	rom=$$(stat -c %s bin/ibboot.rom); romc=$$(stat -c %s build/rom/ibboot-rom.bin); \
	printf 'bench-size: %-28s %7d B  goal %d B (%+d; content %d B, padded to 512-byte blocks): the lkrn less its setup sectors behind the real-mode front end\n' \
		bin/ibboot.rom $$rom 65536 $$((rom - 65536)) $$romc; \
	printf 'bench-size: %-28s %7d B  (NBP: the same front end and cut of the lkrn)\n' bin/ibboot.pxe \
		$$(stat -c %s bin/ibboot.pxe); \
	printf 'bench-size: %-28s %7d B  (PE32+, not compressed)\n' bin/ibboot.efi \
		$$(stat -c %s bin/ibboot.efi); \
	printf 'bench-size: %-28s native %s; QEMU TCG boot CPU to poweroff, packed - raw: %s\n' \
		'  unpack time' "$$(build/tests/zcm-speed build/zimage/body.ibz build/zimage/zstub.bin)" \
		"$$(util/zimage/unpack-time bin/ibboot-raw.lkrn bin/ibboot.lkrn)"
