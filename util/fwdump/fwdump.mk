# util/fwdump — the host decoder of `fwdump` / boot-report dumps (FWDUMP format,
# src/include/ibboot/fwdump.h).
#
#   bin/ibboot-fwdump-decode     decodes a saved dump into named fields (PRM accessors)
#   build/tests/fwdump-rig       writes the real driver's dump over the in-process model
#   build/tests/fuzz-fwdump      libFuzzer target over the parser (util/fwdump/fuzz)
#   make check-fwdump            the decoder on the rig's dumps, malformed dumps refused, a short
#                                fuzz run;  make fuzz-fwdump: a longer one

FWDUMP_PARSE_SRCS := util/fwdump/fwdump_parse.c
FWDUMP_HDRS := util/fwdump/fwdump_parse.h src/include/ibboot/fwdump.h

bin/ibboot-fwdump-decode: util/fwdump/fwdump_decode.c $(FWDUMP_PARSE_SRCS) $(FWDUMP_HDRS) $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -Iutil/fwdump -o $@ util/fwdump/fwdump_decode.c $(FWDUMP_PARSE_SRCS)

# The real driver (build/san/libibboot.a) over the model, through the Hermon test rig.
FWDUMP_RIG_OBJS := $(patsubst %.c,build/san/%.o,util/fwdump/tests/fwdump_rig.c \
	src/tests/fakes/hermon_rig.c)
build/tests/fwdump-rig: $(FWDUMP_RIG_OBJS) build/san/libibboot.a $$(TEST_HCASIM_LIB)
	@mkdir -p $(@D)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $(FWDUMP_RIG_OBJS) \
		-Wl,--start-group build/san/libibboot.a $(TEST_HCASIM_LIB) -Wl,--end-group
-include $(FWDUMP_RIG_OBJS:.o=.d)

build/tests/fuzz-fwdump: util/fwdump/fuzz/fuzz_fwdump.c $(FWDUMP_PARSE_SRCS) $(FWDUMP_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -O1 -g -D_GNU_SOURCE -Isrc/include -Ibuild/include -Iutil/fwdump \
		-fsanitize=fuzzer,address,undefined -o $@ util/fwdump/fuzz/fuzz_fwdump.c \
		$(FWDUMP_PARSE_SRCS)

check-fwdump: bin/ibboot-fwdump-decode build/tests/fwdump-rig $$(call FUZZ_BINS,fwdump)
	@util/run-test fwdump util/fwdump/tests/fwdump-check.sh
	@$(if $(HAVE_CLANG),util/run-test fwdump-fuzz src/tests/framework/fuzz-smoke.sh fwdump \
		build/tests/fuzz-fwdump 20000 util/fwdump/fuzz/seeds -max_len=16384,\
		util/run-test fwdump-fuzz sh -c 'echo "SKIP: fwdump-fuzz: clang is not installed"; exit 77')

fuzz-fwdump: build/tests/fuzz-fwdump
	@mkdir -p build/fuzz/corpus-fwdump && cp -n util/fwdump/fuzz/seeds/* build/fuzz/corpus-fwdump/
	@build/tests/fuzz-fwdump -max_total_time=60 -max_len=16384 -close_fd_mask=1 \
		-artifact_prefix=build/fuzz/ build/fuzz/corpus-fwdump

ALL_TARGETS += bin/ibboot-fwdump-decode
.PHONY: check-fwdump fuzz-fwdump
