#!/usr/bin/env bash
# util/rom/fixrom on synthetic images (size byte, PCIR image length and device ID, $PnP and image
# checksums; every malformed header refused), then the headers of the built bin/ibboot.rom
# parsed back (PCI Firmware 3.0: PCIR vendor 15b3, the build's device ID, the Hermon driver's
# device list, class 0c0600, code type 0, last image; $PnP BEV and product name), fixrom --lkrn
# on synthetic setup headers, both images holding the lkrn past its setup sectors, and the
# bin/ibboot.pxe NBP's first instruction; the ROM and the lkrn within 64 KiB. No QEMU.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$TOP"
SUITE=rom-fixrom
. src/tests/framework/lib.sh
T=$TOP/build/rom/tests
rm -rf "$T" && mkdir -p "$T"

# The unit tests: fixrom imported as a module, each case one PASS/FAIL line.
python3 - "$TOP/util/rom/fixrom" <<'PY'
import importlib.machinery, importlib.util, struct, sys
loader = importlib.machinery.SourceFileLoader('fixrom', sys.argv[1])
spec = importlib.util.spec_from_loader('fixrom', loader)
fx = importlib.util.module_from_spec(spec)
loader.exec_module(fx)

def rom(size=1000, pcir=0x20, pnp=0x40, rev=3, dlist=True):
    b = bytearray(size)
    b[0:2] = b'\x55\xaa'
    b[3] = 0xcb                                  # init: retf
    struct.pack_into('<HH', b, 0x18, pcir, pnp)
    b[pcir:pcir + 4] = b'PCIR'
    struct.pack_into('<HHHHB', b, pcir + 4, 0x15b3, 0x1003, 0x60 - pcir if dlist else 0, 0x1c, rev)
    b[pcir + 0x0d:pcir + 0x10] = b'\x00\x06\x0c'
    b[pcir + 0x15] = 0x80
    struct.pack_into('<HHH', b, 0x60, 0x1003, 0x1007, 0)
    if pnp:
        b[pnp:pnp + 4] = b'$PnP'
        b[pnp + 4], b[pnp + 5] = 1, 2
        struct.pack_into('<H', b, pnp + 0x10, 0x80)
        struct.pack_into('<H', b, pnp + 0x1a, 0x90)
        b[0x80:0x80 + 20] = b'ibboot (InfiniBand)\0'
    return bytes(b)

fails = 0
def case(name, cond, why):
    global fails
    if cond:
        print('PASS: rom-fixrom/' + name)
    else:
        print('FAIL: rom-fixrom/%s: %s' % (name, why))
        fails += 1

def refused(name, data, what, **kw):
    try:
        fx.fix(data, **kw)
    except fx.RomError as e:
        case(name, what in str(e), 'refused for another reason: %s' % e)
        return
    case(name, False, 'accepted')

out = fx.fix(rom(1000))
case('pads-to-blocks', len(out) == 1024, 'length %d, want 1024' % len(out))
case('size-byte', out[2] == 2, 'size byte %d, want 2' % out[2])
case('image-checksum', sum(out) % 256 == 0, 'image sums to %d' % (sum(out) % 256))
case('pnp-checksum', sum(out[0x40:0x60]) % 256 == 0, '$PnP header sums to %d' % (sum(out[0x40:0x60]) % 256))
case('pcir-image-length', struct.unpack_from('<H', out, 0x30)[0] == 2, 'PCIR image length %d' % struct.unpack_from('<H', out, 0x30)[0])
case('pcir-max-runtime', struct.unpack_from('<H', out, 0x36)[0] == 2, 'PCIR 3.0 max run-time length not written')
out = fx.fix(rom(1024))
case('no-spare-block', len(out) == 1024 and sum(out) % 256 == 0 and out[fx.CSUM_OFF] != 0,
     'a full last block needs no other for the checksum, whose byte is in the header (got %d bytes)' % len(out))
case('refix-same', fx.fix(out) == out, 'fixing a fixed image again changed it')
out = fx.fix(rom(1000), device=0x1007)
case('device-id', struct.unpack_from('<H', out, 0x26)[0] == 0x1007 and sum(out) % 256 == 0, 'device ID not written')
lines = fx.check(fx.fix(rom(1000)))
case('check-parses', any('device list 0x1003 0x1007' in l for l in lines) and
     any('product "ibboot (InfiniBand)"' in l and 'BEV 0x0090' in l for l in lines), 'check said %r' % lines)
