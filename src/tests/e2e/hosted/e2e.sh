#!/usr/bin/env bash
# Hosted end to end: bin/ibboot-hosted (ASan/UBSan) with the HCA model in-process, cabled
# to fabsim + the stock OpenSM + the server node (util/netboot-env). The HCA sits in netboot-env's
# slot 2: two ports, only port 2 cabled. Scenarios, in one run:
#   SM started late  OpenSM is stopped before ibboot starts; the console must say "no subnet
#                    manager" (within 30 s of link up) and the port must go ACTIVE once it runs;
#                    the uncabled port 1 must stay DOWN and cost nothing but a diagnostic.
#   reachability     broadcast join (Q_Key 0x0B1B, the MLID the SA holds for the group), ARP,
#                    ICMP echo to 198.18.0.1 answered by the Linux kernel behind the TUN (its
#                    own counters say so).
#   SM restarted     OpenSM restarted in the middle of a 20-echo ping: ClientReregister, rejoin,
#                    and echo replies keep coming after it.
# Result lines PASS:/FAIL: hosted-e2e/...; logs in build/hosted/e2e/ (serial.log has each console
# line prefixed with the seconds since ibboot started).
#
# With --bench N: no faults (SM up from the start), N runs in one environment, prints the median
# time from start to port ACTIVE and to the first ICMP reply (INFO: lines; never asserted).
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)
cd "$TOP"
BENCH=0
[ "${1:-}" = --bench ] && BENCH=${2:-3}
T=$TOP/build/hosted/e2e
[ "$BENCH" -gt 0 ] && T=$TOP/build/hosted/bench
rm -rf "$T"
mkdir -p "$T"
SUITE=hosted-e2e
source src/tests/framework/lib.sh
for f in bin/ibboot-hosted bin/fabsim bin/fabsim-servernode util/netboot-env; do
	[ -e "$f" ] || { echo "FAIL: hosted-e2e: $f missing (run: make all)"; exit 1; }
done
IP=198.18.0.60
SERVER=198.18.0.1
BCAST_MGID=ff12:401b:ffff::ffff:ffff

