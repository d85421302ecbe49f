#!/usr/bin/env bash
# Forged SA answers from a rogue fabric port are ignored, on the real stack: bin/ibboot-hosted
# (ASan/UBSan, the HCA model in-process, port 2 of HCA slot 2) cabled to fabsim under the stock
# OpenSM (util/netboot-env), with bin/fabsim-rogue attached at HCA slot 1 (switch port sw1:3) and
# fabsim's FABSIM_TEST_MIRROR_SA knob mirroring every SA request to that port, so the rogue sees
# ibboot's TIDs. For each MCMemberRecord join and PathRecord query of ibboot the rogue answers
# first (the SM's cable is slowed by 30 ms) with the right TID - once with the SM's LID spoofed from QP 0x49, once from its own LID
# on QP 1 - plus TIDs around it, and floods random-TID answers every 5 ms. Its PathRecords point
# at the rogue's LID; its MCMemberRecords say MLID 0xc0de, Q_Key 0x0badf00d.
#
# Asserted: the rogue was ACTIVE and saw ibboot's requests (the attack ran); ibboot's broadcast
# group has OpenSM's MLID and Q_Key (those the server node got from OpenSM), never the rogue's;
# ping to the server works (the PathRecord came from OpenSM: a forged one sends it to the rogue)
# and nothing reached the rogue's LID; ibboot's console names both drops (wrong LID, wrong QP)
# and `ibstat` counts the forged and unmatched answers.
# Result lines PASS:/FAIL: rogue-sa/...; logs in build/rogue-sa/.
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$TOP"
T=$TOP/build/rogue-sa
rm -rf "$T"
mkdir -p "$T"
SUITE=rogue-sa
source src/tests/framework/lib.sh
for f in bin/fabsim bin/fabsimctl bin/fabsim-servernode bin/fabsim-rogue bin/ibboot-hosted util/netboot-env; do
	[ -e "$f" ] || { echo "FAIL: $SUITE: $f missing (run: make all)"; exit 1; }
done
IP=198.18.0.62
SERVER=198.18.0.1
ROGUE_SWITCH_PORT=sw1:3   # netboot-env cables HCA slot i to sw1:(i+2)

# Runs inside util/netboot-env with env.sh in its environment: the rogue, then ibboot.
cat > "$T/guest.sh" <<'INNER'
#!/usr/bin/env bash
set -uo pipefail
T=$1 CMDS=$2 TOP=$3
"$TOP/bin/fabsim-rogue" --socket "$FABSIM_HCA_SOCKET" --guid "$NETBOOT_HCA1_PORT1_GUID" \
	--node-guid "$NETBOOT_HCA1_NODE_GUID" --victim-guid "$NETBOOT_HCA2_PORT2_GUID" \
	> "$T/rogue.log" 2>&1 &
rogue_pid=$!
# OpenSM brings the rogue's port up (trap 128 from the switch starts a sweep).
for _ in $(seq 1 600); do
	grep -q '^rogue: ACTIVE as LID' "$T/rogue.log" 2>/dev/null && break
	kill -0 "$rogue_pid" 2>/dev/null || break
	sleep 0.1
done
# The SM's cable gets 30 ms of delay (each way) from here on: the rogue, one switch hop from
# ibboot like the SM but not slowed, then answers every request before OpenSM does, whatever the
# scheduling of three processes on a busy machine (a rogue near the victim, an SM far or busy).
"$TOP/bin/fabsimctl" "$FABSIM_CONTROL_SOCKET" fault sw1:1 delay=30 > "$T/fault.log" 2>&1
timeout --kill-after=5 120 "$TOP/bin/ibboot-hosted" --hca --hca-guid="$NETBOOT_HCA2_NODE_GUID" \
	--hca-ports=2 --fabric="$FABSIM_HCA_SOCKET" "ibboot.cmd=$CMDS" \
	> "$T/serial.log" 2> "$T/serial.stderr"
