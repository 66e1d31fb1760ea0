#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Outputs that are not recordings never replace one (a trial lost run1.vmt to
# "vmtrace-report --html run1.vmt run2.vmt", exit 0): for each kind of recording (.vmt,
# the original trace.bin, a trace-cmd trace.dat) and each such output of both programs
# (the HTML page, the OpenMetrics file, CSV, JSON lines, a series, the Perfetto timeline),
# exit 64, one line naming the file and its kind, the file byte for byte as it was (cmp),
# no temporary file left. An old page or CSV is still replaced, and a recording output
# (--to-vmt, --legacy) over a recording still allowed, the one it replaces kept as
# FILE.old byte for byte and said (a swap of the names once lost it), FILE.old refused when
# it is the input, the input itself still refused.
# Also: --to-vmt/--legacy with a --cpu the recording lacks (refused, no file; every file
# written is read back), --to-vmt of a trace.dat without the pair (the --csv words), and
# standard output redirected with > onto the input (said to be emptied already).
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
cp "$DATA/sample-kvm.vmt" in.vmt
"$HELPERS/mkvmt" --random 2000 1 "$F618" keep.vmt || fail mkvmt
"$HELPERS/mkvmt" --legacy --random 200 1 "$F618" keep.bin || fail "mkvmt --legacy"
cp "$DATA/tracedat/kvm.v7zstd.dat" keep.dat
# The kinds by their first bytes, read here (man/vmtrace-file.5, the original tool's
# signature 0xcce96d01, trace-cmd's "\027\010\104tracing").
python3 - <<'PY' || fail "the test's recordings are not of the kinds it expects"
import struct
assert open("keep.vmt", "rb").read(8) == b"VMTRACE\0"
assert struct.unpack("<I", open("keep.bin", "rb").read(4))[0] == 0xcce96d01
assert open("keep.dat", "rb").read(10) == b"\x17\x08\x44tracing"
PY
for f in keep.vmt keep.bin keep.dat; do cp $f orig.$f; done
ln -s keep.vmt link.vmt

kind() {	# kind FILE: the kind the message names
	case $1 in
	*.bin) echo trace.bin ;;
	*.dat) echo trace.dat ;;
	*) echo .vmt ;;
	esac
}

