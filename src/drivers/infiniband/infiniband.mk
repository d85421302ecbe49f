# src/drivers/infiniband — the Hermon driver (hermon*.c) and its tests.
#
#   HERMON_SRCS        the driver sources, for the image and hosted builds to add to their lists
#   bin/tests/hermon   driver tests: pure unit tests plus the driver against the in-process model
#                      (libhcasim), under ASan/UBSan; `make check-driver` runs them.

HERMON_SRCS := $(sort $(wildcard src/drivers/infiniband/hermon*.c))
HERMON_TEST_SRCS := src/tests/unit/drivers/infiniband/test_hermon_ibcore.c \
	src/tests/unit/drivers/infiniband/test_hermon_model.c \
	src/tests/unit/drivers/infiniband/test_hermon_unit.c src/tests/fakes/hermon_rig.c \
	src/tests/framework/test_runner.c
# The driver is tested under the real IB core as well (src/net/net.mk, included before us).
HERMON_CORE_SRCS := $(filter src/net/infiniband/%,$(NET_SRCS)) $(NET_IBLIB_SRCS)
HERMON_TEST_OBJS := $(patsubst %.c,build/driver/%.o,$(HERMON_SRCS) $(HERMON_TEST_SRCS) \
	$(HERMON_CORE_SRCS))
# Literal paths: util/hcasim/hcasim.mk and src/net/infiniband/wire/wire.mk (included after us) build them.
HERMON_HCASIM_LIB := build/hcasim/libhcasim.a build/wire/libwire.a

build/driver/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Isrc/tests/framework -Isrc/tests/fakes -Isrc/drivers/infiniband \
		-Iutil/hcasim/include -MMD -MP -c -o $@ $<

bin/tests/hermon: $(HERMON_TEST_OBJS) $(HERMON_HCASIM_LIB)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $(HERMON_TEST_OBJS) $(HERMON_HCASIM_LIB)

-include $(HERMON_TEST_OBJS:.o=.d)

.PHONY: check-driver bench-driver check-driver-qemu check-driver-hosted
check-driver: bin/tests/hermon
	@util/run-test driver bin/tests/hermon

# Bare metal: the image in QEMU with the model on fabsim + OpenSM (started late), ICMP echo
# (about 10 s once QEMU is built; `qemu` is util/qemu/qemu.mk's cached build).
check-driver-qemu: qemu bin/ibboot.lkrn bin/ibboot-hosted bin/libhcasim.so bin/fabsim \
		bin/fabsim-servernode
	@util/run-test driver-qemu src/tests/e2e/qemu/icmp-e2e.sh qemu

# The same with bin/ibboot-hosted (model in-process, ASan/UBSan); passes since the hosted platform
# runs its devices at every clock read. Not in CHECK_TARGETS: src/tests/e2e/hosted/e2e.sh (below) covers
# the same and more (two-port HCA, SM late and restarted, server-side checks, fwdump).
check-driver-hosted: bin/ibboot.lkrn bin/ibboot-hosted bin/libhcasim.so bin/fabsim \
		bin/fabsim-servernode
	@util/run-test driver-hosted src/tests/e2e/qemu/icmp-e2e.sh hosted

# Figures: host memory the driver gives the HCA on the model (FA + AUX + ICM), and instructions
# per packet of the production fastpath (the IB core over the driver) under callgrind: TX = post a
# send and reap its CQE, RX = reap a receive and repost its buffer. No sanitizers here, -O2 as the
# hosted build.
HERMON_BENCH_SRCS := src/tests/bench/bench_hermon.c $(HERMON_SRCS) $(HERMON_CORE_SRCS) \
	src/tests/fakes/hermon_rig.c
build/driver/bench-hermon: $(HERMON_BENCH_SRCS) $(wildcard src/drivers/infiniband/*.h) \
		$(HERMON_HCASIM_LIB) $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -Isrc/drivers/infiniband -Isrc/tests/fakes \
		-Iutil/hcasim/include -o $@ $(HERMON_BENCH_SRCS) $(HERMON_HCASIM_LIB)

# The MMIO accessor runs the model synchronously (the doorbell write processes the WQE): its
# inclusive cost is the device's, not the driver's, and is subtracted (on silicon it is one store).
bench-driver: bin/tests/hermon build/driver/bench-hermon
	@bin/tests/hermon -k bringup_both_ports | grep '^INFO:'
	@for what in tx rx; do \
		valgrind --tool=callgrind --callgrind-out-file=build/driver/cg.$$what \
			--toggle-collect=bench_$$what build/driver/bench-hermon 1000 \
			> build/driver/bench.$$what 2>&1 || { cat build/driver/bench.$$what; exit 1; }; \
		callgrind_annotate --inclusive=yes --threshold=100 build/driver/cg.$$what \
			> build/driver/cg.$$what.txt; \
		total=$$(awk '/PROGRAM TOTALS/ {gsub(",","",$$1); print $$1; exit}' build/driver/cg.$$what.txt); \
		mmio=$$(awk '/:writel_be( |$$)/ {gsub(",","",$$1); print $$1; exit}' build/driver/cg.$$what.txt); \
		drv=0; for fn in hermon_post_send hermon_poll_cq hermon_post_recv; do \
			v=$$(awk -v f=":$$fn" 'index($$0, f " ") || substr($$0, length($$0) - length(f) + 1) == f \
				{ gsub(",", "", $$1); if ($$1 + 0 > m) m = $$1 + 0 } END { print m + 0 }' \
				build/driver/cg.$$what.txt); drv=$$((drv + v)); done; \
		echo "INFO: hermon fastpath $$what: $$(( (total - $${mmio:-0}) / 1000 )) instructions per packet" \
			"(IB core + driver, as IPoIB calls them; 2044-byte UD), $$(( (drv - $${mmio:-0}) / 1000 ))" \
			"of them in the driver's ops; $$(( $${mmio:-0} / 1000 )) more in the model behind the doorbell"; \
	done

# Issue 6's hosted end-to-end test (its own fragment; the top Makefile does not list it).
-include src/tests/e2e/hosted/hosted.mk

# The tests link the model: only once its fragment exists (it is written alongside this driver).
ifneq ($(wildcard util/hcasim/hcasim.mk),)
ALL_TARGETS += bin/tests/hermon
CHECK_TARGETS += check-driver check-driver-qemu
BENCH_TARGETS += bench-driver
endif
