#!/usr/bin/env bash
# src/tests/unit/net/tshark-check.sh IPOIB_PCAP_PROGRAM
# Cross-checks what ib0 puts on the wire with an independent decoder: Wireshark's InfiniBand,
# IPoIB, ARP, IPv4 and ICMP dissectors (tshark) read the capture ipoib-pcap wrote and must see
# RFC 4391 ARP (htype 32, hlen 20), correct IPv4/ICMP checksums and the SA join/path queries.
# tshark 4.0 has no mapping for LINKTYPE_INFINIBAND (247): the link type is rewritten to DLT_USER0
# (147) and mapped to the "infiniband" dissector with a user DLT table.
set -u
SUITE=ibcore-tshark
. "$(dirname "$0")/../../framework/lib.sh"
prog=$1
dir=build/ibcore/tshark
mkdir -p "$dir"
command -v tshark >/dev/null 2>&1 || skip_all "tshark not installed (util/deps.d/ibcore.list)"
"$prog" "$dir/ipoib247.pcap" >/dev/null || { echo "FAIL: ibcore-tshark: ipoib-pcap failed"; exit 1; }
check() {  # check NAME EXPECTED TSHARK-ARGS...
	local name=$1 expected=$2
	shift 2
	expect_output "$name" "$expected" tshark_ib "$dir/ipoib247.pcap" -o ip.check_checksum:TRUE "$@"
}
# ib0 is QPN 0x48 on GID fe80::2:c903:0:1001; the peer QPN 0x123 on fe80::2:c903:0:7777.
check arp_reply "32 20 2 198.18.0.2 198.18.0.1 00000048fe800000000000000002c90300001001 00000123fe800000000000000002c90300007777" \
	-Y arp -e arp.hw.type -e arp.hw.size -e arp.opcode -e arp.src.proto_ipv4 \
	-e arp.dst.proto_ipv4 -e arp.src.hw -e arp.dst.hw
# checksum.status 1 = good
check icmp_echo "198.18.0.2 198.18.0.1 1 8 1 26978 1 56
198.18.0.2 198.18.0.1 1 0 1 16962 7 56" \
	-Y icmp -e ip.src -e ip.dst -e ip.checksum.status -e icmp.type -e icmp.checksum.status \
	-e icmp.ident -e icmp.seq -e data.len
# unicast to the peer's LID and QPN with the group's Q_Key, from ib0's QPN (DETH)
check ud_addressing "64 0x000123 0x0000000000000b1b 0x00000048
64 0x000123 0x0000000000000b1b 0x00000048
64 0x000123 0x0000000000000b1b 0x00000048" \
	-Y "arp || ip" -e infiniband.lrh.dlid -e infiniband.bth.destqp -e infiniband.deth.q_key \
	-e infiniband.deth.srcqp
check sa_join_and_path "0x02 0x0038 0x0000000000010083 0x00000000 0x0000 0xffff 0x01 ff12:401b:ffff::ffff:ffff
0x81 0x0038 0x0000000000010083 0x00000b1b 0xc000 0xffff 0x01 ff12:401b:ffff::ffff:ffff
0x01 0x0035 0x000000000000200c
0x81 0x0035 0x000000000000200c
0x15 0x0038 0x0000000000010083 0x00000000 0x0000 0xffff 0x01 ff12:401b:ffff::ffff:ffff
0x95 0x0038 0x0000000000010083 0x00000000 0x0000 0xffff 0x01 ff12:401b:ffff::ffff:ffff" \
	-Y infiniband.mad -e infiniband.mad.method -e infiniband.mad.attributeid \
	-e infiniband.sa.componentmask -e infiniband.mcmemberrecord.q_key \
	-e infiniband.mcmemberrecord.mlid -e infiniband.mcmemberrecord.p_key \
	-e infiniband.mcmemberrecord.joinstate -e infiniband.mcmemberrecord.mgid
finish
