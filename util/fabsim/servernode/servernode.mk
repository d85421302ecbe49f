# fabsim's IPoIB server node (bin/fabsim-servernode), its raw IPoIB test client, unit tests and
# the netboot-env integration test. Included by util/fabsim/fabsim.mk.
#
#   bin/fabsim-servernode            the server node (util/netboot-env runs it)
#   build/tests/servernode-unit        unit tests (ASan/UBSan)
#   build/tests/ipoib-client           raw IPoIB endpoint: DHCP (RFC 4390) + TFTP through the fabric
#   make check-servernode
SN_DIR   := util/fabsim/servernode
SN_BUILD := build/servernode
# Its tests and fuzz target live with fabsim's (util/fabsim/tests).
SN_TESTS := util/fabsim/tests/servernode
SN_INCS  := -I$(SN_DIR) -Iutil/fabsim -Isrc/include -Iutil/hcasim -Iutil/hcasim/include
SN_CFLAGS := $(HOST_CFLAGS) $(SN_INCS)
SN_HDRS  := $(wildcard $(SN_DIR)/*.h $(SN_TESTS)/*.h) $(WIRE_HDRS) \
	    util/hcasim/sma.h util/fabsim/fabsim_client.h util/fabsim/fabsim_wire.h

# The IPoIB host core shared by the server node and the test client.
SN_CORE := ipoib_wire ud_pkt sa_msg sn_sma ipoib_node tun_gso
# What it borrows from its neighbours: iblib (wire formats), the HCA model's firmware SMA and
# fabsim's attachment client. Compiled here again so that the sanitizer builds cover them too.
SN_EXT_SRCS := $(WIRE_SRCS) util/hcasim/sma.c \
	       util/fabsim/fabsim_client.c

SN_UNIT_TESTS := test_ipoib_wire test_ud_pkt test_sa_msg test_netboot_proto test_ipoib_node \
	test_tun_gso

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

bin/fabsim-servernode: $(SN_BUILD)/opt/sn/servernode_main.o $(SN_BUILD)/opt/sn/sn_bridge.o $(SN_BUILD)/opt/sn/tun.o $(SN_CORE_OBJS_opt)
	@mkdir -p $(@D)
	$(HOST_CC) -o $@ $^

# The same program under ASan/UBSan: the integration tests run this one.
build/servernode/fabsim-servernode-san: $(SN_BUILD)/san/sn/servernode_main.o $(SN_BUILD)/san/sn/sn_bridge.o $(SN_BUILD)/san/sn/tun.o $(SN_CORE_OBJS_san)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

build/tests/ipoib-client: $(SN_BUILD)/san/tests/ipoib_client.o $(SN_BUILD)/san/tests/netboot_proto.o $(SN_CORE_OBJS_san)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

build/tests/servernode-unit: $(SN_UNIT_TESTS:%=$(SN_BUILD)/san/tests/%.o) $(SN_BUILD)/san/test_runner.o \
		$(SN_BUILD)/san/tests/netboot_proto.o $(SN_CORE_OBJS_san)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

# libFuzzer target over everything the node parses from the wire (needs clang).
SN_FUZZ_SRCS := util/fabsim/tests/fuzz/servernode/fuzz_servernode.c $(SN_CORE:%=$(SN_DIR)/%.c) $(SN_EXT_SRCS) \
		$(SN_TESTS)/netboot_proto.c
build/tests/fuzz-servernode: $(SN_FUZZ_SRCS) $(SN_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
		$(SN_INCS) -I$(SN_TESTS) -o $@ $(SN_FUZZ_SRCS)

.PHONY: fuzz-servernode
fuzz-servernode: build/tests/fuzz-servernode
	@mkdir -p build/servernode/corpus
	build/tests/fuzz-servernode -max_total_time=120 -max_len=4300 build/servernode/corpus \
		util/fabsim/tests/fuzz/servernode/seeds

# check-servernode: unit tests, the netboot-env pieces, then the node on fabsim (ASan/UBSan build)
# with the raw IPoIB client: DHCP + TFTP, an SM restart, faults on the cables; DHCP + TFTP + HTTP
# again with the node as a port inside fabsim (fabsim --servernode, ASan/UBSan); and fuzzing.
.PHONY: check-servernode
check-servernode: build/tests/servernode-unit bin/fabsim-servernode build/servernode/fabsim-servernode-san \
		build/tests/ipoib-client bin/fabsim bin/fabsimctl build/fabsim/san/fabsim \
		$(if $(HAVE_CLANG),build/tests/fuzz-servernode)
	@util/run-test servernode-unit build/tests/servernode-unit
	@util/run-test netboot-env-pieces $(SN_TESTS)/netboot-env-pieces.sh
	@SERVERNODE=build/servernode/fabsim-servernode-san util/run-test servernode-netboot $(SN_TESTS)/netboot-dhcp-tftp.sh
	@NETBOOT_SERVERNODE_IN_FABSIM=1 FABSIM=build/fabsim/san/fabsim SN_TEST_NAME=servernode-netboot-in-fabsim \
		util/run-test servernode-netboot-in-fabsim $(SN_TESTS)/netboot-dhcp-tftp.sh
	@SERVERNODE=build/servernode/fabsim-servernode-san util/run-test servernode-sm-restart $(SN_TESTS)/netboot-sm-restart.sh
	@SERVERNODE=build/servernode/fabsim-servernode-san util/run-test servernode-faults $(SN_TESTS)/netboot-faults.sh
ifeq ($(HAVE_CLANG),yes)
	@util/run-test servernode-fuzz src/tests/framework/fuzz-smoke.sh servernode-fuzz \
		build/tests/fuzz-servernode 20000 util/fabsim/tests/fuzz/servernode/seeds -max_len=4300
else
	@util/run-test servernode-fuzz sh -c 'echo "SKIP: servernode-fuzz: clang is not installed"; exit 77'
endif

ALL_TARGETS += bin/fabsim-servernode build/tests/servernode-unit build/tests/ipoib-client
CLEAN_FILES += build/servernode
