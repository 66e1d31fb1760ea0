#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The KVM host harness: boots a stock Debian 6.1 kernel under QEMU's software emulation
# (TCG emulates AMD SVM), loads kvm-amd, runs kvmload (a tiny KVM guest with a known mix
# of exits) pinned to guest CPU 1 and vmtrace-record on it from CPU 0, then brings the
# recording and the kernel's own evidence back out through a raw virtio disk.
#
#   run.sh OUTDIR [CPU_MODEL [CLOCK [SECONDS]]]     (defaults: max, the default clock, 2)
#
# Needs qemu-system-x86, busybox-static and cpio (Debian packages); the kernel package is
# fetched with apt-get download into $VMTRACE_KVMHOST_CACHE (default
# /var/cache/vmtrace-kvmhost) once and reused. Exits 77 when any of it cannot be had.
set -eu
out=$1
cpu_model=${2:-max}
clock=${3:-}
secs=${4:-2}
min_rounds=60
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
cache=${VMTRACE_KVMHOST_CACHE:-/var/cache/vmtrace-kvmhost}
KVER_PKG=${VMTRACE_KVMHOST_KERNEL:-}
t_start=$(date +%s.%N)

for tool in qemu-system-x86_64 cpio gzip gcc; do
	command -v $tool >/dev/null || { echo "kvmhost: $tool not installed" >&2; exit 77; }
done
busybox=$(command -v busybox || true)
[ -n "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q "statically linked" ||
	busybox=/bin/busybox
[ -x "$busybox" ] || { echo "kvmhost: busybox-static not installed" >&2; exit 77; }

# The kernel: a Debian 6.1 image package, downloaded once, never installed.
mkdir -p "$cache"
deb=$(ls "$cache"/linux-image-6.1.0-*-amd64_*.deb 2>/dev/null | tail -1 || true)
if [ -z "$deb" ]; then
	[ -n "$KVER_PKG" ] || KVER_PKG=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' |
		sort -V | tail -1 | cut -d' ' -f1)
	[ -n "$KVER_PKG" ] || { echo "kvmhost: no linux-image-6.1 package known to apt" >&2; exit 77; }
	(cd "$cache" && apt-get download "$KVER_PKG" >/dev/null 2>&1) ||
		{ echo "kvmhost: cannot download $KVER_PKG" >&2; exit 77; }
	deb=$(ls "$cache"/linux-image-6.1.0-*-amd64_*.deb | tail -1)