# Runs inside util/netboot-env with env.sh in its environment. Argument: what to do.
cat > "$T/guest.sh" <<'INNER'
#!/usr/bin/env bash
set -uo pipefail
T=$1 MODE=$2 CMDS=$3 TOP=$4   # (bench: $5 = runs)
icmp_out() {
	$NETBOOT_EXEC awk '/^Icmp:/ { if (n++) print $c; else for (i = 1; i <= NF; i++) if ($i == "OutEchoReps") c = i }' /proc/net/snmp
}
# Each console line gets the seconds since ibboot started (timings for the log and the bench).
start_ibboot() { # $1 = log name
	local t0=${EPOCHREALTIME/./}
	{
		timeout --kill-after=5 150 "$TOP/bin/ibboot-hosted" --hca \
			--hca-guid="$NETBOOT_HCA2_NODE_GUID" --hca-ports=2 --fabric="$FABSIM_HCA_SOCKET" \
			"ibboot.cmd=$CMDS" 2> "$T/$1.stderr"
		echo $? > "$T/$1.status"
	} | while IFS= read -r line; do
		us=$(( ${EPOCHREALTIME/./} - t0 ))
		printf '%d.%06d %s\n' $((us / 1000000)) $((us % 1000000)) "$line"
	done > "$T/$1.log" &
	ibboot_pid=$!
}
wait_serial() { # $1 = log, $2 = regex, $3 = tenths of a second at most
	for _ in $(seq 1 "$3"); do
		grep -Eq "$2" "$T/$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
if [ "$MODE" = bench ]; then
	for i in $(seq 1 "$5"); do
		start_ibboot "bench$i"
		wait "$ibboot_pid"
	done
	exit 0
fi
icmp_out > "$T/icmp-before"
# SM started late: stopped before ibboot opens its ports.
"$TOP/util/netboot-env" sm-stop "$NETBOOT_DIR" > "$T/sm-stop.log" 2>&1
start_ibboot serial
# (the firmware reports after 30 s of link without an SM; give it 45)
if wait_serial serial.log 'no subnet manager after' 450; then
	"$TOP/util/netboot-env" sm-start "$NETBOOT_DIR" > "$T/sm-start.log" 2>&1
else
	echo "no 'no subnet manager' message within 45 s: starting the SM anyway" > "$T/sm-start.log"
	"$TOP/util/netboot-env" sm-start "$NETBOOT_DIR" >> "$T/sm-start.log" 2>&1
fi
# The MLID the SA holds for the IPv4 broadcast group.
wait_serial serial.log 'broadcast MLID' 300
$NETBOOT_EXEC env LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" \
	timeout 20 saquery -g > "$T/saquery-groups.txt" 2>&1
# SM restarted in the middle of the 20-echo ping (after a few replies of it).
if wait_serial serial.log 'SM-RESTART-NOW' 600; then
	for _ in $(seq 1 100); do   # the second ping's third reply
		[ "$(grep -c 'icmp_seq=3 ' "$T/serial.log")" -ge 2 ] && break
		sleep 0.1
	done
	"$TOP/util/netboot-env" sm-restart "$NETBOOT_DIR" > "$T/sm-restart.log" 2>&1
	echo "sm-restart status $?" >> "$T/sm-restart.log"
fi
wait "$ibboot_pid"
icmp_out > "$T/icmp-after"
INNER
chmod +x "$T/guest.sh"

if [ "$BENCH" -gt 0 ]; then
	CMDS="ipconfig+$IP/24,ping+$SERVER+1,poweroff"
	util/netboot-env run "$T/env" --hcas 2 -- \
		"$T/guest.sh" "$T" bench "$CMDS" "$TOP" "$BENCH" > "$T/netboot-env.log" 2>&1
	rc=$?
	[ "$rc" -eq 77 ] && { echo "SKIP: bench-hosted: no test network on this machine"; exit 0; }
	median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
	actives=$(for f in "$T"/bench*.log; do
		sed -nE 's/.* port 2: ACTIVE, .*\(([0-9]+) ms after start\).*/\1/p' "$f" | head -1; done)
	replies=$(for f in "$T"/bench*.log; do
		awk '/icmp_seq=/ { printf "%d\n", $1 * 1000; exit }' "$f"; done)
	active=$(median <<<"$actives") reply=$(median <<<"$replies")
	echo "INFO: hosted (ibboot-hosted + model + fabsim + OpenSM, ASan/UBSan), median of $BENCH runs:" \
		"start to port ACTIVE $active ms (image clock; runs: $(echo $actives)), to first ICMP echo" \
		"reply $reply ms (wall clock from launch; runs: $(echo $replies))"
	exit 0
fi

CMDS="ipconfig+$IP/24,ping+$SERVER+3,ibstat,echo+SM-RESTART-NOW,ping+$SERVER+20,ibstat,ifstat,fwdump,poweroff"
util/netboot-env run "$T/env" --hcas 2 --capture "$T/fabric.pcap" -- \
	"$T/guest.sh" "$T" e2e "$CMDS" "$TOP" > "$T/netboot-env.log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: hosted-e2e: this machine cannot create the test network namespace/TUN ($(tail -1 "$T/netboot-env.log"))"
	exit 77
fi
[ -s "$T/serial.log" ] || { fail run "no console log (netboot-env status $rc; see $T)"; exit 1; }
# Console lines without the time stamps.
S=$(cut -d' ' -f2- "$T/serial.log" | tr -d '\r')
line_of() { grep -nE "$1" <<<"$S" | head -1 | cut -d: -f1; }
last_line_of() { grep -nE "$1" <<<"$S" | tail -1 | cut -d: -f1; }

status=$(cat "$T/serial.status" 2>/dev/null)
[ "$status" = 0 ] && pass exit || fail exit "ibboot-hosted exit status ${status:-none} (expected 0 from poweroff)"
if grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$T/serial.stderr"; then
	fail sanitizers "$(grep -Em1 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$T/serial.stderr")"
else
	pass sanitizers
fi
grep -q 'ConnectX-3 registered' <<<"$S" && pass probe || fail probe "no 'ConnectX-3 registered'"

# Both ports probed; the uncabled one stays DOWN, says why, and is not used.
if grep -q 'port 1: DOWN (Polling)' <<<"$S" && grep -q 'port 2: ACTIVE (LinkUp) (in use)' <<<"$S"; then
	pass both-ports-cabled-one-active
else
	fail both-ports-cabled-one-active "ibstat: $(grep -E 'port [12]: [A-Z]+ ' <<<"$S" | head -2 | tr '\n' ';')"
fi
grep -q 'port 1: no link after [0-9]* s (physical state Polling)' <<<"$S" && pass uncabled-port-diagnosed ||
	fail uncabled-port-diagnosed "no 'no link' line for the uncabled port 1"
grep -q 'port 2: using this port' <<<"$S" && ! grep -q 'port 1: using this port' <<<"$S" &&
	pass cabled-port-chosen || fail cabled-port-chosen "port 2 not chosen (or port 1 was)"

# SM started late.
nosm=$(sed -nE 's/.*port 2: link up but no subnet manager after ([0-9]+) s .*/\1/p' <<<"$S" | head -1)
if [ -n "$nosm" ] && [ "$nosm" -le 30 ]; then
	pass sm-late-reported
