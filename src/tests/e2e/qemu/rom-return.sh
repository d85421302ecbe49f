#!/usr/bin/env bash
# bin/ibboot.rom under SeaBIOS with a netboot that cannot work (the HCA's ports have no cable):
# SeaBIOS runs the ROM's init (PCIR vendor/device equal to the device's own), lists
# "ibboot (InfiniBand)" in its boot menu (opened with ESC through QEMU's monitor, the entry
# picked by its number), the BEV places and starts the image, the autoboot fails at once ("no
# cable"), ibboot quiesces the HCA and returns through real mode to INT 18h, and SeaBIOS boots
# the next device: a one-sector disk built here whose boot sector prints a line on COM1 and
# leaves QEMU through isa-debug-exit. SeaBIOS's own log through isa-debugcon. Then the same
# return from bin/ibboot.pxe chainloaded by an e1000's PXE ROM, and a forged return record
# refused.
. "$(dirname "$0")/../../framework/lib.sh"
qemu_device_test
[ -s bin/ibboot.rom ] || { fail rom "bin/ibboot.rom missing (make bin/ibboot.rom)"; finish; }
cp "$MODEL" "$T/libhcasim.so"   # a private copy: a rebuild elsewhere cannot pull it away

# The next boot device: a boot sector that says so on COM1, then exits QEMU with status 99.
cat > "$T/disk.S" <<'ASM'
	.code16
	.globl	_start
_start:
	cli
	xorw	%ax, %ax
	movw	%ax, %ds
	movw	$0x7c00 + msg - _start, %si
1:	lodsb
	testb	%al, %al
	jz	3f
	movb	%al, %bl
	movw	$0x3fd, %dx
	movw	$0xffff, %cx
2:	inb	%dx, %al
	testb	$0x20, %al
	loopz	2b
	movw	$0x3f8, %dx
	movb	%bl, %al
	outb	%al, %dx
	jmp	1b
3:	movw	$0xf4, %dx
	movb	$0x31, %al
	outb	%al, %dx		/* isa-debug-exit: status (0x31 << 1) | 1 = 99 */
4:	hlt
	jmp	4b
msg:	.asciz	"\r\nROM-RETURN-TEST-DISK: the BIOS booted the next device\r\n"
	.org	510
	.byte	0x55, 0xaa
ASM
gcc -m32 -c -o "$T/disk.o" "$T/disk.S" && ld -m elf_i386 -Ttext 0 --oformat binary -o "$T/disk.img" "$T/disk.o" &&
	truncate -s 64K "$T/disk.img" || { fail disk "could not build the test disk"; finish; }

# QEMU with its HMP monitor on a socket: ESC opens SeaBIOS's boot menu, then the entry's digit.
timeout --kill-after=5 110 "$QEMU" -display none -machine graphics=off -no-reboot -m 256 -net none \
	-monitor "unix:$T/monitor,server,nowait" -serial "file:$T/serial.log" \
	-chardev "file,id=seabios,path=$T/seabios.log" -device isa-debugcon,iobase=0x402,chardev=seabios \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-boot menu=on,splash-time=20000,order=nc \
	-drive "if=ide,format=raw,file=$T/disk.img" \
	-device "hermon,model=$T/libhcasim.so,device-id=0x1003,port1-cable=off,port2-cable=off,romfile=$TOP/bin/ibboot.rom,log=$T/device.log" \
	> "$T/qemu.out" 2>&1 &
QEMU_PID=$!
python3 - "$T" > "$T/menu.out" 2>&1 <<'PY'
import re, socket, sys, time
t = sys.argv[1]
def log():
    try:
        return open(t + '/seabios.log', errors='replace').read()
    except OSError:
        return ''
def wait(pattern, secs):
    end = time.time() + secs
    while time.time() < end:
        m = re.search(pattern, log(), re.M)
        if m:
            return m
        time.sleep(0.2)
    return None
def hmp(cmd):
    s = socket.socket(socket.AF_UNIX)
    s.connect(t + '/monitor')
    s.settimeout(2)
    time.sleep(0.2)
    s.sendall((cmd + '\n').encode())
    time.sleep(0.3)
    s.close()
