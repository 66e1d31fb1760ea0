#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every message on standard error fits 120 columns (display columns, Python's Unicode
# tables: tests/helpers/textcols.py): one that would pass them is folded at its spaces, its
# next lines indented by two spaces, and reads back whole through unfold. vmtrace-report,
# vmtrace-convert and vmtrace-record on unfinished, joined, damaged and cut recordings, one
# without the pair, wrong options; messages known word for word are compared whole with
# the text built here from the file's own layout (a smoke trial found lines of 147 to 340
# columns).
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 missing"
edit="python3 $top_srcdir/tests/helpers/vmtedit.py"
F61="$DATA/formats/linux-6.1-kvmhost"
F618="$DATA/formats/linux-6.18-x86_64"

# msgs FILE...: each message of the files within 120 columns, starting with a program's
# name (or argp's --help hint); folded only when it passes 120 columns whole (a message of
# 120 display columns, whatever its bytes, is one line). Prints how many were folded.
cat >msgs.py <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from textcols import cols, read_lines
bad = folded = 0
for path in sys.argv[2:]:
    msgs = []
    for l in read_lines(path):
        if cols(l) > 120:
            print("%s: a line of %d columns: %s" % (path, cols(l), l))
            bad += 1
        if l.startswith("  ") and msgs:
            msgs[-1].append(l)
        elif l:
            msgs.append([l])
    for m in msgs:
        whole = " ".join([m[0]] + [l[2:] for l in m[1:]])
        if not whole.startswith(("vmtrace-report: ", "vmtrace-convert: ", "vmtrace-record: ",
                                 "Try '")):
            print("%s: not a message: %s" % (path, whole))
            bad += 1
        if len(m) > 1:
            folded += 1
            if cols(whole) <= 120:
                print("%s: folded, but %d columns whole: %s" % (path, cols(whole), whole))
                bad += 1
