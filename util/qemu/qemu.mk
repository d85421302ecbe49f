# util/qemu — the QEMU hermon device and the cached QEMU build (see util/qemu/build).
#   make qemu               build or find ibboot's qemu-system-x86_64; its path goes to $(QEMU_PATH_FILE)
#   make check-qemu-device  device tests: PCI identity and BARs as a guest sees them, the stock iPXE's probe,
#                           interrupts (Linux mlx4_core on INTx and MSI-X), a netboot over port 2 alone
# Other fragments find the binary with `util/qemu/build --print-path` (or by depending on `qemu`
# and reading $(QEMU_PATH_FILE)).

QEMU_BUILD_SCRIPT := util/qemu/build
QEMU_PATH_FILE    := build/qemu/qemu-path
HCASIM_SO         ?= bin/libhcasim.so
# The fabsim client as a shared object, so the device can attach ports without QEMU linking it.
FABSIM_CLIENT_SO  := bin/libfabsim_client.so
QEMU_TESTS        := util/qemu/tests
# The binary for recipes of other fragments (empty until `make qemu` has run; expanded only when used).
QEMU_BIN           = $(shell $(QEMU_BUILD_SCRIPT) --print-path 2>/dev/null)

.PHONY: qemu check-qemu-device

qemu: $(FABSIM_CLIENT_SO)
	@mkdir -p $(dir $(QEMU_PATH_FILE))
	@$(QEMU_BUILD_SCRIPT) > $(QEMU_PATH_FILE).tmp.$$$$ && mv $(QEMU_PATH_FILE).tmp.$$$$ $(QEMU_PATH_FILE)
	@echo "qemu: $$(cat $(QEMU_PATH_FILE))"

$(FABSIM_CLIENT_SO): util/fabsim/fabsim_client.c util/fabsim/fabsim_client.h util/fabsim/fabsim_wire.h
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -fPIC -shared -o $@ $<

ALL_TARGETS += $(FABSIM_CLIENT_SO)

# Decodes the device log's HCR accesses into commands (PRM accessors); used by ipxe-probe.sh.
build/qemu/hcr-trace: util/qemu/tests/hcr-trace.c $(PRM_H)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -o $@ $<

# Order: the cheap refusal test first; the iPXE boots need the built QEMU and the model.
# bin/ibboot.lkrn belongs to the image: if it does not build, pci-identity says so (SKIP line) and
# the device's own checks still run.
check-qemu-device: qemu build/qemu/hcr-trace $(HCASIM_SO) bin/fabsim bin/fabsim-servernode payload
	-@mkdir -p build/qemu; $(MAKE) --no-print-directory bin/ibboot.lkrn > build/qemu/ibboot-image.log 2>&1 || \
		echo "check-qemu-device: bin/ibboot.lkrn does not build (build/qemu/ibboot-image.log)"
	@util/run-test qemu/device-refuses-bad-model $(QEMU_TESTS)/refuse-bad-model.sh
	@util/run-test qemu/pci-identity $(QEMU_TESTS)/pci-identity.sh
	@util/run-test qemu/ipxe-probe $(QEMU_TESTS)/ipxe-probe.sh
	@util/run-test qemu/fabric-attach $(QEMU_TESTS)/fabric-attach.sh
	@util/run-test qemu/guest-reboot $(QEMU_TESTS)/guest-reboot.sh
	@util/run-test qemu/linux-irq $(QEMU_TESTS)/linux-irq.sh
	@util/run-test qemu/port2-netboot $(QEMU_TESTS)/port2-netboot.sh


# The oracle: the stock iPXE netboots over IPoIB through the model, fabsim, OpenSM,
# dnsmasq and nginx; on a failure it reports where iPXE stopped (HCR trace, model log, console).
.PHONY: check-qemu-oracle
check-qemu-oracle: qemu build/qemu/hcr-trace $(HCASIM_SO) bin/fabsim bin/fabsim-servernode
	@util/run-test qemu/ipxe-oracle $(QEMU_TESTS)/ipxe-oracle.sh


# Baseline figures of the stock iPXE on the same QEMU + model + fabric + servers (make bench).
.PHONY: bench-qemu-ipxe
bench-qemu-ipxe: qemu $(HCASIM_SO) bin/fabsim bin/fabsim-servernode
	@util/qemu/bench-ipxe.sh



# Our TCG plugins (util/qemu/plugins/): insncount counts guest instructions for make bench-netboot.
# Built against the qemu-plugin.h of the QEMU source util/qemu/build unpacked (util/qemu/plugins/build
# finds it and rebuilds the plugin when it is absent or older than its source or that header).
.PHONY: qemu-plugins check-qemu-plugin
qemu-plugins: qemu
	@echo "qemu-plugins: $$(util/qemu/plugins/build)"

# The plugin loads and counts: a longer guest run counts more (a few seconds).
check-qemu-plugin: qemu bin/ibboot.lkrn
	@util/run-test qemu/plugin-insncount $(QEMU_TESTS)/plugin-insncount.sh