refused('refuses-no-signature', b'\0' * 600, '0x55 0xAA')
bad = bytearray(rom(600)); struct.pack_into('<H', bad, 0x18, 0x400)
refused('refuses-pcir-outside', bytes(bad), 'outside')
bad = bytearray(rom(600)); bad[0x20:0x24] = b'PCIX'
refused('refuses-no-pcir', bytes(bad), '"PCIR"')
bad = bytearray(rom(600)); bad[0x40:0x44] = b'$PnQ'
refused('refuses-no-pnp', bytes(bad), '"$PnP"')
refused('refuses-too-large', rom(255 * 512 + 1), 'at most 255')
bad = bytearray(fx.fix(rom(1000))); bad[100] ^= 1
try:
    fx.check(bytes(bad)); case('check-refuses-checksum', False, 'a changed byte passed')
except fx.RomError as e:
    case('check-refuses-checksum', 'checksum' in str(e), str(e))
bad = bytearray(fx.fix(rom(1000))); bad[0x35] = 0; bad[fx.CSUM_OFF] = (bad[fx.CSUM_OFF] + 0x80) & 0xff
try:
    fx.check(bytes(bad)); case('check-refuses-not-last', False, 'no last-image indicator passed')
except fx.RomError as e:
    case('check-refuses-not-last', 'last-image' in str(e), str(e))
# fixrom --lkrn: the setup header of a Linux boot-protocol image (boot.rst) read for the cut.
def lkrn(sects=1, version=0x207, loadflags=1, entry=0x100000, size=8192, mb=0x1010, mbflags=0x10003):
    b = bytearray(size)
    b[0x1f1] = sects
    struct.pack_into('<H', b, 0x1fe, 0xaa55)
    b[0x202:0x206] = b'HdrS'
    struct.pack_into('<H', b, 0x206, version)
    b[0x211] = loadflags
    struct.pack_into('<I', b, 0x214, entry)
    if mb:
        struct.pack_into('<III', b, mb, 0x1badb002, mbflags, -(0x1badb002 + mbflags) & 0xffffffff)
    return bytes(b)
case('lkrn-cut', fx.lkrn_cut(lkrn()) == (1024, 0x100000, 0x1010 - 1024), 'got %r' % (fx.lkrn_cut(lkrn()),))
case('lkrn-cut-zero-sects', fx.lkrn_cut(lkrn(sects=0))[0] == 2560, 'setup_sects 0 is 4 (boot.rst)')
def lkrn_refused(name, data, what):
    try:
        fx.lkrn_cut(data)
    except fx.RomError as e:
        case(name, what in str(e), 'refused for another reason: %s' % e)
        return
    case(name, False, 'accepted')
lkrn_refused('lkrn-refuses-no-hdrs', lkrn()[:0x202] + b'HdrX' + lkrn()[0x206:], 'HdrS')
lkrn_refused('lkrn-refuses-old-protocol', lkrn(version=0x201), '2.02')
lkrn_refused('lkrn-refuses-not-high', lkrn(loadflags=0), 'LOADED_HIGH')
lkrn_refused('lkrn-refuses-entry-outside', lkrn(entry=0x100000 + 8192), 'code32_start')
lkrn_refused('lkrn-refuses-no-multiboot', lkrn(mb=0), 'no multiboot header')
lkrn_refused('lkrn-refuses-multiboot-in-setup', lkrn(mb=0x300), 'no multiboot header')
lkrn_refused('lkrn-refuses-no-aout-kludge', lkrn(mbflags=3), 'a.out kludge')
sys.exit(1 if fails else 0)
PY
[ $? -eq 0 ] || failures=$((failures + 1))

# The built ROM.
if ! util/rom/fixrom --check --verbose bin/ibboot.rom > "$T/rom.txt" 2>&1; then
	fail built-rom-valid "$(cat "$T/rom.txt")"
else
	pass built-rom-valid
fi
size=$(stat -c %s bin/ibboot.rom)
dev=$(cat build/rom/device-id 2>/dev/null || echo 0x1003)
expect built-rom-pcir "$T/rom.txt" "^PCIR vendor 0x15b3 device $(printf '0x%04x' "$dev") class 0x0c0600 revision 3 code type 0 last image$" \
	"PCIR: vendor 15b3, device $dev, class 0c0600, code type 0, last image" && pass built-rom-pcir
expect built-rom-pnp "$T/rom.txt" '^\$PnP product "ibboot \(InfiniBand\)" manufacturer "ibboot" BEV 0x[0-9a-f]{4} ' \
	'$PnP header with a BEV and the product name "ibboot (InfiniBand)"' && pass built-rom-pnp