print(folded)
sys.exit(1 if bad else 0)
PY
n=0
# runs NAME COMMAND...: the command's messages into NAME.err, checked at the end
runs() {
	local name=$1
	shift
	"$@" >/dev/null 2>"$name.err"
	n=$((n + 1))
}
# whole NAME TEXT: NAME.err holds exactly this message (and nothing else but the hint)
whole() {
	[ "$(unfold "$1.err" | grep -v "^Try '")" = "$2" ] ||
		{ cat "$1.err"; fail "$1: not the message '$2'"; }
}

"$HELPERS/mkvmt" --chunk-pages 4 --context --random 20000 4 "$F61" r.vmt || fail mkvmt
# the blocks of r.vmt (offset, end, kind) from its layout (man/vmtrace-file.5)
python3 - r.vmt >blocks.txt <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off = 16
while off + 16 <= len(b):
    kind, hsize, psize = struct.unpack_from("<4sIQ", b, off)
    print(off, off + hsize + psize, kind.rstrip(b"\0").decode())
    off += hsize + psize
PY
# cut inside the 3rd, 40th and 90th chunk: "ends inside a block at offset" its start,
# "figures cover the K complete chunks" those that end before the cut
for k in 3 40 90; do
	set -- $(awk -v k=$k '$3 == "CHNK" && ++c == k { print $1, $2 }' blocks.txt)
	cut=$(( ($1 + $2) / 2 ))
	chunks=$(awk -v c=$cut '$3 == "CHNK" && $2 <= c { n++ } END { print n + 0 }' blocks.txt)
	head -c $cut r.vmt >cut.vmt
	for prog in vmtrace-report "vmtrace-convert --csv -o x.csv"; do
		# shellcheck disable=SC2086 # the program and its options
		runs cut$k-${prog%% *} $prog cut.vmt
		whole cut$k-${prog%% *} "${prog%% *}: warning: cut.vmt: the recording was not finished (the file ends \
inside a block at offset $1); figures cover the $chunks complete chunks"
	done
	# the same cut with a whole recording after it: joined files, the offset the cut's
	head -c $cut r.vmt >joined.vmt
	cat r.vmt >>joined.vmt
	runs joined$k vmtrace-report joined.vmt
	whole joined$k "vmtrace-report: warning: joined.vmt: the recording was not finished, and \
another recording's file header follows it at offset $cut (files joined): that one is not read; \
figures cover the first one's $chunks complete chunks"
done

# not one exit of the pair in a recording of CPUs 0-1
printf 'cpus 0-1\nother 0 1000\nother 1 2000\n' | "$HELPERS/mkvmt" "$F618" none.vmt || fail mkvmt
runs none vmtrace-report none.vmt
whole none "vmtrace-report: none.vmt: not one kvm:kvm_exit event in the recording (CPUs traced: \
0-1): no guest ran on those CPUs while it recorded, or the event does not fire on this kernel; the \
vCPU threads' CPUs: taskset -cp TID, or virsh vcpuinfo VM"
# the why columns of a recording without context events
cp "$DATA/sample-kvm.vmt" k.vmt
runs nowhy vmtrace-convert --csv --why --to 2s -o x.csv k.vmt	# before its open exit
whole nowhy "vmtrace-convert: warning: k.vmt: no context events in this recording: the why columns \
are empty (causes unknown, not zero); vmtrace-record records them unless given --context none"
# a usage error (argp's own message) of 160 columns, and its one-line hint
runs merged vmtrace-report --legacy k.vmt r.vmt
whole merged "vmtrace-report: several recordings are merged into figures per exit reason and per \
file: they take --json, --window, --no-causes and the filters; no other view (--legacy given)"
[ "$(tail -n 1 merged.err)" = "Try 'vmtrace-report --help' for more information." ] ||
	fail "merged: the hint"

# damaged files (tests/e2e/vmt_hostile.sh): their warnings name the file and the damage
$edit r.vmt h1.vmt chunk:5:cpu=7 && $edit r.vmt h2.vmt chunk:5:cpu=1 &&
	$edit r.vmt h3.vmt dup:5 && $edit r.vmt h4.vmt end:chunk.count=3 &&
	$edit r.vmt h5.vmt end:-chunk.count && $edit r.vmt h6.vmt chunk:0:first_ts=0 &&
	$edit r.vmt h7.vmt chunk:5:page_size=2048 chunk:5:pages=8 &&
	$edit r.vmt h8.vmt corrupt:all && $edit r.vmt h9.vmt corrupt:5 || fail vmtedit
for f in h1 h2 h3 h4 h5 h6 h7 h8 h9; do
	runs $f-report vmtrace-report $f.vmt
	runs $f-convert vmtrace-convert --csv -o x.csv $f.vmt
	runs $f-copy vmtrace-convert --to-vmt -o copy.vmt $f.vmt
	runs $f-readcopy vmtrace-report copy.vmt
	rm -f copy.vmt
done
# trace.dat files cut inside their CPUs' data and inside their sections
for f in kvm.v6.dat context.dat; do
	size=$(stat -c %s "$DATA/tracedat/$f")
	for part in 2 3 5; do
		head -c $((size * (part - 1) / part)) "$DATA/tracedat/$f" >cut.dat
		runs $f-$part vmtrace-report cut.dat
		runs $f-$part-convert vmtrace-convert --csv -o x.csv cut.dat
	done
done
runs held vmtrace-report "$DATA/tracedat/context.dat"
runs other vmtrace-report "$DATA/tracedat/syscalls-extract.dat"
# wrong options
runs o1 vmtrace-report --fail-if 'rate.io>1' k.vmt
runs o2 vmtrace-report --vcpu 77 k.vmt
runs o3 vmtrace-report --from 100s k.vmt
runs o4 vmtrace-report --format-dir /nonexistent --compare k.vmt r.vmt
runs o5 vmtrace-report --pair kvm:kvm_entry,kvm:kvm_exit "$DATA/tracedat/kvm.v6.dat"
runs o6 vmtrace-report --why k.vmt
runs o7 vmtrace-convert --legacy -o x.bin "$DATA/sample-syscalls.vmt"
runs o8 vmtrace-report --compare k.vmt "$DATA/sample-syscalls.vmt"
runs o9 vmtrace-report --legacy --vcpu 1 k.vmt
runs o10 vmtrace-report --reason bogus r.vmt
# a name of 36 wide characters (72 columns, 108 bytes) that does not exist: its message of
# 119 columns and 155 bytes fits, one line
wide=$(python3 -c 'print("\u8a18" * 36 + ".vmt")')
runs wide vmtrace-report --compare "$wide" k.vmt
[ "$(wc -l <wide.err)" = 1 ] && [ "$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1])
from textcols import cols, read_lines; print(cols(read_lines(sys.argv[2])[0]))' \
	"$top_srcdir/tests/helpers" wide.err)" -le 120 ] && [ "$(head -n 1 wide.err | wc -c)" -gt 121 ] ||
	{ cat wide.err; fail "a message of wide characters within 120 columns: folded"; }

# vmtrace-record's errors before it records (a clock list, a path, argp's), under the lock
if [ "$(id -u)" = 0 ] && [ -e /sys/kernel/tracing/trace_clock ]; then
	exec 9>"${TMPDIR:-/tmp}/vmtrace-e2e.lock"
	flock 9
	runs clock vmtrace-record -p 1 -s 1 -C bogus -o x.vmt
	offer=$(sed 's/[][]//g; s/ *$//; s/ /, /g' /sys/kernel/tracing/trace_clock)
	whole clock "vmtrace-record: --clock: clock 'bogus' not available; this kernel offers $offer"
	runs ctx vmtrace-record -p 1 -s 1 --context default,sched:no_such_event_of_that_name -o x.vmt
	whole ctx "vmtrace-record: --context: sched:no_such_event_of_that_name is not an event on this \
kernel (no /sys/kernel/tracing/events/sched/no_such_event_of_that_name/format)"
	runs reversed vmtrace-record -p 1 -s 1 -e kvm:kvm_entry,kvm:kvm_exit -o x.vmt
	whole reversed "vmtrace-record: -e kvm:kvm_entry,kvm:kvm_exit measures the time in the guest \
(from each entry to the next exit); the out-of-guest pair is kvm:kvm_exit,kvm:kvm_entry"
	flock -u 9
	[ ! -e x.vmt ] || fail "vmtrace-record wrote x.vmt"
else
	skip_part "vmtrace-record's messages (needs root and tracefs)"
fi

folded=$(python3 msgs.py "$top_srcdir/tests/helpers" ./*.err) || { echo "$folded"; fail "messages"; }
echo "$n runs, $folded messages folded"
[ "$folded" -ge 40 ] || fail "only $folded messages folded: the inputs no longer make long ones"
finish
