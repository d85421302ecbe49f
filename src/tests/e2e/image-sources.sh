#!/usr/bin/env bash
# src/tests/e2e/image-sources.sh ELF — the firmware is built from src/ alone: the image's debug
# info (compile units and the directories of their line tables) names only files under src/, the
# generated header under build/include, and the compiler's own freestanding headers. Nothing from
# util/ (the model, the fabric, tools) may be linked in.
set -u
elf=$1
suite=image-sources
fail=0
cc_inc=$(gcc -print-file-name=include)

cus=$(readelf --debug-dump=info "$elf" 2>/dev/null |
	awk '/DW_TAG_compile_unit/ {cu = 1} cu && /DW_AT_name/ {print $NF; cu = 0}')
if [ -z "$cus" ]; then
	echo "FAIL: $suite/compile-units: no debug info in $elf"
	exit 0
fi
# (<artificial> is the unit gcc's link-time optimisation writes for the code it generates.)
bad=$(echo "$cus" | grep -v -e '^src/' -e '^<artificial>$' || true)
if [ -n "$bad" ]; then
	echo "FAIL: $suite/compile-units: not under src/: $(echo $bad)"
	fail=1
else
	echo "PASS: $suite/compile-units: $(echo "$cus" | wc -l) source files, all under src/"
fi

# Directory tables of the line programs: entry 0 is the compilation directory (absolute); every
# other entry is where a source or header came from.
dirs=$(readelf --debug-dump=line "$elf" 2>/dev/null |
	awk '/The Directory Table/ {t = 1; next} t && /^$/ {t = 0} t && /^ +[0-9]+\t/ {print $NF}' |
	sort -u)
comp_dir=$(echo "$dirs" | grep '^/' | grep -vxF "$cc_inc" | head -n1)
bad=$(echo "$dirs" | grep -vxF "$cc_inc" | grep -vxF "$comp_dir" |
	grep -vE '^(src|build/include)(/|$)' || true)
if [ -n "$bad" ]; then
	echo "FAIL: $suite/include-dirs: sources from outside src/ and build/include: $(echo $bad)"
	fail=1
else
	echo "PASS: $suite/include-dirs: $(echo "$dirs" | wc -l) directories, all src/, build/include or the compiler's"
fi

if readelf --debug-dump=line "$elf" 2>/dev/null | grep -qE '(^|[ /])util/'; then
	echo "FAIL: $suite/no-util: the line tables name a file under util/"
	fail=1
else
	echo "PASS: $suite/no-util: no file under util/"
fi
exit 0
