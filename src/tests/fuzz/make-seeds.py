#!/usr/bin/env python3
"""Writes the starting corpora of the DHCP/DNS/TFTP fuzz targets (src/tests/fuzz/{dhcp,dns,tftp}/seeds/).
Run by hand when the formats change; the seeds are committed so fuzz runs start deep."""
import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))


def put(kind, name, data):
    d = os.path.join(here, kind, "seeds")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def ip(s):
    return bytes(int(x) for x in s.split("."))


def dhcp(msgtype, opts, file=b"", sname=b"", yi="198.18.0.60"):
    fixed = struct.pack("!BBBBIHH", 2, 32, 0, 0, 0x1234, 0, 0x8000)
    fixed += b"\0" * 4 + ip(yi) + ip("198.18.0.1") + b"\0" * 4 + b"\0" * 16
    fixed += sname.ljust(64, b"\0") + file.ljust(128, b"\0") + struct.pack("!I", 0x63825363)
    o = bytes([53, 1, msgtype, 54, 4]) + ip("198.18.0.1")
    for code, val in opts:
        o += bytes([code, len(val)]) + val
    return fixed + o + b"\xff"


common = [(1, ip("255.255.255.0")), (3, ip("198.18.0.1")), (6, ip("198.18.0.1")),
          (51, struct.pack("!I", 3600)), (58, struct.pack("!I", 1800)), (59, struct.pack("!I", 3150))]
put("dhcp", "offer", dhcp(2, common + [(67, b"boot.bin\0")]))
put("dhcp", "ack", dhcp(5, common + [(67, b"boot.bin"), (12, b"node1"), (15, b"ibboot.test")]))
put("dhcp", "nak", dhcp(6, [(56, b"wrong address")], yi="0.0.0.0"))
put("dhcp", "overload", dhcp(2, common + [(52, b"\x03")],
                             file=bytes([67, 5]) + b"k.efi" + b"\xff",
                             sname=bytes([12, 4]) + b"node\xff"))
put("dhcp", "file-field", dhcp(2, common + [(66, b"198.18.0.9")], file=b"pxelinux.0"))


def dns_hdr(id_, flags, qd, an):
    return struct.pack("!HHHHHH", id_, flags, qd, an, 0, 0)


q = b"\x04boot\x06ibboot\x04test\x00\x00\x01\x00\x01"
a_rr = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 300, 4) + ip("198.18.0.1")
put("dns", "a", dns_hdr(0x1234, 0x8180, 1, 1) + q + a_rr)
put("dns", "nxdomain", dns_hdr(0x1234, 0x8183, 1, 0) + q)
# CNAME: boot.ibboot.test -> srv.ibboot.test (pointer into the question), then its A record
cname = b"\xc0\x0c" + struct.pack("!HHIH", 5, 1, 60, 6) + b"\x03srv\xc0\x11"
a2 = b"\xc0\x2e" + struct.pack("!HHIH", 1, 1, 60, 4) + ip("198.18.0.2")
put("dns", "cname", dns_hdr(0x1234, 0x8180, 1, 2) + q + cname + a2)
put("dns", "loop", dns_hdr(0x1234, 0x8180, 1, 1) + q + b"\xc0\x22" + a_rr[2:])


def pkt(port_sel, data):
    return struct.pack("!H", len(data)) + bytes([port_sel]) + data


def data_block(n, size):
    return struct.pack("!HH", 3, n) + bytes((n + i) & 255 for i in range(size))


oack = struct.pack("!H", 6) + b"blksize\x002012\x00tsize\x005000\x00windowsize\x004\x00"
put("tftp", "oack-then-data", pkt(1, oack) + pkt(1, data_block(1, 2012)) + pkt(1, data_block(2, 2012))
    + pkt(1, data_block(3, 976)))
put("tftp", "plain-data", pkt(0, data_block(1, 512)) + pkt(0, data_block(2, 100)))
put("tftp", "error", pkt(1, struct.pack("!HH", 5, 1) + b"File not found\x00"))
put("tftp", "reordered", pkt(1, oack) + pkt(1, data_block(2, 2012)) + pkt(1, data_block(1, 2012))
    + pkt(0, data_block(1, 2012)) + pkt(1, data_block(2, 2012)))
put("tftp", "bad-oack", pkt(1, struct.pack("!H", 6) + b"timeout\x005\x00"))
sys.exit(0)
