#!/usr/bin/env bash
# src/tests/unit/net/infiniband/wire/tshark-check.sh PCAP_SAMPLE_PROGRAM
# Cross-checks iblib's header and attribute layouts with an independent decoder: Wireshark's
# InfiniBand dissector (tshark) reads packets iblib built and must see the values we put in.
# tshark 4.0 has no mapping for LINKTYPE_INFINIBAND (247), so the check rewrites the link type
# to DLT_USER0 (147) and maps that to the "infiniband" dissector with a user DLT table.
set -u
SUITE=iblib-tshark
. "$(dirname "$0")/../../../../framework/lib.sh"
prog=$1
dir=build/iblib/tshark
mkdir -p "$dir"
command -v tshark >/dev/null 2>&1 || skip_all "tshark not installed (util/deps.d/iblib.list)"
"$prog" "$dir/sample247.pcap" || { echo "FAIL: iblib-tshark: pcap-sample failed"; exit 1; }
check() {  # check NAME EXPECTED FIELDS...
	local name=$1 expected=$2
	shift 2
	expect_output "$name" "$expected" tshark_ib "$dir/sample247.pcap" "$@"
}
check lrh_bth_deth "3 5 10 0x00 100 0x000048 0x0000000000000b1b 0x00000049
49152 5 20 0x00 100 0xffffff 0x0000000000000b1b 0x00000049
65535 65535 72 0x0f 100 0x000000 0x0000000000000000 0x00000000
1 3 72 0x0f 100 0x000000 0x0000000000000000 0x00000000
1 3 72 0x00 100 0x000001 0x0000000080010000 0x00000001" \
	-e infiniband.lrh.dlid -e infiniband.lrh.slid -e infiniband.lrh.pktlen -e infiniband.lrh.vl \
	-e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.deth.q_key -e infiniband.deth.srcqp
check grh "2 74565 32 27 fe80::2:c903:0:3001 ff12:401b:ffff::ffff:ffff" \
	-Y infiniband.grh -e frame.number -e infiniband.grh.flowlabel -e infiniband.grh.paylen \
	-e infiniband.grh.nxthdr -e infiniband.grh.sgid -e infiniband.grh.dgid
check mad_header "0x81 0x01 0x0011
0x01 0x81 0x0015
0x03 0x02 0x0038" \
	-Y infiniband.mad -e infiniband.mad.mgmtclass -e infiniband.mad.method -e infiniband.mad.attributeid
check dr_smp "0x02 0x01 0xffff 0xffff" \
	-Y infiniband.smpdirected -e infiniband.smpdirected.hopcount -e infiniband.smpdirected.hoppointer \
	-e infiniband.smpdirected.drslid -e infiniband.smpdirected.drdlid
check portinfo "0x0003 0x0001 0x02510868 0x04 0x05 0x02 0x04 0x05 0x04 0x03 0x01 0x12 0x01" \
	-Y infiniband.portinfo.lid \
	-e infiniband.portinfo.lid -e infiniband.portinfo.mastersmlid -e infiniband.portinfo.capabilitymask \
	-e infiniband.portinfo.portstate -e infiniband.portinfo.portphysicalstate -e infiniband.portinfo.lmc \
	-e infiniband.portinfo.neighbormtu -e infiniband.portinfo.mtucap -e infiniband.portinfo.vlcap \
	-e infiniband.portinfo.operationalvls -e infiniband.portinfo.clientreregister \
	-e infiniband.portinfo.subnettimeout -e infiniband.portinfo.localportnum
check mcmemberrecord "0x0000000000010083 ff12:401b:ffff::ffff:ffff fe80::2:c903:0:3001 0x00000b1b 0xc000 0x04 0xffff 0x02 0x01" \
	-Y infiniband.mcmemberrecord.mgid \
	-e infiniband.sa.componentmask -e infiniband.mcmemberrecord.mgid -e infiniband.mcmemberrecord.portgid \
	-e infiniband.mcmemberrecord.q_key -e infiniband.mcmemberrecord.mlid -e infiniband.mcmemberrecord.mtu \
	-e infiniband.mcmemberrecord.p_key -e infiniband.mcmemberrecord.scope -e infiniband.mcmemberrecord.joinstate
finish
