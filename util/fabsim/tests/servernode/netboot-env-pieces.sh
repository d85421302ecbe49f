#!/usr/bin/env bash
# util/netboot-env on its own, without the fabric: `up --pieces ns,servers` in the background,
# the servers bound only to the TUN device / address inside the namespace, `status`, then `down`
# leaves no process and no namespace behind.
set -u
cd "$(dirname "$0")/../../../.." || exit 1
T=netboot-env-pieces
SUITE=$T
. src/tests/framework/lib.sh
WORK=$(mktemp -d /tmp/netboot-env-pieces.XXXXXX) || exit 1
cleanup() { util/netboot-env down "$WORK/env" >/dev/null 2>&1; rm -rf "$WORK"; }
trap cleanup EXIT

util/netboot-env up "$WORK/env" --pieces ns,servers 2>"$WORK/err"
rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: $T: $(grep -h '^SKIP' "$WORK/err" | head -1)"
	exit 77
fi
[ "$rc" -eq 0 ] && pass up || { cat "$WORK/err"; fail up "exit status $rc"; exit 1; }
# shellcheck disable=SC1091
. "$WORK/env/env.sh"
# "name pid start-time" per line: the start time tells a server from a later process that was
# given the same PID (pid_max may be 32768, and a busy machine wraps it within minutes).
procs=$(awk '{ print $2 ":" $3 }' "$WORK/env/pids")
$NETBOOT_EXEC ss -lnup >"$WORK/udp"
$NETBOOT_EXEC ss -lntp >"$WORK/tcp"
grep -q '0.0.0.0%ibsim0:67 ' "$WORK/udp" && grep -q '198.18.0.1:69 ' "$WORK/udp" && pass dnsmasq-bound-to-tun \
	|| fail dnsmasq-bound-to-tun "$(cat "$WORK/udp")"
grep -q '198.18.0.1:80 ' "$WORK/tcp" && ! grep -q '0.0.0.0:80 ' "$WORK/tcp" && pass nginx-bound-to-tun-address \
	|| fail nginx-bound-to-tun-address "$(cat "$WORK/tcp")"
[ "$($NETBOOT_EXEC cat /sys/class/net/ibsim0/mtu)" = 2044 ] && pass tun-mtu-2044 || fail tun-mtu-2044 "wrong MTU"
[ "$(util/netboot-env status "$WORK/env" | grep -c ' running$')" -eq 2 ] && pass status \
	|| fail status "$(util/netboot-env status "$WORK/env")"
util/netboot-env down "$WORK/env"
left=
for ps in $procs; do
	p=${ps%%:*}
	# State and start time (fields 3 and 22 of /proc/PID/stat, counted after the command name).
	read -r st start < <(awk '{ sub(/^.*\) /, ""); print $1, $20 }' "/proc/$p/stat" 2>/dev/null)
	[ -n "${st:-}" ] && [ "$st" != Z ] && [ "$start" = "${ps#*:}" ] && left="$left $p"
done
if [ -z "$left" ] && ! ip netns list | grep -q "^$NETBOOT_NS"; then
	pass down-leaves-nothing
else
	fail down-leaves-nothing "still there: pids$left / namespace $NETBOOT_NS"
fi
finish
