#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How the trace-cmd fixtures in this directory were made (run as root from a built tree:
# sh tests/data/tracedat/make-tracedat.sh). Every .dat has a .report.txt.gz next to it:
# `trace-cmd report -t` of that file, the oracle tests/e2e/tracedat.sh compares against.
#
# syscalls-extract.dat   a real `trace-cmd extract -B` (v7, zstd) of an instance tracing
#                        raw_syscalls with a 64 KiB buffer on a 2-CPU 6.18 host: CPU 1
#                        lost events, CPU 0 has one page. The events/ directory, kallsyms,
#                        printk formats and saved command lines were hidden from trace-cmd
#                        in a private mount namespace so the file stays small.
# syscalls-extract.v6.dat the same, by `trace-cmd convert --file-version 6` (v6 keeps an
#                        instance's CPU table behind a BUFFER option).
# kvm.v6.dat             the first 16 pages of tests/data/sample-kvm.vmt (a real KVM host,
#                        Linux 6.1, SVM), written by tests/helpers/mktracedat.
# kvm.v7zstd.dat         kvm.v6.dat by `trace-cmd convert --file-version 7 --compression
#                        zstd` (trace-cmd's own v7 writer).
# kvm.v7zlib.dat         the same pages as v7 with zlib chunks, by mktracedat (this
#                        trace-cmd build has no zlib).
# tsc2nsec.dat           a short x86-tsc recording of raw_syscalls (vmtrace-record -C
#                        x86-tsc), written by mktracedat with the TSC2NSEC option.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
out=$top/tests/data/tracedat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rmdir /sys/kernel/tracing/instances/vmtrace-fixture 2>/dev/null || true' EXIT
cd "$tmp"

inst=/sys/kernel/tracing/instances/vmtrace-fixture
mkdir "$inst"
echo 64 > "$inst/buffer_size_kb"
echo 1 > "$inst/events/raw_syscalls/sys_enter/enable"
echo 1 > "$inst/events/raw_syscalls/sys_exit/enable"
echo 1 > "$inst/tracing_on"
"$top/tests/helpers/syscall_loop" 1 2000 > /dev/null
echo 0 > "$inst/tracing_on"
unshare -m sh -c '
	set -e
	t=/sys/kernel/tracing
	mkdir ev
	cp $t/events/header_page $t/events/header_event ev/
	for s in raw_syscalls ftrace; do
		for e in $t/events/$s/*/; do
			n=$(basename "$e")
			[ -f "$e/format" ] || continue
			mkdir -p "ev/$s/$n"
			cp "$e/format" "ev/$s/$n/format"
		done
	done
	: > empty
	mount --bind ev $t/events
	mount --bind empty /proc/kallsyms
	mount --bind empty $t/printk_formats
	mount --bind empty $t/saved_cmdlines
	trace-cmd extract -B vmtrace-fixture -o syscalls-extract.dat > /dev/null
'
cp syscalls-extract.dat "$out/"
trace-cmd convert --file-version 6 --compression none -i syscalls-extract.dat \
	-o "$out/syscalls-extract.v6.dat" > /dev/null

"$top/tests/helpers/mktracedat" -V 6 -z none -m 16 "$top/tests/data/sample-kvm.vmt" \
	"$out/kvm.v6.dat"
trace-cmd convert --file-version 7 --compression zstd -i "$out/kvm.v6.dat" \
	-o "$out/kvm.v7zstd.dat" > /dev/null
"$top/tests/helpers/mktracedat" -V 7 -z zlib -n 4 -m 16 "$top/tests/data/sample-kvm.vmt" \
	"$out/kvm.v7zlib.dat"

"$top/tests/helpers/syscall_loop" 1 0 0.5 > /dev/null &
sleep 0.05
"$top/vmtrace-record" -q -p 1 -C x86-tsc -b 256K -s 0.2 \
	-e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o tsc.vmt || true
wait
"$top/tests/helpers/mktracedat" -V 7 -z zstd -m 8 tsc.vmt "$out/tsc2nsec.dat"

for f in "$out"/*.dat; do
	case $f in
	*zlib*) continue ;;	# its oracle is kvm.v6.report.txt: the same pages
	esac
	trace-cmd report -t -i "$f" 2> /dev/null | gzip -9n > "${f%.dat}.report.txt.gz"
done
ls -l "$out"

# context.dat            a real `trace-cmd extract -B` (v7, zstd) of an instance tracing, on
#                        CPU 1, raw_syscalls with the context events sched_switch,
#                        sched_waking, irq:* and the irq_vectors handlers, while a shell
#                        loop pinned to CPU 1 competes with syscall_loop. The events/
#                        directory trace-cmd saw held raw_syscalls, ftrace, sched, irq,
#                        irq_vectors, nmi, six kvm events and two syscalls events, so the
#                        file's formats are those systems' (30 context events among them).
inst=/sys/kernel/tracing/instances/vmtrace-fixture
mkdir "$inst"
echo 256 > "$inst/buffer_size_kb"
echo 2 > "$inst/tracing_cpumask"
for e in raw_syscalls/sys_enter raw_syscalls/sys_exit sched/sched_switch sched/sched_waking \
	 irq irq_vectors/local_timer_entry irq_vectors/local_timer_exit \
	 irq_vectors/reschedule_entry irq_vectors/reschedule_exit; do
	echo 1 > "$inst/events/$e/enable"
done
taskset -c 1 sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done' &
spin=$!
echo 1 > "$inst/tracing_on"
"$top/tests/helpers/syscall_loop" 1 3000 > /dev/null
echo 0 > "$inst/tracing_on"
kill $spin 2> /dev/null || true
wait $spin 2> /dev/null || true
unshare -m sh -c '
	set -e
	t=/sys/kernel/tracing
	mkdir ev
	cp $t/events/header_page $t/events/header_event ev/
	for e in $t/events/raw_syscalls/*/ $t/events/ftrace/*/ $t/events/sched/*/ \
		 $t/events/irq/*/ $t/events/irq_vectors/*/ $t/events/nmi/*/ \
		 $t/events/kvm/kvm_exit/ $t/events/kvm/kvm_entry/ $t/events/kvm/kvm_userspace_exit/ \
		 $t/events/kvm/kvm_vcpu_wakeup/ $t/events/kvm/kvm_inj_virq/ \
		 $t/events/kvm/kvm_halt_poll_ns/ $t/events/syscalls/sys_enter_ioctl/ \
		 $t/events/syscalls/sys_enter_read/; do
		[ -f "$e/format" ] || continue
		s=$(basename "$(dirname "$e")")
		n=$(basename "$e")
		mkdir -p "ev/$s/$n"
		cp "$e/format" "ev/$s/$n/format"
	done
	: > empty
	mount --bind ev $t/events
	mount --bind empty /proc/kallsyms
	mount --bind empty $t/printk_formats
	mount --bind empty $t/saved_cmdlines
	trace-cmd extract -B vmtrace-fixture -o context.dat > /dev/null
'
rmdir "$inst" 2> /dev/null || true	# trace-cmd extract -B removes it itself
cp context.dat "$out/"
trace-cmd report -t -i "$out/context.dat" 2> /dev/null | gzip -9n > "$out/context.report.txt.gz"
