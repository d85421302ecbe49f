# src/net — the driver-independent IB core (MAD, SA, port policy), IPoIB, IPv4 and ICMP.
# Included from src/src.mk. The image build takes NET_SRCS + NET_IBLIB_SRCS with NET_CFLAGS.
#
#   bin/tests/ibcore            unit tests over the fake ib_device (ASan/UBSan)
#   build/ibcore/freestanding/  the same sources built with no libc headers (what the image needs)
#   build/ibcore/fuzz-*         libFuzzer targets for every wire parser (clang)
#   make check-ibcore, fuzz-ibcore

NET_SRCS       := $(wildcard src/net/infiniband/*.c) $(wildcard src/net/*.c)
NET_IBLIB_SRCS := src/net/infiniband/wire/mad.c src/net/infiniband/wire/packet.c src/net/infiniband/wire/crc.c
# Core utilities the stack uses (the image and the hosted program have them in CORE_SRCS; the
# stack's own test programs link them from here).
NET_CORE_SRCS  := src/core/checksum.c src/core/hex.c
# This fragment's own tests build only the IB core, IPoIB, IPv4/ICMP and UDP (the layers above
# have their own fragments), so work in progress there never breaks check-ibcore.
IBCORE_SRCS    := $(wildcard src/net/infiniband/*.c) \
		  $(addprefix src/net/,netdev.c ipoib.c ipoib_arp.c ipv4.c icmp.c udp.c net_commands.c)
NET_CFLAGS     :=
NET_HDRS       := $(wildcard src/include/ibboot/*.h src/include/ibboot/wire/*.h src/net/infiniband/*.h \
		   src/tests/fakes/*.h src/tests/framework/test.h)
NET_TEST_SRCS  := src/tests/unit/net/infiniband/test_ib_core.c src/cmd/ib_cmd.c src/cmd/net_cmd.c \
		  src/tests/unit/net/infiniband/test_ib_parsers.c src/tests/unit/net/test_ipoib.c \
		  src/tests/unit/net/test_two_interfaces.c \
		  src/tests/fakes/net_test_env.c \
		  src/tests/fakes/ib_fixture.c \
		  src/tests/fakes/fake_ibdev.c src/tests/framework/test_runner.c

bin/tests/ibcore: $(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_CORE_SRCS) $(NET_TEST_SRCS) $(NET_HDRS) $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(NET_CFLAGS) -Isrc/tests/framework -Isrc/tests/fakes -o $@ \
		$(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_CORE_SRCS) $(NET_TEST_SRCS)

# Proof that the firmware half builds freestanding (no libc headers at all).
NET_FREESTANDING_OBJS := $(patsubst src/net/%.c,build/ibcore/freestanding/%.o,$(IBCORE_SRCS))
build/ibcore/freestanding/%.o: src/net/%.c $(NET_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) -std=c11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-builtin -nostdinc \
		-isystem $(shell $(HOST_CC) -print-file-name=include) -Isrc/include -Ibuild/include $(NET_CFLAGS) \
		-c -o $@ $<

# Writes ib0's wire traffic as a pcap for the tshark cross-check (src/tests/unit/net/tshark-check.sh).
build/ibcore/ipoib-pcap: src/tests/unit/net/pcap_ipoib.c $(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_CORE_SRCS) $(NET_HDRS) \
		src/tests/fakes/net_test_env.c src/tests/fakes/fake_ibdev.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(NET_CFLAGS) -Isrc/tests/framework -Isrc/tests/fakes -o $@ $< \
		$(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_CORE_SRCS) src/tests/fakes/net_test_env.c src/tests/fakes/fake_ibdev.c

# libFuzzer targets: one per parser family (src/tests/fuzz/<name>/fuzz_<name>.c).
NET_FUZZ_CC    ?= clang
NET_FUZZ_NAMES := parsers stack
NET_FUZZ_BINS  := $(patsubst %,build/ibcore/fuzz-%,$(NET_FUZZ_NAMES))
NET_HAVE_CLANG := $(shell command -v $(NET_FUZZ_CC) >/dev/null 2>&1 && echo yes)
NET_FUZZ_RUNS  ?= 100000
build/ibcore/fuzz-%: src/tests/fuzz/$$*/fuzz_$$*.c $(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_CORE_SRCS) $(NET_HDRS) \
		src/tests/fakes/net_test_env.c src/tests/fakes/fake_ibdev.c
	@mkdir -p $(@D)
	$(NET_FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
		-fsanitize=fuzzer,address,undefined -Isrc/include -Ibuild/include $(NET_CFLAGS) \
		-Isrc/tests/framework -Isrc/tests/fakes -o $@ $< $(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_CORE_SRCS) src/tests/fakes/net_test_env.c \
		src/tests/fakes/fake_ibdev.c

.PHONY: check-ibcore fuzz-ibcore
check-ibcore: bin/tests/ibcore $(NET_FREESTANDING_OBJS) build/ibcore/ipoib-pcap \
		$(if $(NET_HAVE_CLANG),$(NET_FUZZ_BINS))
	@util/run-test ibcore bin/tests/ibcore
	@util/run-test ibcore-tshark src/tests/unit/net/tshark-check.sh build/ibcore/ipoib-pcap
ifeq ($(NET_HAVE_CLANG),yes)
	@for f in $(NET_FUZZ_NAMES); do \
		util/run-test ibcore-fuzz-$$f src/tests/framework/fuzz-smoke.sh ibcore build/ibcore/fuzz-$$f \
			$(NET_FUZZ_RUNS); \
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
build/ibcore/ibcore-bench: src/tests/bench/bench_ibcore.c $(IBCORE_SRCS) $(NET_IBLIB_SRCS) $(NET_CORE_SRCS) $(NET_HDRS) \
		src/tests/fakes/net_test_env.c src/tests/fakes/fake_ibdev.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(NET_CFLAGS) -Isrc/tests/framework -Isrc/tests/fakes -o $@ $< $(IBCORE_SRCS) \
		$(NET_IBLIB_SRCS) $(NET_CORE_SRCS) src/tests/fakes/net_test_env.c src/tests/fakes/fake_ibdev.c

.PHONY: bench-ibcore
bench-ibcore: build/ibcore/ibcore-bench
	@src/tests/bench/bench.sh build/ibcore/ibcore-bench 1000

BENCH_TARGETS += bench-ibcore

# End to end in QEMU under OpenSM (src/tests/e2e/qemu/ibcore-e2e.sh, ~70 s): port ACTIVE, ib0 joined,
# ping the server's kernel, OpenSM restarted mid-ping. SKIPs while the QEMU build is missing
# (make qemu). IBCORE_E2E_SM_RESTART=1 also restarts OpenSM right after the HCA attaches.
.PHONY: check-ibcore-e2e
check-ibcore-e2e: bin/ibboot.lkrn bin/libhcasim.so bin/fabsim bin/fabsim-servernode \
		bin/libfabsim_client.so qemu
	@util/run-test ibcore-e2e src/tests/e2e/qemu/ibcore-e2e.sh
CHECK_TARGETS += check-ibcore-e2e