if not wait(r'Press ESC for boot menu', 60):
    print('no boot menu prompt'); sys.exit(1)
hmp('sendkey esc')
m = wait(r'^(\d+)\. ibboot \(InfiniBand\)', 20)
if not m:
    print('ibboot (InfiniBand) not listed'); sys.exit(1)
print('menu entry', m.group(1))
hmp('sendkey ' + m.group(1))
PY
menu_rc=$?
wait "$QEMU_PID"; qrc=$?
QEMU_PID=
serial_text > "$T/serial.txt"
sed -e 's/\r//g' "$T/seabios.log" > "$T/seabios.txt"

expect seabios-ran-rom "$T/seabios.txt" '^Running option rom at [0-9a-f]{4}:0003' "SeaBIOS did not run the ROM's init (PCIR vendor/device?)" && pass seabios-ran-rom
if [ "$menu_rc" = 0 ]; then pass boot-menu-lists-entry; else fail boot-menu-lists-entry "$(cat "$T/menu.out") ($T/seabios.txt)"; fi
expect bev-booted "$T/seabios.txt" '^Booting from ROM' "SeaBIOS did not boot the BEV" && pass bev-booted
expect image-started "$T/serial.txt" '^platform: started by the PCI option ROM.s boot entry \(BEV\)' "ibboot did not start from the BEV ($T/serial.txt)" && pass image-started
expect autoboot-failed "$T/serial.txt" '\] autoboot failed: no InfiniBand port has a link' "the autoboot did not fail on the missing cable" && pass autoboot-failed
expect returned-real-mode "$T/serial.txt" '^ibboot: back in real mode, HCA quiesced; INT 18h' "no way back to real mode" && pass returned-real-mode
# The HCA quiesced before the return: a software reset after the probe's, bus mastering off,
# none of the host's memory held, and no register write after the last reset.
resets=$(grep -ac 'hcasim: software reset' "$T/device.log")
last_reset=$(grep -an 'hcasim: software reset' "$T/device.log" | tail -1 | cut -d: -f1)
last_mem=$(grep -a 'bytes of host memory held by the HCA' "$T/device.log" | tail -1)
writes_after=$(tail -n +"$((${last_reset:-0} + 1))" "$T/device.log" | grep -ac ' write ')
if [ "$resets" -ge 2 ] && [[ "$last_mem" == *" total 0 "* ]] && [ "$writes_after" -eq 0 ] &&
	grep -q 'hcasim: bus mastering off' "$T/device.log"; then
	pass hca-quiesced
else
	fail hca-quiesced "resets $resets, last '$last_mem', $writes_after writes after the last reset ($T/device.log)"
fi
expect next-device "$T/serial.txt" '^ROM-RETURN-TEST-DISK: the BIOS booted the next device' "SeaBIOS did not boot the disk after the ROM returned ($T/seabios.txt)" && pass next-device
expect_status qemu-exit "$qrc" 99 "(the disk's isa-debug-exit; $T/qemu.out)" && pass qemu-exit

# The same way back from the PXE chainload: an e1000's PXE ROM (iPXE) runs bin/ibboot.pxe from
# QEMU's user-mode TFTP, the NBP stops the PXE stack, the netboot fails (no cable), INT 18h, and
# SeaBIOS boots the disk (-boot order=nc: network first, then the disk).
mkdir -p "$T/tftp" && cp bin/ibboot.pxe "$T/tftp/"
rm -f "$T/serial.log"
timeout --kill-after=5 110 "$QEMU" -display none -machine graphics=off -monitor none -no-reboot -m 256 \
	-serial "file:$T/serial.log" -device isa-debug-exit,iobase=0xf4,iosize=0x04 -boot order=nc \
	-netdev "user,id=pxenet,tftp=$T/tftp,bootfile=ibboot.pxe" -device e1000,netdev=pxenet \
	-drive "if=ide,format=raw,file=$T/disk.img" \
	-device "hermon,model=$T/libhcasim.so,device-id=0x1003,port1-cable=off,port2-cable=off,log=$T/pxe-device.log" \
	> "$T/pxe-qemu.out" 2>&1 &
