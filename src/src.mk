# src/ — the firmware image, the hosted build and the unit tests.
# (The image and hosted rules are added by the platform work; the unit-test rule is below.)

# Hosted sources the unit tests link against (core, bus, ...): add them here.
UNIT_LIB_SRCS :=
UNIT_TEST_SRCS := src/tests/test_runner.c $(wildcard src/tests/test_*.c)
UNIT_OBJS := $(patsubst %.c,build/unit/%.o,$(UNIT_TEST_SRCS) $(UNIT_LIB_SRCS))

build/unit/%.o: %.c $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Isrc/tests -MMD -MP -c -o $@ $<

bin/tests/unit: $(UNIT_OBJS)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

-include $(UNIT_OBJS:.o=.d)

.PHONY: check-unit
check-unit: bin/tests/unit
	@util/run-test unit bin/tests/unit

ALL_TARGETS += bin/tests/unit
CHECK_TARGETS += check-unit