refused() {	# refused PROG FILE WHAT CMD...: exit 64, one line, FILE untouched
	local prog=$1 file=$2 what=$3 target
	shift 3
	run "$@"
	expect_rc 64 "$*"
	[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "$*: not one line"; }
	unfold err.txt |
		grep -qxF "$prog: $file holds a recording ($(kind "$file")): refusing to write $what over it" || { cat err.txt; fail "$*: the message"; }
	target=$file
	[ "$file" = link.vmt ] && target=keep.vmt
	cmp -s "$target" "orig.$target" || fail "$*: $target changed"
	[ ! -s out.txt ] || fail "$*: printed something"
	! ls ./*.part 2>/dev/null || fail "$*: left a temporary file"
}

for f in keep.vmt keep.bin keep.dat link.vmt; do
	refused vmtrace-report $f "the HTML report" vmtrace-report --html $f in.vmt
	refused vmtrace-report $f "the OpenMetrics text" vmtrace-report --openmetrics=$f in.vmt
	refused vmtrace-convert $f "the CSV" vmtrace-convert --csv -o $f in.vmt
	refused vmtrace-convert $f "the CSV" vmtrace-convert --csv --series -o $f in.vmt
	refused vmtrace-convert $f "the JSON lines" vmtrace-convert --jsonl -o $f in.vmt
	refused vmtrace-convert $f "the Perfetto timeline" vmtrace-convert --perfetto -o $f in.vmt
done
[ -L link.vmt ] || fail "the link was replaced"
# The trial's case: two recordings, the page's name forgotten.
refused vmtrace-report keep.vmt "the HTML report" vmtrace-report --html keep.vmt in.vmt --json

# Files that hold no recording are replaced, as before (the new content checked).
echo '<!DOCTYPE html><p>old page' >old.html
echo 'a,b' >old.csv
: >empty.out
run vmtrace-report --html old.html in.vmt
expect_rc 0 "an old page"
grep -q '<svg' old.html && ! grep -q 'old page' old.html || fail "the old page was not replaced"
run vmtrace-convert --csv -o old.csv in.vmt
expect_rc 0 "an old CSV"
[ "$(head -1 old.csv | cut -d, -f1)" = start_ns ] || fail "the old CSV was not replaced"
run vmtrace-convert --jsonl -o empty.out in.vmt
expect_rc 0 "an empty file"
[ "$(wc -l <empty.out)" = "$(($(wc -l <old.csv) - 1))" ] || fail "JSON lines: not a row per CSV row"
run vmtrace-report --openmetrics=old.html in.vmt
expect_rc 0 "metrics over a page"
grep -q '^# TYPE vmtrace_' old.html && ! grep -q '<' old.html ||
	fail "the metrics did not replace the page"

# A recording written over a recording may be what was asked for: the one it replaces is
# kept as FILE.old; the input stays refused.
cp in.vmt copy.vmt
run vmtrace-report --json keep.vmt
n=$(json out.txt 'd["pairs"]')
run vmtrace-convert --to-vmt -o copy.vmt keep.vmt
expect_rc 0 "--to-vmt over another recording"
cmp -s copy.vmt.old in.vmt || fail "--to-vmt: the recording it replaced is not copy.vmt.old"
grep -q "the recording copy.vmt replaced is kept as copy.vmt.old" err.txt ||
	fail "--to-vmt: copy.vmt.old not said: $(cat err.txt)"
run vmtrace-report --json copy.vmt
expect_rc 0 "the --to-vmt copy read back"
[ "$(json out.txt 'd["pairs"]')" = "$n" ] || fail "--to-vmt copy: not keep.vmt's $n pairs"
cp in.vmt copy2.vmt
run vmtrace-convert --legacy -o copy2.vmt keep.vmt
expect_rc 0 "--legacy over another recording"
cmp -s copy2.vmt.old in.vmt || fail "--legacy: the recording it replaced is not copy2.vmt.old"
run vmtrace-report --format-dir "$F618" copy2.vmt
expect_rc 0 "the --legacy copy read back"
# -o copy.vmt copy.vmt.old: keeping copy.vmt would move it over its input
cp copy.vmt.old orig.old
run vmtrace-convert --to-vmt -o copy.vmt copy.vmt.old
expect_rc 64 "--to-vmt from FILE.old to FILE"
grep -q "copy.vmt.old is the input" err.txt || fail "FILE.old as input: $(cat err.txt)"
cmp -s copy.vmt.old orig.old || fail "FILE.old as input: it changed"
run vmtrace-report --json copy.vmt
[ "$(json out.txt 'd["pairs"]')" = "$n" ] || fail "FILE.old as input: copy.vmt changed"
# again: the earlier copy.vmt.old is replaced, and that is said
run vmtrace-convert --to-vmt -o copy.vmt in.vmt
expect_rc 0 "--to-vmt over copy.vmt again"
grep -qxF "vmtrace-convert: the recording copy.vmt replaced is kept as copy.vmt.old, replacing the earlier copy.vmt.old" err.txt ||
	fail "--to-vmt again: $(cat err.txt)"
# a directory at FILE.old: refused before the conversion, FILE as it was
mkdir dir.vmt.old && cp in.vmt dir.vmt
run vmtrace-convert --to-vmt -o dir.vmt keep.vmt
expect_rc 1 "--to-vmt with a directory at FILE.old"
expect_one_line_error vmtrace-convert "dir.vmt.old: a directory, where the recording dir.vmt would be kept"
cmp -s dir.vmt in.vmt || fail "a directory at FILE.old: FILE changed"
# a file that is not a recording is replaced, no FILE.old
echo "not a recording" >plain.vmt
run vmtrace-convert --to-vmt -o plain.vmt keep.vmt
expect_rc 0 "--to-vmt over a plain file"
[ ! -e plain.vmt.old ] || fail "--to-vmt kept a plain file as FILE.old"
run vmtrace-convert --to-vmt -o keep.vmt keep.vmt
expect_rc 64 "--to-vmt over its input"
unfold err.txt | grep -q "keep.vmt: the output is the input file: refusing" || fail "--to-vmt: $(cat err.txt)"
cmp -s keep.vmt orig.keep.vmt || fail "--to-vmt over its input changed it"

# --- --cpu naming no CPU of the recording ------------------------------------------------
# Traced CPUs 0-3 (the metadata), data on CPUs 0 and 1 only.
cat >s.txt <<'S'
cpus 0-3
exit 0 1000 7 0x78 0
entry 0 1900 7 0
exit 1 5000 8 0x78 1
entry 1 15000 8 1
exit 1 20000 8 0x78 1
entry 1 20400 8 1
S
"$HELPERS/mkvmt" "$F618" four.vmt <s.txt || fail mkvmt
for mode in --to-vmt --legacy; do
	out=z.out
	run vmtrace-convert $mode --cpu 7 -o $out four.vmt
	expect_rc 64 "$mode --cpu 7"
	[ "$(unfold err.txt | wc -l)" = 1 ] && unfold err.txt | grep -qxF \
		"vmtrace-convert: four.vmt: no CPU 7 in the recording: it has CPUs 0-3 (--cpu chooses among them)" || { cat err.txt; fail "$mode --cpu 7: the message"; }
	[ ! -e $out ] && ! ls ./*.part 2>/dev/null || fail "$mode --cpu 7 left a file"
done
# The trial's file: CPU 1 only (traced and with data), as its rows say.
sample="$DATA/why/sample/kvm.vmt"
has=$(vmtrace-convert --csv --events "$sample" | python3 -c '
import csv, sys
print(",".join(sorted({r["pcpu"] for r in csv.DictReader(sys.stdin)}, key=int)))')
[ "$has" = 1 ] || fail "the sample's rows are on CPUs $has, not 1"
run vmtrace-convert --to-vmt --cpu 3 -o z.vmt "$sample"
expect_rc 64 "--to-vmt --cpu 3 on the sample"
unfold err.txt | grep -qxF "vmtrace-convert: $sample: no CPU 3 in the recording: it has CPU $has (--cpu chooses among them)" || { cat err.txt; fail "--cpu 3: the message"; }
[ ! -e z.vmt ] || fail "--cpu 3 left z.vmt"
# A CPU traced without data, and one of two asked for: copies that read back.
run vmtrace-convert --to-vmt --cpu 3 -o idle.vmt four.vmt
expect_rc 0 "--cpu 3 (traced, no data)"
unfold err.txt | grep -q "nothing selected: no data on CPU 3; the recording has data on CPUs 0-1" ||
	fail "--cpu 3: no note: $(cat err.txt)"
run vmtrace-report --json idle.vmt
expect_rc 0 "idle.vmt read back"
[ "$(json out.txt 'd["pairs"]')" = 0 ] || fail "idle.vmt: pairs"
run vmtrace-convert --to-vmt --cpu 1,7 -o one.vmt four.vmt
expect_rc 0 "--cpu 1,7"
run vmtrace-report --json one.vmt
expect_rc 0 "one.vmt read back"
# CPU 1's pairs in the script above: 2
[ "$(json out.txt 'd["pairs"]')" = 2 ] || fail "one.vmt: $(json out.txt 'd["pairs"]') pairs, not 2"
run vmtrace-report one.vmt
grep -qx "Traced CPUs: 1" out.txt || fail "one.vmt: $(grep Traced out.txt)"

# --- --to-vmt of a trace.dat without the pair: the words --csv has ----------------------
ctx="$DATA/tracedat/context.dat"
run vmtrace-convert --csv -o c.csv "$ctx"
expect_rc 0 "--csv of context.dat"
unfold err.txt | grep "not one kvm:kvm_exit event in the file" >csv.words || fail "--csv: no words"
grep -q "choose the pair with --pair BEGIN,END" csv.words || fail "--csv: no --pair"
run vmtrace-convert --to-vmt -o t.vmt "$ctx"
expect_rc 0 "--to-vmt of context.dat"
unfold err.txt | grep "not one kvm:kvm_exit event in the file" >vmt.words || fail "--to-vmt: no words"
cmp -s csv.words vmt.words || { cat csv.words vmt.words; fail "--to-vmt: not --csv's words"; }
run vmtrace-report t.vmt
expect_rc 0 "t.vmt read back"
run vmtrace-convert --to-vmt --pair raw_syscalls:sys_enter,raw_syscalls:sys_exit -o t2.vmt "$ctx"
expect_rc 0 "--to-vmt --pair"
! unfold err.txt | grep -q "not one" || fail "--to-vmt --pair: $(cat err.txt)"
run vmtrace-report --json t2.vmt
expect_rc 0 "t2.vmt read back"
[ "$(json out.txt 'd["pairs"]')" -gt 0 ] || fail "t2.vmt: no pairs"
run vmtrace-convert --to-vmt -o k.vmt keep.dat
expect_rc 0 "--to-vmt of a kvm trace.dat"
! unfold err.txt | grep -q "not one" || fail "--to-vmt of kvm pairs: $(cat err.txt)"
run vmtrace-report k.vmt
expect_rc 0 "k.vmt read back"

# --- Standard output onto the input: > has emptied it already ----------------------------
for prog in vmtrace-convert vmtrace-report; do
	opt=
	[ $prog = vmtrace-convert ] && opt=--csv
	cp orig.keep.vmt e.vmt
	$prog $opt e.vmt >e.vmt 2>err.txt
	rc=$?
	expect_rc 64 "$prog e.vmt >e.vmt"
	[ "$(unfold err.txt | wc -l)" = 1 ] && unfold err.txt | grep -qxF "$prog: standard output is the input file e.vmt: the \
shell has already emptied it (> truncates before the program starts)" ||
		{ cat err.txt; fail "$prog >e.vmt: the message"; }
	cp orig.keep.vmt e.vmt
	$prog $opt e.vmt >>e.vmt 2>err.txt
	rc=$?
	expect_rc 64 "$prog e.vmt >>e.vmt"
	unfold err.txt | grep -q "standard output is the input file e.vmt: refusing to write over it" &&
		! unfold err.txt | grep -q emptied || { cat err.txt; fail "$prog >>e.vmt: the message"; }
	cmp -s e.vmt orig.keep.vmt || fail "$prog >>e.vmt changed it"
done
finish