QEMU_PID=$!
wait "$QEMU_PID"; qrc=$?
QEMU_PID=
serial_text > "$T/pxe-serial.txt"
expect pxe/stack-stopped "$T/pxe-serial.txt" '^ibboot: PXE stack stopped' "the NBP did not stop the PXE stack ($T/pxe-serial.txt)" && pass pxe/stack-stopped
expect pxe/image-started "$T/pxe-serial.txt" '^platform: started by a PXE ROM' "ibboot did not start from the NBP" && pass pxe/image-started
expect pxe/returned-real-mode "$T/pxe-serial.txt" '^ibboot: back in real mode, HCA quiesced; INT 18h' "no way back to real mode" && pass pxe/returned-real-mode
expect pxe/next-device "$T/pxe-serial.txt" '^ROM-RETURN-TEST-DISK: the BIOS booted the next device' "SeaBIOS did not boot the disk after the NBP returned" && pass pxe/next-device
expect_status pxe/qemu-exit "$qrc" 99 "(the disk's isa-debug-exit; $T/pxe-qemu.out)" && pass pxe/qemu-exit

# The same ROM with another device ID in its PCIR (fixrom --device) is not run on this device:
# SeaBIOS requires PCIR vendor/device to equal the function's own, as the README says.
util/rom/fixrom --device 0x1007 "$TOP/bin/ibboot.rom" "$T/other-device.rom" ||
	fail other-device-rom "fixrom --device 0x1007 failed"
rm -f "$T/serial.log" "$T/seabios-other.log"
timeout --kill-after=5 60 "$QEMU" -display none -machine graphics=off -monitor none -no-reboot -m 256 \
	-net none -serial "file:$T/serial.log" -boot order=n \
	-chardev "file,id=seabios,path=$T/seabios-other.log" -device isa-debugcon,iobase=0x402,chardev=seabios \
	-device "hermon,model=$T/libhcasim.so,device-id=0x1003,port1-cable=off,port2-cable=off,romfile=$T/other-device.rom" \
	> "$T/other-qemu.out" 2>&1 &
QEMU_PID=$!
for ((i = 0; i < 250; i++)); do
	kill -0 "$QEMU_PID" 2>/dev/null || break
	grep -aq 'No bootable device' "$T/seabios-other.log" 2>/dev/null && break
	sleep 0.2
done
stop_qemu
# (Run, its BEV would come first: -boot order=n.)
if grep -aq 'No bootable device' "$T/seabios-other.log" && ! grep -aq '^Booting from ROM' "$T/seabios-other.log" &&
	! grep -aq 'ibboot' "$T/serial.log"; then
	pass other-device-id-not-run
else
	fail other-device-id-not-run "SeaBIOS ran a ROM whose PCIR names device 0x1007 on a 0x1003 ($T/seabios-other.log)"
fi

# A return record named on the command line that does not check out is refused with a message and
# ibboot stays (-kernel with ibboot.bios-exit= pointing at zeroed memory; no HCA, so the autoboot
# fails at once). Stopped by its PID once the refusal is printed.
rm -f "$T/serial.log"
timeout --kill-after=5 60 "$QEMU" -display none -machine graphics=off -monitor none -no-reboot -m 256 \
	-net none -serial "file:$T/serial.log" -kernel bin/ibboot.lkrn -append "ibboot.bios-exit=0x90000" \
	> "$T/forged-qemu.out" 2>&1 &
QEMU_PID=$!
for ((i = 0; i < 250; i++)); do
	kill -0 "$QEMU_PID" 2>/dev/null || break
	grep -aq 'no way back to the BIOS' "$T/serial.log" 2>/dev/null && { sleep 0.5; break; }
	sleep 0.2
done
stop_qemu
serial_text > "$T/forged-serial.txt"
expect forged-record-refused "$T/forged-serial.txt" '^boot: ibboot.bios-exit=0x90000 does not name a valid return record; no way back to the BIOS' \
	"a forged return record was not refused ($T/forged-serial.txt)" && pass forged-record-refused
if grep -aq 'leaving long mode' "$T/forged-serial.txt"; then
	fail forged-record-not-used "ibboot left long mode on a forged record"
else
	pass forged-record-not-used
fi
finish
