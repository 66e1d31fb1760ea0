#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The same pages as a .vmt, a trace.bin, a trace.dat and a .vmt converted back from the
# trace.bin mean the same times: every input counts from its first page, so CSV start_ns,
# the JSON's top exits and max_window_start_ns, and --from/--to agree, all against the
# times of the script that wrote the pages. A trace.bin read with a guessed layout (the
# original tool's, or this host's when the ids match) that does not decode is refused in one
# line, by report, by convert and by --to-vmt (which must not bake it into a .vmt).
. "$(dirname "$0")/lib.sh"
F="$DATA/formats"
F61="$F/linux-6.1-x86_64"

# One CPU (a trace.bin holds one), a first page that starts with another event 0.5 ms
# before the first exit, exits of pseudo-random lengths, enough to fill several pages.
python3 - >s.txt <<'PY'
import random
random.seed(12)
print("other 0 500000")
t = 1000000
for i in range(600):
    t += random.randrange(200, 5000)
    print("exit 0 %d 77 %s 0" % (t, random.choice(("0x72", "0x78", "0x7b"))))
    t += random.randrange(300, 90000 if i % 50 == 7 else 3000)
    print("entry 0 %d 77 0" % t)
PY
"$HELPERS/mkvmt" "$F61" s.vmt <s.txt || fail mkvmt
"$HELPERS/mkvmt" --legacy "$F61" s.bin <s.txt || fail "mkvmt --legacy"
"$HELPERS/mktracedat" s.vmt s.dat || fail mktracedat
vmtrace-convert --to-vmt --format-dir "$F61" -o back.vmt s.bin || fail "--to-vmt of the trace.bin"

# The expected exits: (start_ns, latency_ns) since the first page, from the script alone.
python3 - s.txt >want.txt <<'PY'
import sys
start, ex = None, None
for line in open(sys.argv[1]):
    w = line.split()
    ts = int(w[2])
    start = ts if start is None else start
    if w[0] == "exit":
        ex = ts
    elif w[0] == "entry":
        print(ex - start, ts - ex)
PY
[ "$(wc -l <want.txt)" = 600 ] || fail "script"
# rows FILE: the rows of a CSV as "start_ns latency_ns" lines
rows() {
	python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    print(r["start_ns"], r["latency_ns"])' "$1"
}

for f in s.vmt s.bin s.dat back.vmt; do
	opt=
	[ "$f" = s.bin ] && opt="--format-dir $F61"
	# shellcheck disable=SC2086
	vmtrace-convert --csv $opt -o "$f.csv" "$f" || fail "convert $f"
	rows "$f.csv" >got.txt
	cmp -s got.txt want.txt || fail "$f: CSV start_ns or latency_ns differ from the script"
	# shellcheck disable=SC2086
	vmtrace-report --json --top 5 $opt "$f" >"$f.json" || fail "report $f"
	python3 - "$f.json" want.txt <<'PY' || fail "$f: JSON times differ from the script"
import json, sys
d = json.load(open(sys.argv[1]))
want = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
top = sorted(want, key=lambda r: (-r[1], r[0]))[:5]
assert [(t["time_ns"], t["latency_ns"]) for t in d["top"]] == top, (d["top"], top)
# The largest out-of-guest time of the task in a 1 ms window [end - 1 ms, end) ending at
# an exit's entry, as the man page defines it; the window's start since the first page.
S, W = 500000, 1000000
best = (0, 0)
for s0, l0 in want:
    e = S + s0 + l0
    lo = e - W if e > W else 0
    tot = sum(min(S + s + l, e) - max(S + s, lo) for s, l in want if S + s < e and S + s + l > lo)
    if tot > best[0]:
        best = (tot, lo - S if lo > S else 0)
assert (d["max_window_sum_ns"], d["max_window_start_ns"]) == best, (d["max_window_sum_ns"], d["max_window_start_ns"], best)
PY
	# --from/--to count from the first page too
	# shellcheck disable=SC2086
	vmtrace-convert --csv $opt --from 1ms --to 2ms -o "$f.sel.csv" "$f" || fail "convert --from $f"
	n=$(awk '$1 >= 1000000 && $1 <= 2000000' want.txt | wc -l)
	[ "$n" -gt 10 ] || fail "the script has too few exits between 1 and 2 ms"
	[ "$(($(wc -l <"$f.sel.csv") - 1))" = "$n" ] || fail "$f: --from 1ms --to 2ms kept $(($(wc -l <"$f.sel.csv") - 1)), expected $n"
done

# A 6.1 layout read without --format-dir: the original tool's 2015 layout does not fit it.
run vmtrace-report s.bin
expect_rc 1 "a trace.bin that does not decode with the 2015 layout"
expect_one_line_error vmtrace-report "s.bin: the events do not decode with the original tool's 2015 layout (.*); give --format-dir DIR"
[ "$(unfold err.txt | wc -l)" = 1 ] || fail "more than one line"
run vmtrace-convert --csv s.bin
expect_rc 1 "convert: a trace.bin that does not decode"
expect_one_line_error vmtrace-convert "the events do not decode with the original tool's 2015 layout"
run vmtrace-convert --to-vmt -o bad.vmt s.bin
expect_rc 1 "--to-vmt of a trace.bin that does not decode"
expect_one_line_error vmtrace-convert "the events do not decode with the original tool's 2015 layout"
ls bad.vmt* 2>/dev/null && fail "--to-vmt left a file"
# This host's formats when their ids match the file's, but with another layout (a tracefs
# made here whose kvm formats are the 2015 layout under the 6.1 ids).
mkdir -p fake/events/kvm/kvm_exit fake/events/kvm/kvm_entry
for ev in kvm_exit kvm_entry; do
	id=$(sed -n 's/^ID: //p' "$F61/kvm/$ev/format")
	sed "s/^ID: .*/ID: $id/" "$F/rt-2015-x86_64/kvm/$ev/format" >"fake/events/kvm/$ev/format"
done
VMTRACE_TRACEFS=$scratch/fake run vmtrace-report s.bin
expect_one_line_error vmtrace-report "s.bin: the events do not decode with this host's layout"
# The right layout guessed is accepted: the 2015 layout's own file, no --format-dir.
"$HELPERS/mkvmt" --legacy "$F/rt-2015-x86_64" rt.bin <s.txt || fail "mkvmt --legacy 2015"
vmtrace-convert --csv -o rt.csv rt.bin || fail "the 2015 layout, guessed"
rows rt.csv >got.txt
cmp -s got.txt want.txt || fail "the 2015 layout's rows differ from the script"
exit 0
