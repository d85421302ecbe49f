# util/demo — `make demo`: ibboot netboots Debian's Linux over InfiniBand in QEMU.
#   make demo-netboot     the demo: QEMU + -device hermon (model) + fabsim + OpenSM + dnsmasq +
#                         nginx (util/netboot-env); ibboot's autoboot gets a lease, runs boot.ipxe
#                         from TFTP, fetches the kernel and initrd over HTTP and boots them; each
#                         phase with its time; everything torn down (util/demo/run)
#   make check-demo-qemu  the same flow asserted phase by phase on the serial console; again with
#                         3% loss + 3% reordering on the server node's cable once the port is
#                         ACTIVE (the pinned SHA-256s must still match); and with a tampered
#                         initrd that ibboot must refuse (no Linux)
#   make torture          not in make check (~15-50 min): 22 full netboots, HTTP and TFTP (dnsmasq,
#                         and atftpd with RFC 7440 windowsize for the cases that lose packets), under
#                         fabsim loss/duplication/reordering/corruption/delay, a pulled and replugged
#                         HCA cable and an OpenSM restart mid-download, plus a tampered initrd; the
#                         payload's SHA-256 of what it booted is compared with the served file; a
#                         hang is no console line for 60 s (or 420 s in all); one line per case with
#                         its seconds, then "torture: N of M netboots verified (SHA-256), K hangs,
#                         J wrong images" (util/demo/torture; logs build/torture/)
#   make bench-netboot    ibboot vs the stock iPXE on the same QEMU + model + fabric + servers:
#                         guest instructions per MiB (our TCG plugin) and medians of 3 interleaved
#                         runs (lease, HTTP and TFTP of 64 MiB), image bytes, as ratios; ibboot's
#                         hot blocks per fetch (build/bench/netboot-*.txt; about 10 minutes,
#                         BENCH_SIZE_MIB=32 about 6)
# Logs: build/demo/ (demo), build/demo/check/ (check). DEMO_TRANSPORT=tftp fetches the kernel
# and initrd over TFTP instead.
#
# DEMO_ARGS picks how the machine starts ibboot (util/demo/run's flags), e.g.
#   make demo DEMO_ARGS=--rom     SeaBIOS runs bin/ibboot.rom as the HCA's option ROM (its BEV)
#   make demo DEMO_ARGS=--uefi    OVMF starts bin/ibboot.efi from a FAT disk
#   make demo DEMO_ARGS=--pxe     an e1000's PXE ROM chainloads bin/ibboot.pxe, which boots over IB
#   make demo DEMO_ARGS=--iso     SeaBIOS boots bin/ibboot.iso from a CD (--iso --uefi: OVMF)
# (make demo-rom, demo-uefi, demo-pxe and demo-iso say the same.)
DEMO_TRANSPORT ?= http
DEMO_ARGS ?=
DEMO_PIECES := bin/ibboot.lkrn bin/libhcasim.so bin/libfabsim_client.so bin/fabsim \
	bin/fabsim-servernode bin/fabsimctl payload qemu
# The image each boot form needs, built before util/demo/run --no-build looks for it.
DEMO_FORM_PIECES := $(if $(filter --rom,$(DEMO_ARGS)),bin/ibboot.rom) \
	$(if $(filter --uefi,$(DEMO_ARGS)),bin/ibboot.efi) \
	$(if $(filter --pxe,$(DEMO_ARGS)),bin/ibboot.pxe) \
	$(if $(filter --iso,$(DEMO_ARGS)),bin/ibboot.iso)

.PHONY: demo-netboot check-demo-qemu demo-rom demo-uefi demo-pxe demo-iso
demo-netboot: $(DEMO_PIECES) $(DEMO_FORM_PIECES)
	@util/demo/run --no-build --transport $(DEMO_TRANSPORT) $(DEMO_ARGS)

demo-rom demo-uefi demo-pxe demo-iso: deps
	@$(MAKE) --no-print-directory demo-netboot DEMO_ARGS="--$(@:demo-%=%) $(DEMO_ARGS)"

check-demo-qemu: $(DEMO_PIECES)
	@util/run-test demo-qemu util/demo/run --check --no-build --transport $(DEMO_TRANSPORT)
	@util/run-test demo-qemu-faults util/demo/run --check --no-build --faults "loss=0.03 reorder=0.03" \
		--out build/demo/check-faults --transport $(DEMO_TRANSPORT)
	@util/run-test demo-qemu-tamper util/demo/run --check --no-build --tamper \
		--out build/demo/check-tamper --transport $(DEMO_TRANSPORT)


.PHONY: bench-netboot
bench-netboot: bin/ibboot.lkrn bin/libhcasim.so bin/libfabsim_client.so bin/fabsim bin/fabsim-servernode qemu-plugins
	@util/demo/bench

.PHONY: torture
torture: $(DEMO_PIECES)
	@util/demo/torture
