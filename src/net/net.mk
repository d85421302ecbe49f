# src/net — the driver-independent IB core (MAD, SA, port policy), IPoIB, IPv4 and ICMP.
# Included from src/src.mk. The image build takes NET_SRCS + NET_IBLIB_SRCS with NET_CFLAGS.
#
#   bin/tests/ibcore            unit tests over the fake ib_device (ASan/UBSan)
#   build/ibcore/freestanding/  the same sources built with no libc headers (what the image needs)
#   build/ibcore/fuzz-*         libFuzzer targets for every wire parser (clang)
#   make check-ibcore, fuzz-ibcore

NET_SRCS       := $(wildcard src/net/infiniband/*.c) $(wildcard src/net/*.c)
NET_IBLIB_SRCS := util/iblib/mad.c util/iblib/packet.c util/iblib/crc.c
# This fragment's own tests build only the IB core, IPoIB and IPv4/ICMP (the layers above have
# their own fragments), so work in progress there never breaks check-ibcore.
IBCORE_SRCS    := $(wildcard src/net/infiniband/*.c) \
		  $(addprefix src/net/,netdev.c ipoib.c ipoib_arp.c ipv4.c icmp.c net_commands.c)
NET_CFLAGS     := -Iutil/iblib/include
NET_HDRS       := $(wildcard src/include/ibboot/*.h src/net/infiniband/*.h src/net/tests/*.h \
		   src/tests/fake_ibdev.h src/tests/test.h util/iblib/include/iblib/*.h)
NET_TEST_SRCS  := $(wildcard src/net/tests/test_*.c) src/net/tests/net_test_env.c \
		  src/net/tests/ib_fixture.c \
		  src/tests/fake_ibdev.c src/tests/test_runner.c

bin/tests/ibcore: $(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_TEST_SRCS) $(NET_HDRS) $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(NET_CFLAGS) -Isrc/tests -Isrc/net/tests -o $@ \
		$(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_TEST_SRCS)

# Proof that the firmware half builds freestanding (no libc headers at all).
NET_FREESTANDING_OBJS := $(patsubst src/net/%.c,build/ibcore/freestanding/%.o,$(IBCORE_SRCS))
build/ibcore/freestanding/%.o: src/net/%.c $(NET_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) -std=c11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-builtin -nostdinc \
		-isystem $(shell $(HOST_CC) -print-file-name=include) -Isrc/include $(NET_CFLAGS) \
		-c -o $@ $<

# Writes ib0's wire traffic as a pcap for the tshark cross-check (src/net/tests/tshark-check.sh).
build/ibcore/ipoib-pcap: src/net/tests/pcap_ipoib.c $(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_HDRS) \
		src/net/tests/net_test_env.c src/tests/fake_ibdev.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(NET_CFLAGS) -Isrc/tests -Isrc/net/tests -o $@ $< \
		$(IBCORE_SRCS) $(NET_IBLIB_SRCS) src/net/tests/net_test_env.c src/tests/fake_ibdev.c

# libFuzzer targets: one per parser family (src/net/fuzz/fuzz_*.c).
NET_FUZZ_CC    ?= clang
NET_FUZZ_NAMES := $(patsubst src/net/fuzz/fuzz_%.c,%,$(wildcard src/net/fuzz/fuzz_*.c))
NET_FUZZ_BINS  := $(patsubst %,build/ibcore/fuzz-%,$(NET_FUZZ_NAMES))
NET_HAVE_CLANG := $(shell command -v $(NET_FUZZ_CC) >/dev/null 2>&1 && echo yes)
NET_FUZZ_RUNS  ?= 100000
build/ibcore/fuzz-%: src/net/fuzz/fuzz_%.c $(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_HDRS) \
		src/net/tests/net_test_env.c src/tests/fake_ibdev.c
	@mkdir -p $(@D)
	$(NET_FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
		-fsanitize=fuzzer,address,undefined -Isrc/include $(NET_CFLAGS) -Isrc/tests \
		-Isrc/net/tests -o $@ $< $(IBCORE_SRCS) $(NET_IBLIB_SRCS) src/net/tests/net_test_env.c \
		src/tests/fake_ibdev.c

.PHONY: check-ibcore fuzz-ibcore
check-ibcore: bin/tests/ibcore $(NET_FREESTANDING_OBJS) build/ibcore/ipoib-pcap \
		$(if $(NET_HAVE_CLANG),$(NET_FUZZ_BINS))
	@util/run-test ibcore bin/tests/ibcore
	@util/run-test ibcore-tshark src/net/tests/tshark-check.sh build/ibcore/ipoib-pcap
ifeq ($(NET_HAVE_CLANG),yes)
	@for f in $(NET_FUZZ_NAMES); do \
		util/run-test ibcore-fuzz-$$f src/net/fuzz/smoke.sh build/ibcore/fuzz-$$f $(NET_FUZZ_RUNS); \
	done
else
	@util/run-test ibcore-fuzz sh -c 'echo "SKIP: ibcore-fuzz: clang is not installed"; exit 77'
endif

fuzz-ibcore: $(NET_FUZZ_BINS)
	@for f in $(NET_FUZZ_NAMES); do \
		mkdir -p build/ibcore/corpus-$$f; \
		build/ibcore/fuzz-$$f -max_total_time=120 -artifact_prefix=build/ibcore/ \
			build/ibcore/corpus-$$f || exit 1; \
	done

ALL_TARGETS   += bin/tests/ibcore $(NET_FREESTANDING_OBJS)
CHECK_TARGETS += check-ibcore
FUZZ_TARGETS  += fuzz-ibcore
CLEAN_FILES   += build/ibcore

# Instructions per packet (callgrind), make bench.
build/ibcore/ibcore-bench: src/net/tests/bench_ibcore.c $(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_HDRS) \
		src/net/tests/net_test_env.c src/tests/fake_ibdev.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(NET_CFLAGS) -Isrc/tests -Isrc/net/tests -o $@ $< $(IBCORE_SRCS) \
		$(NET_IBLIB_SRCS) src/net/tests/net_test_env.c src/tests/fake_ibdev.c

.PHONY: bench-ibcore
bench-ibcore: build/ibcore/ibcore-bench
	@src/net/tests/bench.sh build/ibcore/ibcore-bench 1000

BENCH_TARGETS += bench-ibcore

# End to end in QEMU under OpenSM (src/net/tests/e2e-qemu.sh, ~70 s): port ACTIVE, ib0 joined,
# ping the server's kernel, OpenSM restarted mid-ping. SKIPs while the QEMU build is missing
# (make qemu). IBCORE_E2E_SM_RESTART=1 also restarts OpenSM right after the HCA attaches.
.PHONY: check-ibcore-e2e
check-ibcore-e2e: bin/ibboot.lkrn bin/libhcasim.so bin/fabsim bin/fabsim-servernode \
		bin/libfabsim_client.so qemu
	@util/run-test ibcore-e2e src/net/tests/e2e-qemu.sh
CHECK_TARGETS += check-ibcore-e2e
