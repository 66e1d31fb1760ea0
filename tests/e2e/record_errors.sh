#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Missing tracefs, no permission, unknown events, offline CPUs, an unwritable or full
# output: one clear line, a non-zero exit, nothing left behind.
. "$(dirname "$0")/lib.sh"
need_tracefs

VMTRACE_TRACEFS=/nonexistent run vmtrace-record -p 1 -s 1
expect_one_line_error vmtrace-record "tracefs not found"

# An event of the pair this kernel does not have: a bad command line (64), as for
# --context, named, one line and nothing before it (not the note on context events)
for pair in nosuch:event,nosuch:other "$(echo "$SYSCALL_EVENTS" | cut -d, -f1),kvm:nosuch"; do
	run vmtrace-record -p 1 -c 0 -s 1 -e "$pair" -o x.vmt
	bad=${pair%%,*}
	[ "${pair#*,}" = kvm:nosuch ] && bad=kvm:nosuch
	expect_one_line_error vmtrace-record "--events: $bad is not an event on this kernel"
	[ "$rc" = 64 ] || fail "-e $pair: exit $rc, not 64"
	[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "-e $pair: not one line"; }
	[ ! -e x.vmt ] || fail "a file was left for a failed start"
	ls ./*.part 2>/dev/null && fail "a temporary file was left for a failed start"
done
unfold err.txt | grep -q "kvm module loaded" || fail "kvm:nosuch: no word on the kvm module"

# A CPU the machine lacks: a bad command line (64), said first and alone (no note on
# context events before it), nothing left behind
for args in "-p 4095" "-p 1 -c 4000"; do
	# shellcheck disable=SC2086
	run vmtrace-record $args -s 1 -o x.vmt
	case $args in
	*-c*) expect_one_line_error vmtrace-record "collector CPU 4000 is not online" ;;
	*) expect_one_line_error vmtrace-record "CPU 4095 is not online (online: " ;;
	esac
	[ "$rc" = 64 ] || fail "$args: exit $rc, not 64"
	[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "$args: not one line"; }
	[ ! -e x.vmt ] || fail "$args: a file was left for a failed start"
done

run vmtrace-record -p 1 -s 1 -e "$SYSCALL_EVENTS" -o /nonexistent/dir/x.vmt
expect_one_line_error vmtrace-record "/nonexistent/dir/x.vmt.*No such file or directory"
# the error is the only line: the note on context events this kernel lacks came first
[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "-o /nonexistent/dir/x.vmt: not one line"; }

# An unprivileged user cannot create an ftrace instance.
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	cp "$(command -v vmtrace-record)" ./rec && chmod 755 ./rec "$scratch"
	setpriv --reuid=nobody --regid=nogroup --clear-groups ./rec -p 1 -s 1 \
		-e "$SYSCALL_EVENTS" -o /tmp/x.vmt >out.txt 2>err.txt
	rc=$?
	sed -i 's/^rec:/vmtrace-record:/' err.txt
	expect_one_line_error vmtrace-record "run as root"
else
	skip_part "the unprivileged user (no setpriv or no user nobody)"
fi

# A full disk: a 4 MiB tmpfs, uncompressed 1 MiB chunks: a few fit, then ENOSPC. The recorder stops with a clear error, the chunks written
# before stay readable, and the instance is removed.
mkdir full
if mount -t tmpfs -o size=4m tmpfs full 2>/dev/null; then
	cleanup_hooks="$cleanup_hooks; umount $scratch/full 2>/dev/null"
	start_record -p 1 -c 0 -s 20 -l 0 -e "$SYSCALL_EVENTS" -o full/f.vmt
	"$HELPERS/syscall_loop" 1 0 3 >/dev/null &
	wait "$rec_pid"
	rc=$?
	wait
	[ "$rc" = 1 ] || { cat rec.err; fail "disk full: exit $rc, expected 1"; }
	unfold rec.err | grep -q "No space left on device" || fail "disk full: no clear error"
	widths_ok rec.err || fail "disk full: messages wider than 120 columns"
	no_instance_left "$rec_pid"
	f=$(ls full/f.vmt* | head -1)
	run vmtrace-report --json "$f"
	case $rc in 0|2) ;; *) cat err.txt; fail "disk full: the file does not read back" ;; esac
	[ "$(json out.txt 'd["pairs"] > 0')" = True ] || { cat out.txt err.txt rec.err; ls -la full; fail "disk full: nothing read back"; }
	umount full
else
	skip_part "the full disk (cannot mount a tmpfs)"
fi

# A disk that holds the header and metadata but not one chunk (stored raw: a chunk is at
# least a 4 KiB page and its header, more than the free space left in the last page): the
# previous file stays as it was (byte for byte, no FILE.old), the temporary file goes,
# and one line says so, with no summary after it. The free space is the metadata's pages,
# measured on a probe recording with the same command line (a page more when it grew past
# them meanwhile).
meta_bytes() {
	python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off = 16
while off + 32 <= len(b) and b[off:off + 4] in (b"META", b"MCPY"):
    hsize, psize = struct.unpack_from("<IQ", b, off + 4)
    off += hsize + psize
print(off)
PY
}
mkdir room nospace
if mount -t tmpfs -o size=2m tmpfs nospace 2>/dev/null; then
	cleanup_hooks="$cleanup_hooks; umount $scratch/nospace 2>/dev/null"
	args="-p 1 -c 0 -s 1 -l 0 -e $SYSCALL_EVENTS"
	# shellcheck disable=SC2086
	vmtrace-record $args -o room/f.vmt >/dev/null 2>&1 || fail "the probe recording"
	pages=$(( ($(meta_bytes room/f.vmt) + 4095) / 4096 ))
	for old in "$DATA/sample-syscalls.vmt" ""; do
		for extra in 0 1; do
			rm -f nospace/*
			[ -z "$old" ] || cp "$old" nospace/f.vmt
			free=$(( $(stat -f -c '%a' nospace) * $(stat -f -c '%S' nospace) ))
			dd if=/dev/zero of=nospace/fill bs=4096 \
				count=$(( free / 4096 - pages - extra )) 2>/dev/null
			# shellcheck disable=SC2086
			start_record $args -o nospace/f.vmt
			"$HELPERS/syscall_loop" 1 0 0.5 >/dev/null
			wait "$rec_pid"
			rc=$?
			unfold rec.err | grep -q "cannot write: No space" || break	# the metadata fitted
		done
		[ "$rc" = 1 ] || { cat rec.err; fail "no room for a chunk: exit $rc, expected 1"; }
		no_instance_left "$rec_pid"
		[ -z "$old" ] && fate="no nospace/f.vmt made" || fate="nospace/f.vmt unchanged"
		unfold rec.err | grep -v "^vmtrace-record: recording \|context events not on" >msgs.txt
		grep -qx "vmtrace-record: nospace/f.vmt.$rec_pid.part: write failed: No space left on device; nothing written, $fate" msgs.txt ||
			{ cat rec.err; fail "no room for a chunk: not one line saying '$fate'"; }
		[ "$(wc -l <msgs.txt)" = 1 ] || { cat rec.err; fail "no room for a chunk: more said"; }
		[ ! -s rec.out ] || { cat rec.out; fail "no room for a chunk: a summary of nothing"; }
		ls nospace/*.part nospace/f.vmt.old 2>/dev/null && fail "no room for a chunk: files left"
		if [ -n "$old" ]; then
			cmp "$old" nospace/f.vmt || fail "no room for a chunk: the previous file changed"
		else
			[ ! -e nospace/f.vmt ] || fail "no room for a chunk: an empty file made"
		fi
	done
	umount nospace
else
	skip_part "the disk without room for a chunk (cannot mount a tmpfs)"
fi

# A recording without one exit says so at its end, and so does its report: the event, the
# CPUs traced, the likely causes. kvm_exit fires only where a guest runs: on this machine
# never; elsewhere CPU 1 may have run one, then this part is left out.
if [ -e /sys/kernel/tracing/events/kvm/kvm_exit ]; then
	vmtrace-record -p 1 -c 0 -s 300ms -o none.vmt >none.out 2>none.err ||
		{ cat none.err; fail "recording nothing: exit $?"; }
	run vmtrace-report --json none.vmt
	if [ "$(json out.txt 'd["events"]')" = 0 ]; then
		want="not one kvm:kvm_exit event in the recording (CPUs traced: 1): no guest ran on those CPUs"
		unfold none.err | grep -q "^vmtrace-record: warning: none.vmt: $want" ||
			{ cat none.err; fail "the recorder did not say the recording is empty"; }
		[ "$(unfold err.txt | grep -c "$want")" = 1 ] || { cat err.txt; fail "the report did not say why"; }
		grep -q "^No exit-entry pairs: no latency figures" none.out || fail "the summary"
	else
		skip_part "the empty recording (a guest ran on CPU 1)"
	fi
else
	skip_part "the empty recording (no kvm events on this kernel)"
fi
finish