fi
kdir="$cache/$(basename "$deb" .deb)"
[ -d "$kdir" ] || dpkg -x "$deb" "$kdir"
vmlinuz=$(ls "$kdir"/boot/vmlinuz-* | head -1)
moddir=$(ls -d "$kdir"/lib/modules/* | head -1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root/bin" "$root/lib/modules" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
	"$root/out"
cp "$busybox" "$root/bin/busybox"
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk \
	 irqbypass kvm ccp kvm-amd; do
	f=$(find "$moddir" -name "$m.ko" | head -1)
	[ -n "$f" ] || { echo "kvmhost: module $m missing in $moddir" >&2; exit 77; }
	cp "$f" "$root/lib/modules/"
done
gcc -O2 -static -o "$root/bin/kvmload" "$top_srcdir/tests/kvmhost/kvmload.c"
gcc -O2 -static -o "$root/bin/rawdump" "$top_srcdir/tests/kvmhost/rawdump.c"
# vmtrace-record with the shared libraries it needs, at their own paths
cp "$top_builddir/vmtrace-record" "$root/bin/"
for lib in $(ldd "$top_builddir/vmtrace-record" | awk '/=>/ { print $3 } /^\t\// { print $1 }'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tracefs nodev /sys/kernel/tracing
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk \\
	 irqbypass kvm ccp kvm-amd; do
	insmod /lib/modules/\$m.ko || echo "kvmhost: insmod \$m failed"
done
cd /out
uname -a >uname.txt
cat /proc/cpuinfo >cpuinfo.txt
cp /sys/kernel/tracing/events/header_page header_page
mkdir -p kvm/kvm_exit kvm/kvm_entry
cp /sys/kernel/tracing/events/kvm/kvm_exit/format kvm/kvm_exit/format
cp /sys/kernel/tracing/events/kvm/kvm_entry/format kvm/kvm_entry/format
say() { echo "kvmhost: \$*" >/dev/console; }
# The recorder first, the workload entirely inside the recording (stopped by SIGINT once the
# workload is done, however slow the emulation was): its counts are exact. At least
# $min_rounds rounds, so that a slow host still gives a workload worth counting.
vmtrace-record -p 1 -c 0 ${clock:+-C $clock} -o /out/kvm.vmt >record.txt 2>&1 &
rec=\$!
while ! grep -q recording record.txt 2>/dev/null; do sleep 0.1; done
say "recording; starting kvmload"
kvmload 1 $secs $min_rounds >kvmload.txt 2>&1
say "kvmload done: \$(cat kvmload.txt)"
kill -INT \$rec
wait \$rec
echo "record exit \$?" >>record.txt
say "record done: \$(tail -1 record.txt)"
# The kernel's own evidence, in an instance of its own: the text trace (read first: it
# does not consume) and the same buffer's raw pages, for the decoder's tests. At least 3
# rounds (some 1200 events, more than the 64 KiB buffer keeps): a slow guest made 424 in
# its 0.05 s, below the check's 500.
I=/sys/kernel/tracing/instances/oracle
mkdir \$I
echo 0 >\$I/tracing_on
echo 64 >\$I/buffer_size_kb
echo 2 >\$I/tracing_cpumask
${clock:+echo $clock >\$I/trace_clock}
echo 1 >\$I/events/kvm/kvm_exit/enable
echo 1 >\$I/events/kvm/kvm_entry/enable
echo 1 >\$I/tracing_on
kvmload 1 0.05 3 >oracle-kvmload.txt 2>&1
echo 0 >\$I/tracing_on
cp \$I/trace oracle-trace.txt
cat \$I/per_cpu/cpu1/stats >oracle-stats.txt
rawdump \$I/per_cpu/cpu1/trace_pipe_raw 4096 >oracle-pages.bin
say "oracle: \$(grep -c kvm_ oracle-trace.txt) events in the text trace"
tar -cf /dev/vda .
say "results written"
sync
poweroff -f
INIT
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$work/initrd.gz"
# A good run takes about 15 s, 80 s on a machine busy with other work. Under TCG the
# emulated guest has been seen to hang (an RCU stall with shadow paging, 1 run in 5): such a
# boot is timed out and retried once, loudly; any other failure, or a second timeout, fails.
boot() {
	dd if=/dev/zero of="$work/results.img" bs=1M count=64 status=none
	timeout ${VMTRACE_KVMHOST_TIMEOUT:-240} qemu-system-x86_64 -accel tcg,thread=multi \
		-cpu "$cpu_model" -smp 2 -m 2048 -kernel "$vmlinuz" -initrd "$work/initrd.gz" \
		-append "console=ttyS0 panic=-1 tsc=reliable" -nographic -no-reboot \
		-drive file="$work/results.img",format=raw,if=virtio >"$work/console.txt" 2>&1
}
rc=0
boot || rc=$?
if [ "$rc" != 0 ]; then
	tail -30 "$work/console.txt" >&2
	[ "$rc" = 124 ] || { echo "kvmhost: QEMU failed (exit $rc)" >&2; exit 1; }
	echo "kvmhost: WARNING: the guest hung (QEMU timed out); retrying once" >&2
	boot || { tail -30 "$work/console.txt" >&2; echo "kvmhost: QEMU failed twice" >&2; exit 1; }
fi
mkdir -p "$out"
tar -xf "$work/results.img" -C "$out" 2>/dev/null ||
	{ tail -30 "$work/console.txt" >&2; echo "kvmhost: no results from the guest" >&2; exit 1; }
cp "$work/console.txt" "$out/console.txt"
echo "kvmhost: $cpu_model ${clock:-default clock}: $(cat "$out/kvmload.txt") in $(echo "$(date +%s.%N) $t_start" | awk '{ printf "%.1f", $1 - $2 }') s"
