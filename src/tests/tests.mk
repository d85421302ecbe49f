# src/tests — every test of src/: unit programs, fuzz targets, the programs the end-to-end checks
# drive, and the benches. Objects come from src/src.mk's variants (san, fuzz, opt); test programs
# are build/tests/unit-<subsystem>, build/tests/fuzz-<target> and build/tests/<tool>.
#
#   make check-unit check-iblib check-ibcore check-net check-driver check-dhcp check-tcp
#        check-boot check-image check-hosted-e2e check-dhcp-ipoib check-ibcore-e2e
#        check-driver-qemu check-driver-hosted
#   make fuzz-iblib fuzz-ibcore fuzz-dhcp fuzz-tcp fuzz-boot
#   make bench-iblib bench-ibcore bench-driver bench-tcp bench-hosted

TEST_RUNNER := src/tests/framework/test_runner.c
# The model the driver's tests and benches run against (util/hcasim/hcasim.mk builds it).
TEST_HCASIM_LIB := build/hcasim/libhcasim.a

# ---- unit programs: one per subsystem, mirroring src/ ----
UNIT_SUBSYSTEMS := core drivers-bus prm image script net-infiniband-wire net-infiniband net \
	drivers-infiniband

UNIT_core := src/tests/unit/core/test_alloc.c src/tests/unit/core/test_fmt.c \
	src/tests/unit/core/test_tables.c src/tests/unit/core/tables_other.c \
	src/tests/unit/core/test_shell.c \
	src/tests/unit/core/test_timer.c src/tests/unit/core/test_sha256.c \
	src/tests/unit/core/test_checksum.c src/tests/unit/core/test_hex.c \
	src/tests/unit/core/test_memmap.c src/tests/unit/core/test_tsc_rate.c \
	src/tests/unit/core/test_random.c src/tests/unit/core/test_console_log.c
UNIT_drivers-bus := src/tests/unit/drivers/bus/test_pci.c
UNIT_prm := src/tests/unit/prm/test_prm.c
UNIT_image := src/tests/unit/image/test_bzimage.c src/tests/unit/image/test_multiboot.c \
	src/tests/unit/image/test_fetch.c src/tests/unit/image/test_trust.c \
	src/tests/fakes/fake_fetch.c src/cmd/image_cmd.c
UNIT_script := src/tests/unit/script/test_script.c src/tests/unit/script/test_trust_script.c \
	src/tests/fakes/fake_fetch.c src/cmd/image_cmd.c
UNIT_net-infiniband-wire := src/tests/unit/net/infiniband/wire/test_attrs.c \
	src/tests/unit/net/infiniband/wire/test_mad.c src/tests/unit/net/infiniband/wire/test_packet.c
UNIT_net-infiniband := src/tests/unit/net/infiniband/test_ib_core.c \
	src/tests/unit/net/infiniband/test_ib_sa_forged.c \
	src/tests/unit/net/infiniband/test_ib_parsers.c \
	src/tests/fakes/net_test_env.c src/tests/fakes/ib_fixture.c src/tests/fakes/fake_ibdev.c
UNIT_net := src/tests/unit/net/test_ipoib.c src/tests/unit/net/test_dhcp.c \
	src/tests/unit/net/test_dns.c src/tests/unit/net/test_tftp.c src/tests/unit/net/test_tcp.c \
	src/tests/unit/net/test_http.c src/tests/unit/net/test_two_interfaces.c \
	src/tests/unit/net/test_tftp_put.c \
	src/tests/fakes/net_test_env.c src/tests/fakes/ib_fixture.c src/tests/fakes/fake_ibdev.c \
	src/tests/fakes/fake_net.c src/tests/fakes/tcp_peer.c
UNIT_drivers-infiniband := src/tests/unit/drivers/infiniband/test_hermon_ibcore.c \
	src/tests/unit/drivers/infiniband/test_hermon_model.c \
	src/tests/unit/drivers/infiniband/test_hermon_sa_forged.c \
	src/tests/unit/drivers/infiniband/test_hermon_unit.c \
	src/tests/unit/drivers/infiniband/test_hermon_teardown.c src/tests/fakes/hermon_rig.c \
	src/tests/unit/drivers/infiniband/test_hermon_report.c
