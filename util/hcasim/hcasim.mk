# util/hcasim — the HCA model (libhcasim). See util/hcasim/include/hcasim.h.
#
#   build/hcasim/libhcasim.a   static library; its users link the wire formats (WIRE_SRCS) too
#   bin/libhcasim.so           the same, -fPIC, wire formats linked in (the QEMU device dlopens it)
#   build/tests/hcasim         model tests (ASan/UBSan), run by `make check-hcasim`
#   build/tests/sma-test       the model's firmware SMA (sma.c) tested standalone
#   build/tests/fuzz-sma       libFuzzer target over the SMA (tests/fuzz/sma)
#   make coverage-hcasim       line coverage of util/hcasim with gcovr (build/hcasim-cov)

HCASIM_SRCS := util/hcasim/bar.c util/hcasim/cmd.c util/hcasim/cmd_fw.c util/hcasim/cmd_icm.c \
	util/hcasim/cmd_mpt.c util/hcasim/cmd_port.c util/hcasim/cmd_qp.c util/hcasim/cq.c \
	util/hcasim/diag.c util/hcasim/dma_guard.c util/hcasim/eq.c util/hcasim/faults.c util/hcasim/hcasim.c util/hcasim/icm.c util/hcasim/mcg.c \
	util/hcasim/pci.c util/hcasim/rc.c util/hcasim/reset.c util/hcasim/sma.c util/hcasim/tpt.c \
	util/hcasim/ud.c util/hcasim/vmap.c util/hcasim/wqe.c
