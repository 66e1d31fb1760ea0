#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# trace-cmd's trace.dat as input to vmtrace-report and vmtrace-convert: v6, v7 with zstd
# and zlib chunks, uncompressed v7, an instance buffer, lost events, tsc2nsec, 64 CPUs,
# no data. Oracles: `trace-cmd report -t` of each committed file, event by event (time to
# the ns, CPU, pid, event); the same pages read from a .vmt must give the same report.
# With trace-cmd installed (the setup script installs it), trace-cmd also reads the files
# written here by tests/helpers/mktracedat.
. "$(dirname "$0")/lib.sh"
T="$DATA/tracedat"
SYS="--pair $SYSCALL_EVENTS"
ORACLE="python3 $top_srcdir/tests/helpers/tracecmd_oracle.py"

oracle() {	# oracle FILE REPORT BEGIN END [options]: every event, as trace-cmd prints it
	f=$1 rep=$2 b=$3 e=$4
	shift 4
	vmtrace-convert --csv --events "$@" "$f" >ev.csv || fail "convert $f"
	$ORACLE "$rep" ev.csv "$b" "$e" || fail "$f differs from trace-cmd report"
}
oracle "$T/kvm.v6.dat" "$T/kvm.v6.report.txt.gz" kvm_exit kvm_entry
oracle "$T/kvm.v7zstd.dat" "$T/kvm.v7zstd.report.txt.gz" kvm_exit kvm_entry
oracle "$T/kvm.v7zlib.dat" "$T/kvm.v6.report.txt.gz" kvm_exit kvm_entry
oracle "$T/syscalls-extract.dat" "$T/syscalls-extract.report.txt.gz" sys_enter sys_exit $SYS
oracle "$T/syscalls-extract.v6.dat" "$T/syscalls-extract.v6.report.txt.gz" sys_enter sys_exit $SYS
oracle "$T/tsc2nsec.dat" "$T/tsc2nsec.report.txt.gz" sys_enter sys_exit $SYS

# The same pages give the same report whatever the container (minus what only a .vmt
# knows: its chunking, the recording's duration, and so the guest's availability).
norm() {	# norm FILE [options] > normalised JSON
	vmtrace-report --json "$@" >n.json
	[ $? -le 2 ] || fail "report --json $*"
	python3 - n.json <<'P'
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("file", "format_source", "chunks", "cpus", "duration_ns", "lost_events_stats",
          "finished", "legacy"):
    d.pop(k, None)
for v in d.get("vcpus") or []:
    v.pop("in_guest_percent", None)
print(json.dumps(d, sort_keys=True))
P
}
norm "$T/kvm.v6.dat" >a.json
norm "$T/kvm.v7zstd.dat" >b.json
norm "$T/kvm.v7zlib.dat" >c.json
cmp -s a.json b.json && cmp -s a.json c.json || fail "v6, v7 zstd and v7 zlib reports differ"
# 16 pages of the KVM sample: they end with an exit whose entry was not kept (open at stop)
json n.json 'd["events"] == 1248 and d["pairs"] == 623 and d["open_at_stop"] == 1 and [r["name"] for r in d["reasons"]] == ["cpuid", "npf", "io", "interrupt", "hlt"]' |
	grep -q True || { cat n.json; fail "kvm.v7zlib.dat: figures"; }
vmtrace-report "$T/kvm.v7zstd.dat" >r.txt || fail "report kvm.v7zstd.dat"
grep -qx "Format: trace-cmd trace.dat v7, zstd" r.txt || fail "format line: $(grep ^Format r.txt)"
grep -q '^Recorded on testhost (Linux 6.1.0-57-amd64)$' r.txt || { cat r.txt; fail "uname"; }
grep -q '^  hlt(0x78) ' r.txt || fail "SVM reason names from the file's own format"

