#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Remake the real KVM sample and fixtures with the KVM host harness (tests/kvmhost/run.sh):
# a Debian 6.1 kernel under QEMU TCG with SVM (CPU model max), kvmload pinned to guest CPU
# 1, vmtrace-record on it from CPU 0 for 4 s with the default clock. Run as root from the
# build directory. Writes:
#   tests/data/sample-kvm.vmt                  the recording (the README's main job)
#   tests/data/formats/linux-6.1-kvmhost/      the guest's header_page and kvm formats
#   tests/data/pages/kvm-svm-cpu1.{pages,trace.txt,stats}
#                                              a second pass's raw trace_pipe_raw pages and
#                                              the kernel's own text trace of that buffer
# and regenerates the golden reports of the sample.
set -eu
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
d=$top_srcdir/tests/data
out=$(mktemp -d)
top_builddir=$(pwd) top_srcdir=$top_srcdir sh "$top_srcdir/tests/kvmhost/run.sh" "$out/r" max "" 2 one
cp "$out/r/kvm.vmt" "$d/sample-kvm.vmt"
cp "$out/r/header_page" "$d/formats/linux-6.1-kvmhost/header_page"
cp "$out/r/kvm/kvm_exit/format" "$d/formats/linux-6.1-kvmhost/kvm/kvm_exit/format"
cp "$out/r/kvm/kvm_entry/format" "$d/formats/linux-6.1-kvmhost/kvm/kvm_entry/format"
cp "$out/r/oracle-pages.bin" "$d/pages/kvm-svm-cpu1.pages"
cp "$out/r/oracle-trace.txt" "$d/pages/kvm-svm-cpu1.trace.txt"
cp "$out/r/oracle-stats.txt" "$d/pages/kvm-svm-cpu1.stats"
chmod 644 "$d/sample-kvm.vmt" "$d"/pages/kvm-svm-cpu1.* "$d/formats/linux-6.1-kvmhost/header_page"
rm -rf "$out"
report=$(pwd)/vmtrace-report
(cd "$d" && "$report" --histogram sample-kvm.vmt >sample-kvm.report.txt &&
	"$report" --json sample-kvm.vmt >sample-kvm.report.json)
ls -l "$d/sample-kvm.vmt"
