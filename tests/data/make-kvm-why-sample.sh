#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Remake the real KVM sample with causes (tests/data/why/sample/) with the KVM host harness
# (tests/kvmhost/run.sh, scenario "why"): two kvmload VMs whose vCPU threads share guest
# CPU 1, each with an in-kernel irqchip (its HLTs sleep until the APIC timer wakes them)
# and 200 us of user-space work per I/O exit, recorded for 2 s with the recorder's default
# context events. Run as root from the build directory. Writes into tests/data/why/sample/:
#   kvm.vmt                      the recording
#   kvmload-a.txt, kvmload-b.txt each workload's own counts and its vCPU thread's id
#   hz, halt_poll_ns             the guest kernel's CONFIG_HZ and KVM's halt polling
# tests/e2e/sample_why.sh checks the causes in it against those (tests/kvmhost/whycheck.py).
set -eu
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
d=$top_srcdir/tests/data/why/sample
out=$(mktemp -d)
top_builddir=$(pwd) top_srcdir=$top_srcdir sh "$top_srcdir/tests/kvmhost/run.sh" "$out/r" max "" 2 why
mkdir -p "$d"
cp "$out/r/kvm.vmt" "$out/r/kvmload-a.txt" "$out/r/kvmload-b.txt" "$d/"
sed -n 's/^CONFIG_HZ=\([0-9][0-9]*\)$/\1/p' "$out/r/kernel-config" >"$d/hz"
cat "$out/r/halt_poll_ns.txt" >"$d/halt_poll_ns"
chmod 644 "$d"/*
rm -rf "$out"
ls -l "$d"
