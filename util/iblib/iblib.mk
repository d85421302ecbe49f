# util/iblib — InfiniBand wire formats shared by hcasim, fabsim, the server node and the firmware.
#
#   build/iblib/libiblib.a   the library (-fPIC: it is linked into libhcasim.so)
#   build/iblib/iblib-test   unit tests (ASan/UBSan)
#   build/iblib/sma-test     the HCA model's firmware SMA (util/hcasim/sma.c) tested standalone
#   build/iblib/fuzz-*       libFuzzer targets (clang)
#   make check-iblib, fuzz-iblib, bench-iblib, coverage-iblib (gcovr)

IBLIB_SRCS := util/iblib/crc.c util/iblib/packet.c util/iblib/mad.c
IBLIB_HDRS := $(wildcard util/iblib/include/iblib/*.h)
IBLIB_CFLAGS := -Iutil/iblib/include
IBLIB_OBJS := $(patsubst util/iblib/%.c,build/iblib/obj/%.o,$(IBLIB_SRCS))
IBLIB_LIB := build/iblib/libiblib.a

build/iblib/obj/%.o: util/iblib/%.c $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(IBLIB_CFLAGS) -fPIC -c -o $@ $<

$(IBLIB_LIB): $(IBLIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# The firmware reuses these files: prove they build with no libc headers at all.
IBLIB_FREESTANDING_OBJS := $(patsubst util/iblib/%.c,build/iblib/freestanding/%.o,$(IBLIB_SRCS))
build/iblib/freestanding/%.o: util/iblib/%.c $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) -std=c11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-builtin -nostdinc \
		-isystem $(shell $(HOST_CC) -print-file-name=include) $(IBLIB_CFLAGS) -c -o $@ $<

# Unit tests: the sources compiled again with the sanitizers.
IBLIB_TEST_SRCS := $(wildcard util/iblib/tests/test_*.c)
build/iblib/iblib-test: $(IBLIB_TEST_SRCS) $(IBLIB_SRCS) $(IBLIB_HDRS) src/tests/test_runner.c src/tests/test.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(IBLIB_CFLAGS) -Isrc/tests -o $@ \
		$(IBLIB_TEST_SRCS) $(IBLIB_SRCS) src/tests/test_runner.c

# Writes a pcap of iblib-built packets for the tshark cross-check.
build/iblib/pcap-sample: util/iblib/tests/pcap_sample.c $(IBLIB_SRCS) $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(IBLIB_CFLAGS) -o $@ $< $(IBLIB_SRCS)

# The firmware SMA lives in util/hcasim (libhcasim compiles it); it is tested here standalone.
SMA_SRCS := util/hcasim/sma.c
IBLIB_SMA_TEST := build/iblib/sma-test
build/iblib/sma-test: $(SMA_SRCS) util/hcasim/sma.h util/hcasim/tests/test_sma.c $(IBLIB_SRCS) \
		$(IBLIB_HDRS) src/tests/test_runner.c src/tests/test.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(IBLIB_CFLAGS) -Iutil/hcasim/include -Iutil/hcasim \
		-Isrc/tests -o $@ $(SMA_SRCS) util/hcasim/tests/test_sma.c $(IBLIB_SRCS) \
		src/tests/test_runner.c

# libFuzzer targets (need clang + libclang-rt-14-dev).
IBLIB_FUZZ_CC ?= clang
IBLIB_FUZZ_NAMES := pkt mad sma
IBLIB_FUZZ_BINS := $(patsubst %,build/iblib/fuzz-%,$(IBLIB_FUZZ_NAMES))
IBLIB_HAVE_CLANG := $(shell command -v $(IBLIB_FUZZ_CC) >/dev/null 2>&1 && echo yes)
build/iblib/fuzz-pkt build/iblib/fuzz-mad: build/iblib/fuzz-%: util/iblib/fuzz/fuzz_%.c $(IBLIB_SRCS) $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(IBLIB_FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		$(IBLIB_CFLAGS) -o $@ $< $(IBLIB_SRCS)
build/iblib/fuzz-sma: util/iblib/fuzz/fuzz_sma.c $(SMA_SRCS) util/hcasim/sma.h $(IBLIB_SRCS) $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(IBLIB_FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		$(IBLIB_CFLAGS) -Iutil/hcasim/include -Iutil/hcasim -o $@ $< $(SMA_SRCS) $(IBLIB_SRCS)

build/iblib/bench-crc: util/iblib/tests/bench_crc.c $(IBLIB_SRCS) $(IBLIB_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(IBLIB_CFLAGS) -o $@ $< $(IBLIB_SRCS)

# Line coverage of util/iblib and util/hcasim/sma.c by the two test programs (gcovr).
IBLIB_COV_SRCS := $(IBLIB_TEST_SRCS) $(IBLIB_SRCS) util/hcasim/tests/test_sma.c $(SMA_SRCS) \
	src/tests/test_runner.c
coverage-iblib: $(IBLIB_COV_SRCS) $(IBLIB_HDRS) util/hcasim/sma.h
	@rm -rf build/iblib-cov && mkdir -p build/iblib-cov
	cd build/iblib-cov && $(HOST_CC) -std=c11 -O0 -g --coverage -D_GNU_SOURCE \
		$(addprefix -I../../,util/iblib/include util/hcasim/include util/hcasim src/tests) \
		-o iblib-cov $(addprefix ../../,$(IBLIB_COV_SRCS))
	cd build/iblib-cov && ./iblib-cov > run.log 2>&1 || (tail -20 run.log; exit 1)
	gcovr -r . --object-directory build/iblib-cov --filter 'util/iblib/[^/]*\.c$$' \
		--filter 'util/hcasim/sma\.c$$'

.PHONY: check-iblib fuzz-iblib bench-iblib coverage-iblib
bench-iblib: build/iblib/bench-crc
	@build/iblib/bench-crc

check-iblib: $(IBLIB_LIB) $(IBLIB_FREESTANDING_OBJS) build/iblib/iblib-test $(IBLIB_SMA_TEST) \
		build/iblib/pcap-sample $(if $(IBLIB_HAVE_CLANG),$(IBLIB_FUZZ_BINS))
	@util/run-test iblib-test build/iblib/iblib-test
	@util/run-test sma-test build/iblib/sma-test
	@util/run-test iblib-tshark util/iblib/tests/tshark-check.sh build/iblib/pcap-sample
	@util/run-test iblib-freestanding util/iblib/tests/freestanding-check.sh $(IBLIB_FREESTANDING_OBJS)
ifeq ($(IBLIB_HAVE_CLANG),yes)
	@for f in $(IBLIB_FUZZ_NAMES); do \
		util/run-test iblib-fuzz-$$f util/iblib/fuzz/smoke.sh build/iblib/fuzz-$$f 50000; done
else
	@util/run-test iblib-fuzz sh -c 'echo "SKIP: iblib-fuzz: clang not installed (util/deps.d/iblib.list)"; exit 77'
endif

# Longer fuzzing runs (make fuzz).
fuzz-iblib: $(IBLIB_FUZZ_BINS)
	@for f in $(IBLIB_FUZZ_NAMES); do \
		mkdir -p build/iblib/corpus-$$f; \
		build/iblib/fuzz-$$f -max_total_time=120 -artifact_prefix=build/iblib/ build/iblib/corpus-$$f util/iblib/fuzz/seeds/$$f || exit 1; done

ALL_TARGETS += $(IBLIB_LIB) $(IBLIB_FREESTANDING_OBJS)
CHECK_TARGETS += check-iblib
FUZZ_TARGETS += fuzz-iblib
BENCH_TARGETS += bench-iblib
CLEAN_FILES += build/iblib
