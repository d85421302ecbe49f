#!/bin/bash
# src/tests/e2e/tun/nginx-e2e.sh TUN-HTTP — ibboot's TCP and HTTP code against the real nginx,
# over a TUN device (MTU 2044, as IPoIB) in a network namespace this script creates
# (198.18.0.0/24 only). As root: `ip netns add`; otherwise the script re-runs itself under
# `unshare -rn`; if neither works it prints SKIP and exits 77. nginx is stopped by its PID and
# the namespace deleted.
#   TCP_E2E_MODE=bench: only the 64 MiB download, its MB/s printed (make bench; never asserted).
set -u
client=$(realpath "$1")
mode=${TCP_E2E_MODE:-check}
suite=tcp-nginx
work=$(realpath -m build/tcp/e2e-$mode)
tun=ibbtcp0
srv=http://198.18.0.1

SUITE=$suite
source "$(dirname "$0")/../../framework/lib.sh"

if ! command -v nginx >/dev/null; then
	echo "SKIP: $suite: nginx is not installed (util/deps.d/tcp.list)"; exit 77
fi
in_private_netns TCP_E2E_IN_NS "$@"

# ---- inside the private namespace from here on ----
rm -rf "$work" && mkdir -p "$work/www/sub" "$work/tmp"
nginx_pid=
dnsmasq_pid=
cleanup() {
	[ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
	[ -n "$dnsmasq_pid" ] && kill "$dnsmasq_pid" 2>/dev/null && wait "$dnsmasq_pid" 2>/dev/null
	ip link del "$tun" 2>/dev/null
	# the downloads are large; keep only logs
	rm -f "$work"/www/*.bin "$work"/*.out
}
trap cleanup EXIT

tun_up "$tun" || { echo "SKIP: $suite: cannot create a TUN device (/dev/net/tun)"; exit 77; }

if [ "$mode" = bench ]; then
	head -c $((64 << 20)) /dev/urandom > "$work/www/big.bin"
else
	head -c $((16 << 20)) /dev/urandom > "$work/www/big.bin"
	head -c 100000 /dev/urandom > "$work/www/small.bin"
fi
chmod -R a+rX "$work/www"

# /chunked/ passes files through sub_filter with a pattern that never matches: nginx then
# cannot know the length and sends the body with Transfer-Encoding: chunked (HTTP/1.1).
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
master_process on;
user root root;
pid $work/nginx.pid;
error_log $work/error.log info;
events { worker_connections 64; }
http {
	access_log $work/access.log;
	client_body_temp_path $work/tmp/body;
	proxy_temp_path $work/tmp/proxy;
	fastcgi_temp_path $work/tmp/fastcgi;
	uwsgi_temp_path $work/tmp/uwsgi;
	scgi_temp_path $work/tmp/scgi;
	default_type application/octet-stream;
	sendfile on;
	gzip off;
	server {
		listen 198.18.0.1:80;
		root $work/www;
		location /chunked/ {
			alias $work/www/;
			sub_filter 'ibboot-this-pattern-never-occurs-in-random-data' 'x';
			sub_filter_types *;
			chunked_transfer_encoding on;
		}
		location = /redir-abs { return 301 $srv/big.bin; }
		location = /sub/redir-rel { absolute_redirect off; return 302 ../chunked/small.bin; }
		location = /loop { absolute_redirect off; return 302 /loop; }
	}
}
CONF
nginx -c "$work/nginx.conf" -p "$work" &
nginx_pid=$!
# Readiness, not a timing assertion: wait (up to 10 s) until port 80 accepts connections.
for _ in $(seq 100); do
	(exec 3<>/dev/tcp/198.18.0.1/80) 2>/dev/null && break
	kill -0 "$nginx_pid" 2>/dev/null || break
	sleep 0.1
done
if ! kill -0 "$nginx_pid" 2>/dev/null; then
	cat "$work/error.log" 2>/dev/null
	echo "FAIL: $suite: nginx did not start"; exit 1
fi

sha() { sha256sum < "$1" 2>/dev/null | cut -d' ' -f1; }
want=$(sha "$work/www/big.bin")

if [ "$mode" = bench ]; then
	out=$(timeout 600 "$client" "$tun" get "$srv/big.bin" "$work/big.out" 2>&1)
	echo "$out" | grep "^RESULT"
	[ "$(sha "$work/big.out")" = "$want" ] || echo "bench-tcp: sha256 mismatch!"
	rate=$(echo "$out" | sed -n 's/^RESULT get .* ms=\([0-9]*\) MBps=\([0-9.]*\)$/\2 MB\/s (\1 ms)/p')
	echo "bench-tcp: HTTP 64 MiB from nginx over a TUN (MTU 2044): ${rate:-failed}"
	exit 0
fi

# TCP_E2E_MODE=impair TCP_E2E_IMPAIR="--loss 3": only the lossy download (debugging).
if [ "$mode" = impair ]; then
	timeout 600 "$client" "$tun" ${TCP_E2E_IMPAIR:-} get "$srv/big.bin" "$work/big.out" \
		> "$work/impair.log" 2>&1
	grep -v "^http: [0-9]* / " "$work/impair.log" | tail -n 5
	[ "$(sha "$work/big.out")" = "$want" ] && echo "sha256 ok"
	exit 0
fi

# 1. 16 MiB with Content-Length, a 16 MiB chunked body, redirects, a 404, a redirect loop.
out=$(timeout 300 "$client" "$tun" get "$srv/big.bin" "$work/big.out" \
	get "$srv/chunked/big.bin" "$work/chunked.out" \
	get "$srv/redir-abs" "$work/redir.out" \
	get "$srv/sub/redir-rel" "$work/redir-rel.out" \
	get-fail "$srv/missing.bin" get-fail "$srv/loop" get-fail "http://198.18.0.1:81/x" 2>&1)
rc=$?
echo "$out" | grep -v "^http: [0-9]* / "
if [ "$(sha "$work/big.out")" = "$want" ] &&
   echo "$out" | grep -q "^RESULT get $srv/big.bin bytes=16777216 status=200 chunked=0 redirects=0 total=16777216 monotonic=1"; then
	pass content-length-16MiB-sha256
else
	fail content-length-16MiB-sha256 "sha256 $(sha "$work/big.out") != $want"
fi
if [ "$(sha "$work/chunked.out")" = "$want" ] &&
   echo "$out" | grep -q "^RESULT get $srv/chunked/big.bin bytes=16777216 status=200 chunked=1 "; then
	pass chunked-16MiB-sha256
else
	fail chunked-16MiB-sha256 "chunked body missing or sha256 differs"
fi
if [ "$(sha "$work/redir.out")" = "$want" ] &&
   echo "$out" | grep -q "^RESULT get $srv/redir-abs bytes=16777216 status=200 chunked=0 redirects=1"; then
	pass redirect-301-absolute
else
	fail redirect-301-absolute "301 to $srv/big.bin not followed"
fi
if [ "$(sha "$work/redir-rel.out")" = "$(sha "$work/www/small.bin")" ] &&
   echo "$out" | grep -q "^http: 302 $srv/sub/redir-rel -> $srv/chunked/small.bin" &&
   echo "$out" | grep -q "^RESULT get $srv/sub/redir-rel bytes=100000 status=200 chunked=1 redirects=1"; then
	pass redirect-302-relative-location
else
	fail redirect-302-relative-location "Location ../chunked/small.bin not resolved to $srv/chunked/small.bin"
fi
if echo "$out" | grep -q "^RESULT get-fail $srv/missing.bin rc=-[0-9]* error=HTTP 404 Not Found for $srv/missing.bin$"; then
	pass http-404-message
else
	fail http-404-message "expected 'HTTP 404 Not Found for $srv/missing.bin'"
fi
if echo "$out" | grep -q "^RESULT get-fail $srv/loop rc=-[0-9]* error=too many redirects (more than 5)"; then
	pass redirect-loop-bounded
else
	fail redirect-loop-bounded "redirect loop not stopped after 5"
fi
if echo "$out" | grep -q "^RESULT get-fail http://198.18.0.1:81/x rc=-[0-9]* error=.*connection refused"; then
	pass connection-refused
else
	fail connection-refused "a closed port did not give 'connection refused'"
fi
[ $rc -eq 0 ] || fail client-exit "tun-http exited with $rc"

# 1b. A host name in the URL, resolved by the real dnsmasq (DNS only) on 198.18.0.1.
if command -v dnsmasq >/dev/null; then
	cat > "$work/dnsmasq.conf" <<DNSCONF
port=53
listen-address=198.18.0.1
bind-interfaces
no-resolv
no-hosts
host-record=boot.ibboot.test,198.18.0.1
pid-file=$work/dnsmasq.pid
log-facility=$work/dnsmasq.log
log-queries
user=root
group=root
DNSCONF
	start_dnsmasq "$work/dnsmasq.conf" "$work/dnsmasq.log" "started, version"
	out=$(timeout 120 "$client" "$tun" --dns 198.18.0.1 get http://boot.ibboot.test/small.bin \
		"$work/name.out" get-fail http://nowhere.ibboot.test/x 2>&1)
	echo "$out" | grep -v "^http: [0-9]* / "
	if [ "$(sha "$work/name.out")" = "$(sha "$work/www/small.bin")" ] &&
	   grep -q "query\[A\] boot.ibboot.test from 198.18.0.2" "$work/dnsmasq.log" &&
	   grep -q '"GET /small.bin HTTP/1.1" 200 100000 "-" "ibboot/' "$work/access.log" &&
	   echo "$out" | grep -q "^RESULT get-fail http://nowhere.ibboot.test/x rc=-[0-9]* error=cannot resolve nowhere.ibboot.test"; then
		pass host-name-via-dnsmasq
	else
		fail host-name-via-dnsmasq "boot.ibboot.test not fetched through dnsmasq's answer"
	fi
else
	echo "SKIP: $suite/host-name-via-dnsmasq: dnsmasq is not installed"
fi

# 2. 3% loss + reordering: netem on the server's side of the TUN when the kernel has it, else
#    the same impairment applied by the client to what it receives.
impair=()
if tc qdisc add dev "$tun" root netem loss 3% delay 1ms reorder 25% 50% 2>/dev/null; then
	how="netem loss 3% reorder 25%"
else
	echo "SKIP: $suite/netem: the kernel has no netem qdisc (tc: unknown qdisc); using the client-side impairment instead"
	impair=(--loss 3 --reorder 10 --dup 1)
	how="client-side loss 3% reorder 10% duplicates 1%"
fi
rm -f "$work/big.out" "$work/chunked.out"
out=$(timeout 600 "$client" "$tun" "${impair[@]}" get "$srv/big.bin" "$work/big.out" \
	get "$srv/chunked/big.bin" "$work/chunked.out" 2>&1)
rc=$?
echo "$out" | grep -v "^http: [0-9]* / "
if [ $rc -eq 0 ] && [ "$(sha "$work/big.out")" = "$want" ] &&
   [ "$(sha "$work/chunked.out")" = "$want" ] &&
   echo "$out" | grep -q "^RESULT tcp .*ooo_stored=[1-9]"; then
	pass "lossy-16MiB-sha256 ($how)"
else
	fail lossy-16MiB-sha256 "with $how: rc=$rc, sha256 $(sha "$work/big.out") / $(sha "$work/chunked.out") != $want"
fi
tc qdisc del dev "$tun" root 2>/dev/null
[ "$failures" -eq 0 ]
