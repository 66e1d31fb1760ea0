#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A damaged chunk is skipped, and its events are lost as much as those the kernel flags:
# an exit before it is never paired with an entry after it (gap_dropped), in one pass,
# in windows and in CSV. Found by a new user: a 56 ms "exit" made of a real exit and an
# entry 44 ms later, across a chunk that failed its checksum.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
command -v python3 >/dev/null || skip "python3 missing"

# vcpus REPORT.json WANT.json: the report's per-vCPU figures are those tests/helpers/
# gaporacle.py computed from the script, with the hole's events taken out: pairs, out-of-
# guest total, the time left out of the span (gap_ns) and the time in the guest
vcpus() {	# vcpus REPORT ORACLE: the report's vCPUs against the oracle's
	python3 "$top_srcdir/tests/helpers/gaporacle.py" --check "$1" "$2"
}

# CPU 0: pairs in chunk 1; an exit at the end of chunk 2; chunk 3 (damaged below) holds
# pairs; chunk 4 starts with the entry of chunk 2's exit, then pairs. CPU 1: pairs only.
python3 - <<'PY' >d.txt || fail "writing the script"
print("cpus 0-1")
t = 1000000
for chunk in range(4):
    for i in range(20):
        if chunk == 3 and i == 0:
            print(f"entry 0 {t} 501 1")          # ends chunk 2's last exit
            t += 1000
            continue
        print(f"exit 0 {t} 500 {30 + i} 0")
        print(f"entry 0 {t + 400} 500 0")
        t += 1000
    if chunk == 1:
        print(f"exit 0 {t} 501 48 1")            # task 501: its entry is in chunk 4
        t += 1000
    print("chunk 0")
for i in range(50):
    print(f"exit 1 {1000000 + i * 1500} 600 30 1")
    print(f"entry 1 {1000000 + i * 1500 + 200} 600 1")
PY
"$HELPERS/mkvmt" "$F618" d.vmt <d.txt || fail "mkvmt d.vmt"
vmtrace-report --json d.vmt >good.json || fail "report d.vmt"
# undamaged: the long exit is one pair, of about 21 us
[ "$(json good.json 'd["pairs"]')" = 130 ] || fail "d.vmt: not 130 pairs"
[ "$(json good.json 'd["latency_ns"]["max"] > 20000')" = True ] || fail "d.vmt: no long exit"
python3 - d.vmt bad.vmt <<'PY' || fail "damaging the third chunk"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
at = -1
for _ in range(3):                               # CPU 0's chunks come first: its third
    at = b.index(b"CHNK", at + 1)
b[at + 200] ^= 0xFF
open(sys.argv[2], "wb").write(b)
PY
for w in 0 4096; do
	VMTRACE_TEST_WINDOW=$w vmtrace-report --json bad.vmt >bad.json
	[ $? = 2 ] || fail "bad.vmt (windows $w): exit status not 2"
	[ "$(json bad.json 'd["bad_chunks"]')" = 1 ] || fail "bad.vmt: not one damaged chunk"
	# chunk 3's 20 pairs are lost; chunk 2's last exit and chunk 4's first entry are not
	# a pair: dropped at the gap
	[ "$(json bad.json 'd["pairs"]')" = 109 ] ||
		fail "bad.vmt (windows $w): $(json bad.json 'd["pairs"]') pairs, not 109"
	[ "$(json bad.json 'd["gap_dropped"]')" = 1 ] ||
		fail "bad.vmt (windows $w): the pair across the damaged chunk was not dropped"
	[ "$(json bad.json 'd["latency_ns"]["max"] < 20000')" = True ] ||
		fail "bad.vmt (windows $w): an exit paired across the damaged chunk"
	# The hole's time was neither in the guest nor out of it: left out of task 500's
	# span (once counted in the guest: 70.646 % where the undamaged file has 60.696 %)
	python3 "$top_srcdir/tests/helpers/gaporacle.py" d.txt --damaged 0 2 >want.json ||
		fail "the oracle"
	vcpus bad.json want.json || fail "bad.vmt (windows $w): the vCPUs' figures"
	[ "$(json bad.json '[v["gap_ns"] for v in d["vcpus"] if v["pid"] == 500]')" = "[20400]" ] ||
		fail "bad.vmt (windows $w): task 500's gap"
	python3 - good.json bad.json <<'PY' || fail "bad.vmt (windows $w): far from the undamaged"
import json, sys
# task 500's exits take 40 % of every chunk's time: without the hole, about the same share
g, b = (next(v["in_guest_percent"] for v in json.load(open(f))["vcpus"] if v["pid"] == 500)
        for f in sys.argv[1:])
assert abs(g - b) < 0.1, (g, b)
PY
done
# The warning says where the damage is: the chunk's offset in the file, its CPU, pages and
# time range from the recording's first page, as its header (read here) gives them
python3 - bad.vmt <<'PY' >where.txt || fail "reading the damaged chunk's header"
import struct, sys
b = open(sys.argv[1], "rb").read()
chunks, at = [], -1
while True:
    at = b.find(b"CHNK", at + 1)
    if at < 0:
        break
    cpu, pages = struct.unpack_from("<II", b, at + 32)
    first, last = struct.unpack_from("<QQ", b, at + 56)
    chunks.append((at, cpu, pages, first, last))
