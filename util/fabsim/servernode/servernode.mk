# fabsim's IPoIB server node (bin/fabsim-servernode), its raw IPoIB test client, unit tests and
# the netboot-env integration test. Included by util/fabsim/fabsim.mk.
#
#   bin/fabsim-servernode            the server node (util/netboot-env runs it)
#   bin/tests/servernode-unit        unit tests (ASan/UBSan)
#   bin/tests/ipoib-client           raw IPoIB endpoint: DHCP (RFC 4390) + TFTP through the fabric
#   make check-servernode
SN_DIR   := util/fabsim/servernode
SN_BUILD := build/servernode
# Its tests and fuzz target live with fabsim's (util/fabsim/tests).
SN_TESTS := util/fabsim/tests/servernode
SN_INCS  := -I$(SN_DIR) -Iutil/fabsim -Isrc/include -Iutil/hcasim -Iutil/hcasim/include
SN_CFLAGS := $(HOST_CFLAGS) $(SN_INCS)
SN_HDRS  := $(wildcard $(SN_DIR)/*.h $(SN_TESTS)/*.h) $(wildcard src/include/ibboot/wire/*.h) \
	    util/hcasim/sma.h util/fabsim/fabsim_client.h util/fabsim/fabsim_wire.h

# The IPoIB host core shared by the server node and the test client.
SN_CORE := ipoib_wire ud_pkt sa_msg sn_sma ipoib_node
# What it borrows from its neighbours: iblib (wire formats), the HCA model's firmware SMA and
# fabsim's attachment client. Compiled here again so that the sanitizer builds cover them too.
SN_EXT_SRCS := src/net/infiniband/wire/crc.c src/net/infiniband/wire/packet.c src/net/infiniband/wire/mad.c util/hcasim/sma.c \
	       util/fabsim/fabsim_client.c

SN_UNIT_TESTS := test_ipoib_wire test_ud_pkt test_sa_msg test_netboot_proto test_ipoib_node

# Objects: build/servernode/<flavour>/<source dir tag>/<name>.o (opt: -O2; san: ASan/UBSan).
SN_SRC_DIRS := sn:$(SN_DIR) tests:$(SN_TESTS) iblib:src/net/infiniband/wire hcasim:util/hcasim fabsim:util/fabsim
SN_TAG_OF = $(firstword $(foreach d,$(SN_SRC_DIRS),$(if $(filter $(patsubst %/,%,$(dir $(1))),$(word 2,$(subst :, ,$(d)))),$(word 1,$(subst :, ,$(d))))))
SN_EXT_OBJS = $(foreach s,$(SN_EXT_SRCS),$(SN_BUILD)/$(1)/$(call SN_TAG_OF,$(s))/$(notdir $(basename $(s))).o)
SN_CORE_OBJS_opt := $(SN_CORE:%=$(SN_BUILD)/opt/sn/%.o) $(call SN_EXT_OBJS,opt)
SN_CORE_OBJS_san := $(SN_CORE:%=$(SN_BUILD)/san/sn/%.o) $(call SN_EXT_OBJS,san)

define SN_RULES
$(SN_BUILD)/opt/$(1)/%.o: $(2)/%.c $(SN_HDRS)
	@mkdir -p $$(@D)
	$$(HOST_CC) $$(SN_CFLAGS) -c -o $$@ $$<
$(SN_BUILD)/san/$(1)/%.o: $(2)/%.c $(SN_HDRS)
	@mkdir -p $$(@D)
	$$(HOST_CC) $$(SN_CFLAGS) $$(SAN_FLAGS) -c -o $$@ $$<
endef
$(foreach d,$(SN_SRC_DIRS),$(eval $(call SN_RULES,$(word 1,$(subst :, ,$(d))),$(word 2,$(subst :, ,$(d))))))

$(SN_BUILD)/san/test_runner.o: src/tests/framework/test_runner.c src/tests/framework/test.h
	@mkdir -p $(@D)
	$(HOST_CC) $(SN_CFLAGS) -Isrc/tests/framework $(SAN_FLAGS) -c -o $@ $<

$(SN_BUILD)/san/tests/%.o: SN_CFLAGS += -Isrc/tests/framework -I$(SN_TESTS)

bin/fabsim-servernode: $(SN_BUILD)/opt/sn/servernode_main.o $(SN_BUILD)/opt/sn/tun.o $(SN_CORE_OBJS_opt)
	@mkdir -p $(@D)
	$(HOST_CC) -o $@ $^

# The same program under ASan/UBSan: the integration tests run this one.
build/servernode/fabsim-servernode-san: $(SN_BUILD)/san/sn/servernode_main.o $(SN_BUILD)/san/sn/tun.o $(SN_CORE_OBJS_san)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

bin/tests/ipoib-client: $(SN_BUILD)/san/tests/ipoib_client.o $(SN_BUILD)/san/tests/netboot_proto.o $(SN_CORE_OBJS_san)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

bin/tests/servernode-unit: $(SN_UNIT_TESTS:%=$(SN_BUILD)/san/tests/%.o) $(SN_BUILD)/san/test_runner.o \
		$(SN_BUILD)/san/tests/netboot_proto.o $(SN_CORE_OBJS_san)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

# libFuzzer target over everything the node parses from the wire (needs clang).
SN_FUZZ_CC ?= clang
SN_HAVE_CLANG := $(shell command -v $(SN_FUZZ_CC) >/dev/null 2>&1 && echo yes)
SN_FUZZ_SRCS := util/fabsim/tests/fuzz/servernode/fuzz_servernode.c $(SN_CORE:%=$(SN_DIR)/%.c) $(SN_EXT_SRCS) \
		$(SN_TESTS)/netboot_proto.c
build/servernode/fuzz-servernode: $(SN_FUZZ_SRCS) $(SN_HDRS)
	@mkdir -p $(@D)
	$(SN_FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
		$(SN_INCS) -I$(SN_TESTS) -o $@ $(SN_FUZZ_SRCS)

.PHONY: fuzz-servernode
fuzz-servernode: build/servernode/fuzz-servernode
	@mkdir -p build/servernode/corpus
	build/servernode/fuzz-servernode -max_total_time=120 -max_len=4300 build/servernode/corpus \
		util/fabsim/tests/fuzz/servernode/seeds

# The integration test needs fabsim itself (util/fabsim/fabsim.mk, which includes this file).
SN_FABSIM := $(if $(FABSIM_CORE_SRCS),bin/fabsim bin/fabsimctl)

.PHONY: check-servernode
ifneq ($(wildcard util/hcasim/sma.c),)
check-servernode: bin/tests/servernode-unit bin/fabsim-servernode build/servernode/fabsim-servernode-san \
		bin/tests/ipoib-client $(SN_FABSIM)
	@util/run-test servernode-unit bin/tests/servernode-unit
	@util/run-test netboot-env-pieces $(SN_TESTS)/netboot-env-pieces.sh
	@SERVERNODE=build/servernode/fabsim-servernode-san util/run-test servernode-netboot $(SN_TESTS)/netboot-dhcp-tftp.sh
	@SERVERNODE=build/servernode/fabsim-servernode-san util/run-test servernode-sm-restart $(SN_TESTS)/netboot-sm-restart.sh
	@SERVERNODE=build/servernode/fabsim-servernode-san util/run-test servernode-faults $(SN_TESTS)/netboot-faults.sh
ifeq ($(SN_HAVE_CLANG),yes)
	@$(MAKE) --no-print-directory build/servernode/fuzz-servernode
	@util/run-test servernode-fuzz src/tests/framework/fuzz-smoke.sh servernode-fuzz \
		build/servernode/fuzz-servernode 20000 util/fabsim/tests/fuzz/servernode/seeds -max_len=4300
else
	@util/run-test servernode-fuzz sh -c 'echo "SKIP: servernode-fuzz: clang not installed (util/deps.d/servernode.list)"; exit 77'
endif
else
# Until the firmware SMA library lands, only the parts that do not answer SMPs can be tested.
SN_EARLY_TESTS := test_ipoib_wire test_ud_pkt test_sa_msg test_netboot_proto
bin/tests/servernode-unit-early: $(SN_EARLY_TESTS:%=$(SN_BUILD)/san/tests/%.o) $(SN_BUILD)/san/test_runner.o \
		$(SN_BUILD)/san/tests/netboot_proto.o $(SN_BUILD)/san/sn/ipoib_wire.o $(SN_BUILD)/san/sn/ud_pkt.o \
		$(SN_BUILD)/san/sn/sa_msg.o $(SN_BUILD)/san/iblib/crc.o $(SN_BUILD)/san/iblib/packet.o \
		$(SN_BUILD)/san/iblib/mad.o
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^
check-servernode: bin/tests/servernode-unit-early
	@util/run-test servernode-unit bin/tests/servernode-unit-early -s servernode-unit
	@util/run-test netboot-env-pieces $(SN_TESTS)/netboot-env-pieces.sh
	@util/run-test servernode-netboot sh -c 'echo "SKIP: servernode-netboot: util/hcasim/sma.c (firmware SMA library) not in the tree yet"; exit 77'
endif

ifneq ($(wildcard util/hcasim/sma.c),)
ALL_TARGETS += bin/fabsim-servernode bin/tests/servernode-unit bin/tests/ipoib-client
endif
CHECK_TARGETS += check-servernode
FUZZ_TARGETS += fuzz-servernode
CLEAN_FILES += build/servernode
