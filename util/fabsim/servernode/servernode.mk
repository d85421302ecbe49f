# fabsim's IPoIB server node (bin/fabsim-servernode), its unit tests and the netboot-env
# integration test. Included by util/fabsim/fabsim.mk.
SN_DIR   := util/fabsim/servernode
SN_BUILD := build/servernode
SN_CFLAGS := $(HOST_CFLAGS) -I$(SN_DIR) -Isrc/tests

# Wire-format and protocol code shared by the server node and the raw IPoIB test client.
SN_CORE := ipoib_wire

SN_UNIT_TESTS := test_ipoib_wire

SN_CORE_SAN_OBJS := $(SN_CORE:%=$(SN_BUILD)/san/%.o)
SN_UNIT_OBJS := $(SN_UNIT_TESTS:%=$(SN_BUILD)/san/tests/%.o) $(SN_BUILD)/san/test_runner.o

$(SN_BUILD)/san/%.o: $(SN_DIR)/%.c $(wildcard $(SN_DIR)/*.h)
	@mkdir -p $(@D)
	$(HOST_CC) $(SN_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(SN_BUILD)/san/tests/%.o: $(SN_DIR)/tests/%.c $(wildcard $(SN_DIR)/*.h) src/tests/test.h
	@mkdir -p $(@D)
	$(HOST_CC) $(SN_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(SN_BUILD)/san/test_runner.o: src/tests/test_runner.c src/tests/test.h
	@mkdir -p $(@D)
	$(HOST_CC) $(SN_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

bin/tests/servernode-unit: $(SN_UNIT_OBJS) $(SN_CORE_SAN_OBJS)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

.PHONY: check-servernode
check-servernode: bin/tests/servernode-unit
	@util/run-test servernode-unit bin/tests/servernode-unit

ALL_TARGETS += bin/tests/servernode-unit
CHECK_TARGETS += check-servernode