start = min(c[3] for c in chunks)
at, cpu, pages, first, last = chunks[2]
s = lambda t: "%d.%09d" % divmod(t - start, 10**9)
print(f"bad.vmt: damaged data skipped: 1 chunk (chunk checksum mismatch): the chunk at offset "
      f"{at}, CPU {cpu}, {pages} page{'s' if pages > 1 else ''}, {s(first)} s to {s(last)} s")
PY
vmtrace-report bad.vmt >out.txt 2>err.txt
unfold err.txt | grep -qxF "vmtrace-report: warning: $(cat where.txt)" ||
	{ cat err.txt where.txt; fail "bad.vmt: the warning does not say where the damage is"; }
# The damaged chunk's events are lost events, how many is not known (its header gives
# pages, not events): never "0" in any view, and its pCPU is marked as one with a gap
[ "$(json bad.json '(d["lost_events"], d["lost_events_exact"], d["bad_blocks"])')" = \
  "(0, False, 0)" ] || fail "bad.vmt: the damaged chunk's events are not lost events"
[ "$(json bad.json '[(c["cpu"], c["gaps"]) for c in d["cpus_detail"]]')" = "[(0, 1), (1, 0)]" ] ||
	fail "bad.vmt: the pCPUs' gaps: $(json bad.json '[c["gaps"] for c in d["cpus_detail"]]')"
grep -qx "Lost events = an unknown number (not counted: 1 damaged chunk; pairs never span a gap)" \
	out.txt || { grep Lost out.txt; fail "bad.vmt: text: lost events"; }
grep -q "^  0 (1 gap)  " out.txt && grep -q "^  1  " out.txt ||
	{ grep -A4 "Per pCPU" out.txt; fail "bad.vmt: text: the pCPU table does not mark CPU 0"; }
# text: the availability at worst is task 500's (60.666 %, cut), its gap in the vCPU table
grep -q "^Guest availability: .*, 60.666 % at worst (first exit to last entry)$" out.txt &&
	grep -q '^  less, per task, the time its events may have been lost in gaps' out.txt &&
	grep -q "^  0 (500)  *60.666%  *23.60 us  *0.000000000 s  *20.40 us$" out.txt ||
	{ grep -A3 "in guest" out.txt; fail "bad.vmt: text: the time in the guest"; }
unfold err.txt | grep -qx "vmtrace-report: warning: bad.vmt: events were lost with the damaged data, how many is not known; figures may be incomplete" || { cat err.txt; fail "bad.vmt: no word on its lost events"; }
# as merged with another recording, and compared
run vmtrace-report bad.vmt d.vmt
expect_rc 2 "bad.vmt and d.vmt merged"
unfold err.txt | grep -q "warning: bad.vmt: events were lost with the damaged data, how many is not known" ||
	{ cat err.txt; fail "bad.vmt merged: no word on its lost events"; }
run vmtrace-report --compare bad.vmt d.vmt
unfold err.txt | grep -q "warning: bad.vmt: events were lost with the damaged data, how many is not known" ||
	{ cat err.txt; fail "bad.vmt compared: no word on its lost events"; }
vmtrace-convert --csv bad.vmt >bad.csv
[ $? = 2 ] || fail "CSV of bad.vmt: exit status not 2"
python3 - bad.csv <<'PY' || fail "CSV of bad.vmt: a row across the damaged chunk"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 109, len(rows)
assert max(int(r["latency_ns"]) for r in rows) < 20000
PY
# Its .vmt copy leaves the damaged chunk out and marks the hole as lost events on the next
# page of that CPU: the same 109 pairs, the pair across it dropped, and a warning; its END
# counts the chunk lost, so the copy is damaged as the input is (exit 2), and its losses are
# worded as the input's (the mark is the damage: copy.marked_pages)
vmtrace-convert --to-vmt -o copy.vmt bad.vmt 2>/dev/null
[ $? = 2 ] || fail "--to-vmt of bad.vmt: exit status not 2"
run vmtrace-report --json copy.vmt
expect_rc 2 "report of the copy"
unfold err.txt | grep -q "damaged file: its end record counts .* 1 chunk lost with the damaged data" ||
	{ cat err.txt; fail "copy of bad.vmt: no word on the chunk lost"; }
want=$(vmtrace-report bad.vmt 2>&1 >/dev/null | unfold /dev/stdin | grep "events were lost" |
	sed 's/ bad.vmt: / copy.vmt: /')
[ "$(unfold err.txt | grep "events were lost")" = "$want" ] &&
	unfold err.txt | grep -q "events were lost with the damaged data, how many is not known" ||
	{ cat err.txt; fail "copy of bad.vmt: the hole not worded as the input's '$want'"; }
[ "$(json out.txt '(d["pairs"], d["gap_dropped"], d["latency_ns"]["max"] < 20000)')" = \
  "(109, 1, True)" ] || fail "copy of bad.vmt: an exit paired across the hole"
[ "$(json out.txt '(d["lost_events"], d["lost_events_exact"], d["missed_pages"])')" = \
  "(0, False, 1)" ] || fail "copy of bad.vmt: its marked page is not an unknown loss"
