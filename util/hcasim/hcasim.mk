# util/hcasim — the HCA model (libhcasim). See util/hcasim/include/hcasim.h.
#
#   build/hcasim/libhcasim.a   static library (link $(IBLIB_LIB) after it: packets come from iblib)
#   bin/libhcasim.so           the same, -fPIC, iblib linked in (the QEMU device dlopens it)
#   bin/tests/hcasim           model tests (ASan/UBSan), run by `make check-hcasim`
#   make coverage-hcasim       line coverage of util/hcasim with gcovr (build/hcasim-cov)
#
# util/hcasim/sma.c and sma.h belong to iblib's owner (the firmware SMA); they are compiled here.

HCASIM_SRCS := $(sort $(wildcard util/hcasim/*.c))
HCASIM_HDRS := $(wildcard util/hcasim/*.h util/hcasim/include/*.h) $(wildcard src/include/ibboot/wire/*.h)
HCASIM_CFLAGS := -Iutil/hcasim/include -Iutil/hcasim -Isrc/include -Ibuild/include
HCASIM_OBJS := $(patsubst util/hcasim/%.c,build/hcasim/obj/%.o,$(HCASIM_SRCS))
HCASIM_LIB := build/hcasim/libhcasim.a
HCASIM_SO := bin/libhcasim.so
# What another component links to use the model (fabsim tests, hosted build).
HCASIM_LIBS := $(HCASIM_LIB) build/wire/libwire.a
# The reusable raw "test host" (guest memory, HCR helper, bring-up): fabsim's tests use it too.
HCASIM_RAWHOST_SRCS := util/hcasim/tests/rawhost.c
HCASIM_RAWHOST_CFLAGS := -Iutil/hcasim/tests

build/hcasim/obj/%.o: util/hcasim/%.c $(HCASIM_HDRS) $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(HCASIM_CFLAGS) -fPIC -c -o $@ $<

$(HCASIM_LIB): $(HCASIM_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(HCASIM_SO): $(HCASIM_OBJS) build/wire/libwire.a
	@mkdir -p $(@D)
	$(HOST_CC) -shared -o $@ $(HCASIM_OBJS) build/wire/libwire.a

# Model tests: the model and iblib compiled again with the sanitizers (my test files only;
# tests/test_sma.c is iblib's and runs in check-iblib).
HCASIM_TEST_SRCS := $(filter-out util/hcasim/tests/test_sma.c,$(wildcard util/hcasim/tests/test_*.c))
HCASIM_TEST_DEPS := $(HCASIM_TEST_SRCS) $(HCASIM_RAWHOST_SRCS) util/hcasim/tests/rawhost.h \
	$(HCASIM_SRCS) $(HCASIM_HDRS) $(PRM_H) $(IBLIB_SRCS) src/tests/framework/test_runner.c src/tests/framework/test.h
bin/tests/hcasim: $(HCASIM_TEST_DEPS)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(HCASIM_CFLAGS) $(HCASIM_RAWHOST_CFLAGS) -Isrc/tests/framework \
		-o $@ $(HCASIM_TEST_SRCS) $(HCASIM_RAWHOST_SRCS) $(HCASIM_SRCS) $(IBLIB_SRCS) \
		src/tests/framework/test_runner.c

.PHONY: check-hcasim coverage-hcasim
check-hcasim: $(HCASIM_LIB) $(HCASIM_SO) bin/tests/hcasim
	@util/run-test hcasim bin/tests/hcasim

# Line coverage of util/hcasim (no sanitizers, -O0): prints gcovr's summary.
coverage-hcasim: $(HCASIM_TEST_DEPS)
	@rm -rf build/hcasim-cov && mkdir -p build/hcasim-cov
	cd build/hcasim-cov && $(HOST_CC) -std=c11 -O0 -g --coverage -D_GNU_SOURCE \
		$(addprefix -I../../,src/include build/include util/hcasim/include util/hcasim util/hcasim/tests src/tests/framework) \
		-o hcasim-cov $(addprefix ../../,$(HCASIM_TEST_SRCS) $(HCASIM_RAWHOST_SRCS) $(HCASIM_SRCS) $(IBLIB_SRCS) src/tests/framework/test_runner.c)
	cd build/hcasim-cov && ./hcasim-cov > run.log 2>&1 || (tail -20 run.log; exit 1)
	gcovr -r . --object-directory build/hcasim-cov --filter 'util/hcasim/[^/]*\.c$$' \
		--exclude util/hcasim/sma.c

ALL_TARGETS += $(HCASIM_LIB) $(HCASIM_SO)
CHECK_TARGETS += check-hcasim
CLEAN_FILES += build/hcasim build/hcasim-cov bin/libhcasim.so bin/tests/hcasim
