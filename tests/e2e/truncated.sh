#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A real recording cut at every 512-byte boundary reads back its complete chunks with a
# warning (exit 2), or fails with one clear line when the cut is inside the metadata;
# every single-byte flip in its header, metadata and first chunk is read cleanly, reported
# as damage, or refused with a reason; never a crash.
. "$(dirname "$0")/lib.sh"

src="$DATA/small-syscalls.vmt"
size=$(stat -c %s "$src")
full=$(vmtrace-report --json "$src" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
# where the metadata block ends: a cut before it leaves nothing to read, and must be said
# to be a cut (truncated), not damage
meta_end=$(python3 - "$src" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
hsize, psize = struct.unpack_from("<IQ", b, 16 + 4)
print(16 + hsize + psize)
PY
)
prev=0
nochunk=0
singular=0
incut=0
step=512
off=0
while [ "$off" -lt "$size" ]; do
	head -c "$off" "$src" >cut.vmt
	run vmtrace-report --json cut.vmt
	case $rc in
	1)	unfold err.txt | grep -q "^vmtrace-report: cut.vmt: " || fail "cut at $off: no error line"
		[ "$(unfold err.txt | wc -l)" = 1 ] || fail "cut at $off: more than one error line"
		if [ "$off" -ge 16 ] && [ "$off" -lt "$meta_end" ]; then
			unfold err.txt | grep -q "^vmtrace-report: cut.vmt: truncated: the file is cut " &&
				! unfold err.txt | grep -q damaged ||
				{ cat err.txt; fail "cut at $off (metadata to $meta_end): not said to be cut"; }
			incut=$((incut + 1))
		fi ;;
	2)	unfold err.txt | grep -q "not finished" || fail "cut at $off: no warning"
		# how long it recorded is not known: null, never a 0 a script would divide by
		[ "$(json out.txt 'd["duration_ns"]')" = None ] || fail "cut at $off: a duration_ns"
		# the complete chunks the warning counts are those read, "1 chunk", "0 chunks"
		c=$(json out.txt 'd["chunks"]')
		[ "$c" = 1 ] && s= || s=s
		unfold err.txt | grep -q "; figures cover the $c complete chunk$s\$" ||
			{ cat err.txt; fail "cut at $off: not 'the $c complete chunk$s'"; }
		[ "$c" = 1 ] && singular=$((singular + 1))
		n=$(json out.txt 'd["events"]')
		[ "$n" -ge "$prev" ] || fail "cut at $off: fewer events ($n) than a shorter cut ($prev)"
		[ "$n" -le "$full" ] || fail "cut at $off: more events than the whole file"
		# before the first complete chunk: the cut is the cause, not the traced CPUs
		if [ "$(json out.txt 'd["chunks"]')" = 0 ]; then
			unfold err.txt | grep -q "cut.vmt: nothing to report: the file ends before its first complete chunk" || fail "cut at $off: no chunk, but not said"
			unfold err.txt | grep -q "no guest ran" && fail "cut at $off: blames the CPUs"
			nochunk=$((nochunk + 1))
		fi
		prev=$n ;;
	*)	cat err.txt; fail "cut at $off: exit $rc" ;;
	esac
	off=$((off + step))
done
[ "$prev" -gt 0 ] || fail "no cut read back any events"
[ "$nochunk" -gt 0 ] || fail "no cut ended before the first complete chunk"
[ "$singular" -gt 0 ] || fail "no cut kept exactly one complete chunk"
[ "$incut" -gt 0 ] || fail "no cut inside the metadata block"
# a cut inside the metadata block's own header, and just before its end; convert says so too
for off in 16 30 $((meta_end - 1)); do
	head -c "$off" "$src" >cut.vmt
	for prog in vmtrace-report vmtrace-convert; do
		run $prog --json cut.vmt
		expect_one_line_error $prog "cut.vmt: truncated: the file is cut "
		[ "$(unfold err.txt | wc -l)" = 1 ] || fail "$prog, cut at $off: more than one line"
		[ "$rc" = 1 ] || fail "$prog, cut at $off: exit $rc"
	done
done