# the text's line as the input's: the chunk left out, not the page that marks it
vmtrace-report copy.vmt 2>/dev/null | grep -qx "Lost events = an unknown number (not counted: 1 damaged chunk; pairs never span a gap)" ||
	fail "copy of bad.vmt: text: lost events"
# the copy's hole is a flagged page: from CPU 0's last record before it to that page (the
# damaged chunk's header, which said where its records ended, is not in the copy)
python3 - d.txt <<'PY' >copy.txt || fail "the copy's script"
import sys
n = 0
for line in open(sys.argv[1]):
    if line.startswith("chunk 0"):
        n += 1
        if n == 2:
            print("page 0 missed")
    if n != 2 or line.startswith("chunk"):
        print(line, end="")
PY
python3 "$top_srcdir/tests/helpers/gaporacle.py" copy.txt >want.json || fail "the oracle"
vcpus out.txt want.json || fail "copy of bad.vmt: the vCPUs' figures"

# Counted losses and a damaged chunk: the count is a lower bound, and says so
python3 - <<'PY' >c.txt || fail "writing the third script"
print("cpus 0-1")
print("stats 1 0 40")
t = 1000000
for chunk in range(3):
    for i in range(10):
        print(f"exit 0 {t} 500 30 1"); print(f"entry 0 {t + 400} 500 1"); t += 1000
    print("chunk 0")
print("exit 1 1000000 600 30 2"); print("entry 1 1000200 600 2")
print("page 1 missed 40")
print("exit 1 1005000 600 30 2"); print("entry 1 1005200 600 2")
PY
"$HELPERS/mkvmt" "$F618" c.vmt <c.txt || fail "mkvmt c.vmt"
python3 - c.vmt cbad.vmt <<'PY' || fail "damaging c.vmt's second chunk"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
at = b.index(b"CHNK", b.index(b"CHNK") + 1)
b[at + 200] ^= 0xFF
open(sys.argv[2], "wb").write(b)
PY
run vmtrace-report --json c.vmt
[ "$(json out.txt '(d["lost_events"], d["lost_events_exact"])')" = "(40, True)" ] ||
	fail "c.vmt: not 40 lost events, counted"
run vmtrace-report --json cbad.vmt
expect_rc 2 "cbad.vmt"
[ "$(json out.txt '(d["lost_events"], d["lost_events_exact"], d["pairs"])')" = "(40, False, 22)" ] ||
	fail "cbad.vmt: $(json out.txt '(d["lost_events"], d["lost_events_exact"], d["pairs"])')"
python3 "$top_srcdir/tests/helpers/gaporacle.py" c.txt --damaged 0 1 >want.json || fail "the oracle"
vcpus out.txt want.json || fail "cbad.vmt: the vCPUs' figures"
[ "$(json out.txt '[v["gap_ns"] > 0 for v in d["vcpus"]]')" = "[True, True]" ] ||
	fail "cbad.vmt: both tasks lost events, a page's and a chunk's"
unfold err.txt | grep -q "warning: cbad.vmt: 40 events were lost while recording, and an unknown number more with the damaged data" || { cat err.txt; fail "cbad.vmt: the warning"; }
vmtrace-report cbad.vmt 2>/dev/null | grep -qx "Lost events = 40 and an unknown number more (not counted: 1 damaged chunk; pairs never span a gap)" ||
	fail "cbad.vmt: text: lost events"

# A damaged chunk is a gap from where its header says it began, even when no page of its
# CPU follows: task 700's exit ends CPU 0's first chunk, its second chunk (the last) is
# damaged, and the task enters on CPU 1 while that chunk's events are lost. The entry must
# not close that exit (the reader once placed the gap at the next page, and there was none)
python3 - <<'PY' >t.txt || fail "writing the second script"
print("cpus 0-1")
t = 1000000
for i in range(20):
    print(f"exit 0 {t} 700 30 2"); print(f"entry 0 {t + 300} 700 2"); t += 1000
print(f"exit 0 {t} 700 48 2")
x = t
t += 1000
print("chunk 0")
for i in range(20):
    print(f"exit 0 {t} 701 30 3"); print(f"entry 0 {t + 300} 701 3"); t += 1000
print("chunk 0")
ev = [(x + 5100, f"entry 1 {x + 5100} 700 2")]
for i in range(30):
    ev.append((1000500 + i * 1000, f"exit 1 {1000500 + i * 1000} 800 30 4"))
    ev.append((1000700 + i * 1000, f"entry 1 {1000700 + i * 1000} 800 4"))
for _, line in sorted(ev):
    print(line)
PY
"$HELPERS/mkvmt" "$F618" t.vmt <t.txt || fail "mkvmt t.vmt"
vmtrace-report --json t.vmt >t.json || fail "report t.vmt"
[ "$(json t.json 'd["latency_ns"]["max"]')" = 5100 ] ||
	fail "t.vmt: task 700's exit across CPUs is not one 5.1 us pair"