UNIT_drivers-infiniband_LIBS := $(TEST_HCASIM_LIB)
# The HCA self-test, each step on a healthy model and under a fault aimed at it.
UNIT_drivers-infiniband += src/tests/unit/drivers/infiniband/test_hermon_selftest.c \
	src/cmd/selftest_cmd.c

# Console commands are link-time table entries nothing calls by name, so an archive would leave
# them out: a program whose tests run commands links their files as objects.
UNIT_CORE_CMDS := src/cmd/core_cmd.c src/cmd/mem_cmd.c src/cmd/pci_cmd.c
UNIT_core += $(UNIT_CORE_CMDS)
UNIT_drivers-bus += $(UNIT_CORE_CMDS)
UNIT_image += $(UNIT_CORE_CMDS)
UNIT_script += $(UNIT_CORE_CMDS)
UNIT_net-infiniband += src/cmd/ib_cmd.c src/cmd/net_cmd.c
UNIT_net += src/cmd/ib_cmd.c src/cmd/net_cmd.c src/cmd/dhcp_cmd.c

# A unit program: its tests and fakes as objects, then whatever it calls from the firmware
# (build/san/libibboot.a) and the model.
define UNIT_PROGRAM
UNIT_$(1)_OBJS := $$(patsubst %.c,build/san/%.o,$$(UNIT_$(1)) $$(TEST_RUNNER))
build/tests/unit-$(1): $$(UNIT_$(1)_OBJS) build/san/libibboot.a $$(UNIT_$(1)_LIBS)
	@mkdir -p $$(@D)
	$$(HOST_CC) $$(SAN_FLAGS) -o $$@ $$(UNIT_$(1)_OBJS) \
		-Wl,--start-group build/san/libibboot.a $$(UNIT_$(1)_LIBS) -Wl,--end-group
-include $$(UNIT_$(1)_OBJS:.o=.d)
endef
$(foreach u,$(UNIT_SUBSYSTEMS),$(eval $(call UNIT_PROGRAM,$(u))))
UNIT_PROGRAMS := $(UNIT_SUBSYSTEMS:%=build/tests/unit-%)

# ---- tools the checks drive (san) ----
# name := sources; linked like a unit program.
TOOLS := tun-client tun-http pcap-ipoib pcap-sample
TOOL_tun-client := src/tests/e2e/tun/tun_client.c src/tests/fakes/tun_netdev.c \
	src/tests/fakes/net_test_env.c src/tests/fakes/fake_ibdev.c
TOOL_tun-http := src/tests/e2e/tun/tun_http.c src/tests/fakes/tun_netdev.c \
	src/tests/fakes/net_test_env.c src/tests/fakes/fake_ibdev.c
TOOL_pcap-ipoib := src/tests/unit/net/pcap_ipoib.c src/tests/fakes/net_test_env.c \
	src/tests/fakes/fake_ibdev.c
TOOL_pcap-sample := src/tests/unit/net/infiniband/wire/pcap_sample.c
define TOOL_PROGRAM
TOOL_$(1)_OBJS := $$(patsubst %.c,build/san/%.o,$$(TOOL_$(1)))
build/tests/$(1): $$(TOOL_$(1)_OBJS) build/san/libibboot.a
	@mkdir -p $$(@D)
	$$(HOST_CC) $$(SAN_FLAGS) -o $$@ $$(TOOL_$(1)_OBJS) build/san/libibboot.a
-include $$(TOOL_$(1)_OBJS:.o=.d)
endef
$(foreach t,$(TOOLS),$(eval $(call TOOL_PROGRAM,$(t))))

