#!/bin/sh
# src/tests/unit/net/infiniband/wire/freestanding-check.sh OBJ...
# The firmware links iblib without a libc: the freestanding objects may only need each other and
# the four routines GCC itself may call in freestanding code (memcpy, memmove, memset, memcmp),
# which the firmware provides.
fail=0
for o in "$@"; do
	bad=$(nm -u "$o" | awk '{print $2}' | grep -v -E '^(iblib_[A-Za-z0-9_]+|memcpy|memmove|memset|memcmp)$')
	if [ -n "$bad" ]; then
		echo "FAIL: iblib-freestanding/$(basename "$o" .o): needs $(echo $bad)"
		fail=1
	else
		echo "PASS: iblib-freestanding/$(basename "$o" .o): no libc symbols"
	fi
done
exit $fail