echo $? > "$T/serial.status"
kill -TERM "$rogue_pid" 2>/dev/null
wait "$rogue_pid"
echo $? > "$T/rogue.status"
cp "$NETBOOT_LOG_DIR/servernode.log" "$NETBOOT_LOG_DIR/fabsim.log" "$T/" 2>/dev/null
INNER
chmod +x "$T/guest.sh"

# ping waits for port 2 ACTIVE and ib0 joined; the first echo needs ARP and a PathRecord.
CMDS="ipconfig+$IP/24,ping+$SERVER+3,ping+$SERVER+2,ibstat,poweroff"
FABSIM_TEST_MIRROR_SA=$ROGUE_SWITCH_PORT util/netboot-env run "$T/env" --hcas 2 -- \
	"$T/guest.sh" "$T" "$CMDS" "$TOP" > "$T/netboot-env.log" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: $SUITE: this machine cannot create the test network namespace/TUN ($(tail -1 "$T/netboot-env.log"))"
	exit 77
fi
[ -s "$T/serial.log" ] || { fail run "no console log (netboot-env status $rc; see $T)"; exit 1; }
S=$(tr -d '\r' < "$T/serial.log")
R=$(cat "$T/rogue.log" 2>/dev/null)

status=$(cat "$T/serial.status" 2>/dev/null)
expect_status exit "${status:-1}" 0 "(poweroff; see $T)" && pass exit
expect_clean sanitizers "$T/serial.stderr" && pass sanitizers
grep -q 'test knob: SA requests mirrored out of sw1:3' "$T/fabsim.log" 2>/dev/null ||
	fail mirror-on "fabsim did not report the FABSIM_TEST_MIRROR_SA knob (see $T/fabsim.log)"

# The attack ran: the rogue was up and saw (and answered) ibboot's join and path query.
rogue_lid=$(sed -nE 's/^rogue: ACTIVE as LID (0x[0-9a-f]+), SM LID (0x[0-9a-f]+)$/\1/p' <<<"$R" | head -1)
sm_lid=$(sed -nE 's/^rogue: ACTIVE as LID (0x[0-9a-f]+), SM LID (0x[0-9a-f]+)$/\2/p' <<<"$R" | head -1)
stats=$(grep '^rogue: stats ' <<<"$R" | tail -1)
n_path=$(sed -nE 's/.*\(path ([0-9]+), mcmember ([0-9]+)\).*/\1/p' <<<"$stats")
n_mc=$(sed -nE 's/.*\(path ([0-9]+), mcmember ([0-9]+)\).*/\2/p' <<<"$stats")
if [ -n "$rogue_lid" ] && [ "${n_path:-0}" -ge 1 ] && [ "${n_mc:-0}" -ge 1 ]; then
	pass attack-ran
	echo "INFO: $SUITE: rogue LID $rogue_lid, SM LID $sm_lid; $stats"
else
	fail attack-ran "rogue LID ${rogue_lid:-none}, mirrored path ${n_path:-?} mcmember ${n_mc:-?} (see $T/rogue.log)"
fi

# Multicast: ibboot's broadcast group is OpenSM's (what the server node joined), not the rogue's.
ib_mlid=$(sed -nE 's/^ib0: link up on .* port 2, .*broadcast MLID (0x[0-9a-f]+), Q_Key (0x[0-9a-f]+).*/\1/p' <<<"$S" | head -1)
ib_qkey=$(sed -nE 's/^ib0: link up on .* port 2, .*broadcast MLID (0x[0-9a-f]+), Q_Key (0x[0-9a-f]+).*/\2/p' <<<"$S" | head -1)
sn_line=$(grep -m1 'joined broadcast group' "$T/servernode.log" 2>/dev/null)
sn_mlid=$(sed -nE 's/.* MLID (0x[0-9a-f]+) .*/\1/p' <<<"$sn_line")
sn_qkey=$(sed -nE 's/.* Q_Key (0x[0-9a-f]+) .*/\1/p' <<<"$sn_line")
if grep -qi 'MLID 0xc0de\|Q_Key 0x0badf00d' <<<"$S"; then
	fail mcmember-from-sm "the rogue's group reached ibboot: $(grep -im1 'MLID 0xc0de\|Q_Key 0x0badf00d' <<<"$S")"