# ---- fuzz targets (clang): src/tests/fuzz/<target>/fuzz_<target>.c + seeds/ ----
FUZZ_NAMES := pkt mad parsers stack dhcp dns tftp http tcp tcpseq bzimage multiboot script
# The network stack's targets run over the hosted test environment and the fakes.
FUZZ_NET_FAKES := src/tests/fakes/net_test_env.c src/tests/fakes/fake_ibdev.c \
	src/tests/fakes/fake_net.c src/tests/fakes/tcp_peer.c
$(foreach t,parsers stack dhcp dns tftp http tcp tcpseq,$(eval FUZZ_$(t)_FAKES := $(FUZZ_NET_FAKES)))
define FUZZ_PROGRAM
FUZZ_$(1)_OBJS := $$(patsubst %.c,build/fuzz/%.o,src/tests/fuzz/$(1)/fuzz_$(1).c $$(FUZZ_$(1)_FAKES))
build/tests/fuzz-$(1): $$(FUZZ_$(1)_OBJS) build/fuzz/libibboot.a
	@mkdir -p $$(@D)
	$$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $$@ $$(FUZZ_$(1)_OBJS) build/fuzz/libibboot.a
-include $$(FUZZ_$(1)_OBJS:.o=.d)
endef
$(foreach t,$(FUZZ_NAMES),$(eval $(call FUZZ_PROGRAM,$(t))))

# A short deterministic run of each target for make check (SKIP without clang); NAME RUNS MAX_LEN.
FUZZ_SMOKE = $(if $(HAVE_CLANG),util/run-test $(1)-fuzz-$(2) src/tests/framework/fuzz-smoke.sh $(1) \
	build/tests/fuzz-$(2) $(3) src/tests/fuzz/$(2)/seeds -max_len=$(4) $(5),\
	util/run-test $(1)-fuzz-$(2) sh -c 'echo "SKIP: $(1)-fuzz-$(2): clang is not installed"; exit 77')
