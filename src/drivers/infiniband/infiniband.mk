# src/drivers/infiniband — the Hermon driver (hermon*.c) and its tests.
#
#   HERMON_SRCS        the driver sources, for the image and hosted builds to add to their lists
#   bin/tests/hermon   driver tests: pure unit tests plus the driver against the in-process model
#                      (libhcasim), under ASan/UBSan; `make check-driver` runs them.

HERMON_SRCS := $(sort $(wildcard src/drivers/infiniband/hermon*.c))
HERMON_TEST_SRCS := $(sort $(wildcard src/drivers/infiniband/tests/*.c)) src/tests/test_runner.c
# The driver is tested under the real IB core as well (src/net/net.mk, included before us).
HERMON_CORE_SRCS := $(filter src/net/infiniband/%,$(NET_SRCS)) $(NET_IBLIB_SRCS)
HERMON_TEST_OBJS := $(patsubst %.c,build/driver/%.o,$(HERMON_SRCS) $(HERMON_TEST_SRCS) \
	$(HERMON_CORE_SRCS))
# Literal paths: util/hcasim/hcasim.mk and util/iblib/iblib.mk (included after us) build them.
HERMON_HCASIM_LIB := build/hcasim/libhcasim.a build/iblib/libiblib.a

build/driver/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Isrc/tests -Isrc/drivers/infiniband \
		-Iutil/hcasim/include -Iutil/iblib/include -MMD -MP -c -o $@ $<

bin/tests/hermon: $(HERMON_TEST_OBJS) $(HERMON_HCASIM_LIB)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $(HERMON_TEST_OBJS) $(HERMON_HCASIM_LIB)

-include $(HERMON_TEST_OBJS:.o=.d)

.PHONY: check-driver bench-driver check-driver-qemu
check-driver: bin/tests/hermon
	@util/run-test driver bin/tests/hermon

# Bare metal: the image in QEMU with the model on fabsim + OpenSM (started late), ICMP echo
# (about 10 s once QEMU is built; `qemu` is util/qemu/qemu.mk's cached build).
check-driver-qemu: qemu bin/ibboot.lkrn bin/libhcasim.so bin/fabsim bin/fabsim-servernode
	@util/run-test driver-qemu src/drivers/infiniband/tests/qemu-icmp.sh

# Host memory the driver gives the HCA on the model (FA + AUX + ICM) and MAP commands used.
bench-driver: bin/tests/hermon
	@bin/tests/hermon -k bringup_both_ports | grep '^INFO:'

# The tests link the model: only once its fragment exists (it is written alongside this driver).
ifneq ($(wildcard util/hcasim/hcasim.mk),)
ALL_TARGETS += bin/tests/hermon
CHECK_TARGETS += check-driver check-driver-qemu
BENCH_TARGETS += bench-driver
endif