else
	fail sm-late-reported "no 'no subnet manager' report within 30 s of link up (${nosm:-none})"
fi
l_nosm=$(line_of 'port 2: link up but no subnet manager')
l_active=$(line_of 'port 2: ACTIVE, LID 0x[0-9a-f]+, SM LID 0x[0-9a-f]+')
if [ -n "$l_nosm" ] && [ -n "$l_active" ] && [ "$l_active" -gt "$l_nosm" ]; then
	pass sm-late-active
else
	fail sm-late-active "port 2 not ACTIVE after the SM came (report line ${l_nosm:-none}, ACTIVE line ${l_active:-none})"
fi

# Broadcast join: Q_Key 0x0B1B and the MLID the SA has for the IPv4 broadcast group.
mlid=$(sed -nE 's/^ib0: link up on .* port 2, .*broadcast MLID (0x[0-9a-f]+), Q_Key 0x00000b1b .*/\1/p' <<<"$S" | head -1)
sa_mlid=$(awk -v g="$BCAST_MGID" '$1 ~ /^MGID/ { split($1, a, "\\.+"); hit = (a[2] == g) }
	hit && $1 ~ /^Mlid/ { split($1, a, "\\.+"); print a[2]; exit }' "$T/saquery-groups.txt")
if [ -n "$mlid" ] && [ -n "$sa_mlid" ] && [ $((mlid)) -eq $((sa_mlid)) ] && [ $((mlid)) -ge $((0xc000)) ]; then
	pass broadcast-join
else
	fail broadcast-join "console MLID ${mlid:-none} (Q_Key 0x0b1b), SA's MLID for $BCAST_MGID ${sa_mlid:-none}"
fi

# ARP + ICMP: the first ping's replies need the server's link address (ARP) and a path record.
got1=$(sed -nE "s/^ping $SERVER: 3 sent, ([0-9]+) received/\1/p" <<<"$S" | head -1)
grep -q 'no ARP reply' <<<"$S" && fail arp "$(grep -m1 'no ARP reply' <<<"$S")" ||
	{ [ "${got1:-0}" -ge 1 ] && pass arp || fail arp "no reply, so no ARP resolution"; }
[ "${got1:-0}" -ge 1 ] && pass icmp-echo || fail icmp-echo "first ping: ${got1:-no} replies of 3"
got2=$(sed -nE "s/^ping $SERVER: 20 sent, ([0-9]+) received/\1/p" <<<"$S" | head -1)
before=$(cat "$T/icmp-before" 2>/dev/null) after=$(cat "$T/icmp-after" 2>/dev/null)
answered=$(( ${after:-0} - ${before:-0} ))
if [ -n "$before" ] && [ -n "$after" ] && [ "$answered" -ge $(( ${got1:-0} + ${got2:-0} )) ] && [ "$answered" -ge 1 ]; then
	pass server-kernel-answered
else
	fail server-kernel-answered "the server kernel sent $answered echo replies (OutEchoReps ${before:-?} -> ${after:-?}), ibboot got $((${got1:-0} + ${got2:-0}))"
fi

# The same seen on the wire (fabsim's capture, decoded by tshark): the SA's answers to the joins
# of our port 2 (before and after the SM restart), the ARP exchange, echo requests and replies.
# tshark 4.0 has no mapping for LINKTYPE_INFINIBAND (247): rewrite it to DLT_USER0 (147).
gid_x() { python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(sys.argv[1]).exploded)' "$1"; }
port2_gid=$(grep -A2 'port 2: ACTIVE (LinkUp)' <<<"$S" | sed -nE 's/^  GID ([0-9a-f:]+)$/\1/p' | head -1)
if ! command -v tshark > /dev/null; then
	fail wire "tshark is not installed (util/deps.d/hosted.list)"
elif [ ! -s "$T/fabric.pcap" ] || [ -z "$port2_gid" ]; then
	fail wire "no capture ($T/fabric.pcap) or no port 2 GID in ibstat"
else
	{ head -c 20 "$T/fabric.pcap"; printf '\223'; tail -c +22 "$T/fabric.pcap"; } > "$T/fabric147.pcap"
	ts() { tshark -o 'uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""' \
		-r "$T/fabric147.pcap" "$@" 2> /dev/null; }
	# SubnAdmGetResp (0x81) of MCMemberRecord (0x38): MGID, PortGID, MLID, Q_Key, JoinState.
	ts -Y 'infiniband.mad.attributeid == 0x0038 && infiniband.mad.method == 0x81' -T fields \
		-e infiniband.mcmemberrecord.mgid -e infiniband.mcmemberrecord.portgid \
		-e infiniband.mcmemberrecord.mlid -e infiniband.mcmemberrecord.q_key \
		-e infiniband.mcmemberrecord.joinstate > "$T/wire-joins.txt"
	mine=$(gid_x "$port2_gid")
	joins=$(while read -r mgid pgid wmlid qkey js; do
		[ "$(gid_x "$mgid")" = "$(gid_x "$BCAST_MGID")" ] && [ "$(gid_x "$pgid")" = "$mine" ] &&
		[ $((wmlid)) -eq $((${mlid:-0})) ] && [ $((qkey)) -eq $((0xb1b)) ] && [ $((js & 1)) -eq 1 ] &&
		echo ok
	done < "$T/wire-joins.txt" | wc -l)
	# (each packet is captured on both sides of the switch)
	[ "$joins" -ge 4 ] && pass wire-join-and-rejoin ||
		fail wire-join-and-rejoin "$joins SA answers to a full-member join of $port2_gid to $BCAST_MGID with MLID ${mlid:-?} and Q_Key 0xb1b (want one before and one after the SM restart)"
	ts -Y arp -T fields -e arp.hw.type -e arp.opcode -e arp.src.proto_ipv4 -e arp.dst.proto_ipv4 \
		> "$T/wire-arp.txt"
	if grep -qP "^32\t1\t$IP\t$SERVER\$" "$T/wire-arp.txt" && grep -qP "^32\t2\t$SERVER\t$IP\$" "$T/wire-arp.txt"; then
		pass wire-arp
	else
		fail wire-arp "no ARP request (htype 32) from $IP for $SERVER and reply on the fabric: $(sort -u "$T/wire-arp.txt" | tr '\t\n' ' ;')"
	fi
	ts -Y icmp -T fields -e icmp.type -e ip.src -e ip.dst > "$T/wire-icmp.txt"
	req=$(grep -cP "^8\t$IP\t$SERVER\$" "$T/wire-icmp.txt") rep=$(grep -cP "^0\t$SERVER\t$IP\$" "$T/wire-icmp.txt")
	[ "$req" -ge 2 ] && [ "$rep" -ge 2 ] && pass wire-icmp ||
		fail wire-icmp "$req echo requests from $IP and $rep replies from $SERVER captured"
fi

# SM restarted mid-ping: re-registration, rejoin, replies after it.
l_mark=$(line_of '^SM-RESTART-NOW')
l_rereg=$(last_line_of 'port 2: SM (asked to re-register|changed)')
l_rejoin=$(last_line_of '^ib0: link up on .* port 2, .*Q_Key 0x00000b1b')
if ! grep -q 'sm-restart status 0' "$T/sm-restart.log" 2>/dev/null; then
	fail sm-restart-rejoin "the SM was not restarted (see $T/sm-restart.log)"
elif [ -n "$l_mark" ] && [ -n "$l_rereg" ] && [ -n "$l_rejoin" ] && [ "$l_rereg" -gt "$l_mark" ] &&
     [ "$l_rejoin" -gt "$l_rereg" ]; then
	pass sm-restart-rejoin
else
	fail sm-restart-rejoin "no re-registration + rejoin after the restart (lines: mark ${l_mark:-none}, rereg ${l_rereg:-none}, join ${l_rejoin:-none})"
fi
after_rejoin=$(tail -n +"${l_rejoin:-999999}" <<<"$S" | grep -c "^ping $SERVER: 64 bytes, icmp_seq=")
[ -n "$l_rejoin" ] && [ "$after_rejoin" -ge 3 ] && pass icmp-after-sm-restart ||
	fail icmp-after-sm-restart "$after_rejoin echo replies after the rejoin (want >= 3; ping: ${got2:-?} of 20)"

# fwdump: the one memory key is local-only, and no queue saw an error completion.
if grep -q ' mpt=[0-9]* access=lr,lw' <<<"$S" && grep -q '^SEG cq .* errors=0 ' <<<"$S" &&
   ! grep -Eq '^SEG cq .* errors=[1-9]' <<<"$S"; then
	pass fwdump
else
	fail fwdump "$(grep -E '^SEG (memory|cq) ' <<<"$S" | tr '\n' ';')"
fi
if grep -Eq 'completion error|treated as an error|failed: status' <<<"$S"; then
	fail no-errors "$(grep -Em1 'completion error|treated as an error|failed: status' <<<"$S")"
else
	pass no-errors
fi
# Figures for the log (not asserted).
echo "INFO: hosted-e2e: port 2 ACTIVE $(sed -nE 's/.*port 2: ACTIVE, .*\(([0-9]+) ms after start\).*/\1/p' <<<"$S" | head -1) ms after start (SM started late);" \
	"ping 1: ${got1:-?}/3, ping across the SM restart: ${got2:-?}/20; server kernel answered $answered"
finish