# An instance buffer (trace-cmd extract -B), events lost on CPU 1: the CPUSTAT options of
# that instance give the loss, the pages' own flags give where.
vmtrace-report --json $SYS "$T/syscalls-extract.dat" >j.json
[ $? = 0 ] || fail "report syscalls-extract.dat"
json j.json 'd["lost_events_stats"] > 0 and d["lost_events_stats"] == d["lost_events_pages"] and "buffer \"vmtrace-fixture\"" in d["format_source"]' |
	grep -q True || { cat j.json; fail "syscalls-extract.dat: losses or buffer"; }
norm $SYS "$T/syscalls-extract.dat" >a.json
norm $SYS "$T/syscalls-extract.v6.dat" >b.json
cmp -s a.json b.json || fail "v7 and v6 of the extract differ"

# tsc2nsec: x86-tsc ticks converted with the file's mult and shift, as trace-cmd does.
vmtrace-report --json $SYS "$T/tsc2nsec.dat" >j.json
json j.json 'd["clock"] == "x86-tsc" and d["unit"] == "ns" and "tsc2nsec" in d["format_source"] and 50 < d["latency_ns"]["min"] < 1000' |
	grep -q True || { cat j.json; fail "tsc2nsec.dat"; }

# Into a .vmt and back: the same report.
vmtrace-convert --to-vmt -o k.vmt "$T/kvm.v7zstd.dat" || fail "--to-vmt"
norm k.vmt >d.json
norm "$T/kvm.v7zstd.dat" >b.json
cmp -s b.json d.json || { diff b.json d.json | head; fail "--to-vmt changed the report"; }
vmtrace-report k.vmt | grep -q "^Format" && fail "a .vmt names no foreign format"
# The context formats a trace.dat holds become the .vmt's context keys: the same answers.
vmtrace-convert --to-vmt $SYS -o c.vmt "$T/context.dat" || fail "--to-vmt of context.dat"
"$HELPERS/ctxstat" -p "$SYSCALL_EVENTS" "$T/context.dat" >a.txt || fail "ctxstat context.dat"
"$HELPERS/ctxstat" c.vmt >b.txt || fail "ctxstat c.vmt"
grep -q "^formats 30 " a.txt || { cat a.txt; fail "context.dat: context formats"; }
diff a.txt b.txt || fail "--to-vmt changed the context of context.dat"

# Into the original tool's trace.bin (one CPU, 4 KiB pages): the same four figures.
vmtrace-convert --legacy -o k.bin "$T/kvm.v7zlib.dat" || fail "--legacy from a trace.dat"
vmtrace-report --legacy --format-dir "$DATA/formats/linux-6.1-kvmhost" k.bin >a.txt ||
	fail "report of the trace.bin"
vmtrace-report --legacy "$T/kvm.v7zlib.dat" >b.txt || fail "legacy report of the trace.dat"
cmp -s a.txt b.txt || { diff a.txt b.txt; fail "trace.dat -> trace.bin changed the figures"; }

# 64 CPUs, generated; the same as the .vmt they come from.
"$HELPERS/mkvmt" --random 20000 64 "$DATA/formats/linux-6.18-x86_64" many.vmt || fail mkvmt
"$HELPERS/mktracedat" -V 6 -z none many.vmt many6.dat || fail mktracedat
"$HELPERS/mktracedat" -V 7 -z zlib -n 3 many.vmt manyz.dat || fail mktracedat
"$HELPERS/mktracedat" -V 7 -z zstd -n 2 -b inst many.vmt manyb.dat || fail mktracedat
norm many.vmt >a.json
for f in many6.dat manyz.dat manyb.dat; do
	norm "$f" >b.json
	cmp -s a.json b.json || { diff a.json b.json | head; fail "$f differs from many.vmt"; }
done
vmtrace-report many6.dat | grep -q "^Traced CPUs: 0-63$" || fail "64 CPUs"

