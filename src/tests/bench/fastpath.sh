#!/bin/bash
# make bench-fastpath: instructions per received TCP segment and per ACK sent on the production
# receive path (Hermon driver -> IB core -> IPoIB -> IPv4 -> TCP), counted by callgrind in the
# hosted -O2 build (build/opt) over the in-process model. See bench_fastpath.c for what runs.
#   fastpath.sh BENCH-BINARY [SEGMENTS]
# Two link MTUs: IPoIB MTU 2044 (a 2048-byte broadcast group, OpenSM's default and what the QEMU
# netboot rig runs) and 4092 (a 4096-byte group). Figures only; files in build/bench/:
# fastpath.txt (this output), cg.fastpath-<group MTU> (callgrind), fastpath-functions-<group MTU>.txt
# (every function's exclusive and inclusive Ir per segment).
set -uo pipefail
BIN=$1
N=${2:-2000}
D=build/bench
mkdir -p "$D"
command -v valgrind > /dev/null || { echo "bench-fastpath: valgrind is not installed (util/deps.d/ibcore.list)"; exit 1; }
: > $D/fastpath.txt
for MTU in 2048 4096; do
C=$D/cg.fastpath-$MTU
valgrind --tool=callgrind --callgrind-out-file=$C --toggle-collect=bench_rx \
	"$BIN" "$N" "$MTU" > $C.out 2>&1 || { cat $C.out; exit 1; }
callgrind_annotate --auto=no --threshold=100 $C > $C.excl
callgrind_annotate --auto=no --threshold=100 --inclusive=yes --tree=calling $C > $C.tree
python3 - "$C" <<'PY' | tee -a $D/fastpath.txt
import re, sys
c = sys.argv[1]
out = open(f"{c}.out").read()
m = re.search(r"segments (\d+) payload (\d+) acks (\d+) bytes (\d+) mss (\d+) mtu (\d+)", out)
n, payload, acks, _, mss, mtu = map(int, m.groups())
line = re.compile(r"^\s*([\d,]+)\s+\([\d. %]+\)\s+([*>]?)\s*(.*)$")
def fname(s):
    s = re.sub(r"\s+\(\d[\d,]*x\)", "", s)
    s = re.sub(r"\s+\[.*\]$", "", s).strip()
    return s.rsplit(":", 1)[-1]
def num(s): return int(s.replace(",", ""))
total = 0
excl = {}
for l in open(f"{c}.excl"):
    if "PROGRAM TOTALS" in l:
        total = num(l.split()[0]); continue
    mm = line.match(l)
    if mm and ":" in mm.group(3):
        f = fname(mm.group(3)); excl[f] = excl.get(f, 0) + num(mm.group(1))
incl, calls, cur = {}, {}, None
for l in open(f"{c}.tree"):
    mm = line.match(l)
    if not mm:
        cur = None if not l.strip() else cur; continue
    f = fname(mm.group(3))
    if mm.group(2) == "*":
        cur = f; incl[f] = max(incl.get(f, 0), num(mm.group(1)))
    elif mm.group(2) == ">" and cur:
        calls.setdefault(cur, set()).add(f)
def reach(start, stop=()):
    seen, todo = set(), [start]
    while todo:
        f = todo.pop()
        if f in seen or f in stop: continue
        seen.add(f); todo += calls.get(f, ())
    return seen
model = reach("writel_be")               # the model, run synchronously behind the doorbell
fw = reach("bench_rx", stop={"writel_be"}) - {"bench_rx"}
dev = incl.get("writel_be", 0)
fw_total = total - dev
ack_fn = "xmit" if "xmit" in incl else "ipv4_tx"
ack_build = incl.get(ack_fn, 0) - dev
ack_reap = incl.get("ib_complete_send", 0)
per_ack = (ack_build + ack_reap) / acks if acks else 0
per_seg = fw_total / n
print(f"bench-fastpath: {n} in-order TCP segments of {payload} payload bytes (MSS {mss}, IPoIB MTU {mtu}, "
      f"timestamps on) into ib0 through the model, {acks} ACKs sent; hosted -O2 build (gcc), "
      f"callgrind Ir inside bench_rx = ib_poll_cq on ib0's CQ")
print(f"INFO: fastpath per received segment: {per_seg:.0f} instructions (driver + IB core + IPoIB + IPv4 + TCP, "
      f"its share of the ACKs included; {per_seg - per_ack * acks / n:.0f} without them)")
print(f"INFO: fastpath per ACK sent: {per_ack:.0f} instructions ({ack_build / max(acks,1):.0f} to build and post it: "
      f"{ack_fn} -> ipv4_tx -> ipoib_transmit -> ib_post_send -> hermon_post_send; "
      f"{ack_reap / max(acks,1):.0f} to reap its send completion: ib_complete_send)")
cs = incl.get("csum_partial", 0)
print(f"INFO: of the segment's instructions, the Internet checksum (csum_partial, all callers): {cs / n:.0f} "
      f"({cs / n / payload:.2f} per payload byte)")
print(f"  excluded: the payload copy (the connection's rx callback is the bench's count_rx, which only adds "
      f"the length; in production the HTTP/TFTP sink copies the payload into the image buffer there); the model behind the "
      f"send doorbell ({dev / max(acks,1):.0f} per ACK in the rig's writel_be, one MMIO store on silicon); "
      f"the per-poll work that is not per segment (EQ poll, port ticks, net device poll, tcp_step)")
rows = sorted(((v, f) for f, v in excl.items() if f in fw or f not in model), reverse=True)
print("  top functions, exclusive Ir per segment (firmware only; * also called by the model):")
for v, f in rows[:15]:
    if v / n < 1: break
    print(f"    {v / n:8.1f}  {f}{' *' if f in model else ''}")
with open(c.replace("cg.fastpath", "fastpath-functions") + ".txt", "w") as o:
    o.write("# exclusive and inclusive Ir per segment; M = the model's (behind writel_be); the inclusive\n"
            f"# figure of a function that rings the send doorbell includes the model's {dev / n:.0f} per segment\n")
    for v, f in sorted(((v, f) for f, v in excl.items()), reverse=True):
        o.write(f"{v / n:10.1f} {incl.get(f, 0) / n:10.1f}  {f}{'  M' if f in model and f not in fw else ''}\n")
print(f"  (all functions: {c.replace('cg.fastpath', 'fastpath-functions')}.txt; callgrind: {c})")
PY
done
