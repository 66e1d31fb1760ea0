#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-report --html without --interval on a recording whose vCPU tasks need more rows
# than a time series holds (262144: a row per interval and task) at the interval the span
# asks for: 600 tasks over 9.5 s, 475 intervals of 20 ms. The page is made all the same,
# at the shortest coarser interval of 1, 2 or 5 times a power of ten at which the rows fit
# (found here from vmtrace-convert --csv's exits, not from the program), it says which and
# why, and every chart's lines (out of guest, longest, p99) equal a recount of the CSV's
# exits at that interval; the page is that of --interval at that length but for the note.
# The interval the user gives is kept: --interval 20ms still ends with exit 1 and its hint.
# With context events, the second pass (for the series alone) works out no causes (gdb
# counts the attribution engine's starts) and the page is still one pass's at its interval.
# A page whose rows fit says nothing of the kind.
. "$(dirname "$0")/lib.sh"

# 600 tasks on 8 CPUs, 20 exits each at most, a third of them 20 to 120 ms long (longer
# than an interval: split at its edges), from 1 s to about 10.5 s, the first near 1 s.
python3 - >many.txt <<'PY' || fail "the script"
import random
rnd = random.Random(7)
ev = []
for i in range(600):
    pid, cpu = 2000 + i, i % 8
    t = 1_000_000_000 + i * 1000 + rnd.randrange(0, 50_000_000)
    for k in range(20):
        lat = rnd.choice((rnd.randrange(500, 40_000), rnd.randrange(500, 40_000),
                          rnd.randrange(20_000_000, 120_000_000)))
        if t + lat > 10_500_000_000:
            break
        ev.append((t, "exit %d %d %d 30 %d" % (cpu, t, pid, i % 4)))
        ev.append((t + lat, "entry %d %d %d %d" % (cpu, t + lat, pid, i % 4)))
        t += lat + rnd.randrange(1_000_000, 900_000_000)
for _, line in sorted(ev):
    print(line)
PY
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" many.vmt <many.txt || fail "mkvmt"

run vmtrace-report --html many.html many.vmt
expect_rc 0 "--html without --interval on 600 tasks"
[ ! -s err.txt ] || { cat err.txt >&2; fail "--html: messages on stderr"; }
vmtrace-convert --csv many.vmt >many.csv || fail "vmtrace-convert --csv"

PYTHONPATH="$top_srcdir/tests/helpers" python3 - many.html many.csv >check.out <<'PY' ||
import csv, math, re, sys
from collections import defaultdict
from fractions import Fraction
from htmltree import Build

MAX_ROWS = 262144
page, exits_csv = sys.argv[1:3]

def fail(msg):
    sys.exit("FAIL: " + msg)

def step_at_least(want):
    """The smallest of 1, 2, 5 times a power of ten ns, at least 1 us, not below want."""
    scale = 1000
    while True:
        for k in (1, 2, 5):
            if k * scale >= want:
                return k * scale
        scale *= 10

exits = defaultdict(list)
for e in csv.DictReader(open(exits_csv, newline="")):
    exits[int(e["task"])].append((int(e["start_ns"]), int(e["latency_ns"])))
ntasks = len(exits)

