# src/net/tcp.mk — TCP (RFC 9293) and HTTP/1.1: tests, fuzz targets, bench.
# The sources themselves (src/net/{tcp,uri,http*}.c) are part of NET_SRCS (src/net/net.mk's
# wildcard), so they go into the image and the hosted program with the rest of the stack.
#
#   build/tcp/tcp-unit    unit tests over a scripted software peer (ASan/UBSan)
#   build/tcp/tun-http    the same code on a Linux TUN, against the real nginx
#   build/tcp/fuzz-*      libFuzzer targets for the TCP, HTTP and URL parsers (clang)
#   make check-tcp, fuzz-tcp, bench-tcp

TCP_CFLAGS    := $(HOST_CFLAGS) $(SAN_FLAGS) $(NET_CFLAGS) -Isrc/tests/framework -Isrc/tests/fakes
TCP_LIB_SRCS  := $(NET_SRCS) $(NET_IBLIB_SRCS) $(NET_CORE_SRCS) src/tests/fakes/net_test_env.c \
		 src/tests/fakes/fake_ibdev.c
TCP_LIB_OBJS  := $(patsubst %.c,build/tcp/san/%.o,$(TCP_LIB_SRCS))
TCP_UNIT_SRCS := src/tests/unit/net/test_tcp.c src/tests/unit/net/test_http.c src/tests/fakes/tcp_peer.c \
		 src/tests/framework/test_runner.c
TCP_UNIT_OBJS := $(patsubst %.c,build/tcp/san/%.o,$(TCP_UNIT_SRCS))

build/tcp/san/%.o: %.c | $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(TCP_CFLAGS) -MMD -MP -c -o $@ $<

# The User-Agent carries the version: rebuild the client when it changes (as src.mk does main.o).
build/image/src/net/http_client.o build/hosted/src/net/http_client.o \
build/tcp/san/src/net/http_client.o build/tcp/opt/src/net/http_client.o: $(IBBOOT_VERSION_STAMP)
build/tcp/san/src/net/http_client.o: TCP_CFLAGS += $(IBBOOT_VERSION_DEF)
build/tcp/opt/src/net/http_client.o: HOST_CFLAGS += $(IBBOOT_VERSION_DEF)

build/tcp/tcp-unit: $(TCP_UNIT_OBJS) $(TCP_LIB_OBJS)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

build/tcp/tun-http: build/tcp/san/src/tests/e2e/tun/tun_http.o build/tcp/san/src/tests/fakes/tun_netdev.o \
		$(TCP_LIB_OBJS)
	$(HOST_CC) $(SAN_FLAGS) -o $@ $^

# The bench build: same code without sanitizers.
TCP_BENCH_OBJS := $(patsubst %.c,build/tcp/opt/%.o,$(TCP_LIB_SRCS) src/tests/e2e/tun/tun_http.c \
		  src/tests/fakes/tun_netdev.c)
build/tcp/opt/%.o: %.c | $(PRM_H)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(NET_CFLAGS) -Isrc/tests/framework -Isrc/tests/fakes -MMD -MP -c -o $@ $<

build/tcp/tun-http-opt: $(TCP_BENCH_OBJS)
	$(HOST_CC) -o $@ $^

-include $(TCP_LIB_OBJS:.o=.d) $(TCP_UNIT_OBJS:.o=.d) build/tcp/san/src/tests/e2e/tun/tun_http.d \
	build/tcp/san/src/tests/fakes/tun_netdev.d \
	$(TCP_BENCH_OBJS:.o=.d)

# libFuzzer: the stack compiled once with clang, one small target per parser.
TCP_FUZZ_CC    ?= clang
TCP_HAVE_CLANG := $(shell command -v $(TCP_FUZZ_CC) >/dev/null 2>&1 && echo yes)
TCP_FUZZ_FLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc/include \
		  -Ibuild/include $(NET_CFLAGS) -Isrc/tests/framework -Isrc/tests/fakes
TCP_FUZZ_NAMES := http tcp
TCP_FUZZ_BINS  := $(patsubst %,build/tcp/fuzz-%,$(TCP_FUZZ_NAMES))
TCP_FUZZ_LIB_OBJS := $(patsubst %.c,build/tcp/fz/%.o,$(TCP_LIB_SRCS) src/tests/fakes/tcp_peer.c)
TCP_FUZZ_RUNS  ?= 100000

build/tcp/fz/%.o: %.c | $(PRM_H)
	@mkdir -p $(@D)
	$(TCP_FUZZ_CC) $(TCP_FUZZ_FLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP \
		-c -o $@ $<

build/tcp/fuzz-%: src/tests/fuzz/$$*/fuzz_$$*.c $(TCP_FUZZ_LIB_OBJS)
	$(TCP_FUZZ_CC) $(TCP_FUZZ_FLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< \
		$(TCP_FUZZ_LIB_OBJS)

-include $(TCP_FUZZ_LIB_OBJS:.o=.d)

.PHONY: check-tcp fuzz-tcp bench-tcp
check-tcp: build/tcp/tcp-unit build/tcp/tun-http $(if $(TCP_HAVE_CLANG),$(TCP_FUZZ_BINS))
	@util/run-test tcp-unit build/tcp/tcp-unit
	@util/run-test tcp-nginx src/tests/e2e/tun/nginx-e2e.sh build/tcp/tun-http
ifeq ($(TCP_HAVE_CLANG),yes)
	@for f in $(TCP_FUZZ_NAMES); do \
		util/run-test tcp-fuzz-$$f src/tests/framework/fuzz-smoke.sh tcp build/tcp/fuzz-$$f \
			$(TCP_FUZZ_RUNS) src/tests/fuzz/$$f/seeds -max_len=8192; \
	done
else
	@util/run-test tcp-fuzz sh -c 'echo "SKIP: tcp-fuzz: clang is not installed"; exit 77'
endif

fuzz-tcp: $(TCP_FUZZ_BINS)
	@for f in $(TCP_FUZZ_NAMES); do \
		mkdir -p build/tcp/corpus-$$f; \
		build/tcp/fuzz-$$f -max_total_time=120 -max_len=16384 -artifact_prefix=build/tcp/ \
			build/tcp/corpus-$$f src/tests/fuzz/$$f/seeds || exit 1; \
	done

# The 64 MiB HTTP download over the TUN from nginx, MB/s printed (never asserted).
bench-tcp: build/tcp/tun-http-opt
	@TCP_E2E_MODE=bench src/tests/e2e/tun/nginx-e2e.sh build/tcp/tun-http-opt

ALL_TARGETS   += build/tcp/tcp-unit build/tcp/tun-http
CHECK_TARGETS += check-tcp
FUZZ_TARGETS  += fuzz-tcp
BENCH_TARGETS += bench-tcp
CLEAN_FILES   += build/tcp
