#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-convert: CSV read back by Python's csv and SQLite's .import, JSON lines, event
# rows, filters, the legacy trace.bin (read by vmtrace-report and, when its source is
# beside the tree, by the original vm-trace itself), .vmt round trips, and atomic output.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
cat >s.txt <<'S'
exit 0 1000 7 0x72 0
entry 0 1300 7 0
exit 0 5000 7 0x7b 0
entry 0 5500 7 0
page 0 missed 5
exit 0 9000 7 0x78 0
entry 0 19000 7 0
exit 0 20000 7 0x4242 0
entry 0 20070 7 0
S
"$HELPERS/mkvmt" "$F618" one.vmt <s.txt || fail mkvmt
"$HELPERS/mkvmt" --random 3000 2 "$F618" two.vmt || fail mkvmt

# CSV: RFC 4180 (CRLF, header), every pair once, values as the report has them.
run vmtrace-convert --csv one.vmt
expect_rc 0 "csv to stdout"
mv out.txt one.csv
[ "$(head -1 one.csv | od -c | grep -c '\\r  \\n')" = 1 ] || fail "CSV lines end in CRLF"
python3 - one.csv <<'PY' || fail "CSV content"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert [r["latency_ns"] for r in rows] == ["300", "500", "10000", "70"], rows
assert [r["reason"] for r in rows] == ["cpuid", "io", "hlt", ""], rows
assert [r["reason_code"] for r in rows] == ["114", "123", "120", str(0x4242)]
assert [r["near_gap"] for r in rows] == ["0", "0", "1", "0"]
assert rows[0]["start_ns"] == "0" and rows[1]["start_ns"] == "4000"
assert rows[0]["vcpu"] == "0" and rows[0]["task"] == "7" and rows[0]["pcpu"] == "0"
assert rows[0]["guest_rip"].startswith("0x") and "intr_info" in rows[0]
PY
# A reason name that needs quoting (a comma in the recording's own table) is quoted,
# in per-exit and per-event rows alike.
cp -r "$F618" fq
sed -i 's/"hlt"/"hlt, idle"/' fq/kvm/kvm_exit/format
"$HELPERS/mkvmt" fq q.vmt <s.txt || fail mkvmt
for m in "" "--events"; do
	vmtrace-convert --csv $m q.vmt >q.csv || fail "csv $m with a comma in a name"
	grep -q '"hlt, idle"' q.csv || fail "csv $m: the name is not quoted"
	python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert "hlt, idle" in [r["reason"] for r in rows], rows
assert all(len(r) == len(rows[0]) and None not in r for r in rows)' q.csv ||
		fail "csv $m: Python reads the quoted name wrong"
done
if command -v sqlite3 >/dev/null; then
	vmtrace-convert --csv -o two.csv two.vmt || fail "csv -o"
	sqlite3 :memory: ".import --csv two.csv x" \
		"select count(*), sum(latency_ns), count(distinct pcpu) from x;" >sq.txt ||
		fail "sqlite3 import"
	vmtrace-report --json two.vmt >two.json
	[ "$(cat sq.txt)" = "$(json two.json '"%d|%d|2" % (d["pairs"], d["total_ns"])')" ] ||
		fail "SQLite sees $(cat sq.txt)"
fi