# The device list is the driver's table, in its order.
want=$(sed -n '/^static const struct pci_device_id hermon_ids\[\]/,/^};/p' src/drivers/infiniband/hermon_ib.c |
	grep -o '0x15b3, 0x[0-9a-f]*' | awk '{ printf "%s%s", sep, $2; sep = " " }')
expect built-rom-device-list "$T/rom.txt" "^PCIR device list $want\$" "the PCIR device list equal to hermon_ids ($want)" && pass built-rom-device-list
if [ "$size" -le $((255 * 512)) ]; then pass built-rom-legacy-size; else fail built-rom-legacy-size "$size bytes"; fi
# The size goal (issues 13 and 14): the option ROM and the lkrn, every feature in, at most 64 KiB,
# so the ROM fits the option-ROM space every BIOS leaves (make bench-size prints the margins).
if [ "$size" -le 65536 ]; then pass built-rom-64k; else fail built-rom-64k "$size bytes, over 65,536"; fi
lk=$(stat -c %s bin/ibboot.lkrn)
if [ "$lk" -le 65536 ]; then pass built-lkrn-64k; else fail built-lkrn-64k "bin/ibboot.lkrn is $lk bytes, over 65,536"; fi
# Both embed bin/ibboot.lkrn less its setup sectors right where the front end ends, unchanged
# but for the NBP's masked multiboot magic (0x5a5a5a5a, romfront.h).
if python3 - bin/ibboot.lkrn bin/ibboot.rom bin/ibboot.pxe build/rom/ibboot-rom.elf build/rom/ibboot-pxe.elf <<'PY'
import struct, subprocess, sys
lk = open(sys.argv[1], 'rb').read()
pm = bytearray(lk[((lk[0x1f1] or 4) + 1) * 512:])
for img, elf in ((sys.argv[2], sys.argv[4]), (sys.argv[3], sys.argv[5])):
    syms = dict((l.split()[2], int(l.split()[0], 16)) for l in
                subprocess.run(['nm', elf], capture_output=True, text=True).stdout.splitlines() if len(l.split()) == 3)
    d = bytearray(open(img, 'rb').read())
    at = syms['ibimg_start']
    if 'ibimg_mb_magic' in syms:
        m = syms['ibimg_mb_magic']
        struct.pack_into('<I', d, m, struct.unpack_from('<I', d, m)[0] ^ 0x5a5a5a5a)
        if struct.unpack_from('<I', d, m)[0] != 0x1badb002:
            sys.exit('%s: no masked multiboot magic at 0x%x' % (img, m))
    if d[at:at + len(pm)] != pm or syms['ibimg_end'] - at != len(pm):
        sys.exit('%s: the image at 0x%x is not the lkrn past its setup sectors' % (img, at))
PY
then pass built-images-embed-lkrn; else fail built-images-embed-lkrn "the ROM or NBP does not hold the lkrn's protected-mode part"; fi
echo "rom-fixrom: bin/ibboot.rom is $size bytes$([ "$size" -le 65536 ] || echo ' (over 64 KiB)'), bin/ibboot.pxe $(stat -c %s bin/ibboot.pxe) bytes"

# The NBP: its first instruction addresses it from 07C0:0000 (PXE 2.1: loaded at 0000:7C00),
# and it fits in base memory below the usual 0x98000 ceiling PXE ROMs place NBPs under.
first=$(od -An -tx1 -N5 bin/ibboot.pxe | tr -d ' \n')
if [ "$first" = ea0500c007 ]; then pass pxe-entry; else fail pxe-entry "first bytes $first, want ljmp 07c0:0005"; fi
if [ $((0x7c00 + $(stat -c %s bin/ibboot.pxe))) -le $((0x98000)) ]; then pass pxe-fits-base-memory; else fail pxe-fits-base-memory "too large"; fi
# No multiboot header in the NBP's first 8 KiB (its image's magic is stored masked): a PXE ROM
# that speaks multiboot too (iPXE) would load the file as a multiboot kernel instead of running
# it as an NBP.
if python3 - bin/ibboot.pxe <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read(8192)
sys.exit(any(struct.unpack_from('<III', d, i)[0] == 0x1badb002 and
             sum(struct.unpack_from('<III', d, i)) & 0xffffffff == 0 for i in range(0, len(d) - 11, 4)))
PY
then pass pxe-no-multiboot-header; else fail pxe-no-multiboot-header "a multiboot header in the first 8 KiB of bin/ibboot.pxe"; fi
finish
