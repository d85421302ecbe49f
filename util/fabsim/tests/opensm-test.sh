#!/usr/bin/env bash
# util/fabsim/tests/opensm-test.sh FABSIM FABSIMCTL HCA-RIG...
#
# The stock OpenSM manages a fabsim fabric: one switch, the SM host, and two HCAs attached over
# fabsim's HCA socket by HCA-RIG (one 1-port HCA, one 2-port HCA with only port 2 cabled). The rig
# is started twice: `HCA-RIG... SOCKET NAME NODE_GUID NUM_PORTS`. Then OpenSM (through umad2sim)
# must reach SUBNET UP, and the diags (through umad2sim) must show what the SM programmed: LIDs,
# Active 4X ports, MTU, the IPoIB broadcast group, switch routes. The capture must decode in tshark.
# Every process started here is stopped by its PID on exit, whatever happens.
set -u
fabsim=$1 fabsimctl=$2
shift 2
rig=("$@")
suite=${SUITE:-fabsim-opensm}
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so

for tool in opensm ibnetdiscover smpquery saquery ibstat; do
	if ! command -v "$tool" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$tool" ]; then
		echo "SKIP: $suite: $tool not installed (util/deps.d/fabsim.list)"; exit 77
	fi
done
if [ ! -e "$umad2sim" ]; then
	echo "SKIP: $suite: $umad2sim missing (package libumad2sim0)"; exit 77
fi
export PATH=$PATH:/usr/sbin

