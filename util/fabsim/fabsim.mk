# util/fabsim — the fabric simulator (see util/fabsim/README.md).
#
#   bin/fabsim, bin/fabsimctl        the simulator and its control tool
#   build/fabsim/san/fabsim          the same, under ASan/UBSan, for the tests
#   build/tests/fabsim-test         in-process unit tests (ASan/UBSan)
#   FABSIM_CLIENT_SRCS, FABSIM_ATTACH_SRCS   for whoever links an HCA port to fabsim (qemu, hosted)
#   make check-fabsim

FABSIM_DIR := util/fabsim
FABSIM_CORE_SRCS := $(addprefix $(FABSIM_DIR)/,topo.c fabric.c switch.c sma.c pkt.c \
	ibsim_server.c hca_server.c control.c listener.c pcap.c mirror.c)
FABSIM_HDRS := $(wildcard $(FABSIM_DIR)/*.h) $(WIRE_HDRS)
FABSIM_CLIENT_SRCS := $(FABSIM_DIR)/fabsim_client.c
FABSIM_ATTACH_SRCS := $(FABSIM_DIR)/hca_attach.c $(FABSIM_CLIENT_SRCS)
FABSIM_CFLAGS := -Isrc/include -I$(FABSIM_DIR)

# The program also carries the IPoIB server node (--servernode: sn_port.c and the node's own
# sources, util/fabsim/servernode), so that it can run as a port inside fabsim.
FABSIM_SN_SRCS := $(FABSIM_DIR)/sn_port.c $(addprefix $(FABSIM_DIR)/servernode/,ipoib_wire.c \
	ud_pkt.c sa_msg.c sn_sma.c ipoib_node.c tun_gso.c tun.c sn_bridge.c) util/hcasim/sma.c
FABSIM_SN_HDRS := $(wildcard $(FABSIM_DIR)/servernode/*.h) util/hcasim/sma.h util/hcasim/include/hcasim.h
FABSIM_SN_CFLAGS := -I$(FABSIM_DIR)/servernode -Iutil/hcasim -Iutil/hcasim/include
FABSIM_PROG_SRCS := $(FABSIM_CORE_SRCS) $(FABSIM_DIR)/main.c $(FABSIM_SN_SRCS) $(WIRE_SRCS)

bin/fabsim: $(FABSIM_PROG_SRCS) $(FABSIM_HDRS) $(FABSIM_SN_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(FABSIM_CFLAGS) $(FABSIM_SN_CFLAGS) -o $@ $(FABSIM_PROG_SRCS)

bin/fabsimctl: $(FABSIM_DIR)/fabsimctl.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $<

build/fabsim/san/fabsim: $(FABSIM_PROG_SRCS) $(FABSIM_HDRS) $(FABSIM_SN_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(FABSIM_CFLAGS) $(FABSIM_SN_CFLAGS) -o $@ \
		$(FABSIM_PROG_SRCS)

FABSIM_TEST_SRCS := $(FABSIM_DIR)/tests/test_fabsim.c
build/tests/fabsim-test: $(FABSIM_TEST_SRCS) $(FABSIM_CORE_SRCS) $(FABSIM_CLIENT_SRCS) $(FABSIM_HDRS) \
		$(WIRE_SRCS) src/tests/framework/test_runner.c src/tests/framework/test.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(FABSIM_CFLAGS) -Isrc/tests/framework -pthread -o $@ \
		$(FABSIM_TEST_SRCS) $(FABSIM_CORE_SRCS) $(FABSIM_CLIENT_SRCS) $(WIRE_SRCS) \
		src/tests/framework/test_runner.c

# An HCA stand-in for the OpenSM test: the HCA model's firmware SMA (util/hcasim/sma.c) behind
# fabsim's socket, used until the whole model can be driven through raw commands.
FABSIM_STANDIN_SRCS := $(FABSIM_DIR)/tests/hca_standin.c util/hcasim/sma.c $(FABSIM_CLIENT_SRCS)
build/tests/hca-standin: $(FABSIM_STANDIN_SRCS) util/hcasim/sma.h util/hcasim/include/hcasim.h \
		$(FABSIM_HDRS) $(WIRE_SRCS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(FABSIM_CFLAGS) -Iutil/hcasim -Iutil/hcasim/include \
		-o $@ $(FABSIM_STANDIN_SRCS) $(WIRE_SRCS)

# The whole HCA model on fabsim, brought up by raw commands (util/hcasim/tests/rawhost).
# (The model's sources are hcasim.mk's list: a recursive variable, named as $$(...) below.)
FABSIM_RIG_SRCS = $(FABSIM_DIR)/tests/hca_rig.c $(FABSIM_ATTACH_SRCS) util/hcasim/tests/rawhost.c \
	$(HCASIM_SRCS)
build/tests/hca-rig: $$(FABSIM_RIG_SRCS) $(wildcard util/hcasim/*.h util/hcasim/include/*.h) \
		util/hcasim/tests/rawhost.h $(FABSIM_HDRS) $(WIRE_SRCS) $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(FABSIM_CFLAGS) -Iutil/hcasim -Iutil/hcasim/include \
		-Iutil/hcasim/tests -o $@ $(FABSIM_RIG_SRCS) $(WIRE_SRCS)

# libFuzzer: arbitrary packets at every port of a small fabric (needs clang + libclang-rt).
build/tests/fuzz-fabric: $(FABSIM_DIR)/tests/fuzz/fabric/fuzz_fabric.c $(FABSIM_CORE_SRCS) $(FABSIM_HDRS) \
		$(WIRE_SRCS)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE \
		-fsanitize=fuzzer,address,undefined $(FABSIM_CFLAGS) -o $@ $< $(FABSIM_CORE_SRCS) \
		$(WIRE_SRCS)

.PHONY: fuzz-fabsim
fuzz-fabsim: build/tests/fuzz-fabric
	mkdir -p build/fabsim/corpus
	build/tests/fuzz-fabric -max_total_time=300 -max_len=4300 build/fabsim/corpus \
		$(FABSIM_DIR)/tests/fuzz/fabric/seeds


.PHONY: check-fabsim
check-fabsim: bin/fabsim bin/fabsimctl build/fabsim/san/fabsim build/tests/fabsim-test \
		build/tests/hca-standin build/tests/hca-rig $(if $(HAVE_CLANG),build/tests/fuzz-fabric)
	@util/run-test fabsim-unit build/tests/fabsim-test
ifeq ($(HAVE_CLANG),yes)
	@util/run-test fabsim-fuzz src/tests/framework/fuzz-smoke.sh fabsim-fuzz build/tests/fuzz-fabric 20000 \
		$(FABSIM_DIR)/tests/fuzz/fabric/seeds -max_len=4300
else
	@util/run-test fabsim-fuzz sh -c 'echo "SKIP: fabsim-fuzz: clang not installed (util/deps.d/fabsim.list)"; exit 77'
endif
	@SUITE=fabsim-opensm-hcasim RIG_JOINS=1 util/run-test fabsim-opensm-hcasim \
		$(FABSIM_DIR)/tests/opensm-test.sh build/fabsim/san/fabsim bin/fabsimctl \
		build/tests/hca-rig --join
	@SUITE=fabsim-opensm-lossy FABSIM_FAULT="all loss=0.05 dup=0.05 reorder=0.05" \
		util/run-test fabsim-opensm-lossy $(FABSIM_DIR)/tests/opensm-test.sh \
		build/fabsim/san/fabsim bin/fabsimctl build/tests/hca-rig
	@SUITE=fabsim-opensm-standin RIG_JOINS=1 util/run-test fabsim-opensm-standin \
		$(FABSIM_DIR)/tests/opensm-test.sh build/fabsim/san/fabsim bin/fabsimctl \
		build/tests/hca-standin --join

ALL_TARGETS += bin/fabsim bin/fabsimctl
CLEAN_FILES += build/fabsim

# ---- make bench-rig: what the rig delivers to a guest that costs (almost) nothing ----
# The sink is ibboot's own stack in the hosted program, -O2 without sanitizers (build/opt),
# with the HCA model in its process as in QEMU's device (hca_attach: libhcasim + fabsim's client);
# util/fabsim/bench-rig.sh fetches 64 MiB from nginx with it and, in the same environment, with
# bin/ibboot.lkrn in QEMU, and prints both rates, their ratio and each rig process's CPU share.
build/opt/ibboot-hosted: $(OPT_LIB_OBJS) $(patsubst %.c,build/opt/%.o,$(HOSTED_MAIN_SRCS)) \
		build/hcasim/libhcasim.a
	@mkdir -p $(@D)
	$(HOST_CC) -o $@ $^
.PHONY: bench-rig
bench-rig: build/opt/ibboot-hosted bin/fabsim bin/fabsim-servernode bin/ibboot.lkrn \
		bin/libhcasim.so bin/libfabsim_client.so
	@$(FABSIM_DIR)/bench-rig.sh