python3 - t.vmt tbad.vmt <<'PY' || fail "damaging CPU 0's last chunk"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
at = b.index(b"CHNK", b.index(b"CHNK") + 1)
b[at + 200] ^= 0xFF
open(sys.argv[2], "wb").write(b)
PY
for w in 0 4096; do
	VMTRACE_TEST_WINDOW=$w vmtrace-report --json tbad.vmt >tbad.json 2>/dev/null
	[ $? = 2 ] || fail "tbad.vmt (windows $w): exit status not 2"
	# CPU 0's 20 pairs of task 701 are lost; task 700's exit across the hole is dropped
	[ "$(json tbad.json '(d["pairs"], d["gap_dropped"], d["latency_ns"]["max"])')" = \
	  "(50, 1, 300)" ] ||
		fail "tbad.vmt (windows $w): $(json tbad.json '(d["pairs"], d["gap_dropped"])')"
	python3 "$top_srcdir/tests/helpers/gaporacle.py" t.txt --damaged 0 1 >want.json ||
		fail "the oracle"
	vcpus tbad.json want.json || fail "tbad.vmt (windows $w): the vCPUs' figures"
done

# Several holes of one CPU while a task is away: every one is left out of its span, not
# the latest alone (gap_ns once counted 700 of task 500's 1400 ns here). Task 500 pairs on
# CPU 0, exits for long (HLT); task 600 runs there meanwhile, with a flagged page before
# its third and fifth exits (holes 1012300-1013000 and 1014300-1015000: 700 ns each);
# task 500 enters again at 1016000 and pairs on. By hand: 20 pairs of 400 ns over 26400 ns
# less 1400 unknown, 68.0 % in the guest. Then the first hole a damaged chunk instead (the
# pair 600 had in it lost: its hole runs to that chunk's last record, 1000 ns, 1700 in all).
python3 - <<'PY' >m.txt || fail "writing the script of several holes"
print("cpus 0-1")
t0 = 1000000
ev = []
for i in range(10):
    ev += [f"exit 0 {t0 + i * 1000} 500 30 0", f"entry 0 {t0 + i * 1000 + 400} 500 0"]
ev.append(f"exit 0 {t0 + 10000} 500 12 0")
for j in range(5):
    if j in (2, 3):
        ev.append("chunk 0")
    if j in (2, 4):
        ev.append("page 0 missed")
    ev += [f"exit 0 {t0 + 11000 + j * 1000} 600 30 1",
           f"entry 0 {t0 + 11300 + j * 1000} 600 1"]
ev.append(f"entry 0 {t0 + 16000} 500 0")
for i in range(10):
    ev += [f"exit 0 {t0 + 17000 + i * 1000} 500 30 0",
           f"entry 0 {t0 + 17400 + i * 1000} 500 0"] + ["chunk 0"] * (i % 3 == 2)
for i in range(20):                              # small chunks: time slices to cut
    ev += [f"exit 1 {t0 + 500 + i * 1300} 700 30 2", f"entry 1 {t0 + 700 + i * 1300} 700 2"]
    ev += ["chunk 1"] * (i % 4 == 3)
print("\n".join(ev))
PY
# the first flagged page is left out when its chunk is damaged instead
python3 - m.txt <<'PY' >md.txt || fail "writing the damaged variant's script"
import sys
first = True
for line in open(sys.argv[1]):
    if line.startswith("page 0 missed") and first:
        first = False
        continue
    print(line, end="")
PY
"$HELPERS/mkvmt" "$F618" m.vmt <m.txt || fail "mkvmt m.vmt"
"$HELPERS/mkvmt" "$F618" md.vmt <md.txt || fail "mkvmt md.vmt"
python3 - md.vmt mdbad.vmt <<'PY' || fail "damaging md.vmt's CPU 0 chunk 1"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
at, k = -1, 0
while True:                                      # CPU 0's second chunk, by its header
    at = b.index(b"CHNK", at + 1)
    if struct.unpack_from("<I", b, at + 32)[0] == 0:
        k += 1
        if k == 2:
            break
