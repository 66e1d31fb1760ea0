#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what vmtrace needs on Debian 12 (as root), then configure and build in this tree.
# Extra arguments go to ./configure. Safe to run again.
set -eu
cd "$(dirname "$0")/.."
pkgs="build-essential autoconf automake pkg-config libzstd-dev zlib1g-dev libcmocka-dev
      libtraceevent-dev python3 zstd util-linux valgrind sqlite3 clang libclang-rt-14-dev
      qemu-system-x86 busybox-static cpio file trace-cmd libreoffice-calc-nogui chromium
      prometheus prometheus-node-exporter python3-prometheus-client"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
# tracefs, for the recording tests (they skip, exit 77, where it cannot be had)
if [ ! -e /sys/kernel/tracing/trace_clock ] && [ "$(id -u)" = 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure --enable-werror "$@"
make -j"$(nproc)"
