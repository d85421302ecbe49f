# tests/hosted — issue 6's end-to-end test of the hosted build: bin/ibboot-hosted (ASan/UBSan) with
# the HCA model in-process on fabsim + the stock OpenSM + the server node (util/netboot-env):
# a two-port HCA with one port cabled, SM started late, broadcast join, ARP, ICMP echo answered by
# the server's kernel, SM restarted mid-ping (rejoin). About 60 s (30 of them are the firmware's
# "no subnet manager" threshold). Included by src/drivers/infiniband/infiniband.mk.

.PHONY: check-hosted-e2e bench-hosted
HOSTED_E2E_DEPS := bin/ibboot-hosted bin/fabsim bin/fabsim-servernode

check-hosted-e2e: $(HOSTED_E2E_DEPS)
	@util/run-test hosted-e2e src/tests/e2e/hosted/e2e.sh

# Times from start to port ACTIVE and to the first echo reply (SM up), median of 3 runs; printed.
bench-hosted: $(HOSTED_E2E_DEPS)
	@src/tests/e2e/hosted/e2e.sh --bench 3

ifneq ($(wildcard util/hcasim/hcasim.mk),)
CHECK_TARGETS += check-hosted-e2e
BENCH_TARGETS += bench-hosted
endif
