# QEMU device set for ibboot's qemu-system-x86_64 (used with --without-default-devices):
# the pc (i440fx) and q35 machines with their serial port, -kernel/multiboot loading, the
# isa-debug-exit / isa-debugcon test devices, a VGA card (the pc machine creates one by default),
# e1000 for a plain-network smoke test, and our HCA.
CONFIG_I440FX=y
CONFIG_Q35=y
CONFIG_ISA_DEBUG=y
CONFIG_PARALLEL=y
CONFIG_VGA_PCI=y
CONFIG_E1000_PCI=y
CONFIG_HERMON=y