# Every byte of the file header, the metadata and the first chunk, flipped in turn.
end=$(python3 - "$src" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off = 16                                   # file header
for _ in range(2):                         # META, then the first chunk
    hsize, psize = struct.unpack_from("<IQ", b, off + 4)
    off += hsize + psize
print(off)
PY
)
"$HELPERS/flipcheck" "$src" 0 "$end" >flips.txt || fail "byte flips: $(cat flips.txt)"
cat flips.txt

# A few flips through the real program: one line naming the file, or a report.
for off in 3 9 20 40 $((end - 10)) $((end + 100)); do
	cp "$src" flip.vmt
	printf '\377' | dd of=flip.vmt bs=1 seek="$off" conv=notrunc status=none
	run vmtrace-report flip.vmt
	case $rc in
	0|2) ;;
	1) [ "$(unfold err.txt | wc -l)" = 1 ] && unfold err.txt | grep -q "^vmtrace-report: flip.vmt: " ||
		fail "byte flip at $off: not one line naming the file" ;;
	*) fail "byte flip at $off: exit $rc" ;;
	esac
done

# The state after the file's name says what the notes say: a cut file is "not finished";
# one whose end record is sound but whose middle was zeroed (chunks lost), or one with a
# chunk that fails its checksum, is "damaged" (both were "recording not finished" or
# nothing); a whole one, neither.
k="$DATA/why/sample/kvm.vmt"
state() {
	vmtrace-report "$1" 2>"$(basename "$1").err" | sed -n 's/^File: [^ ]*\( (.*)\)\{0,1\}$/\1/p'
}
head -c 200000 "$k" >cut.vmt
cp "$k" zeroed.vmt
dd if=/dev/zero of=zeroed.vmt bs=1 seek=150000 count=10000 conv=notrunc 2>/dev/null
cp "$k" flipped.vmt
printf X | dd of=flipped.vmt bs=1 seek=100000 conv=notrunc 2>/dev/null
[ "$(state "$k")" = "" ] || fail "a whole file: '$(state "$k")'"
[ "$(state cut.vmt)" = " (recording not finished)" ] || fail "a cut file: '$(state cut.vmt)'"
grep -q "not finished" cut.vmt.err || fail "the cut file's note"
[ "$(state zeroed.vmt)" = " (damaged)" ] || fail "a zeroed middle: '$(state zeroed.vmt)'"
grep -q "its end record counts" zeroed.vmt.err || fail "the zeroed file's note"
# the HTML page's fact says the same
for f in cut zeroed; do
	vmtrace-report --html=$f.html $f.vmt >/dev/null 2>&1
done
grep -q '"finished">not finished: ' cut.html || fail "the cut file's page"
grep -q '"finished">damaged: ' zeroed.html || fail "the zeroed file's page"
[ "$(state flipped.vmt)" = " (damaged)" ] || fail "a flipped byte: '$(state flipped.vmt)'"
# damage that no chunk check sees, but the warnings (and status 2) do: the same word
for edit in swap:30:31 dup:10 chunk:0:first_ts=1000 end:monotonic.end_ns=9300000000000000000; do
	python3 "$top_srcdir/tests/helpers/vmtedit.py" "$k" edited.vmt "$edit" || fail "vmtedit $edit"
	[ "$(state edited.vmt)" = " (damaged)" ] || fail "$edit: '$(state edited.vmt)'"
	vmtrace-report edited.vmt >/dev/null 2>&1
	[ $? = 2 ] || fail "$edit: not status 2"
