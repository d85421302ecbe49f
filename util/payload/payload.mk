# The demo's payload: Debian's kernel + a busybox initramfs that prints a marker, with ibboot.ib0=1
# brings ib0 up with Linux's mlx4 + IPoIB drivers (util/payload/init), and powers off.
PAYLOAD_DIR := bin/payload

$(PAYLOAD_DIR)/vmlinuz $(PAYLOAD_DIR)/initrd.img: util/payload/build util/payload/init util/payload/ibdhcp.c
	util/payload/build $(PAYLOAD_DIR)

.PHONY: payload check-payload
payload: $(PAYLOAD_DIR)/vmlinuz

# The payload itself boots (stock QEMU, -kernel/-initrd) and prints its marker with the command
# line it was given; the netboot tests rely on exactly this marker.
check-payload: payload
	@util/run-test payload util/payload/test-boot $(PAYLOAD_DIR)

ALL_TARGETS += payload