# JSON lines: the same rows.
run vmtrace-convert --jsonl one.vmt
expect_rc 0 jsonl
python3 - out.txt <<'PY' || fail "JSON lines"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["latency_ns"] for r in rows] == [300, 500, 10000, 70]
assert rows[3]["reason"] is None and rows[3]["reason_code"] == 0x4242
assert rows[2]["near_gap"] == 1 and rows[0]["guest_rip"].startswith("0x")
PY
# One row per event, both kinds; entries carry their latency.
run vmtrace-convert --jsonl --events one.vmt
python3 - out.txt <<'PY' || fail "event rows"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 8 and [r["kind"] for r in rows[:2]] == ["exit", "entry"]
assert rows[1]["latency_ns"] == 300 and rows[0]["latency_ns"] is None
PY
# Another pair's events are begins and ends, not exits and entries: the kind of each event
# row (CSV and JSON lines) is the BEGIN or END that -v prints at its time and task.
S="$DATA/sample-syscalls.vmt"
vmtrace-report -v --top 0 "$S" >v.txt || fail "-v $S"
vmtrace-convert --csv --events "$S" >ev.csv || fail "--csv --events $S"
vmtrace-convert --jsonl --events "$S" >ev.jsonl || fail "--jsonl --events $S"
python3 - v.txt ev.csv ev.jsonl <<'PY' || fail "event rows of a system call pair: kind not -v's"
import csv, json, re, sys
want = []
for l in open(sys.argv[1]):
    m = re.match(r" *(\d+)\.(\d{9}) cpu +\d+ pid +(\d+) (BEGIN|END) ", l)
    if m:
        want.append((int(m[1]) * 10**9 + int(m[2]), m[3], m[4].lower()))
rows = [(int(r["time_ns"]), r["task"], r["kind"]) for r in csv.DictReader(open(sys.argv[2]))]
js = [json.loads(l) for l in open(sys.argv[3])]
assert len(want) > 200000 - 1000 and rows == want, (len(rows), len(want))
assert [(r["time_ns"], str(r["task"]), r["kind"]) for r in js] == want
print(len(want), "events:", {k: sum(1 for w in want if w[2] == k) for k in ("begin", "end")})
PY
# Filters are the report's.
run vmtrace-convert --csv --reason io,hlt --from 3us one.vmt
[ "$(tail -n +2 out.txt | wc -l)" = 2 ] || fail "filters: $(cat out.txt)"
run vmtrace-convert --csv --reason nosuch one.vmt
expect_one_line_error vmtrace-convert "one.vmt: unknown exit reason 'nosuch'"

