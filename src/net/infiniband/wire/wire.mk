# src/net/infiniband/wire — InfiniBand wire formats: the firmware's, and shared with hcasim, fabsim
# and the server node (which include src/include/ibboot/wire/*.h).
#
#   build/wire/libwire.a   the library (-fPIC: it is linked into libhcasim.so)
#   build/wire/iblib-test   unit tests (ASan/UBSan)
#   build/wire/sma-test     the HCA model's firmware SMA (util/hcasim/sma.c) tested standalone
#   build/wire/fuzz-*       libFuzzer targets (clang)
#   make check-iblib, fuzz-iblib, bench-iblib, coverage-iblib (gcovr)

IBLIB_SRCS := src/net/infiniband/wire/crc.c src/net/infiniband/wire/packet.c src/net/infiniband/wire/mad.c
IBLIB_HDRS := $(wildcard src/include/ibboot/wire/*.h)
IBLIB_CFLAGS := -Isrc/include
IBLIB_OBJS := $(patsubst src/net/infiniband/wire/%.c,build/wire/obj/%.o,$(IBLIB_SRCS))
IBLIB_LIB := build/wire/libwire.a

build/wire/obj/%.o: src/net/infiniband/wire/%.c $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(IBLIB_CFLAGS) -fPIC -c -o $@ $<

$(IBLIB_LIB): $(IBLIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# The firmware reuses these files: prove they build with no libc headers at all.
IBLIB_FREESTANDING_OBJS := $(patsubst src/net/infiniband/wire/%.c,build/wire/freestanding/%.o,$(IBLIB_SRCS))
build/wire/freestanding/%.o: src/net/infiniband/wire/%.c $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) -std=c11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-builtin -nostdinc \
		-isystem $(shell $(HOST_CC) -print-file-name=include) $(IBLIB_CFLAGS) -c -o $@ $<

# Unit tests: the sources compiled again with the sanitizers.
IBLIB_TEST_SRCS := src/tests/unit/net/infiniband/wire/test_attrs.c \
	src/tests/unit/net/infiniband/wire/test_mad.c src/tests/unit/net/infiniband/wire/test_packet.c
build/wire/iblib-test: $(IBLIB_TEST_SRCS) $(IBLIB_SRCS) $(IBLIB_HDRS) src/tests/framework/test_runner.c src/tests/framework/test.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(IBLIB_CFLAGS) -Isrc/tests/framework -o $@ \
		$(IBLIB_TEST_SRCS) $(IBLIB_SRCS) src/tests/framework/test_runner.c

# Writes a pcap of iblib-built packets for the tshark cross-check.
build/wire/pcap-sample: src/tests/unit/net/infiniband/wire/pcap_sample.c $(IBLIB_SRCS) $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(IBLIB_CFLAGS) -o $@ $< $(IBLIB_SRCS)

# The firmware SMA lives in util/hcasim (libhcasim compiles it); it is tested here standalone.
SMA_SRCS := util/hcasim/sma.c
IBLIB_SMA_TEST := build/wire/sma-test
build/wire/sma-test: $(SMA_SRCS) util/hcasim/sma.h util/hcasim/tests/test_sma.c $(IBLIB_SRCS) \
		$(IBLIB_HDRS) src/tests/framework/test_runner.c src/tests/framework/test.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(IBLIB_CFLAGS) -Iutil/hcasim/include -Iutil/hcasim \
		-Isrc/tests/framework -o $@ $(SMA_SRCS) util/hcasim/tests/test_sma.c $(IBLIB_SRCS) \
		src/tests/framework/test_runner.c

# libFuzzer targets (need clang + libclang-rt-14-dev).
IBLIB_FUZZ_CC ?= clang
IBLIB_FUZZ_NAMES := pkt mad sma
IBLIB_FUZZ_BINS := $(patsubst %,build/wire/fuzz-%,$(IBLIB_FUZZ_NAMES))
IBLIB_HAVE_CLANG := $(shell command -v $(IBLIB_FUZZ_CC) >/dev/null 2>&1 && echo yes)
build/wire/fuzz-pkt build/wire/fuzz-mad: build/wire/fuzz-%: src/tests/fuzz/$$*/fuzz_$$*.c $(IBLIB_SRCS) $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(IBLIB_FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		$(IBLIB_CFLAGS) -o $@ $< $(IBLIB_SRCS)
build/wire/fuzz-sma: util/hcasim/tests/fuzz/sma/fuzz_sma.c $(SMA_SRCS) util/hcasim/sma.h $(IBLIB_SRCS) $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(IBLIB_FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		$(IBLIB_CFLAGS) -Iutil/hcasim/include -Iutil/hcasim -o $@ $< $(SMA_SRCS) $(IBLIB_SRCS)

build/wire/bench-crc: src/tests/bench/bench_crc.c $(IBLIB_SRCS) $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(IBLIB_CFLAGS) -o $@ $< $(IBLIB_SRCS)

# Line coverage of util/iblib and util/hcasim/sma.c by the two test programs (gcovr).
IBLIB_COV_SRCS := $(IBLIB_TEST_SRCS) $(IBLIB_SRCS) util/hcasim/tests/test_sma.c $(SMA_SRCS) \
	src/tests/framework/test_runner.c
coverage-iblib: $(IBLIB_COV_SRCS) $(IBLIB_HDRS) util/hcasim/sma.h
	@rm -rf build/wire-cov && mkdir -p build/wire-cov
	cd build/wire-cov && $(HOST_CC) -std=c11 -O0 -g --coverage -D_GNU_SOURCE \
		$(addprefix -I../../,src/include util/hcasim/include util/hcasim src/tests/framework) \
		-o iblib-cov $(addprefix ../../,$(IBLIB_COV_SRCS))
	cd build/wire-cov && ./iblib-cov > run.log 2>&1 || (tail -20 run.log; exit 1)
	gcovr -r . --object-directory build/wire-cov --filter 'src/net/infiniband/wire/[^/]*\.c$$' \
		--filter 'util/hcasim/sma\.c$$'

.PHONY: check-iblib fuzz-iblib bench-iblib coverage-iblib
bench-iblib: build/wire/bench-crc
	@build/wire/bench-crc

check-iblib: $(IBLIB_LIB) $(IBLIB_FREESTANDING_OBJS) build/wire/iblib-test $(IBLIB_SMA_TEST) \
		build/wire/pcap-sample $(if $(IBLIB_HAVE_CLANG),$(IBLIB_FUZZ_BINS))
	@util/run-test iblib-test build/wire/iblib-test
	@util/run-test sma-test build/wire/sma-test
	@util/run-test iblib-tshark src/tests/unit/net/infiniband/wire/tshark-check.sh build/wire/pcap-sample
	@util/run-test iblib-freestanding src/tests/unit/net/infiniband/wire/freestanding-check.sh $(IBLIB_FREESTANDING_OBJS)
ifeq ($(IBLIB_HAVE_CLANG),yes)
	@for f in pkt mad; do \
		util/run-test iblib-fuzz-$$f src/tests/framework/fuzz-smoke.sh iblib build/wire/fuzz-$$f 50000 \
			src/tests/fuzz/$$f/seeds -max_len=4300; done
	@util/run-test iblib-fuzz-sma src/tests/framework/fuzz-smoke.sh iblib build/wire/fuzz-sma 50000 \
		util/hcasim/tests/fuzz/sma/seeds -max_len=4300
else
	@util/run-test iblib-fuzz sh -c 'echo "SKIP: iblib-fuzz: clang not installed (util/deps.d/iblib.list)"; exit 77'
endif

# Longer fuzzing runs (make fuzz).
fuzz-iblib: $(IBLIB_FUZZ_BINS)
	@for f in $(IBLIB_FUZZ_NAMES); do \
		mkdir -p build/wire/corpus-$$f; \
		build/wire/fuzz-$$f -max_total_time=120 -artifact_prefix=build/wire/ build/wire/corpus-$$f \
			$$(if [ $$f = sma ]; then echo util/hcasim/tests/fuzz/sma/seeds; else echo src/tests/fuzz/$$f/seeds; fi) \
			|| exit 1; done

ALL_TARGETS += $(IBLIB_LIB) $(IBLIB_FREESTANDING_OBJS)
CHECK_TARGETS += check-iblib
FUZZ_TARGETS += fuzz-iblib
BENCH_TARGETS += bench-iblib
CLEAN_FILES += build/wire