FUZZ_BINS = $(if $(HAVE_CLANG),$(patsubst %,build/tests/fuzz-%,$(1)))
# Longer runs (make fuzz): NAMES MAX_LEN SECONDS.
FUZZ_LONG = for f in $(1); do \
		mkdir -p build/fuzz/corpus-$$f && cp -n src/tests/fuzz/$$f/seeds/* build/fuzz/corpus-$$f/ 2>/dev/null; \
		build/tests/fuzz-$$f -max_total_time=$(3) -max_len=$(2) -close_fd_mask=1 \
			-artifact_prefix=build/fuzz/ build/fuzz/corpus-$$f || exit 1; \
	done

# ---- benches (opt: no sanitizers) ----
BENCH_ibcore := src/tests/bench/bench_ibcore.c src/tests/fakes/net_test_env.c src/tests/fakes/fake_ibdev.c
BENCH_crc := src/tests/bench/bench_crc.c
BENCH_tun-http-opt := src/tests/e2e/tun/tun_http.c src/tests/fakes/tun_netdev.c \
	src/tests/fakes/net_test_env.c src/tests/fakes/fake_ibdev.c
define BENCH_PROGRAM
BENCH_$(1)_OBJS := $$(patsubst %.c,build/opt/%.o,$$(BENCH_$(1)))
build/tests/bench-$(1): $$(BENCH_$(1)_OBJS) build/opt/libibboot.a
	@mkdir -p $$(@D)
	$$(HOST_CC) -o $$@ $$(BENCH_$(1)_OBJS) build/opt/libibboot.a
-include $$(BENCH_$(1)_OBJS:.o=.d)
endef
$(foreach b,ibcore crc tun-http-opt,$(eval $(call BENCH_PROGRAM,$(b))))
# The production fastpath: the IB core over the driver (from the firmware's objects), the rig as
# the platform, the model as the HCA.
BENCH_HERMON_OBJS := $(patsubst %.c,build/opt/%.o,src/tests/bench/bench_hermon.c \
	src/tests/fakes/hermon_rig.c)
build/tests/bench-hermon: $(BENCH_HERMON_OBJS) build/opt/libibboot.a $(TEST_HCASIM_LIB)
	@mkdir -p $(@D)
	$(HOST_CC) -o $@ $(BENCH_HERMON_OBJS) \
		-Wl,--start-group build/opt/libibboot.a $(TEST_HCASIM_LIB) -Wl,--end-group
-include $(BENCH_HERMON_OBJS:.o=.d)
# The TCP receive fastpath over the same rig: IPoIB, IPv4 and TCP on top (bench-fastpath).
BENCH_FASTPATH_OBJS := $(patsubst %.c,build/opt/%.o,src/tests/bench/bench_fastpath.c \
	src/tests/fakes/hermon_rig.c)
build/tests/bench-fastpath: $(BENCH_FASTPATH_OBJS) build/opt/libibboot.a $(TEST_HCASIM_LIB)
	@mkdir -p $(@D)
	$(HOST_CC) -o $@ $(BENCH_FASTPATH_OBJS) \
		-Wl,--start-group build/opt/libibboot.a $(TEST_HCASIM_LIB) -Wl,--end-group
-include $(BENCH_FASTPATH_OBJS:.o=.d)

ALL_TARGETS += $(UNIT_PROGRAMS) $(TOOLS:%=build/tests/%)

# ---- check targets ----
.PHONY: check-unit check-iblib check-ibcore check-net check-driver check-dhcp check-tcp \
	check-boot check-boot-qemu check-boot-netboot check-image check-hosted-e2e \
	check-dhcp-ipoib check-ibcore-e2e check-driver-qemu check-driver-hosted check-autoboot-qemu \
	check-tftp-faults-qemu

# Core, PCI, PRM accessors; the hosted program starts, and drives the in-process model.
check-unit: build/tests/unit-core build/tests/unit-drivers-bus build/tests/unit-prm bin/ibboot-hosted
	@util/run-test unit-core build/tests/unit-core
	@util/run-test unit-drivers-bus build/tests/unit-drivers-bus
	@util/run-test unit-prm build/tests/unit-prm
	@util/run-test hosted-smoke src/tests/e2e/hosted/hosted-smoke.sh
	@util/run-test hosted-hca src/tests/e2e/hosted/hosted-hca.sh

# The IB wire formats: unit tests, tshark's reading of built packets, no libc in the image's
# objects, fuzzing.
check-iblib: build/tests/unit-net-infiniband-wire build/tests/pcap-sample bin/ibboot.lkrn \
		$(call FUZZ_BINS,pkt mad)
	@util/run-test unit-net-infiniband-wire build/tests/unit-net-infiniband-wire
	@util/run-test iblib-tshark src/tests/unit/net/infiniband/wire/tshark-check.sh build/tests/pcap-sample
	@util/run-test iblib-freestanding src/tests/unit/net/infiniband/wire/freestanding-check.sh \
		$(patsubst %.c,build/image/%.o,$(WIRE_SRCS))
	@$(call FUZZ_SMOKE,iblib,pkt,50000,4300)
	@$(call FUZZ_SMOKE,iblib,mad,50000,4300)

# The IB core (MAD, SA, port policy) over the fake device; tshark reads ib0's traffic.
check-ibcore: build/tests/unit-net-infiniband build/tests/pcap-ipoib $(call FUZZ_BINS,parsers stack)
	@util/run-test unit-net-infiniband build/tests/unit-net-infiniband
	@util/run-test ibcore-tshark src/tests/unit/net/tshark-check.sh build/tests/pcap-ipoib
	@$(call FUZZ_SMOKE,ibcore,parsers,100000,4096)
	@$(call FUZZ_SMOKE,ibcore,stack,100000,4096)

# IPoIB, UDP, DHCP, DNS, TFTP, TCP, HTTP over scripted software peers.
check-net: build/tests/unit-net
	@util/run-test unit-net build/tests/unit-net

check-driver: build/tests/unit-drivers-infiniband
	@util/run-test unit-drivers-infiniband build/tests/unit-drivers-infiniband

# The stack on a Linux TUN against the real dnsmasq / nginx (and atftpd for RFC 7440 windowsize),
# and fuzzing of their parsers.
check-dhcp: build/tests/tun-client $(call FUZZ_BINS,dhcp dns tftp)
	@util/run-test dhcp-dnsmasq src/tests/e2e/tun/dnsmasq-e2e.sh build/tests/tun-client
	@util/run-test tftp-atftpd src/tests/e2e/tun/atftpd-e2e.sh build/tests/tun-client
	@$(call FUZZ_SMOKE,dhcp,dhcp,200000,8192)
	@$(call FUZZ_SMOKE,dhcp,dns,200000,8192)
	@$(call FUZZ_SMOKE,dhcp,tftp,200000,8192)

check-tcp: build/tests/tun-http $(call FUZZ_BINS,http tcp tcpseq)
	@util/run-test tcp-nginx src/tests/e2e/tun/nginx-e2e.sh build/tests/tun-http
	@$(call FUZZ_SMOKE,tcp,http,100000,8192)
	@$(call FUZZ_SMOKE,tcp,tcp,100000,8192)
	@$(call FUZZ_SMOKE,tcp,tcpseq,20000,448)

# Image loaders, fetch, scripts; then the payload booted by ibboot in QEMU, and the netboot.
check-boot: build/tests/unit-image build/tests/unit-script $(call FUZZ_BINS,bzimage multiboot script)
	@util/run-test unit-image build/tests/unit-image
	@util/run-test unit-script build/tests/unit-script
	@$(call FUZZ_SMOKE,boot,bzimage,20000,16384,-close_fd_mask=1)
	@$(call FUZZ_SMOKE,boot,multiboot,20000,16384,-close_fd_mask=1)
	@$(call FUZZ_SMOKE,boot,script,20000,16384,-close_fd_mask=1)
	@$(MAKE) --no-print-directory check-boot-qemu
	@$(MAKE) --no-print-directory check-boot-netboot

# The payload (Debian's kernel + initramfs) booted by ibboot from multiboot modules in QEMU.
check-boot-qemu: bin/ibboot.lkrn payload
	@util/run-test boot-qemu-linux src/tests/e2e/qemu/qemu-linux.sh

# The demo's flow on the embedded default script: QEMU + hermon model + fabsim/OpenSM + dnsmasq/
# nginx (util/netboot-env); DHCP, boot.ipxe over TFTP, kernel and initrd over HTTP with SHA-256
# pins, Linux prints its marker. SKIPs when the QEMU with the hermon device is not built.
check-boot-netboot: bin/ibboot.lkrn payload bin/libhcasim.so bin/libfabsim_client.so bin/fabsim qemu \
		bin/fabsim-servernode
	@util/run-test boot-netboot src/tests/e2e/qemu/netboot-qemu.sh

# The image is built from src/ alone: its debug info names no source file outside src/ (and the
# generated PRM header under build/include).
check-image: bin/ibboot.lkrn
	@util/run-test image-sources src/tests/e2e/image-sources.sh build/image/ibboot.elf

# bin/ibboot-hosted (ASan/UBSan) with the HCA model in-process on fabsim + the stock OpenSM + the
# server node (util/netboot-env): a two-port HCA with one port cabled, SM started late, broadcast
# join, ARP, ICMP echo answered by the server's kernel, SM restarted mid-ping (rejoin). About 60 s
# (30 of them are the firmware's "no subnet manager" threshold).
HOSTED_E2E_DEPS := bin/ibboot-hosted bin/fabsim bin/fabsim-servernode
check-hosted-e2e: $(HOSTED_E2E_DEPS)
	@util/run-test hosted-e2e src/tests/e2e/hosted/e2e.sh

# The HCA self-test (`selftest`) on fabsim under the stock OpenSM (util/netboot-env): every step
# ok with OpenSM's SA answering, then "no PathRecord from SM" once OpenSM is stopped, and the
# uncabled port's failures; in bin/ibboot-hosted (about 25 s), and bin/ibboot.lkrn in QEMU with the
# hermon device (about 30 s, with the QEMU checks at the end of make check).
.PHONY: check-selftest-e2e check-selftest-qemu
check-selftest-e2e: $(HOSTED_E2E_DEPS)
	@util/run-test selftest-hosted src/tests/e2e/hosted/selftest-e2e.sh hosted
check-selftest-qemu: $(HOSTED_E2E_DEPS) bin/ibboot.lkrn bin/libhcasim.so qemu
	@util/run-test selftest-qemu src/tests/e2e/hosted/selftest-e2e.sh qemu

# UDP/DHCP/TFTP/HTTP over the whole stack: bin/ibboot-hosted with the HCA model in fabsim under
# OpenSM, the server node, dnsmasq and nginx (util/netboot-env): both client-id reservations,
# 16 MiB over TFTP and over HTTP; then HTTP again with 3% loss and 3% reordering on every cable.
# Last, the autoboot's first script pinned by dnsmasq (option 175.112): a changed boot.ipxe is
# refused.
check-dhcp-ipoib: bin/ibboot-hosted bin/fabsim bin/fabsimctl bin/fabsim-servernode
	@util/run-test dhcp-ipoib src/tests/e2e/hosted/ipoib-e2e.sh
	@IPOIB_E2E_FAULT="all loss=0.03 reorder=0.03" IPOIB_E2E_STEPS="lease-flexboot http" \
		util/run-test dhcp-ipoib-faults src/tests/e2e/hosted/ipoib-e2e.sh
	@util/run-test trust-e2e src/tests/e2e/hosted/trust-e2e.sh
	@util/run-test pkey-ipoib src/tests/e2e/hosted/pkey-e2e.sh

# The boot report reaching the server after a failed netboot (HTTP POST, TFTP write fallback).
check-report: bin/ibboot-hosted bin/fabsim bin/fabsimctl bin/fabsim-servernode \
		bin/ibboot-fwdump-decode
	@util/run-test report src/tests/e2e/hosted/report-e2e.sh
.PHONY: check-report

# End to end in QEMU under OpenSM (~70 s): port ACTIVE, ib0 joined, ping the server's kernel,
# OpenSM restarted mid-ping. IBCORE_E2E_SM_RESTART=1 also restarts OpenSM right after the HCA
# attaches.
check-ibcore-e2e: bin/ibboot.lkrn bin/libhcasim.so bin/fabsim bin/fabsim-servernode \
		bin/libfabsim_client.so qemu
	@util/run-test ibcore-e2e src/tests/e2e/qemu/ibcore-e2e.sh

# Bare metal: the image in QEMU with the model on fabsim + OpenSM (started late), ICMP echo;
# then, without a fabric, `boot` refusing the Linux handoff when the HCA's final reset fails
# (HCASIM_FAULT), and the same boot reaching Linux without the fault.
check-driver-qemu: qemu bin/ibboot.lkrn bin/ibboot-hosted bin/libhcasim.so bin/fabsim \
		bin/fabsim-servernode payload
	@util/run-test driver-qemu src/tests/e2e/qemu/icmp-e2e.sh qemu
	@util/run-test handoff-refused src/tests/e2e/qemu/handoff-refused.sh

# The autoboot with no HCA (QEMU without the device) and with no cable (the model, no fabric)
# fails at once with the reason, each port named, instead of dhcp's 30 s wait for a link.
check-autoboot-qemu: qemu bin/ibboot.lkrn bin/libhcasim.so
	@util/run-test autoboot-nolink src/tests/e2e/qemu/autoboot-nolink.sh

# The demo's netboot with kernel and initrd over TFTP from dnsmasq while the server's cable loses,
# duplicates and reorders packets: it completes, the pins match, and the slow lock-step transfer
# says where it is (a status line every 10 s) instead of going silent. About 3 minutes.
check-tftp-faults-qemu: $$(DEMO_PIECES)
	@util/run-test tftp-faults-qemu src/tests/e2e/qemu/tftp-faults.sh

# The same with bin/ibboot-hosted. Not in make check: check-hosted-e2e covers the same and more.
check-driver-hosted: bin/ibboot.lkrn bin/ibboot-hosted bin/libhcasim.so bin/fabsim \
		bin/fabsim-servernode
	@util/run-test driver-hosted src/tests/e2e/qemu/icmp-e2e.sh hosted

# ---- fuzzing (make fuzz) ----
# `make fuzz` (fuzz-table): every target for FUZZ_RUNS executions, FUZZ_JOBS processes at a time,
# one line per target (executions, crashes, seconds), then the totals and the wall-clock time;
# non-zero on any crash. FUZZ_TABLE lists NAME:BINARY:SEEDS:MAX_LEN; a fragment with a fuzz
# target of its own appends to it.
FUZZ_RUNS ?= 1000000
FUZZ_JOBS ?= 2
FUZZ_TABLE += pkt:build/tests/fuzz-pkt:src/tests/fuzz/pkt/seeds:4300 \
	mad:build/tests/fuzz-mad:src/tests/fuzz/mad/seeds:4300 \
	parsers:build/tests/fuzz-parsers:src/tests/fuzz/parsers/seeds:4096 \
	stack:build/tests/fuzz-stack:src/tests/fuzz/stack/seeds:4096 \
	dhcp:build/tests/fuzz-dhcp:src/tests/fuzz/dhcp/seeds:8192 \
	dns:build/tests/fuzz-dns:src/tests/fuzz/dns/seeds:8192 \
	tftp:build/tests/fuzz-tftp:src/tests/fuzz/tftp/seeds:8192 \
	http:build/tests/fuzz-http:src/tests/fuzz/http/seeds:16384 \
	tcp:build/tests/fuzz-tcp:src/tests/fuzz/tcp/seeds:8192 \
	tcpseq:build/tests/fuzz-tcpseq:src/tests/fuzz/tcpseq/seeds:448 \
	bzimage:build/tests/fuzz-bzimage:src/tests/fuzz/bzimage/seeds:65536 \
	multiboot:build/tests/fuzz-multiboot:src/tests/fuzz/multiboot/seeds:65536 \
	script:build/tests/fuzz-script:src/tests/fuzz/script/seeds:16384 \
	sma:build/tests/fuzz-sma:util/hcasim/tests/fuzz/sma/seeds:4300 \
	fabric:build/tests/fuzz-fabric:util/fabsim/tests/fuzz/fabric/seeds:4300 \
	servernode:build/tests/fuzz-servernode:util/fabsim/tests/fuzz/servernode/seeds:4300 \
	fwdump:build/tests/fuzz-fwdump:util/fwdump/fuzz/seeds:16384 \
	zcm:build/tests/fuzz-zcm:src/tests/fuzz/zcm/seeds:1024
.PHONY: fuzz-table
FUZZ_TABLE_BINS = $(foreach e,$(FUZZ_TABLE),$(word 2,$(subst :, ,$(e))))
fuzz-table: $$(FUZZ_TABLE_BINS)
	@FUZZ_JOBS=$(FUZZ_JOBS) nice src/tests/framework/fuzz-table.sh $(FUZZ_RUNS) build/fuzz/table \
		$(FUZZ_TABLE)

.PHONY: fuzz-iblib fuzz-ibcore fuzz-dhcp fuzz-tcp fuzz-boot
fuzz-iblib: build/tests/fuzz-pkt build/tests/fuzz-mad
	@$(call FUZZ_LONG,pkt mad,4300,120)
fuzz-ibcore: build/tests/fuzz-parsers build/tests/fuzz-stack
	@$(call FUZZ_LONG,parsers stack,4096,120)
fuzz-dhcp: build/tests/fuzz-dhcp build/tests/fuzz-dns build/tests/fuzz-tftp
	@$(call FUZZ_LONG,dhcp dns tftp,4096,120)
fuzz-tcp: build/tests/fuzz-http build/tests/fuzz-tcp build/tests/fuzz-tcpseq
	@$(call FUZZ_LONG,http tcp,16384,120)
	@$(call FUZZ_LONG,tcpseq,448,120)
fuzz-boot: build/tests/fuzz-bzimage build/tests/fuzz-multiboot build/tests/fuzz-script
	@$(call FUZZ_LONG,bzimage multiboot script,65536,120)

# ---- benches (make bench; figures, never asserted) ----
.PHONY: bench-iblib bench-ibcore bench-driver bench-tcp bench-hosted
bench-iblib: build/tests/bench-crc
	@build/tests/bench-crc

# Instructions per packet (callgrind).
bench-ibcore: build/tests/bench-ibcore
	@src/tests/bench/bench.sh build/tests/bench-ibcore 1000

# Host memory the driver gives the HCA on the model (FA + AUX + ICM), and instructions per packet
# of the production fastpath (the IB core over the driver, the calls IPoIB makes) under callgrind:
# TX = post a send and reap its CQE, RX = reap a receive and repost its buffer; the driver's ops'
# share is printed too. The MMIO accessor runs the model synchronously (the doorbell write processes
# the WQE): its inclusive cost is the device's, not the driver's, and is subtracted (on silicon it
# is one store).
bench-driver: build/tests/unit-drivers-infiniband build/tests/bench-hermon
	@build/tests/unit-drivers-infiniband -k bringup_both_ports | grep '^INFO:'
	@mkdir -p build/bench
	@for what in tx rx; do \
		valgrind --tool=callgrind --callgrind-out-file=build/bench/cg.$$what \
			--toggle-collect=bench_$$what build/tests/bench-hermon 1000 \
			> build/bench/bench.$$what 2>&1 || { cat build/bench/bench.$$what; exit 1; }; \
		callgrind_annotate --inclusive=yes --threshold=100 build/bench/cg.$$what \
			> build/bench/cg.$$what.txt; \
		total=$$(awk '/PROGRAM TOTALS/ {gsub(",","",$$1); print $$1; exit}' build/bench/cg.$$what.txt); \
		mmio=$$(awk '/:writel_be( |$$)/ {gsub(",","",$$1); print $$1; exit}' build/bench/cg.$$what.txt); \
		drv=0; for fn in hermon_post_send hermon_poll_cq hermon_post_recv; do \
			v=$$(awk -v f=":$$fn" 'index($$0, f " ") || substr($$0, length($$0) - length(f) + 1) == f \
				{ gsub(",", "", $$1); if ($$1 + 0 > m) m = $$1 + 0 } END { print m + 0 }' \
				build/bench/cg.$$what.txt); drv=$$((drv + v)); done; \
		echo "INFO: hermon fastpath $$what: $$(( (total - $${mmio:-0}) / 1000 )) instructions per packet" \
			"(IB core + driver, as IPoIB calls them; 2044-byte UD), $$(( (drv - $${mmio:-0}) / 1000 ))" \
			"of them in the driver's ops; $$(( $${mmio:-0} / 1000 )) more in the model behind the doorbell"; \
	done

# Instructions per received TCP segment and per ACK on the production path (driver, IB core, IPoIB,
# IPv4, TCP; payload copy excluded), callgrind, with the function breakdown (src/tests/bench/fastpath.sh).
.PHONY: bench-fastpath
bench-fastpath: build/tests/bench-fastpath
	@src/tests/bench/fastpath.sh build/tests/bench-fastpath 2000

# The 64 MiB HTTP download over the TUN from nginx, MB/s printed.
bench-tcp: build/tests/bench-tun-http-opt
	@TCP_E2E_MODE=bench src/tests/e2e/tun/nginx-e2e.sh build/tests/bench-tun-http-opt

# Times from start to port ACTIVE and to the first echo reply (SM up), median of 3 runs.
bench-hosted: $(HOSTED_E2E_DEPS)
	@src/tests/e2e/hosted/e2e.sh --bench 3
