# src/tests/e2e/oracle — independent drivers checking the HCA model.
#   make check-linux-oracle  Linux's own mlx4_core + mlx4_ib + ib_ipoib (the payload's Debian
#                            kernel) take the HCA over after ibboot's handoff in QEMU: port ACTIVE
#                            under OpenSM, IPoIB broadcast join, the reserved DHCP lease that
#                            ibboot's client-id=ib got too, an HTTP download over ib0 checked by
#                            SHA-256 (linux-oracle.sh; logs in build/oracle/linux)
.PHONY: check-linux-oracle
check-linux-oracle: bin/ibboot.lkrn bin/libhcasim.so bin/libfabsim_client.so bin/fabsim \
		bin/fabsim-servernode payload qemu
	@util/run-test linux-oracle src/tests/e2e/oracle/linux-oracle.sh
