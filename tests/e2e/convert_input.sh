#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-convert tells the truth about its input, checked against independent answers:
#  - writing over the input (same name, a hard or symbolic link, standard output onto it,
#    the input given as "-" with the file on standard input) is refused with one line and
#    exit 64, and the input is left as it was;
#  - damaged chunks and unfinished files: the same warnings as vmtrace-report, exit 2, the
#    output published with the rows the report counts (pairs, total) on the same file;
#  - empty selections: one note saying why, with the CPUs, vCPUs and time span that a
#    Python recount of the unfiltered per-event rows finds;
#  - options a mode or an input has no use for: honoured (--to-vmt --cpu, compared with the
#    report's --cpu) or refused with exit 64;
#  - JSON lines: integers above 2^53 are strings, those below numbers.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
"$HELPERS/mkvmt" --random 20000 2 "$F618" two.vmt || fail mkvmt
"$HELPERS/mkvmt" --random 40000 1 "$F618" one.vmt || fail mkvmt

# --- Writing over the input ---------------------------------------------------------------
cp two.vmt in.vmt
cp two.vmt orig.vmt
ln in.vmt hard.vmt
ln -s in.vmt soft.vmt
for mode in --csv --jsonl "--legacy --cpu 0" --to-vmt; do
	for out in in.vmt hard.vmt soft.vmt; do
		run vmtrace-convert $mode -o $out in.vmt
		[ "$rc" = 64 ] || fail "$mode -o $out: exit $rc, not 64"
		[ "$(unfold err.txt | wc -l)" = 1 ] &&
			unfold err.txt | grep -q "^vmtrace-convert: $out: .*input file.*refusing to write over it" ||
			fail "$mode -o $out: $(cat err.txt)"
		cmp -s in.vmt orig.vmt || fail "$mode -o $out changed the input"
		[ -L soft.vmt ] && [ "$(stat -c %h in.vmt)" = 2 ] || fail "$mode -o $out: links replaced"
		! ls ./*.part 2>/dev/null || fail "$mode -o $out left a temporary file"
	done
done
vmtrace-convert --csv in.vmt >>in.vmt 2>err.txt
rc=$?
[ "$rc" = 64 ] && unfold err.txt | grep -q "standard output is the input file in.vmt" ||
	fail "standard output onto the input: exit $rc: $(cat err.txt)"
cmp -s in.vmt orig.vmt || fail "writing to standard output changed the input"
# The file on standard input is read in place ("-"): the output must not be it either, by
# its name, a link, or standard output; a pipe is copied first, so it may be written.
for mode in --csv --jsonl "--legacy --cpu 0" --to-vmt; do
	for out in in.vmt hard.vmt soft.vmt; do
		vmtrace-convert $mode -o $out - <in.vmt >out.txt 2>err.txt
		rc=$?
		[ "$rc" = 64 ] || fail "$mode -o $out - <in.vmt: exit $rc, not 64"
		[ "$(unfold err.txt | wc -l)" = 1 ] && unfold err.txt | grep -q \
			"^vmtrace-convert: $out: the output is the file on standard input: refusing" || fail "$mode -o $out - <in.vmt: $(cat err.txt)"
		cmp -s in.vmt orig.vmt || fail "$mode -o $out - <in.vmt changed the input"
		! ls ./*.part 2>/dev/null || fail "$mode -o $out - left a temporary file"
	done
done
vmtrace-convert --csv - <in.vmt >>in.vmt 2>err.txt
rc=$?
[ "$rc" = 64 ] && [ "$(unfold err.txt | wc -l)" = 1 ] &&
	unfold err.txt | grep -q "^vmtrace-convert: standard output is the file on standard input" ||
	fail "standard output onto the file on standard input: exit $rc: $(cat err.txt)"
cmp -s in.vmt orig.vmt || fail "standard output onto standard input's file changed the input"
vmtrace-convert --csv -o stdin.csv - <in.vmt || fail "- <in.vmt to another file"
vmtrace-convert --csv -o in.csv in.vmt || fail "in.vmt to CSV"
cmp -s stdin.csv in.csv || fail "- <in.vmt: not the rows of in.vmt"
# The same bytes in another file are another file: a recording may replace it (rows never
# replace a recording: tests/e2e/output_over_recording.sh).
cp two.vmt other.vmt
run vmtrace-convert --to-vmt -o other.vmt in.vmt
expect_rc 0 "a copy of the input as the output"
grep -qa "converted_from" other.vmt || fail "the copy was not replaced by the .vmt"
run vmtrace-report --json other.vmt
expect_rc 0 "the copy read back"
[ "$(json out.txt 'd["pairs"]')" = "$(vmtrace-report --json in.vmt |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["pairs"])')" ] ||
	fail "the copy has not in.vmt's pairs"

# --- Damaged chunks and unfinished files ----------------------------------------------------
# Four bytes flipped in the middle of the third chunk's compressed data (block headers
# in man/vmtrace-file.5: type, header size, payload size).
damage() {	# damage IN OUT
	python3 - "$1" "$2" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off, n = 16, 0
while off < len(b):
    typ, hs, ps = struct.unpack_from("<IIQ", b, off)
    if typ == 0x4B4E4843:
        n += 1
        if n == 3:
            mid = off + hs + ps // 2
            b[mid:mid + 4] = bytes(x ^ 0xff for x in b[mid:mid + 4])
            break
    off += hs + ps
assert n == 3, "fewer than three chunks"
open(sys.argv[2], "wb").write(b)
PY
}
damage two.vmt dmg.vmt || fail "damaging a copy"
damage one.vmt dmg1.vmt || fail "damaging a copy"
head -c $(($(stat -c %s two.vmt) * 2 / 3)) two.vmt >cut.vmt
# the messages without the program's name (whose length folds them at other spaces)
warnings() { unfold "$1" | sed 's/^vmtrace-[a-z]*: //'; }

for f in dmg.vmt cut.vmt; do
	vmtrace-report --json $f >rep.json 2>rep.err
	[ $? = 2 ] || fail "vmtrace-report does not find $f damaged or unfinished"
	for mode in --csv --jsonl "--csv --events" --to-vmt; do
		rm -f out	# the last --to-vmt's copy: rows never replace a recording
		run vmtrace-convert $mode -o out $f
		expect_rc 2 "$mode $f"
		[ "$(warnings err.txt)" = "$(warnings rep.err)" ] ||
			fail "$mode $f: convert says '$(cat err.txt)', report '$(cat rep.err)'"
		[ -s out ] && ! ls ./out.*.part 2>/dev/null || fail "$mode $f: output not published"
		case $mode in
		--csv)	python3 - out rep.json <<'PY' || fail "$f: the CSV is not what the report counts"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
d = json.load(open(sys.argv[2]))
assert len(rows) == d["pairs"] and sum(int(r["latency_ns"]) for r in rows) == d["total_ns"]
PY
			;;
		--jsonl) [ "$(wc -l <out)" = "$(json rep.json 'd["pairs"]')" ] ||
				fail "$f: JSON lines are not the report's pairs" ;;
		--to-vmt)
			# a cut file's copy stays unfinished; a damaged chunk's hole is a
			# lost-events mark in the copy: no pair across it either, and its END
			# counts the chunk lost: the copy is damaged as the input is
			vmtrace-report --json out >copy.json 2>copy.err
			crc=$?
			case $f in
			cut.vmt) [ $crc = 2 ] && unfold copy.err | grep -q "not finished" ;;
			*) [ $crc = 2 ] && unfold copy.err | grep -q "1 chunk lost with the damaged data" ;;
			esac || fail "$f: the .vmt copy reads $crc: $(cat copy.err)"
			[ "$(json copy.json '(d["pairs"], d["total_ns"], d["gap_dropped"])')" = \
			  "$(json rep.json '(d["pairs"], d["total_ns"], d["gap_dropped"])')" ] ||
				fail "$f: the .vmt copy holds other pairs than the report counts" ;;
		esac
	done
done
# --legacy (one CPU): the same warning; the trace.bin holds what the report reads.
vmtrace-report --legacy dmg1.vmt >rep.txt 2>rep.err
run vmtrace-convert --legacy -o dmg1.bin dmg1.vmt
expect_rc 2 "--legacy of a damaged file"
[ "$(warnings err.txt | grep -v "dmg1.bin: written in its recording's event layout")" = "$(warnings rep.err)" ] ||
	fail "--legacy: $(cat err.txt)"
vmtrace-report --legacy --format-dir "$F618" dmg1.bin >bin.txt 2>/dev/null
[ "$(head -3 bin.txt)" = "$(head -3 rep.txt)" ] || fail "--legacy: $(cat bin.txt) vs $(cat rep.txt)"

# --- Empty selections -----------------------------------------------------------------------
# What the recording has, from the unfiltered per-event rows: CPUs and vCPUs of the exits
# (as lists like 0-1), and the first and last exit's time.
has() {	# has FILE: the note's second half
	vmtrace-convert --csv --events "$1" | python3 -c '
import csv, sys
ex = [r for r in csv.DictReader(sys.stdin) if r["kind"] == "exit"]
def lst(ids):
    ids, out = sorted(ids), []
    for i in ids:
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in out)
def s(ns):
    return "%d.%09d s" % divmod(ns, 10**9)
cpus = {int(r["pcpu"]) for r in ex}
vcpus = {int(r["vcpu"]) for r in ex if r["vcpu"]}
t = [int(r["time_ns"]) for r in ex]
print("the recording has exits on CPU%s %s, of vCPU%s %s, from %s to %s" % (
    "s" if len(cpus) > 1 else "", lst(cpus), "s" if len(vcpus) > 1 else "", lst(vcpus),
    s(min(t)), s(max(t))))'
}
empty() {	# empty FILE WHY OPTIONS...: nothing selected, one note saying WHY
	f=$1 why=$2
	shift 2
	run vmtrace-convert --csv "$@" "$f"
	expect_rc 0 "$* $f"
	[ "$(wc -l <out.txt)" = 1 ] || fail "$* $f: rows came out"
	want="vmtrace-convert: $f: nothing selected: $why; $(has "$f")"
	[ "$(unfold err.txt)" = "$want" ] || fail "$* $f: '$(cat err.txt)', not '$want'"
}
empty two.vmt "no exit on CPU 5000" --cpu 5000
empty one.vmt "no exit of vCPU 3" --vcpu 3
empty two.vmt "--from 10.000000000 s is after the last exit" --from 10s
empty two.vmt "no exit meets all the filters at once" --cpu 0 --vcpu 1
# vmtrace-report says the same, in every view, and its figures say nothing was selected
report_empty() {	# report_empty FILE WHY OPTIONS...
	f=$1 why=$2
	shift 2
	for view in "" --json -v; do
		# shellcheck disable=SC2086 # the view's word
		run vmtrace-report $view "$@" "$f"
		expect_rc 0 "report $view $* $f"
		want="vmtrace-report: $f: nothing selected: $why; $(has "$f")"
		[ "$(unfold err.txt)" = "$want" ] || fail "report $view $* $f: '$(cat err.txt)', not '$want'"
	done
	# the original's four lines count every event: no filter goes with them
	run vmtrace-report --legacy "$@" "$f"
	expect_rc 64 "report --legacy $* $f"
	unfold err.txt | grep -q "^vmtrace-report: --legacy .*it takes no filter (--[a-z]* given)$" ||
		fail "report --legacy $* $f: $(cat err.txt)"
	# the text: pairs there were, but none selected (not "no pairs")
	run vmtrace-report "$@" "$f"
	grep -q "^None of these pairs selected by the filters: no latency figures" out.txt &&
		! grep -q "^No exit-entry pairs" out.txt || fail "report $* $f: the summary's last line"
	run vmtrace-report --json "$@" "$f"
	[ "$(json out.txt 'd["pairs"] == d["filtered_out"] and d["top"] == []')" = True ] ||
		fail "report --json $* $f: pairs selected"
}
report_empty two.vmt "no exit on CPU 5000" --cpu 5000
report_empty one.vmt "no exit of vCPU 3" --vcpu 3
report_empty two.vmt "--from 10.000000000 s is after the last exit" --from 10s
report_empty two.vmt "no exit has the reason given (the report without --reason lists those it has)" \
	--reason hypercall
run vmtrace-convert --jsonl --events --vcpu 3 one.vmt
[ "$rc" = 0 ] && [ ! -s out.txt ] && unfold err.txt | grep -q "nothing selected: no exit of vCPU 3" ||
	fail "--jsonl --events --vcpu 3: $(cat err.txt)"
# Whole-page copies of CPUs the recording does not have: refused before any file is made
# (a .vmt of no CPU is one its reader refuses), naming those it has.
cat >c1.txt <<'S'
exit 1 1000 7 0x78 0
entry 1 2000 7 0
S
"$HELPERS/mkvmt" "$F618" cpu1.vmt <c1.txt || fail mkvmt
run vmtrace-convert --legacy --cpu 0 -o c0.bin cpu1.vmt
expect_rc 64 "--legacy --cpu 0 of a CPU-1 recording"
[ "$(unfold err.txt)" = "vmtrace-convert: cpu1.vmt: no CPU 0 in the recording: it has CPU 1 (--cpu chooses among them)" ] ||
	fail "--legacy --cpu 0: $(cat err.txt)"
[ ! -e c0.bin ] || fail "--legacy --cpu 0: a file was made"
run vmtrace-convert --to-vmt --cpu 4-5 -o c45.vmt two.vmt
expect_rc 64 "--to-vmt --cpu 4-5 of a CPU 0-1 recording"
unfold err.txt | grep -qx "vmtrace-convert: two.vmt: no CPUs 4-5 in the recording: it has CPUs 0-1 (--cpu chooses among them)" || fail "--to-vmt --cpu 4-5: $(cat err.txt)"
[ ! -e c45.vmt ] || fail "--to-vmt --cpu 4-5: a file was made"

# --- Options a mode or an input does not use --------------------------------------------
for opts in "--to-vmt --reason hlt" "--to-vmt --vcpu 0" "--to-vmt --from 1ms" \
	    "--legacy --vcpu 0" "--legacy --to 1ms" "--legacy --cpu 0,1"; do
	run vmtrace-convert $opts -o x.out two.vmt
	[ "$rc" = 64 ] || fail "$opts: exit $rc, not 64"
	expect_one_line_error vmtrace-convert "copies whole .*only --cpu"
	[ ! -e x.out ] || fail "$opts: wrote an output"
done
"$HELPERS/mkvmt" --legacy --random 100 1 "$F618" t.bin || fail mkvmt
for args in "--pair kvm:kvm_exit,kvm:kvm_entry two.vmt" \
	    "--pair kvm:kvm_exit,kvm:kvm_entry --format-dir $F618 t.bin" \
	    "--format-dir $F618 two.vmt" "--format-dir $F618 $DATA/tracedat/kvm.v6.dat"; do
	run vmtrace-convert --csv $args
	[ "$rc" = 64 ] || fail "$args: exit $rc, not 64"
	expect_one_line_error vmtrace-convert "--[a-z-]* does not apply"
	[ ! -s out.txt ] || fail "$args: rows came out"
done
run vmtrace-convert --csv --format-dir "$F618" t.bin
expect_rc 0 "--format-dir for a trace.bin"
# --to-vmt --cpu: the copy holds that CPU's exits as the report selects them.
run vmtrace-convert --to-vmt --cpu 1 -o cpu1copy.vmt two.vmt
expect_rc 0 "--to-vmt --cpu 1"
vmtrace-report --json cpu1copy.vmt >a.json || fail "report of the copy"
vmtrace-report --json --cpu 1 two.vmt >b.json || fail "report --cpu 1"
[ "$(json a.json '(d["cpus"], d["pairs"], d["total_ns"], d["latency_ns"]["max"])')" = \
  "$(json b.json '([1], d["pairs"] - d["filtered_out"], d["total_ns"], d["latency_ns"]["max"])')" ] ||
	fail "--to-vmt --cpu 1: $(json a.json '(d["cpus"], d["pairs"])') vs the report's --cpu 1"

# --- JSON lines: integers above 2^53 as strings ---------------------------------------------
cat >big.txt <<'S'
exit 0 9007199254730001 7 0x78 0
entry 0 9007199254730301 7 0
exit 0 9007199254750001 7 0x4242 0
entry 0 9007199254750123 7 0
S
"$HELPERS/mkvmt" "$F618" big.vmt <big.txt || fail mkvmt
for mode in "" --events; do
	vmtrace-convert --jsonl $mode big.vmt >big.jsonl || fail "--jsonl $mode"
	vmtrace-convert --csv $mode big.vmt >big.csv || fail "--csv $mode"
	python3 - big.jsonl big.csv <<'PY' || fail "--jsonl $mode: numbers above 2^53"
import csv, json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ref = list(csv.DictReader(open(sys.argv[2], newline="")))
assert len(rows) == len(ref) > 0
above = 0
for r, c in zip(rows, ref):
    for k, v in r.items():
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, int):
            assert v <= 2**53, f"{k} = {v}: a number above 2^53"
            assert str(v) == c[k], (k, v, c[k])
        elif not v.startswith("0x") and v.isdigit():
            assert int(v) > 2**53, f"{k} = {v!r}: a string below 2^53"
            assert v == c[k], (k, v, c[k])
            above += 1
assert above > 0, "no value above 2^53: the file tests nothing"
PY
done
exit 0