HCASIM_HDRS := $(wildcard util/hcasim/*.h util/hcasim/include/*.h) $(WIRE_HDRS)
HCASIM_CFLAGS := -Iutil/hcasim/include -Iutil/hcasim -Isrc/include -Ibuild/include
HCASIM_OBJS := $(patsubst util/hcasim/%.c,build/hcasim/obj/%.o,$(HCASIM_SRCS))
HCASIM_WIRE_OBJS := $(patsubst src/net/infiniband/wire/%.c,build/hcasim/wire/%.o,$(WIRE_SRCS))
HCASIM_LIB := build/hcasim/libhcasim.a
HCASIM_SO := bin/libhcasim.so
# The reusable raw "test host" (guest memory, HCR helper, bring-up): fabsim's tests use it too.
HCASIM_RAWHOST_SRCS := util/hcasim/tests/rawhost.c
HCASIM_RAWHOST_CFLAGS := -Iutil/hcasim/tests

build/hcasim/obj/%.o: util/hcasim/%.c $(HCASIM_HDRS) $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(HCASIM_CFLAGS) -fPIC -c -o $@ $<

build/hcasim/wire/%.o: src/net/infiniband/wire/%.c $(WIRE_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -fPIC -c -o $@ $<

$(HCASIM_LIB): $(HCASIM_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(HCASIM_SO): $(HCASIM_OBJS) $(HCASIM_WIRE_OBJS)
	@mkdir -p $(@D)
	$(HOST_CC) -shared -o $@ $^

# Model tests: the model and the wire formats compiled again with the sanitizers.
HCASIM_TEST_SRCS := util/hcasim/tests/test_hcasim_bringup.c util/hcasim/tests/test_hcasim_cmd.c \
	util/hcasim/tests/test_hcasim_ctx.c util/hcasim/tests/test_hcasim_diag.c \
	util/hcasim/tests/test_hcasim_dma_guard.c \
	util/hcasim/tests/test_hcasim_edge.c util/hcasim/tests/test_hcasim_mcast.c \
	util/hcasim/tests/test_hcasim_pci.c util/hcasim/tests/test_hcasim_rc.c \
	util/hcasim/tests/test_hcasim_robust.c util/hcasim/tests/test_hcasim_smp.c \
	util/hcasim/tests/test_hcasim_tpt.c util/hcasim/tests/test_hcasim_ud.c \
	util/hcasim/tests/test_hcasim_irq.c util/hcasim/tests/test_hcasim_fault_env.c
HCASIM_TEST_DEPS := $(HCASIM_TEST_SRCS) $(HCASIM_RAWHOST_SRCS) util/hcasim/tests/rawhost.h \
	$(HCASIM_SRCS) $(HCASIM_HDRS) $(PRM_H) $(WIRE_SRCS) src/tests/framework/test_runner.c \
	src/tests/framework/test.h
build/tests/hcasim: $(HCASIM_TEST_DEPS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(HCASIM_CFLAGS) $(HCASIM_RAWHOST_CFLAGS) -Isrc/tests/framework \
		-o $@ $(HCASIM_TEST_SRCS) $(HCASIM_RAWHOST_SRCS) $(HCASIM_SRCS) $(WIRE_SRCS) \
		src/tests/framework/test_runner.c

# The firmware SMA (sma.c) alone, and fuzzed.
build/tests/sma-test: util/hcasim/sma.c util/hcasim/sma.h util/hcasim/tests/test_sma.c $(WIRE_SRCS) \
		$(WIRE_HDRS) src/tests/framework/test_runner.c src/tests/framework/test.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Iutil/hcasim/include -Iutil/hcasim -Isrc/tests/framework \
		-o $@ util/hcasim/sma.c util/hcasim/tests/test_sma.c $(WIRE_SRCS) src/tests/framework/test_runner.c
build/tests/fuzz-sma: util/hcasim/tests/fuzz/sma/fuzz_sma.c util/hcasim/sma.c util/hcasim/sma.h \
		$(WIRE_SRCS) $(WIRE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		-Isrc/include -Iutil/hcasim/include -Iutil/hcasim -o $@ $< util/hcasim/sma.c $(WIRE_SRCS)

.PHONY: check-hcasim coverage-hcasim fuzz-sma
check-hcasim: $(HCASIM_LIB) $(HCASIM_SO) build/tests/hcasim build/tests/sma-test \
		$(if $(HAVE_CLANG),build/tests/fuzz-sma)
	@util/run-test hcasim build/tests/hcasim
	@util/run-test sma-test build/tests/sma-test
ifeq ($(HAVE_CLANG),yes)
	@util/run-test iblib-fuzz-sma src/tests/framework/fuzz-smoke.sh iblib build/tests/fuzz-sma 50000 \
		util/hcasim/tests/fuzz/sma/seeds -max_len=4300
else
	@util/run-test iblib-fuzz-sma sh -c 'echo "SKIP: iblib-fuzz-sma: clang is not installed"; exit 77'
endif

fuzz-sma: build/tests/fuzz-sma
	@mkdir -p build/hcasim/corpus-sma
	build/tests/fuzz-sma -max_total_time=120 -max_len=4300 -artifact_prefix=build/hcasim/ \
		build/hcasim/corpus-sma util/hcasim/tests/fuzz/sma/seeds

# Line coverage of util/hcasim (no sanitizers, -O0): prints gcovr's summary.
coverage-hcasim: $(HCASIM_TEST_DEPS)
	@rm -rf build/hcasim-cov && mkdir -p build/hcasim-cov
	cd build/hcasim-cov && $(HOST_CC) -std=c11 -O0 -g --coverage -D_GNU_SOURCE \
		$(addprefix -I../../,src/include build/include util/hcasim/include util/hcasim util/hcasim/tests src/tests/framework) \
		-o hcasim-cov $(addprefix ../../,$(HCASIM_TEST_SRCS) $(HCASIM_RAWHOST_SRCS) $(HCASIM_SRCS) $(WIRE_SRCS) src/tests/framework/test_runner.c)
	cd build/hcasim-cov && ./hcasim-cov > run.log 2>&1 || (tail -20 run.log; exit 1)
	gcovr -r . --object-directory build/hcasim-cov --filter 'util/hcasim/[^/]*\.c$$' \
		--exclude util/hcasim/sma.c

ALL_TARGETS += $(HCASIM_LIB) $(HCASIM_SO)
