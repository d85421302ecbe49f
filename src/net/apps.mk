# src/net/apps.mk — UDP, DHCP (RFC 4390), DNS and TFTP: tests and fuzz targets.
# The sources themselves (src/net/{udp,dhcp*,dns,tftp*}.c) are part of NET_SRCS
# (src/net/net.mk's wildcard), so they go into the image and the hosted program with the stack.
#
#   build/dhcp/apps-unit     unit tests over a scripted software net device (ASan/UBSan)
#   build/dhcp/tun-client    the same code on a Linux TUN, against the real dnsmasq
#   build/dhcp/fuzz-*        libFuzzer targets for the DHCP, DNS and TFTP parsers (clang)
#   make check-dhcp, fuzz-dhcp

APPS_CFLAGS   := $(HOST_CFLAGS) $(SAN_FLAGS) $(NET_CFLAGS) -Isrc/tests/framework -Isrc/tests/fakes
# The stack as the tests need it: every src/net source plus ibcore's hosted test environment
# (hand-moved clock, captured console).
APPS_LIB_SRCS := $(NET_SRCS) $(NET_IBLIB_SRCS) $(NET_CORE_SRCS) src/cmd/dhcp_cmd.c src/core/sha256.c src/tests/fakes/net_test_env.c \
		 src/tests/fakes/fake_ibdev.c
APPS_LIB_OBJS := $(patsubst %.c,build/dhcp/san/%.o,$(APPS_LIB_SRCS))
APPS_UNIT_SRCS := src/tests/unit/net/test_dhcp.c src/tests/unit/net/test_dns.c \
		  src/tests/unit/net/test_tftp.c src/tests/fakes/fake_net.c \
		  src/tests/framework/test_runner.c
APPS_UNIT_OBJS := $(patsubst %.c,build/dhcp/san/%.o,$(APPS_UNIT_SRCS))

build/dhcp/san/%.o: %.c | $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(APPS_CFLAGS) -MMD -MP -c -o $@ $<

build/dhcp/apps-unit: $(APPS_UNIT_OBJS) $(APPS_LIB_OBJS)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

build/dhcp/tun-client: build/dhcp/san/src/tests/e2e/tun/tun_client.o \
		build/dhcp/san/src/tests/fakes/tun_netdev.o $(APPS_LIB_OBJS)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

-include $(APPS_LIB_OBJS:.o=.d) $(APPS_UNIT_OBJS:.o=.d) build/dhcp/san/src/tests/e2e/tun/tun_client.d \
	build/dhcp/san/src/tests/fakes/tun_netdev.d

# libFuzzer: the stack compiled once with clang into an archive, one small target per parser.
APPS_FUZZ_CC    ?= clang
APPS_HAVE_CLANG := $(shell command -v $(APPS_FUZZ_CC) >/dev/null 2>&1 && echo yes)
APPS_FUZZ_FLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc/include \
		   -Ibuild/include $(NET_CFLAGS) -Isrc/tests/framework -Isrc/tests/fakes
APPS_FUZZ_NAMES := dhcp dns tftp
APPS_FUZZ_BINS  := $(patsubst %,build/dhcp/fuzz-%,$(APPS_FUZZ_NAMES))
APPS_FUZZ_LIB_OBJS := $(patsubst %.c,build/dhcp/fz/%.o,$(APPS_LIB_SRCS) src/tests/fakes/fake_net.c)
APPS_FUZZ_RUNS  ?= 200000

build/dhcp/fz/%.o: %.c | $(PRM_H)
	@mkdir -p $(@D)
	$(APPS_FUZZ_CC) $(APPS_FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP \
		-c -o $@ $<

build/dhcp/fuzz-%: src/tests/fuzz/$$*/fuzz_$$*.c $(APPS_FUZZ_LIB_OBJS)
	$(APPS_FUZZ_CC) $(APPS_FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< \
		$(APPS_FUZZ_LIB_OBJS)

-include $(APPS_FUZZ_LIB_OBJS:.o=.d)

.PHONY: check-dhcp fuzz-dhcp
check-dhcp: build/dhcp/apps-unit build/dhcp/tun-client $(if $(APPS_HAVE_CLANG),$(APPS_FUZZ_BINS))
	@util/run-test dhcp-unit build/dhcp/apps-unit -s dhcp
	@util/run-test dhcp-dnsmasq src/tests/e2e/tun/dnsmasq-e2e.sh build/dhcp/tun-client
ifeq ($(APPS_HAVE_CLANG),yes)
	@for f in $(APPS_FUZZ_NAMES); do \
		util/run-test dhcp-fuzz-$$f src/tests/framework/fuzz-smoke.sh dhcp build/dhcp/fuzz-$$f \
			$(APPS_FUZZ_RUNS) src/tests/fuzz/$$f/seeds -max_len=8192; \
	done
else
	@util/run-test dhcp-fuzz sh -c 'echo "SKIP: dhcp-fuzz: clang is not installed"; exit 77'
endif

fuzz-dhcp: $(APPS_FUZZ_BINS)
	@for f in $(APPS_FUZZ_NAMES); do \
		mkdir -p build/dhcp/corpus-$$f; \
		cp -n src/tests/fuzz/$$f/seeds/* build/dhcp/corpus-$$f/; \
		build/dhcp/fuzz-$$f -max_total_time=120 -max_len=4096 -artifact_prefix=build/dhcp/ \
			build/dhcp/corpus-$$f || exit 1; \
	done

ALL_TARGETS   += build/dhcp/apps-unit build/dhcp/tun-client
CHECK_TARGETS += check-dhcp
FUZZ_TARGETS  += fuzz-dhcp
CLEAN_FILES   += build/dhcp

# The same protocols over the whole stack: bin/ibboot-hosted with the HCA model in fabsim under
# OpenSM, the server node, dnsmasq and nginx (util/netboot-env): both client-id reservations,
# 16 MiB over TFTP and over HTTP; then HTTP again with 3% loss and 3% reordering on every cable.
# (The hosted platform runs the model on every clock read, so protocol wait loops hear fabsim.)
.PHONY: check-dhcp-ipoib
check-dhcp-ipoib: bin/ibboot-hosted bin/fabsim bin/fabsimctl bin/fabsim-servernode
	@util/run-test dhcp-ipoib src/tests/e2e/hosted/ipoib-e2e.sh
	@IPOIB_E2E_FAULT="all loss=0.03 reorder=0.03" IPOIB_E2E_STEPS="lease-flexboot http" \
		util/run-test dhcp-ipoib-faults src/tests/e2e/hosted/ipoib-e2e.sh
CHECK_TARGETS += check-dhcp-ipoib
