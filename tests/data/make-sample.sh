#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Remake tests/data/sample-syscalls.vmt: a real recording made on a Debian 12 test machine
# (2 CPUs, Linux 6.18) of raw_syscalls:sys_enter/sys_exit on CPU 1 while a pinned loop
# makes 100000 getppid() calls. Run as root from the build directory after `make check`
# has built tests/helpers/syscall_loop. Until a real KVM host sample exists (the QEMU
# harness), this is the suite's bundled sample; its golden report is
# tests/data/sample-syscalls.report.txt (regenerate both together).
set -eu
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
out=$top_srcdir/tests/data/sample-syscalls.vmt
rm -f "$out"
./vmtrace-record -p 1 -c 0 -s 1 -e raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	-o "$out" >/dev/null 2>rec.err &
pid=$!
until grep -q recording rec.err 2>/dev/null; do sleep 0.05; done
./tests/helpers/syscall_loop 1 100000
wait $pid
rm -f rec.err
report=$(pwd)/vmtrace-report
# Relative names, so the golden output does not depend on where the tree lives.
(cd "$top_srcdir/tests/data" && "$report" sample-syscalls.vmt >sample-syscalls.report.txt &&
	"$report" --json sample-syscalls.vmt >sample-syscalls.report.json)
ls -l "$out"

# A small one for the corruption tests (every byte flipped, every 512-byte cut).
small=$top_srcdir/tests/data/small-syscalls.vmt
rm -f "$small"
./vmtrace-record -q -p 1 -c 0 -s 1 -e raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	-o "$small" 2>/dev/null &
pid=$!
sleep 0.5
./tests/helpers/syscall_loop 1 3000
wait $pid
ls -l "$small"