def intervals(iv):
    """Every task has a row per interval, up to the one the last exit starts or ends in."""
    last = max(max(s // iv, -(-(s + l) // iv) - 1) for ex in exits.values() for s, l in ex)
    return last + 1

# The interval the span asks for (about 500 of them), which these tasks outgrow ...
span = max(s + l for ex in exits.values() for s, l in ex)
asked = step_at_least(span // 500)
if ntasks * intervals(asked) <= MAX_ROWS:
    fail(f"the recording fits at {asked} ns: {ntasks} tasks x {intervals(asked)} intervals")
# ... and the next steps up to the first at which they fit.
want = step_at_least(asked + 1)
while ntasks * intervals(want) > MAX_ROWS:
    want = step_at_least(want + 1)

doc = Build()
doc.feed(open(page).read())
charts = [s for s in doc.root.all("svg") if re.fullmatch(r"ts-\d+", s.a.get("id", ""))]
if len(charts) != 8:
    fail(f"{len(charts)} charts over time, expected 8")
iv = int(charts[0].a["data-dt"])
if iv != want or any(int(s.a["data-dt"]) != iv or s.a["data-merged"] != "1" for s in charts):
    fail(f"the page's interval {iv} ns, expected {want} ns (the span asks for {asked} ns)")
note = list(doc.root.all("p", id="interval-note"))
text = note[0].alltext() if note else ""
words = f"The interval is {want / 1e6:.2f} ms, not the {asked / 1e6:.2f} ms the recording's span " \
        f"asks for: a series holds {MAX_ROWS} rows, one per interval and vCPU task, and " \
        f"{ntasks} vCPU tasks need more at that."
if text != words:
    fail(f"the page's note {text!r}, expected {words!r}")

# Each chart's lines against the CSV's exits at that interval.
n = intervals(iv)
for svg in charts:
    pid = int(svg.a["data-pid"])
    if int(svg.a["data-n"]) != n:
        fail(f"pid {pid}: {svg.a['data-n']} points, {n} intervals")
    out, lat = [0] * n, defaultdict(list)
    for s, l in exits[pid]:
        lat[s // iv].append(l)
        k = s // iv
        while k < n and s + l > k * iv:	# split at the intervals' edges
            out[k] += max(0, min(s + l, (k + 1) * iv) - max(s, k * iv))
            k += 1
    want_max, want_p99 = [], []
    for k in range(n):
        v = sorted(lat[k])
        rank = min(max(math.ceil(Fraction(99, 100) * len(v)), 1), len(v)) if v else 0
        want_max.append(str(v[-1]) if v else "")
        want_p99.append(str(v[rank - 1]) if v else "")
    # no out value where the task was not traced: before its first exit, after its last end
    first, last = min(s for s, _ in exits[pid]), max(s + l for s, l in exits[pid])
    out = [str(x) if k * iv < last and (k + 1) * iv > first else "" for k, x in enumerate(out)]
    lines = {p.a["data-name"]: p.a["data-values"].split(",") for p in svg.all("path", "line")}
    if lines.get("out") != out:
        fail(f"pid {pid}: out of guest differs from the recount")
    if lines.get("max") != want_max:
        fail(f"pid {pid}: the longest exits differ from the recount")
    if lines.get("p99") != want_p99:
        fail(f"pid {pid}: p99 differs from the recount")
print(f"{ntasks} tasks: {asked} ns would need {ntasks * intervals(asked)} rows; the page took "
      f"{iv} ns, {n} intervals; 8 charts equal the recount")
PY
	{ cat check.out; fail "the page's interval and values"; }
cat check.out

# The second pass's page is the page of one pass at that interval, but for the note.
asked=$(sed -n 's/^[0-9]* tasks: \([0-9]*\) ns would need.*/\1/p' check.out)
took=$(sed -n 's/.* the page took \([0-9]*\) ns, .*/\1/p' check.out)
vmtrace-report --html one.html --interval "${took}ns" many.vmt >/dev/null || fail "--interval ${took}ns"
sed 's|<p class="note" id="interval-note">[^<]*</p>||' many.html | cmp -s - one.html ||
	fail "the page at ${took}ns in two passes is not the page of one pass"

# With context events the first pass works out the causes; the second, for the series
# alone, must not (it reads no why): under gdb, vmt_attrib_new (the attribution engine's
# start) is reached once and vmt_iterate twice (the pass, then the refit's). The page is
# still that of one pass at the interval it took, why sections and all, but for the note.
python3 - many.txt >ctx.txt <<'PY' || fail "the script with context events"
import sys
out = []
for line in open(sys.argv[1]):
    f = line.split()
    out.append((int(f[2]), line.rstrip("\n")))
    if f[0] == "exit" and int(f[3]) % 3 == 0:      # an interrupt inside a third of the exits
        cpu, t, pid = f[1], int(f[2]), f[3]
        out.append((t + 100, "ctx %s %d irq:irq_handler_entry 8 %s irq=24 name=eth0"
                    % (cpu, t + 100, pid)))
        out.append((t + 200, "ctx %s %d irq:irq_handler_exit 8 %s irq=24 ret=1"
                    % (cpu, t + 200, pid)))
print("context irq:irq_handler_entry,irq:irq_handler_exit")
for _, line in sorted(out, key=lambda x: x[0]):
    print(line)
PY
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" ctx.vmt <ctx.txt || fail "mkvmt, context events"
vmtrace-report --html ctx.html ctx.vmt >/dev/null || fail "--html, context events"
grep -q 'id="interval-note"' ctx.html || fail "--html, context events: no second pass"
vmtrace-report --html ctx1.html --interval "${took}ns" ctx.vmt >/dev/null ||
	fail "--interval ${took}ns, context events"
sed 's|<p class="note" id="interval-note">[^<]*</p>||' ctx.html | cmp -s - ctx1.html ||
	fail "context events: the page at ${took}ns in two passes is not the page of one pass"
if command -v gdb >/dev/null; then
	printf '%s\n' 'set pagination off' 'break vmt_attrib_new' 'commands' 'silent' 'continue' \
		'end' 'break vmt_iterate' 'commands' 'silent' 'continue' 'end' 'run' \
		'info breakpoints' >gdb.cmd
	gdb -batch -x gdb.cmd --args "$(command -v vmtrace-report)" --html g.html ctx.vmt \
		>gdb.out 2>&1
	hits() {
		sed -n "/ in $1 /,/already hit/s/.*already hit \([0-9]*\) time.*/\1/p" gdb.out
	}
	if [ "$(hits vmt_iterate)" = 2 ]; then
		[ "$(hits vmt_attrib_new)" = 1 ] ||
			{ cat gdb.out >&2; fail "the second pass works out the causes again"; }
		echo "gdb: 2 passes, the attribution engine started in the first only"
	else
		skip_part "gdb could not count the passes ($(tail -1 gdb.out))"
	fi
else
	skip_part "gdb"
fi

# The interval the user gives is kept, and refused as one too short for the span is (exit
# 64, no page), naming the vCPU tasks and the interval that fits them: the one the page
# took above; vmtrace-convert --series says the same.
ntasks=$(sed -n 's/^\([0-9]*\) tasks: .*/\1/p' check.out)
for prog in "vmtrace-report --html given.html --interval=" "vmtrace-convert --csv -o given.html --series="; do
	run $prog"${asked}ns" many.vmt
	expect_rc 64 "$prog${asked}ns"
	opt=${prog##* }
	opt=${opt%=}
	least=$(unfold err.txt | sed -n "s/^${prog%% *}: many.vmt: $opt [0-9.]* [mun]*s: more than the 262144 rows a time series holds, with $ntasks vCPU tasks: choose at least \([0-9]*\) \([mun]*s\)$/\1 \2/p")
	[ -n "$least" ] || { cat err.txt; fail "$prog${asked}ns: the message"; }
	[ "$(echo "$least" | awk '{ print $1 * ($2 == "s" ? 1e9 : $2 == "ms" ? 1e6 : $2 == "us" ? 1e3 : 1) }')" = "$took" ] ||
		fail "$prog${asked}ns: suggests $least, the page took $took ns"
	[ ! -e given.html ] || fail "$prog${asked}ns: an output all the same"
done

# Rows that fit: the interval the span asks for, and no note.
vmtrace-report --html fits.html "$DATA/sample-kvm.vmt" >/dev/null || fail "sample-kvm: --html"
grep -q 'Over time' fits.html || fail "sample-kvm: no charts over time"
! grep -q 'interval-note' fits.html || fail "sample-kvm: a note on an interval it did not change"
finish