elif [ -n "$ib_mlid" ] && [ -n "$sn_mlid" ] && [ $((ib_mlid)) -eq $((sn_mlid)) ] &&
     [ $((ib_qkey)) -eq $((sn_qkey)) ]; then
	pass mcmember-from-sm
	echo "INFO: $SUITE: ib0 broadcast MLID $ib_mlid Q_Key $ib_qkey (OpenSM's, as the server node's)"
else
	fail mcmember-from-sm "ibboot MLID ${ib_mlid:-none} Q_Key ${ib_qkey:-none}; server node (OpenSM) MLID ${sn_mlid:-none} Q_Key ${sn_qkey:-none}"
fi

# Unicast: the PathRecord came from OpenSM: the server answers, and nothing went to the rogue.
got1=$(sed -nE "s/^ping $SERVER: 3 sent, ([0-9]+) received.*/\1/p" <<<"$S" | head -1)
got2=$(sed -nE "s/^ping $SERVER: 2 sent, ([0-9]+) received.*/\1/p" <<<"$S" | head -1)
misdirected=$(sed -nE 's/.* misdirected ([0-9]+) .*/\1/p' <<<"$stats")
if [ "${got1:-0}" -ge 1 ] && [ "${got2:-0}" -ge 1 ] && [ "${misdirected:-1}" -eq 0 ]; then
	pass path-from-sm
else
	fail path-from-sm "ping replies ${got1:-none}/3 and ${got2:-none}/2, datagrams at the rogue's LID ${misdirected:-?}"
fi

# Dropped, and said why: the spoofed SM LID fails on the QP, the rogue's own LID on the LID.
if grep -Eq "dropped MAD reply TID 0x[0-9a-f]+ from LID $rogue_lid QP 1 \(method 0x8[0-9a-f] attr 0x00(35|38)\): wrong LID; expected LID $sm_lid QP 1" <<<"$S"; then
	pass forged-own-lid-dropped
else
	fail forged-own-lid-dropped "no console line dropping the rogue's answer from LID ${rogue_lid:-?}: $(grep -m1 'dropped MAD' <<<"$S")"
fi
if grep -Eq "dropped MAD reply TID 0x[0-9a-f]+ from LID $sm_lid QP 73 \(method 0x8[0-9a-f] attr 0x00(35|38)\): wrong QP; expected LID $sm_lid QP 1" <<<"$S"; then
	pass forged-spoofed-sm-lid-dropped
else
	fail forged-spoofed-sm-lid-dropped "no console line dropping the answer with the SM's LID from QP 73: $(grep -m1 'dropped MAD' <<<"$S")"
fi

# Counted: ibstat's GSI counters for port 2.
cnt=$(grep -E '^hermon[^ ]* port 2: MAD answers ' <<<"$S" | tail -1)
accepted=$(sed -nE 's/.* ([0-9]+) accepted, ([0-9]+) forged dropped, ([0-9]+) unmatched$/\1/p' <<<"$cnt")
forged=$(sed -nE 's/.* ([0-9]+) accepted, ([0-9]+) forged dropped, ([0-9]+) unmatched$/\2/p' <<<"$cnt")
unmatched=$(sed -nE 's/.* ([0-9]+) accepted, ([0-9]+) forged dropped, ([0-9]+) unmatched$/\3/p' <<<"$cnt")
if [ "${forged:-0}" -ge 4 ] && [ "${unmatched:-0}" -ge 1 ] && [ "${accepted:-0}" -ge 2 ]; then
	pass forged-counted
	echo "INFO: $SUITE: $cnt"
else
	fail forged-counted "ibstat: '${cnt:-no MAD line}'"
fi
finish
