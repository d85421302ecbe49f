# util/fabsim/rogue — a hostile CA port for tests (bin/fabsim-rogue) and check-rogue-sa, the test
# in which it forges SA answers to ibboot on the real fabric stack. See util/fabsim/rogue/README.md.
# Built from the server node's objects (servernode.mk): UD packets, the firmware SMA adapter,
# fabsim's client, iblib.
ROGUE_DIR := util/fabsim/rogue

$(SN_BUILD)/opt/rogue/rogue_main.o: $(ROGUE_DIR)/rogue_main.c $(SN_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(SN_CFLAGS) -c -o $@ $<

bin/fabsim-rogue: $(SN_BUILD)/opt/rogue/rogue_main.o $(SN_CORE_OBJS_opt)
	@mkdir -p $(@D)
	$(HOST_CC) -o $@ $^

# ibboot-hosted (the HCA model in-process, port 2 of slot 2) under the stock OpenSM with the
# rogue on slot 1 and fabsim mirroring SA requests to it; about 30 s.
.PHONY: check-rogue-sa
check-rogue-sa: bin/fabsim-rogue bin/fabsimctl $(HOSTED_E2E_DEPS)
	@util/run-test rogue-sa $(ROGUE_DIR)/rogue-sa.sh

ALL_TARGETS += bin/fabsim-rogue