# No data at all: an empty report, not an error.
printf 'cpus 0-3\n' | "$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" empty.vmt || fail mkvmt
for v in "6 none" "7 zstd"; do
	set -- $v
	"$HELPERS/mktracedat" -V "$1" -z "$2" empty.vmt empty.dat || fail mktracedat
	run vmtrace-report empty.dat
	expect_rc 0 "empty v$1"
	grep -q "^Number of VM events = 0$" out.txt || fail "empty v$1: events"
	run vmtrace-convert --csv empty.dat
	expect_rc 0 "empty v$1 csv"
	[ "$(wc -l <out.txt)" = 1 ] || fail "empty v$1: only the header row"
done

# trace-cmd reads what mktracedat writes the same way (when installed).
if command -v trace-cmd >/dev/null; then
	for f in many6.dat manyb.dat; do
		trace-cmd report -t -i "$f" >tc.txt 2>/dev/null || fail "trace-cmd report $f"
		oracle "$f" tc.txt kvm_exit kvm_entry
	done
else
	echo "NOTE: trace-cmd not installed, generated files not cross-checked"
fi

# Bad input: one line naming the file and the problem.
run vmtrace-report "$T/kvm.v6.dat" --pair kvm:kvm_exit,kvm:nope
expect_one_line_error vmtrace-report "kvm.v6.dat: no kvm:nope event format in the file"
# (what the file holds instead: tests/e2e/tracedat_other_events.sh)
# a --pair not of the form is a bad command line, refused before the file is read
# (tests/e2e/cmdline.sh)
run vmtrace-report "$T/kvm.v6.dat" --pair kvm_exit
expect_rc 64 "--pair kvm_exit"
unfold err.txt | grep -qx "vmtrace-report: invalid --pair 'kvm_exit': the form is SYSTEM:BEGIN,SYSTEM:END, e.g. kvm:kvm_exit,kvm:kvm_entry" ||
	fail "--pair kvm_exit: $(cat err.txt)"
run vmtrace-report "$T/syscalls-extract.dat"
expect_one_line_error vmtrace-report "no kvm:kvm_exit or kvm:kvm_entry event format in the file; it holds"
# An input option the file has no use for is refused, never dropped (common/source.c).
run vmtrace-report --pair kvm:kvm_exit,kvm:kvm_entry "$DATA/sample-kvm.vmt" --legacy
expect_one_line_error vmtrace-report "sample-kvm.vmt: --pair does not apply"
[ "$rc" = 64 ] || fail "--pair for a .vmt: exit $rc, not 64 (a bad command line)"
run vmtrace-report --pair kvm:kvm_exit,kvm:kvm_entry "$DATA/sample-kvm.vmt"
expect_one_line_error vmtrace-report "sample-kvm.vmt: --pair does not apply"
[ "$rc" = 64 ] || fail "--pair for a .vmt: exit $rc, not 64 (a bad command line)"
run vmtrace-report --format-dir "$DATA/formats/linux-6.18-x86_64" "$T/kvm.v6.dat"
expect_one_line_error vmtrace-report "kvm.v6.dat: --format-dir does not apply"
[ "$rc" = 64 ] || fail "--format-dir for a trace.dat: exit $rc, not 64"
# --pair for a trace.bin: refused as soon as the format is known, with or without the
# formats that read it (without them, trying the guessed layouts would fail first and hide
# the option as the mistake), by both programs
vmtrace-convert --legacy --cpu 1 -o t.bin "$DATA/why/sample/kvm.vmt" 2>/dev/null ||
	fail "convert --legacy the sample"
KH="$DATA/formats/linux-6.1-kvmhost"
vmtrace-report --legacy --format-dir "$KH" t.bin >/dev/null || fail "report t.bin with its formats"
for p in "vmtrace-report" "vmtrace-report --format-dir $KH" "vmtrace-convert --csv" \
	 "vmtrace-convert --csv --format-dir $KH"; do
	# shellcheck disable=SC2086 # the program and its options
	run $p --pair kvm:kvm_exit,kvm:kvm_entry t.bin
	[ "$rc" = 64 ] && [ "$(unfold err.txt)" = "${p%% *}: t.bin: --pair does not apply: a trace.bin holds kvm_exit and kvm_entry" ] &&
		[ ! -s out.txt ] || fail "$p --pair t.bin: exit $rc: $(cat err.txt)"