# Legacy trace.bin: refused where it cannot hold the recording, exact where it can.
run vmtrace-convert --legacy -o two.bin two.vmt
expect_one_line_error vmtrace-convert "several CPUs .*--cpu"
[ ! -e two.bin ] && ! ls ./*.part 2>/dev/null || fail "a refused conversion left a file"
run vmtrace-convert --legacy --reason io -o two.bin two.vmt
expect_one_line_error vmtrace-convert "only --cpu"
mkdir -p f16/kvm/kvm_exit f16/kvm/kvm_entry
cp "$DATA/formats/header_page_16k" f16/header_page
cp "$F618/kvm/kvm_exit/format" f16/kvm/kvm_exit/
cp "$F618/kvm/kvm_entry/format" f16/kvm/kvm_entry/
"$HELPERS/mkvmt" f16 big16.vmt <s.txt || fail mkvmt
run vmtrace-convert --legacy -o b16.bin big16.vmt
expect_one_line_error vmtrace-convert "4 KiB sub-buffers only"
# a trace.bin's two ids are kvm_exit's and kvm_entry's to every reader: other pairs are refused
# (the advice fits the input: a .vmt is read as it is, a trace.dat becomes one with --to-vmt)
cp "$DATA/small-syscalls.vmt" "$DATA/tracedat/syscalls-extract.dat" .
run vmtrace-convert --legacy -o sys.bin small-syscalls.vmt
[ "$rc" = 64 ] && [ "$(unfold err.txt)" = "vmtrace-convert: small-syscalls.vmt: a trace.bin holds kvm_exit/kvm_entry pairs only, not raw_syscalls:sys_enter/raw_syscalls:sys_exit (vmtrace-report reads this .vmt as it is)" ] ||
	fail "--legacy of a system-call .vmt: exit $rc, $(cat err.txt)"
[ ! -e sys.bin ] || fail "a refused conversion left sys.bin"
run vmtrace-convert --legacy -o sys.bin --pair raw_syscalls:sys_enter,raw_syscalls:sys_exit syscalls-extract.dat
[ "$rc" = 64 ] && [ "$(unfold err.txt)" = "vmtrace-convert: syscalls-extract.dat: a trace.bin holds kvm_exit/kvm_entry pairs only, not raw_syscalls:sys_enter/raw_syscalls:sys_exit: use --to-vmt for a .vmt" ] ||
	fail "--legacy of a system-call trace.dat: exit $rc, $(cat err.txt)"
[ ! -e sys.bin ] || fail "a refused conversion left sys.bin"
run vmtrace-convert --legacy -o one.bin one.vmt
expect_rc 0 "legacy"
# its layout is not the 2015 one (exit_reason at 8 here): a note says how to read it back
unfold err.txt | grep -q "one.bin: written in its recording's event layout.*--format-dir DIR" ||
	fail "no note on the trace.bin's layout"
# one in the 2015 layout (rt-2015-x86_64) gets none, and reads back without --format-dir
"$HELPERS/mkvmt" "$DATA/formats/rt-2015-x86_64" rt.vmt <s.txt || fail mkvmt
run vmtrace-convert --legacy -o rt.bin rt.vmt
expect_rc 0 "legacy, 2015 layout"
[ ! -s err.txt ] || fail "a note on a 2015-layout trace.bin: $(cat err.txt)"
vmtrace-report --legacy rt.vmt >rt-a.txt
VMTRACE_TRACEFS=/nonexistent vmtrace-report --legacy rt.bin >rt-b.txt ||
	fail "the 2015-layout trace.bin does not read back alone"
diff rt-a.txt rt-b.txt || fail "the 2015-layout trace.bin reads back differently"
[ "$(od -An -tx4 -N4 one.bin | tr -d ' ')" = cce96d01 ] || fail "trace.bin signature"
vmtrace-report --legacy one.vmt >a.txt
vmtrace-report --legacy --format-dir "$F618" one.bin >b.txt 2>/dev/null
diff a.txt b.txt || fail "the trace.bin reads back differently"
run vmtrace-convert --legacy --cpu 1 -o two1.bin two.vmt
expect_rc 0 "legacy --cpu"
# the trace.bin holds CPU 1's pages without the number: the report says so rather than
# "no exit on CPU 1" beside "exits on CPU 0"
run vmtrace-report --format-dir "$F618" --cpu 1 two1.bin
expect_rc 0 "--cpu on a trace.bin (nothing selected is a report)"
unfold err.txt | grep -q "^vmtrace-report: two1.bin: nothing selected: a trace.bin does not name the CPU it traced" ||
	{ cat err.txt; fail "--cpu on a trace.bin: not said that it names no CPU"; }
run vmtrace-report --format-dir "$F618" two1.bin
grep -q "^Per pCPU (a trace.bin does not name its one CPU: shown as 0)" out.txt ||
	fail "trace.bin: the pCPU table does not say its CPU is not named"
# The original tool reads it: same events, average and maximum (its windows differ).
seed=$(ls "$top_srcdir"/../shared/seed/*.txt 2>/dev/null | head -1)
if [ -n "$seed" ] && command -v gcc >/dev/null; then
	awk '/^--- \/dev\/null/ { n++ } n == 2 && /^\+/ { print substr($0, 2) }' "$seed" |
		sed 's/¶m/\&param/' >vm-trace.c
	if gcc -O2 -pthread -w -o vm-trace vm-trace.c; then
		./vm-trace -f one.bin >orig.txt 2>/dev/null
		[ "$(head -3 orig.txt)" = "$(head -3 a.txt)" ] ||
			fail "the original vm-trace reads: $(cat orig.txt)"
	fi
fi

# .vmt round trips: trace.bin -> .vmt, and .vmt -> .vmt.
run vmtrace-convert --to-vmt --format-dir "$F618" -o back.vmt one.bin
expect_rc 0 "to-vmt"
vmtrace-report --legacy back.vmt >c.txt
diff a.txt c.txt || fail "trace.bin -> .vmt changed the figures"
run vmtrace-convert --to-vmt -o copy.vmt two.vmt
expect_rc 0 "vmt -> vmt"
vmtrace-report --json copy.vmt >c.json
[ "$(json c.json 'd["pairs"]')" = "$(json two.json 'd["pairs"]')" ] || fail "copy differs"

# Atomic output: a conversion stopped by a signal while it writes leaves nothing under the
# final name and no temporary file. Deterministic: the process is stopped (SIGSTOP) once
# its temporary file holds data, proven to be inside the conversion (the temporary file
# there, the final name not) before SIGTERM is sent, then let go. A run that finished
# before it could be stopped is tried again. SIGQUIT as well (the adversarial tester found
# its temporary file left: only INT, TERM and HUP removed it), without a core file.
"$HELPERS/mkvmt" --random 2000000 1 "$F618" large.vmt || fail mkvmt
ulimit -c 0
sigs="TERM:143 QUIT:131" defsig="env --default-signal=QUIT"
$defsig true 2>/dev/null || { sigs=TERM:143 defsig=; skip_part "SIGQUIT (no env --default-signal)"; }
for sig in $sigs; do
stopped=no
for attempt in 1 2 3 4 5; do
	# (a shell's background job starts with SIGQUIT and SIGINT ignored, which the
	# programs keep: env gives it the default action an interactive shell's job has)
	$defsig vmtrace-convert --csv -o large.csv large.vmt 2>term.err &
	pid=$!
	while kill -0 $pid 2>/dev/null && [ ! -s large.csv.$pid.part ]; do
		sleep 0.01
	done
	kill -STOP $pid 2>/dev/null
	if [ -s large.csv.$pid.part ] && [ ! -e large.csv ]; then
		stopped=yes
		kill -${sig%:*} $pid
		kill -CONT $pid
		wait $pid
		rc=$?
		[ "$rc" = ${sig#*:} ] ||
			fail "exit $rc after SIG${sig%:*}, not ${sig#*:} (killed by it): $(cat term.err)"
		break
	fi
	kill -CONT $pid 2>/dev/null
	wait $pid
	rm -f large.csv
done
[ $stopped = yes ] || fail "the conversion could not be stopped while it wrote (5 tries)"
[ ! -e large.csv ] || fail "a file under the final name after SIG${sig%:*}"
! ls ./large.csv.*.part 2>/dev/null || fail "SIG${sig%:*}: the temporary file was left behind"
done
# A pipe or device under -o is written as it is, never replaced by a renamed file
# (-o /dev/null once replaced /dev/null with a regular file).
mkfifo fifo
cat fifo >from-fifo.csv &
run vmtrace-convert --csv -o fifo one.vmt
expect_rc 0 "-o FIFO"
wait
[ -p fifo ] || fail "the FIFO was replaced"
[ "$(wc -l <from-fifo.csv)" -gt 1 ] || fail "nothing came through the FIFO"
ln -s /dev/null devnull
run vmtrace-convert --csv -o devnull one.vmt
expect_rc 0 "-o a link to /dev/null"
[ -c /dev/null ] && [ -L devnull ] || fail "/dev/null or the link was replaced"
run vmtrace-convert --csv -o . one.vmt
expect_one_line_error vmtrace-convert "Is a directory"
run vmtrace-convert --csv -o /nonexistent/x.csv one.vmt
expect_one_line_error vmtrace-convert "/nonexistent/x.csv: cannot create: No such file or directory$"
# a file that exists but whose directory takes no new file (/proc): the error is the
# temporary file's (named with the converter's pid), and says so rather than "No such
# file" about a file that is there (common/outfile.c)
if [ -f /proc/version ]; then
	vmtrace-convert --csv -o /proc/version one.vmt >out.txt 2>err.txt &
	pid=$!
	wait $pid
	rc=$?
	expect_rc 1 "-o /proc/version"
	[ "$(unfold err.txt)" = "vmtrace-convert: /proc/version: cannot create the temporary file beside it \
(/proc/version.$pid.part): No such file or directory" ] || { cat err.txt; fail "-o /proc/version: the message"; }
fi
finish
