#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what vmtrace needs on Debian 12 (as root), then configure and build in this tree.
#   sh scripts/setup-debian12.sh           the build alone: a compiler, autotools, libzstd
#                                          and zlib (what a KVM host needs to build it)
#   sh scripts/setup-debian12.sh --tests   also what `make check` uses: cmocka,
#                                          libtraceevent, valgrind, QEMU for the nested KVM
#                                          host, and the real programs the tests run
#                                          (trace-cmd, SQLite, LibreOffice, Chromium,
#                                          Prometheus)
# Other arguments go to ./configure. Safe to run again; --tests after a build without it
# configures again, so that the unit tests are built.
set -eu
cd "$(dirname "$0")/.."
tests=no
for a in "$@"; do	# --tests anywhere; the other arguments, in order, for ./configure
	shift
	if [ "$a" = --tests ]; then tests=yes; else set -- "$@" "$a"; fi
done
pkgs="build-essential autoconf automake pkg-config libzstd-dev zlib1g-dev"
[ $tests = no ] || pkgs="$pkgs libcmocka-dev libtraceevent-dev python3 zstd util-linux
      valgrind sqlite3 clang libclang-rt-14-dev qemu-system-x86 busybox-static cpio file
      trace-cmd libreoffice-calc-nogui chromium prometheus prometheus-node-exporter
      python3-prometheus-client"
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
# tracefs, for recording (and the recording tests, which skip, exit 77, without it)
if [ ! -e /sys/kernel/tracing/trace_clock ] && [ "$(id -u)" = 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure --enable-werror "$@"
# configured before cmocka or libtraceevent was there: again, with the same arguments, so
# that the unit tests and the decoder's oracle tests are built
if [ $tests = yes ] && grep -q '^S\["HAVE_\(CMOCKA\|TRACEEVENT\)_TRUE"\]="#"' config.status; then
	./config.status --recheck >/dev/null && ./config.status >/dev/null
fi
make -j"$(nproc)"