done
# the pair the wrong way round reads the file, but measures the time in the guest: refused
run vmtrace-report --pair kvm:kvm_entry,kvm:kvm_exit "$T/kvm.v6.dat"
[ "$rc" = 64 ] && unfold err.txt | grep -q "^vmtrace-report: --pair kvm:kvm_entry,kvm:kvm_exit measures the time in the guest" &&
	[ ! -s out.txt ] || fail "reversed --pair: exit $rc: $(cat err.txt)"
{ head -c 10 "$T/kvm.v6.dat"; printf '8\000'; tail -c +13 "$T/kvm.v6.dat"; } >v8.dat
run vmtrace-report v8.dat
expect_one_line_error vmtrace-report "v8.dat: unsupported trace.dat version"
{ head -c 12 "$T/kvm.v6.dat"; printf '\001'; tail -c +14 "$T/kvm.v6.dat"; } >be.dat
run vmtrace-report be.dat
expect_one_line_error vmtrace-report "be.dat: big-endian trace.dat"
# Cut anywhere: an error line, or the complete part with a warning (exit 2); never a crash.
for f in kvm.v6.dat kvm.v7zstd.dat kvm.v7zlib.dat syscalls-extract.dat context.dat; do
	size=$(wc -c <"$T/$f")
	pair=
	case $f in syscalls* | context*) pair=$SYS ;; esac
	for cut in 5 11 20 40 100 300 1000 3000 5000 8000 20000 50000 70000; do
		[ "$cut" -lt "$size" ] || continue
		head -c "$cut" "$T/$f" >cut.dat
		run vmtrace-report $pair cut.dat
		case $rc in
		1) [ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "$f cut at $cut: not one line"; }
		   unfold err.txt | grep -q "^vmtrace-report: cut.dat: " || fail "$f cut at $cut: no file name" ;;
		2) unfold err.txt | grep -q "not finished" || fail "$f cut at $cut: no warning" ;;
		*) cat err.txt; fail "$f cut at $cut: exit $rc" ;;
		esac
	done
done
# a file cut inside a CPU's data: the note says where that data starts, and that the file
# ends inside it (it read "extends past the end of the file at offset N", N its start)
f="$DATA/tracedat/kvm.v6.dat"
head -c $(($(stat -c %s "$f") * 99 / 100)) "$f" >cut99.dat
run vmtrace-report cut99.dat
expect_rc 2 "kvm.v6.dat cut at 99 %"
unfold err.txt | grep -q "^vmtrace-report: warning: cut99.dat: the recording was not finished (the file is cut short inside a CPU's data, which starts at offset [0-9]*); figures cover the [0-9]* complete chunks\{0,1\}$" ||
	fail "the cut trace.dat's note: $(cat err.txt)"
# two CPUs, the file cut inside the first's data: the first cut is where (the second's data,
# past the end, once overwrote it with the file's size)
"$HELPERS/mkvmt" --random 3000 2 "$DATA/formats/linux-6.18-x86_64" rnd2.vmt >/dev/null || fail "mkvmt"
"$HELPERS/mktracedat" -V 6 rnd2.vmt rnd2.dat || fail "mktracedat"
head -c 100000 rnd2.dat >cut2.dat
run vmtrace-report cut2.dat
unfold err.txt | grep -q "^vmtrace-report: warning: cut2.dat: the recording was not finished (the file is cut short inside a CPU's data, which starts at offset 8192)" ||
	fail "the two-CPU cut trace.dat's note: $(cat err.txt)"
exit 0