dir=$(mktemp -d /tmp/fabsim-opensm-XXXXXX)
pids=()
# Stop one process by PID: TERM, a grace period (OpenSM looks at its exit flag every 10 s), KILL.
stop_pid() {
	kill "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return; }
	for ((t = 0; t < 150; t++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
# Newest first: OpenSM must detach while fabsim still answers it.
cleanup() {
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		stop_pid "${pids[i]}"
	done
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $dir"; else rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

SUITE=$suite
source "$(dirname "${BASH_SOURCE[0]}")/../../../src/tests/framework/lib.sh"
# wait_until SECONDS CMD...: poll a condition; a limit only so a broken run cannot hang CI.
wait_until() {
	local limit=$(($1 * 10)); shift
	for ((t = 0; t < limit; t++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

cat > "$dir/topology" <<'EOF'
# fabsim test fabric
switch   sw1    0x0002c90300002000 8 "fabsim switch sw1"
sm-host  smhost 0x0002c90300001000 "smhost (OpenSM)"
hca-port hca1   0x0002c90300003001
hca-port hca2p2 0x0002c90300004002
cable sw1:1 smhost
cable sw1:2 hca1
cable sw1:3 hca2p2
EOF

export IBSIM_SOCKNAME="fabsim-test-$$-$RANDOM"
unset IBSIM_SERVER_NAME IBSIM_SERVER_PORT SIM_HOST
# FABSIM_FAULT: faults on from the start (command line), until SUBNET UP.
"$fabsim" --topology "$dir/topology" --hca-socket "$dir/hca.sock" --control "$dir/ctl" \
	--pcap "$dir/capture.pcap" --seed 7 ${FABSIM_FAULT:+--fault "$FABSIM_FAULT"} \
	>"$dir/fabsim.out" 2>"$dir/fabsim.err" &
fabsim_pid=$!
pids+=($fabsim_pid)
if ! wait_until 30 grep -q "ready" "$dir/fabsim.out"; then
	fail start "fabsim did not start: $(cat "$dir/fabsim.err")"; exit 1
fi

"${rig[@]}" "$dir/hca.sock" hca1 0x0002c90300003000 1 >"$dir/rig1.out" 2>"$dir/rig1.err" &
pids+=($!)
"${rig[@]}" "$dir/hca.sock" hca2 0x0002c90300004000 2 >"$dir/rig2.out" 2>"$dir/rig2.err" &
pids+=($!)
# Attached, and both HCA ends trained (the switch ports left Down): only then start the SM, so
# its first sweep always sees the same fabric.
attached() {
	local ports
	ports=$("$fabsimctl" "$dir/ctl" ports)
	[ "$(echo "$ports" | grep -c " attached")" = 2 ] &&
	[ "$(echo "$ports" | grep -cE '^sw1:[23] Init/LinkUp')" = 2 ]
}
if wait_until 60 attached; then
	pass hcas_attach
else
	fail hcas_attach "$("$fabsimctl" "$dir/ctl" ports; cat "$dir"/rig*.out "$dir"/rig*.err)"; exit 1
fi
# Port 1 of the 2-port HCA has no cable: fabsim refuses it and it stays down.
if grep -q "no cable for GUID 0x0002c90300004001" "$dir/fabsim.err"; then
	pass uncabled_port_refused
else
	fail uncabled_port_refused "fabsim did not refuse hca2 port 1: $(cat "$dir/fabsim.err")"
fi

mkdir -p "$dir/osm" "$dir/osm/dump"
cat > "$dir/osm/opensm.conf" <<EOF
log_file $dir/osm/opensm.log
dump_files_dir $dir/osm/dump
partition_config_file $dir/osm/partitions.conf
sa_db_file $dir/osm/opensm-sa.dump
force_log_flush TRUE
${FABSIM_FAULT:+sweep_interval 2}
EOF
start_opensm() {
	(cd "$dir/osm" && OSM_CACHE_DIR="$dir/osm" OSM_TMP_DIR="$dir/osm" LD_PRELOAD=$umad2sim \
		exec opensm -F "$dir/osm/opensm.conf" -D 0x03 >>"$dir/osm/opensm.out" 2>&1) &
	osm_pid=$!
	pids+=($osm_pid)
}
start_opensm
if wait_until 90 grep -q "SUBNET UP" "$dir/osm/opensm.log"; then
	pass subnet_up
	grep -m1 "SUBNET UP" "$dir/osm/opensm.log"
else
	fail subnet_up "no SUBNET UP; log tail: $(tail -20 "$dir/osm/opensm.log")"; exit 1
fi
if [ -n "${FABSIM_FAULT:-}" ]; then
	# The faults really hit the SM's traffic, and OpenSM got through anyway (requests lost on
	# the way are bounced back to it as timeouts). Then a clean fabric for the diags.
	counters=$("$fabsimctl" "$dir/ctl" counters)
	lost=$(echo "$counters" | awk '/^link/ {for (i = 1; i < NF; i++) if ($i == "lost") s += $(i + 1)} END {print s + 0}')
	dups=$(echo "$counters" | awk '/^link/ {for (i = 1; i < NF; i++) if ($i == "duplicated") s += $(i + 1)} END {print s + 0}')
	if [ "$lost" -gt 0 ] && [ "$dups" -gt 0 ]; then
		pass faults_hit_and_subnet_still_up
		echo "with '$FABSIM_FAULT': lost $lost duplicated $dups; $(grep -c 'bounced' "$dir/fabsim.err") requests bounced"
	else
		fail faults_hit_and_subnet_still_up "$counters"
	fi
	"$fabsimctl" "$dir/ctl" fault all clear >/dev/null
	# A sweep that lost MADs ends in a partial SUBNET UP; the next ones finish the job.
	all_routed() { [ "$("$fabsimctl" "$dir/ctl" lft sw1 | wc -l)" = 4 ]; }
	hcas_active() { [ "$("$fabsimctl" "$dir/ctl" ports | grep -cE '^sw1:[23] Active')" = 2 ]; }
	if wait_until 90 all_routed && wait_until 90 hcas_active; then
		pass lossy_sweeps_converge
	else
		fail lossy_sweeps_converge "$("$fabsimctl" "$dir/ctl" lft sw1; "$fabsimctl" "$dir/ctl" ports)"
	fi
fi

diag() { (cd "$dir/osm" && LD_PRELOAD=$umad2sim timeout 60 "$@" 2>&1); }

# --- ibnetdiscover: the whole fabric, with the LIDs OpenSM gave
disc=$(diag ibnetdiscover)
echo "$disc" | grep -E '^(Switch|Ca|\[)'
lid_of() {  # port GUID (no 0x, lower case) -> LID from the ibnetdiscover CA lines
	echo "$disc" | grep -E "^\[[0-9]+\]\($1\)" | sed -n 's/.*# lid \([0-9]*\) .*/\1/p' | head -1
}
lid1=$(lid_of 2c90300003001)
lid2=$(lid_of 2c90300004002)
if echo "$disc" | grep -q '^Switch.*8 "S-0002c90300002000"' && [ -n "$lid1" ] && [ -n "$lid2" ] &&
   [ "$lid1" != "$lid2" ] && [ "$(echo "$disc" | grep -c '^Ca')" = 3 ]; then
	pass ibnetdiscover_finds_all_nodes
else
	fail ibnetdiscover_finds_all_nodes "lid1='$lid1' lid2='$lid2'"
fi
# hca2 is discovered through port 2 only; port 1 has no link.
if echo "$disc" | grep -qE '^\[2\]\(2c90300004002\).*"S-0002c90300002000"\[3\]' &&
   ! echo "$disc" | grep -qE '^\[1\]\(2c90300004001\)'; then
	pass two_port_hca_port2_only
else
	fail two_port_hca_port2_only "$(echo "$disc" | grep -A3 'Ca.*2c90300004001')"
fi

# --- smpquery portinfo by LID: the HCA model's own SMA answers through the switch
for lid in $lid1 $lid2; do
	pi=$(diag smpquery portinfo "$lid" 0)
	if echo "$pi" | grep -qE 'LinkState:\.*Active' && echo "$pi" | grep -qE 'LinkWidthActive:\.*4X' &&
	   echo "$pi" | grep -qE "^Lid:\.*$lid\$" && echo "$pi" | grep -qE 'SMLid:\.*1$' &&
	   echo "$pi" | grep -qE 'NeighborMTU:\.*(2048|4096)'; then
		pass "smpquery_portinfo_lid$lid"
	else
		fail "smpquery_portinfo_lid$lid" "$(echo "$pi" | grep -E 'Lid|State|Width|MTU')"
	fi
done
echo "$pi" | grep -E '^(Lid|SMLid|LinkState|PhysLinkState|LinkWidthActive|LinkSpeedActive|NeighborMTU|MtuCap)'

# --- ibstat at the SM host (umad2sim's own port)
st=$(diag ibstat)
if echo "$st" | grep -q "State: Active" && echo "$st" | grep -q "Base lid: 1"; then
	pass ibstat_sm_port_active
else
	fail ibstat_sm_port_active "$st"
fi

# --- the switch routes every LID OpenSM assigned
routes=$("$fabsimctl" "$dir/ctl" lft sw1)
if echo "$routes" | grep -qx "lid $lid1 port 2" && echo "$routes" | grep -qx "lid $lid2 port 3" &&
   echo "$routes" | grep -qx "lid 1 port 1"; then
	pass switch_lft_programmed
else
	fail switch_lft_programmed "$routes"
fi

# --- SA: the IPoIB broadcast group with OpenSM's defaults, and a PathRecord between the HCAs
grp=$(diag saquery -g)
if echo "$grp" | grep -q 'MGID.*ff12:401b:ffff::ffff:ffff' && echo "$grp" | grep -q 'Mlid.*0xC000' &&
   echo "$grp" | grep -q 'Mtu.*0x84'; then
	pass saquery_broadcast_group
else
	fail saquery_broadcast_group "$grp"
fi
# Joins from the HCA ports (SA requests from the rig, LID-routed through the switch on QP1), when
# the rig joins (hca-standin --join; an hcasim rig without a driver does not).
if [ "${RIG_JOINS:-0}" = 1 ]; then
	joined() { [ "$(cat "$dir"/rig*.out | grep -c 'join: status 0x0000')" = 2 ]; }
	if wait_until 60 joined &&
	   [ "$(grep -c 'MGID ff12:401b:ffff:...:ffff:ffff Q_Key 0x00000b1b MLID 0xc000' "$dir"/rig*.out | \
		awk -F: '{s += $NF} END {print s}')" = 2 ]; then
		pass broadcast_join_qkey_0b1b
		grep -h 'join:' "$dir"/rig*.out
	else
		fail broadcast_join_qkey_0b1b "$(cat "$dir"/rig*.out)"
	fi
	# Two members: OpenSM programs the switch MFT for MLID 0xC000 with both HCA ports.
	mft_ok() { "$fabsimctl" "$dir/ctl" mft sw1 | grep -qx 'mlid 0xc000 ports 2 3'; }
	if wait_until 60 mft_ok; then
		pass switch_mft_programmed
		"$fabsimctl" "$dir/ctl" mft sw1
	else
		fail switch_mft_programmed "$("$fabsimctl" "$dir/ctl" mft sw1)"
	fi
	mcmr=$(diag saquery --smkey 1 -m)
	if echo "$mcmr" | grep -q 'ff12:401b:ffff::ffff:ffff'; then
		pass saquery_members
	else
		fail saquery_members "$mcmr"
	fi
fi
path=$(diag saquery --src-to-dst "$lid1:$lid2")
if echo "$path" | grep -qE "dlid\.*$lid2" && echo "$path" | grep -qE "slid\.*$lid1"; then
	pass saquery_pathrecord
else
	fail saquery_pathrecord "$path"
fi

# --- the capture decodes in tshark (LRH, BTH, DETH, MADs)
if command -v tshark >/dev/null 2>&1; then
	pcap="$dir/capture.pcap"
	# tshark 4.0 has no mapping for LINKTYPE_INFINIBAND (247): map DLT_USER0 to the dissector.
	{ head -c 20 "$pcap"; printf '\223'; tail -c +22 "$pcap"; } >"$dir/capture147.pcap"
	ts() { tshark -o 'uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""' \
		-r "$dir/capture147.pcap" "$@" 2>/dev/null; }
	if [ "$(head -c 21 "$pcap" | tail -c 1 | od -An -tu1 | tr -d ' ')" = 247 ] &&
	   ts -Y 'infiniband.mad.attributeid == 0x0011 && infiniband.mad.method == 0x81' \
		-T fields -e infiniband.nodeinfo.nodeguid | grep -q "0x0002c90300004000" &&
	   { [ "${RIG_JOINS:-0}" != 1 ] ||
	     ts -Y 'infiniband.deth.srcqp == 1 && infiniband.mad.mgmtclass == 0x03' | grep -q .; } &&
	   ts -Y 'infiniband.lrh.vl == 15 && infiniband.bth.destqp == 0' | grep -q .; then
		pass tshark_decodes_capture
		ts | head -5
	else
		fail tshark_decodes_capture "$(ts | head -5)"
	fi
else
	echo "SKIP: $suite/tshark_decodes_capture: tshark not installed"
fi

# --- fault at run time: pull hca1's cable; the switch port goes down, the HCA hears LINK down
"$fabsimctl" "$dir/ctl" link hca1 down >/dev/null
if "$fabsimctl" "$dir/ctl" ports | grep -q '^sw1:2 Down/Polling' &&
   [ "$(diag smpquery portinfo "$lid1" 0 | grep -c 'LinkState')" = 0 ]; then
	pass link_down_cuts_hca1
else
	fail link_down_cuts_hca1 "$("$fabsimctl" "$dir/ctl" ports)"
fi
"$fabsimctl" "$dir/ctl" counters hca1
# Plugged back: the switch sends trap 128, OpenSM sweeps and brings hca1 back to Active.
"$fabsimctl" "$dir/ctl" link hca1 up >/dev/null
hca1_active() { diag smpquery portinfo "$lid1" 0 | grep -qE 'LinkState:\.*Active'; }
if wait_until 60 hca1_active && grep -q "Notice type:1 num:128 (Link state change) Producer:2 (Switch)" \
	"$dir/osm/opensm.log"; then
	pass replugged_hca1_active_again
	grep -m1 "num:128" "$dir/osm/opensm.log"
else
	fail replugged_hca1_active_again "$(diag smpquery portinfo "$lid1" 0 | grep State)"
fi

# --- the SM dies without a word (SIGKILL) and a new one takes over the same fabric
kill -9 "$osm_pid"
wait "$osm_pid" 2>/dev/null
mv "$dir/osm/opensm.log" "$dir/osm/opensm-1.log"
start_opensm
if wait_until 90 grep -q "SUBNET UP" "$dir/osm/opensm.log" &&
   [ "$(diag smpquery portinfo "$lid2" 0 | grep -cE 'LinkState:\.*Active')" = 1 ]; then
	pass opensm_restart_subnet_up
	grep -h "slot freed" "$dir/fabsim.err"
else
	fail opensm_restart_subnet_up "$(tail -5 "$dir/osm/opensm.log"; tail -5 "$dir/fabsim.err")"
fi

# --- fabsim stops cleanly on SIGTERM (after its clients); no sanitizer report from it or the rigs
for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
	[ "${pids[i]}" = "$fabsim_pid" ] || stop_pid "${pids[i]}"
done
kill "$fabsim_pid"
wait "$fabsim_pid"
rc=$?
if [ "$rc" = 0 ] && ! grep -qE "AddressSanitizer|LeakSanitizer|runtime error" \
	"$dir/fabsim.err" "$dir"/rig*.err; then
	pass fabsim_clean_exit
else
	fail fabsim_clean_exit "exit status $rc; $(grep -A5 -E 'Sanitizer|runtime error' \
		"$dir/fabsim.err" "$dir"/rig*.err | head -20)"
fi

[ "$failures" = 0 ]
