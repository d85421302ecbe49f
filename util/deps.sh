#!/usr/bin/env bash
# util/deps.sh — install the Debian packages the project needs, and nothing that is already there.
# Packages are listed per component in util/deps.d/*.list (one per line, '#' comments). When a
# util/deps.d/*.src list exists (source packages, e.g. QEMU's), deb-src entries are enabled so
# `apt-get source` works. Idempotent: a machine that has everything runs no apt-get at all.
# Works as root, or as a user with sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo -n); fi
export DEBIAN_FRONTEND=noninteractive

wanted=$(cat util/deps.d/*.list 2>/dev/null | sed 's/#.*//' | tr -s ' \t' '\n' | grep -v '^$' | sort -u)
# One dpkg-query for all of them: make check/demo/bench run this first, so it must be instant.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' $wanted 2>/dev/null |
	awk '$NF == "installed" && $(NF-1) == "ok" {print $1}' || true)
mapfile -t missing < <(comm -23 <(echo "$wanted") <(echo "$installed" | sort -u) | grep -v '^$' || true)

# deb-src is needed only by lists of source packages; enable it once, in whichever format apt uses.
need_src=no
compgen -G 'util/deps.d/*.src' >/dev/null && need_src=yes
src_changed=no
if [ $need_src = yes ] && ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		"${SUDO[@]}" sed -i -E 's/^Types: deb$/Types: deb deb-src/' /etc/apt/sources.list.d/debian.sources
	elif [ -f /etc/apt/sources.list ]; then
		grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
			"${SUDO[@]}" tee -a /etc/apt/sources.list >/dev/null
	fi
	src_changed=yes
	echo "deps: enabled deb-src entries"
fi

if [ ${#missing[@]} -eq 0 ] && [ $src_changed = no ]; then
	echo "deps: all $(echo "$wanted" | wc -w) packages present"
	exit 0
fi
echo "deps: installing ${missing[*]:-(none; refreshing package lists for deb-src)}"
"${SUDO[@]}" apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
	# Server packages (nginx, dnsmasq, opensm) must not start system instances that listen on the
	# host: tests run their own inside namespaces. policy-rc.d exit 101 = "do not start services".
	rcd=/usr/sbin/policy-rc.d
	own_rcd=no
	if [ ! -e "$rcd" ]; then
		printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee "$rcd" >/dev/null
		"${SUDO[@]}" chmod 755 "$rcd"
		own_rcd=yes
	fi
	status=0
	"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" || status=$?
	[ $own_rcd = yes ] && "${SUDO[@]}" rm -f "$rcd"
	[ $status -eq 0 ] || { echo "deps: apt-get install failed ($status)" >&2; exit $status; }
fi
# Some server packages start a system instance on install; tests run their own, so stop those.
for svc in nginx dnsmasq opensm; do
	if command -v systemctl >/dev/null && systemctl is-active -q "$svc" 2>/dev/null; then
		"${SUDO[@]}" systemctl stop "$svc" || true
	fi
	if [ -x "/etc/init.d/$svc" ] && "/etc/init.d/$svc" status >/dev/null 2>&1; then
		"${SUDO[@]}" "/etc/init.d/$svc" stop >/dev/null 2>&1 || true
	fi
done
echo "deps: done"