head, size = struct.unpack_from("<IQ", b, at + 4)  # its payload's middle: a small chunk
b[at + head + size // 2] ^= 0xFF
open(sys.argv[2], "wb").write(b)
PY
python3 "$top_srcdir/tests/helpers/gaporacle.py" m.txt >mwant.json || fail "the oracle on m.txt"
python3 "$top_srcdir/tests/helpers/gaporacle.py" md.txt --damaged 0 1 >mdwant.json ||
	fail "the oracle on md.txt"
[ "$(json mwant.json '[(v["pid"], v["pairs"], v["gap_ns"]) for v in d]')" = \
  "[(500, 20, 1400), (600, 5, 1400), (700, 20, 0)]" ] ||
	fail "m.txt: the oracle is not the hand count: $(cat mwant.json)"
[ "$(json mdwant.json '[(v["pid"], v["pairs"], v["gap_ns"]) for v in d]')" = \
  "[(500, 20, 1700), (600, 4, 1700), (700, 20, 0)]" ] ||
	fail "md.txt: the oracle is not the hand count: $(cat mdwant.json)"
for slices in 0 2; do
	VMTRACE_TEST_SLICES=$slices vmtrace-report --jobs $((slices ? 3 : 1)) --json m.vmt \
		>m.json 2>m.err || fail "m.vmt ($slices slices): the report"
	unfold m.err | grep -qx "vmtrace-report: $slices time slices" ||
		fail "m.vmt: not in $slices slices: $(cat m.err)"
	vcpus m.json mwant.json || fail "m.vmt ($slices slices): the vCPUs' figures"
	[ "$(json m.json '[v["in_guest_percent"] for v in d["vcpus"] if v["pid"] == 500]')" = \
	  "[68.0]" ] || fail "m.vmt ($slices slices): task 500 not 68.0 % in the guest"
	VMTRACE_TEST_SLICES=$slices vmtrace-report --jobs $((slices ? 3 : 1)) --json mdbad.vmt \
		>md.json 2>/dev/null
	[ $? = 2 ] || fail "mdbad.vmt ($slices slices): exit status not 2"
	vcpus md.json mdwant.json || fail "mdbad.vmt ($slices slices): the vCPUs' figures"
done
# Merged and compared, the rates are over the time seen: each recording's span (its
# single report's span_ns, a .vmt from mkvmt saying no duration) less its CPUs' hole time
# (gaporacle.py --holes) averaged over its 2 traced CPUs: 1400 / 2 and 1700 / 2 ns here
python3 "$top_srcdir/tests/helpers/gaporacle.py" --holes m.txt >mholes.json &&
	python3 "$top_srcdir/tests/helpers/gaporacle.py" --holes md.txt --damaged 0 1 \
		>mdholes.json || fail "the oracle's holes"
vmtrace-report --json m.vmt mdbad.vmt >merged.json 2>/dev/null
[ $? = 2 ] || fail "m.vmt and mdbad.vmt merged: exit status not 2"
vmtrace-report --json --compare m.vmt mdbad.vmt >compared.json 2>/dev/null
[ $? = 2 ] || fail "m.vmt and mdbad.vmt compared: exit status not 2"
python3 - m.json md.json mholes.json mdholes.json merged.json compared.json <<'PY' ||
import json, sys
single = [json.load(open(f)) for f in sys.argv[1:3]]
holes = [sum(json.load(open(f)).values()) // 2 for f in sys.argv[3:5]]
merged, compared = (json.load(open(f)) for f in sys.argv[5:7])
assert holes == [700, 850], holes
near = lambda a, b: abs(a - b) <= 1e-5 * b
rate = lambda n, span, gap: n * 1e9 / (span - gap)
for s, h, f in zip(single, holes, merged["files"]):
    assert (f["count"], f["duration_ns"], f["gap_ns"]) == (s["pairs"], s["span_ns"], h), (f, h)
    assert near(f["rate_per_s"], rate(s["pairs"], s["span_ns"], h)), f
m = merged["merged"]
assert (m["duration_ns"], m["gap_ns"]) == (sum(s["span_ns"] for s in single), sum(holes)), m
n = sum(s["pairs"] for s in single)
assert near(m["groups"][0]["rate_per_s"], rate(n, m["duration_ns"], sum(holes))), m
c = compared["compare"]
for side, s, h in zip(("before", "after"), single, holes):
    assert (c[side]["duration_ns"], c[side]["gap_ns"]) == (s["span_ns"], h), c[side]
    g = c["groups"][0][side]
    assert near(g["rate_per_s"], rate(s["pairs"], s["span_ns"], h)), (side, g)
PY
	fail "m.vmt and mdbad.vmt merged or compared: the rates are not over the time seen"
# within --cpu and --from/--to: CPU 0's holes 12.3-13.0 us and 14.3-15.0 us, by hand
cp m.vmt m2.vmt	# a second file: the same one twice is refused
for case in "--cpu 0:26400:1400" "--cpu 1:26400:0" "--to 12.6us:12600:150" \
	    "--from 12.6us --to 14.5us:1900:300" "--from 12.6us:13800:550"; do
	opts=${case%%:*}
	# shellcheck disable=SC2086
	vmtrace-report --json $opts m.vmt m2.vmt >sel.json 2>/dev/null
	[ "$(json sel.json '"%d:%d" % (d["files"][0]["duration_ns"], d["files"][0]["gap_ns"])')" = \
	  "${case#*:}" ] || fail "m.vmt merged, $opts: $(json sel.json 'd["files"][0]')"
done
# Many holes on one CPU (30, more than a merge keeps whole per CPU, common/compare.c):
# task 800 pairs on CPU 0 with a flagged page before each exit but the first (holes from
# the entry before to that exit, 700 ns each), task 801 on CPU 1 without; by hand 21000 ns
# on CPU 0, 10500 averaged over the 2 CPUs, and with --to 15.5us the first 15 whole and
# 200 ns of the 16th: 10700, 5350 (the oracle counts the first).
python3 - <<'PY' >many.txt || fail "writing the script of many holes"
print("cpus 0-1")
t0 = 1000000
for j in range(31):
    if j:
        print("page 0 missed")
    print(f"exit 0 {t0 + j * 1000} 800 30 0")
    print(f"entry 0 {t0 + j * 1000 + 300} 800 0")
    print(f"exit 1 {t0 + j * 1000 + 500} 801 30 1")
    print(f"entry 1 {t0 + j * 1000 + 700} 801 1")
PY
"$HELPERS/mkvmt" "$F618" many.vmt <many.txt || fail "mkvmt many.vmt"
cp many.vmt many2.vmt
[ "$(python3 "$top_srcdir/tests/helpers/gaporacle.py" --holes many.txt |
     python3 -c 'import json,sys; print(sum(json.load(sys.stdin).values()))')" = 21000 ] ||
	fail "many.txt: the oracle's holes are not the hand count"
for case in ":30700:10500" "--to 15.5us:15500:5350"; do
	opts=${case%%:*}
	# shellcheck disable=SC2086
	vmtrace-report --json $opts many.vmt many2.vmt >sel.json 2>/dev/null
	[ "$(json sel.json '"%d:%d" % (d["files"][0]["duration_ns"], d["files"][0]["gap_ns"])')" = \
	  "${case#*:}" ] || fail "many.vmt merged, '$opts': $(json sel.json 'd["files"][0]')"
done

# The same hole in a recording with context events (the attributing pass): the real KVM
# sample with one chunk's payload damaged. Each vCPU task's gap_ns is the hole: from the
# CPU's last event before the damage (as -v lists the events) to the chunk's last time (as
# the warning gives it from the chunk's header).
python3 - "$DATA/why/sample/kvm.vmt" wbad.vmt <<'PY' || fail "damaging the why sample"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
at = b.index(b"CHNK", len(b) // 3)
b[at + 400] ^= 0xFF
open(sys.argv[2], "wb").write(b)
PY
vmtrace-report --json wbad.vmt >wbad.json 2>wbad.err
[ $? = 2 ] || fail "wbad.vmt: exit status not 2"
vmtrace-report -v wbad.vmt >wbad.v 2>/dev/null
python3 - wbad.json wbad.v wbad.err <<'PY' || fail "wbad.vmt: the hole of a context-event recording"
import json, re, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
until = re.search(r"CPU (\d+), \d+ pages?, [\d.]+ s to ([\d.]+) s", open(sys.argv[3]).read())
cpu, until = int(until.group(1)), until.group(2)
i = next(k for k, l in enumerate(lines) if re.match(r" *[\d.]+ cpu +%d LOST" % cpu, l))
before = next(l for l in reversed(lines[:i]) if re.match(r" *[\d.]+ cpu +%d pid" % cpu, l))
# the line says where the events went: from it to the chunk's last time, as the warning
assert lines[i].endswith(" LOST events from this point to %s (damaged data; how many is not "
                         "known)" % until), (lines[i], until)
ns = lambda t: int(t.replace(".", ""))
hole = ns(until) - ns(before.split()[0])
assert d["why_recorded"], "the sample has context events"
for v in d["vcpus"]:
    assert v["gap_ns"] == hole, (v["pid"], v["gap_ns"], hole)
print("hole of", hole, "ns left out of", len(d["vcpus"]), "vCPU tasks' spans")
PY
# A damaged END block held no events: the figures are the undamaged file's, no event is
# said lost with it (the trial read "an unknown number, 1 damaged block" here, and 0 in its
# --to-vmt copy); what is not known is the end statistics: the losses are "an unknown
# number (not counted: no end statistics)", in the file and in its copy alike.
python3 - "$DATA/sample-kvm.vmt" ebad.vmt <<'PY' || fail "damaging the END block"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off = 16
while off < len(b):
    hs, ps = struct.unpack_from("<IQ", b, off + 4)
    if b[off:off + 4] == b"END\0":
        b[off + hs + 5] ^= 0xFF
        break
    off += hs + ps
else:
    sys.exit("no END block")
open(sys.argv[2], "wb").write(b)
PY
vmtrace-report --json "$DATA/sample-kvm.vmt" >egood.json 2>/dev/null || fail "sample-kvm.vmt"
vmtrace-report --json ebad.vmt >ebad.json 2>ebad.err
[ $? = 2 ] || fail "ebad.vmt: exit status not 2"
unfold ebad.err | grep -qx "vmtrace-report: warning: ebad.vmt: damaged end record at offset [0-9]*: lost events and stop reason unknown" ||
	fail "ebad.vmt: no warning on the end record: $(cat ebad.err)"
widths_ok ebad.err || fail "ebad.vmt: warnings over 120 columns"
! unfold ebad.err | grep -q "lost with the damaged data" || fail "ebad.vmt: events said lost with END"
vmtrace-report ebad.vmt 2>/dev/null | grep -qx "Lost events = an unknown number (not counted: no end statistics; pairs never span a gap)" ||
	fail "ebad.vmt: the lost events line"
vmtrace-report --openmetrics ebad.vmt 2>/dev/null | grep -q '^vmtrace_lost_uncounted_total{.*} 1$' ||
	fail "ebad.vmt: OpenMetrics reads clean"
# so does a recording cut before its END (its recorder killed): the trial read "0, exact"
head -c 281338 "$DATA/sample-kvm.vmt" >ecut.vmt
vmtrace-report --json ecut.vmt 2>/dev/null >ecut.json
[ "$(json ecut.json '(d["finished"], d["lost_events"], d["lost_events_exact"])')" = "(False, 0, False)" ] ||
	fail "ecut.vmt: $(json ecut.json '(d["finished"], d["lost_events"], d["lost_events_exact"])')"
# the page's card too: "unknown", not a bare 0
vmtrace-report --html ecut.html ecut.vmt >/dev/null 2>&1
grep -q 'data-key="lost_events" data-v="0"><span class="v">unknown<' ecut.html ||
	fail "ecut.vmt: the page's lost-events card: $(grep -o 'data-key="lost_events"[^/]*' ecut.html)"
# a finished file of the same recorder stays exact
[ "$(json egood.json 'd["lost_events_exact"]')" = True ] || fail "sample-kvm.vmt: losses not exact"
vmtrace-convert --to-vmt -o ecopy.vmt ebad.vmt 2>/dev/null
vmtrace-report --json ecopy.vmt >ecopy.json 2>/dev/null
python3 - egood.json ebad.json ecopy.json <<'PY' || fail "ebad.vmt: figures or losses differ"
import json, sys
good, bad, copy = (json.load(open(f)) for f in sys.argv[1:])
keys = ("events", "pairs", "total_ns", "latency_ns", "max_window_sum_ns", "lost_events_pages")
for d in (bad, copy):
    for k in keys:
        assert d[k] == good[k], (k, d[k], good[k])
    # the ring buffers' end statistics went with END: losses not known, none counted
    assert (d["lost_events"], d["lost_events_exact"], d["bad_blocks"]) == (0, False, 0), d
    assert d["finished"] is False
PY
# A block whose header fails its checksum could have been any CPU's chunk: its hole is a
# gap on every CPU from its last page before to its next page after, as a damaged chunk's
# is. The exit at 3 us and the entry at 90 us made an 87 us pair across it (no gap).
cat >hd.txt <<'EOF'
cpus 0
page 0
exit 0 1000 7 30 0
entry 0 2000 7 0
exit 0 3000 7 30 0
chunk 0
page 0
entry 0 50000 7 0
exit 0 51000 7 30 0
chunk 0
page 0
entry 0 90000 7 0
exit 0 91000 7 30 0
entry 0 92000 7 0
EOF
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" hd.vmt <hd.txt || fail mkvmt
python3 - hd.vmt hdb.vmt <<'PY' || fail "damaging a chunk's block header"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off, n = 16, 0
while off < len(b):
    hs, ps = struct.unpack_from("<IQ", b, off + 4)
    if b[off:off + 4] == b"CHNK":
        n += 1
        if n == 2:
            b[off + 20] ^= 0xFF	# the reserved field: the header's checksum fails
    off += hs + ps
open(sys.argv[2], "wb").write(b)
PY
vmtrace-convert --to-vmt -o hdc.vmt hdb.vmt 2>/dev/null
for f in hdb hdc; do
	vmtrace-report --json $f.vmt >$f.json 2>/dev/null
	[ "$(json $f.json '(d["pairs"], d["latency_ns"]["max"], d["gap_dropped"], d["lost_events_exact"])')" = \
	  "(2, 1000, 1, False)" ] || fail "$f.vmt: a pair across the damaged block header: $(json $f.json \
	  '(d["pairs"], d["latency_ns"]["max"], d["gap_dropped"], d["lost_events_exact"])')"
	# the task's hole: from its exit at 3 us to the next page's first time, 90 us
	[ "$(json $f.json '[v["gap_ns"] for v in d["vcpus"]]')" = "[87000]" ] || fail "$f.vmt: gap_ns"
done
# its trace.bin copy flags the page after the hole as the .vmt copy does
vmtrace-convert --legacy -o hdb.bin hdb.vmt 2>/dev/null
[ $? = 2 ] || fail "hdb.vmt: --legacy: exit status not 2 (damaged input)"
vmtrace-report --json --format-dir "$DATA/formats/linux-6.18-x86_64" hdb.bin >hdbin.json 2>/dev/null
[ "$(json hdbin.json '(d["pairs"], d["latency_ns"]["max"], d["gap_dropped"])')" = "(2, 1000, 1)" ] ||
	fail "hdb.bin: a pair across the damaged block header: $(json hdbin.json '(d["pairs"], d["latency_ns"]["max"], d["gap_dropped"])')"
# A second META block, whole, held no events: skipped, but no gap (its losses are still
# called unknown: a block out of place says the file is not as a writer writes it)
python3 - hd.vmt hdm.vmt <<'PY' || fail "adding a second META block"
import struct, sys
b = bytes(open(sys.argv[1], "rb").read())
off, blocks = 16, []
while off < len(b):
    hs, ps = struct.unpack_from("<IQ", b, off + 4)
    blocks.append(b[off:off + hs + ps])
    off += hs + ps
assert [k[:4] for k in blocks[:3]] == [b"META", b"MCPY", b"CHNK"]
open(sys.argv[2], "wb").write(b[:16] + b"".join(blocks[:3]) + blocks[0] + b"".join(blocks[3:]))
PY
vmtrace-report --json hdm.vmt >hdm.json 2>/dev/null
[ "$(json hdm.json '(d["pairs"], d["gap_dropped"], d["bad_blocks"], [v["gap_ns"] for v in d["vcpus"]])')" = \
  "(4, 0, 1, [0])" ] || fail "hdm.vmt: a gap at a whole META block: $(json hdm.json \
  '(d["pairs"], d["gap_dropped"], d["bad_blocks"], [v["gap_ns"] for v in d["vcpus"]])')"
vmtrace-report --json hd.vmt >hd.json 2>/dev/null
[ "$(json hd.json '(d["pairs"], d["gap_dropped"])')" = "(4, 0)" ] || fail "hd.vmt: undamaged"

# 4 KiB overwritten across several chunks of a finished recording, its END sound: the
# damage took chunks, the recorder did finish (not "no end record"); how many chunks it
# took, counted here from the file's own blocks: those the 4 KiB touch.
cp "$DATA/sample-kvm.vmt" run.vmt
want=$(python3 - run.vmt <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, total, hit = 16, 0, 0
while off < len(b):
    typ, hs, ps = struct.unpack_from("<IIQ", b, off)
    if typ == 0x4B4E4843:                          # CHNK
        total += 1
        hit += off < 104096 and off + hs + ps > 100000
    off += hs + ps
print("its end record counts %d chunks, %d were found: %d chunks lost with the "
      "damaged data" % (total, total - hit, hit))
PY
)
python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(100000); f.write(b"\xff" * 4096)' run.vmt
run vmtrace-report run.vmt
expect_rc 2 "4 KiB of chunks overwritten"
unfold err.txt | grep -qF "vmtrace-report: warning: run.vmt: damaged file: $want" ||
	{ cat err.txt; fail "not: $want"; }
unfold err.txt | grep -q "not finished" && fail "a finished recording's damage said to be an unfinished one"

# A --from/--to window counts a flagged page's lost events only when they can lie in it:
# between the CPU's event before the page and the page's time (19.5 .. 20 us from the start).
# Windows wholly before or after count none and mark no gap on the pCPU; one that reaches
# into that stretch counts them; the JSON's lost_events_pages stays the whole recording's.
{
	printf 'cpus 0\n'
	i=0
	while [ $i -lt 50 ]; do
		[ $i = 20 ] && echo "page 0 missed 3"
		echo "exit 0 $((1000 + i * 1000)) 100 0x1e 0"
		echo "entry 0 $((1500 + i * 1000)) 100 0"
		i=$((i + 1))
	done
} | "$HELPERS/mkvmt" "$F618" win.vmt || fail "mkvmt win.vmt"
for w in "--to 10us:0" "--to 19400ns:0" "--from 20100ns:0" "--from 15us --to 19600ns:3" "--from 19800ns:3" ":3"; do
	opts=${w%:*} want=${w##*:}
	vmtrace-report --json $opts win.vmt >w.json 2>/dev/null || fail "win.vmt $opts"
	got=$(json w.json '(d["lost_events"], d["lost_events_pages"], sum(c.get("gaps", 0) for c in d["cpus_detail"]))')
	[ "$got" = "($want, 3, $((want / 3)))" ] || fail "win.vmt $opts: (lost, pages, gaps) $got, expected ($want, 3, $((want / 3)))"
	vmtrace-report $opts win.vmt >w.txt 2>/dev/null
	if [ "$want" = 0 ]; then
		grep -qx "Lost events = 0" w.txt || { cat w.txt; fail "win.vmt $opts: the lost events' line"; }
	else
		grep -q "^Lost events = 3 (up to 2 exits may be missing" w.txt ||
			{ cat w.txt; fail "win.vmt $opts: the lost events' line"; }
	fi
done

# A damaged chunk's hole runs from the event before it to the chunk's last time: a window
# that starts inside it has the gap (the pCPU marked), one that starts after it has none.
# holed NAME HEAD VCPU: 60 pairs in three chunks of CPU 0 after the script line HEAD (the
# exits' and entries' last field VCPU, empty for a pair without one), the second chunk
# damaged into NAME_bad.vmt
holed() {
	{
		echo "$2"
		i=0
		while [ $i -lt 60 ]; do
			echo "exit 0 $((1000 + i * 1000)) 100 0x1e $3"
			echo "entry 0 $((1500 + i * 1000)) 100 $3"
			[ $((i % 20)) = 19 ] && echo "chunk 0"
			i=$((i + 1))
		done
	} | "$HELPERS/mkvmt" "$F618" "$1.vmt" || fail "mkvmt $1.vmt"
	python3 "$top_srcdir/tests/helpers/vmtedit.py" "$1.vmt" "$1_bad.vmt" corrupt:1 || fail vmtedit
}
holed hole "cpus 0" 0
# chunk 1 holds 21000 .. 40500 ns: from the start (1000 ns), 20 .. 39.5 us
for w in "--from 30us --to 45us:1" "--from 39us:1" "--from 41us:0" "--to 15us:0"; do
	opts=${w%:*} want=${w##*:}
	vmtrace-report --json $opts hole_bad.vmt >w.json 2>/dev/null
	got=$(json w.json 'sum(c.get("gaps", 0) for c in d["cpus_detail"])')
	[ "$got" = "$want" ] || fail "hole_bad.vmt $opts: $got gaps marked, expected $want"
done
# the pCPU table's legend speaks of the pair's own words: exits for KVM's, pairs for others
vmtrace-report hole_bad.vmt >kvm.out 2>/dev/null
grep -q "^  (N gaps): that pCPU lost events N times (see Lost events): its figures lack those exits$" \
	kvm.out || fail "hole_bad.vmt: the legend of the gaps"
holed sys "events raw_syscalls:sys_enter raw_syscalls:sys_exit" ""
vmtrace-report sys_bad.vmt >sys.out 2>/dev/null
grep -q "^  (N gaps): that pCPU lost events N times (see Lost events): its figures lack those pairs$" \
	sys.out || { cat sys.out >&2; fail "sys_bad.vmt: the legend of the gaps speaks of exits"; }
finish