done
vmtrace-report --json flipped.vmt >flipped.json 2>/dev/null
# -v puts the damaged chunk's LOST line where its events were lost: from the line's time to
# the chunk's last, with no event of that CPU between (it said "before this point", at the
# chunk's first time, the events lost after it)
vmtrace-report -v flipped.vmt 2>/dev/null | python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
lost = [i for i, l in enumerate(lines) if " LOST " in l]
assert len(lost) == 1, lost
m = re.match(r" *([0-9.]+) cpu +([0-9]+) LOST events from this point to ([0-9.]+) \(damaged", lines[lost[0]])
assert m, lines[lost[0]]
at, cpu, until = float(m.group(1)), m.group(2), float(m.group(3))
ev = [(float(l.split()[0]), l.split()[2]) for l in lines if re.match(r" *[0-9.]+ cpu ", l)]
before = [t for t, c in ev if c == cpu and t < at]
after = [t for t, c in ev if c == cpu and t > at]
assert until > at and before and after and after[0] > until, (at, until, before[-1:], after[:1])
print("LOST from %.9f to %.9f: the last event before %.9f, the next %.9f" % (at, until, before[-1], after[0]))
' || fail "-v: the damaged chunk's LOST line"
# Bytes after a sound end record: another recording appended whole (cat a b), or anything
# else; read as the recording they follow (the same figures, status 0), and said with
# where they start (they were ignored silently)
cat "$k" "$k" >joined.vmt
cat "$k" /dev/null >tail.vmt
printf 'not a recording' >>tail.vmt
vmtrace-report --json "$k" >whole.json 2>/dev/null || fail "the whole file"
size=$(stat -c %s "$k")
for f in joined tail; do
	run vmtrace-report --json $f.vmt
	expect_rc 0 "$f.vmt"
	cmp -s out.txt whole.json ||
		python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); a.pop("file"); b.pop("file"); sys.exit(a != b)' \
			out.txt whole.json || fail "$f.vmt: not the figures of the recording it starts with"
	[ "$f" = joined ] && n=$size what="another recording's file header starts there (files joined); report it on its own"
	[ "$f" = tail ] && n=15 what="not part of this recording"
	[ "$(unfold err.txt)" = "vmtrace-report: warning: $f.vmt: $n bytes after the recording's end record (offset $size) were not read: $what" ] ||
		{ cat err.txt; fail "$f.vmt: the note"; }
done
# Every kind of note at once (a damaged META read from its copy, a second META, bytes after
# END, an END that counts more chunks, an impossible value, a repeated chunk, a damaged
# one, time going back, a chunk's wrong first time): ten notes, where the program had room
# for nine (it crashed, or exited 202 for 2). Each said once, naming the file; status 2.
printf 'garbage-tail' >tailbytes
python3 "$top_srcdir/tests/helpers/vmtedit.py" "$k" all.vmt mcpy meta2:58 end:-chunk.index \
	end:chunk.count=205 end:monotonic.end_ns=9300000000000000000 dup:10 corrupt:20 \
	swap:30:31 chunk:0:first_ts=1000 metadamage append:tailbytes || fail "vmtedit all.vmt"
for cmd in "vmtrace-report" "vmtrace-report --json" "vmtrace-convert --csv -o all.csv"; do
	run $cmd all.vmt
	expect_rc 2 "$cmd all.vmt"
	for what in "damaged metadata block at offset 16: its copy was read instead" \
		"12 bytes after the recording's end record" "its end record counts 205 chunks" \
		"begins at another time than its pages do" "an impossible value of monotonic.end_ns" \
		"repeats the one at offset" "a second metadata block at offset" \
		"damaged data skipped: 1 chunk" "time goes back on CPU 1"; do
		[ "$(unfold err.txt | grep -c "^${cmd%% *}: warning: all.vmt: .*$what")" = 1 ] ||
			{ cat err.txt; fail "$cmd all.vmt: '$what' not said once"; }
	done
done
# a finished but damaged recording with another appended: still its own end record's file
# (it was read as a cut one, "not finished", its end record's count of chunks not said)
cat zeroed.vmt "$k" >zjoined.vmt
run vmtrace-report zjoined.vmt
expect_rc 2 "zjoined.vmt"
unfold err.txt | grep -q "warning: zjoined.vmt: $size bytes after the recording's end record (offset $size) were not read: another recording's file header" &&
	unfold err.txt | grep -q "its end record counts" && ! grep -q "not finished" err.txt ||
	{ cat err.txt; fail "zjoined.vmt: the notes"; }
[ "$(state zjoined.vmt)" = " (damaged)" ] || fail "zjoined.vmt: '$(state zjoined.vmt)'"
[ "$(json flipped.json 'd["bad_chunks"]')" -ge 1 ] ||
	fail "the flipped chunk is not counted as damage"
exit 0
