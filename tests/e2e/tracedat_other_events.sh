#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace.dat without the event pair asked for (kvm:kvm_exit,kvm:kvm_entry by default): the
# message names the pair, lists the events the file does hold, most records first, with
# their counts, and points at --pair; whether the pair's formats are missing (the syscall
# fixtures: exit status 1) or there but without a record (context.dat, whose formats include
# six kvm events: the report of nothing, exit status 0), from vmtrace-report and
# vmtrace-convert alike. Oracle: `trace-cmd report -t` of each file (the .report.txt.gz
# committed with it), its lines counted per event; and the pair the message suggests, taken
# as --pair, reads as many events as trace-cmd printed of those two.
. "$(dirname "$0")/lib.sh"
T="$DATA/tracedat"

# check MESSAGES ORACLE PAIR: the one line about the missing pair against trace-cmd's counts;
# prints the two most frequent events it names, as a --pair
check() {
	unfold "$1" >msg.txt
	python3 - msg.txt "$2" "$3" "$top_srcdir/tests/helpers" <<'PY'
import collections, re, sys
sys.path.insert(0, sys.argv[4])
from tracecmd_oracle import tracecmd
msg = [l for l in open(sys.argv[1]) if "it holds" in l]
assert len(msg) == 1, "not one line about what the file holds: %r" % msg
msg = msg[0].rstrip("\n")
begin, end = sys.argv[3].split(",")
assert begin in msg and end in msg, "the pair is not named: " + msg
m = re.search(r"it holds records of (.*?)(?: and (\d+) more events?)?: choose the pair with "
              r"--pair BEGIN,END$", msg)
assert m, "no list of events, or no --pair: " + msg
items = re.findall(r"([\w]+):(\w+) \((\d+)\)", m.group(1))
more = int(m.group(2) or 0)
counts = collections.Counter(e[3] for e in tracecmd(sys.argv[2]))
assert counts, "trace-cmd printed no events"
assert len(items) == min(4, len(counts)), (items, counts)
assert len(items) + more == len(counts), ("kinds", len(items), more, len(counts))
for system, name, n in items:
    assert counts[name] == int(n), (name, n, counts[name])
shown = {name for _, name, _ in items}
least = min(int(n) for _, _, n in items)
assert all(c <= least for e, c in counts.items() if e not in shown), ("not the most", counts)
print("%s:%s,%s:%s" % (items[0][0], items[0][1], items[1][0], items[1][1]))
PY
}

# The pair's formats are not in the file: an error, one line.
for f in syscalls-extract syscalls-extract.v6 tsc2nsec; do
	run vmtrace-report "$T/$f.dat"
	expect_one_line_error vmtrace-report \
		"$f.dat: no kvm:kvm_exit or kvm:kvm_entry event format in the file; it holds"
	check err.txt "$T/$f.report.txt.gz" kvm:kvm_exit,kvm:kvm_entry >pair.txt ||
		fail "$f.dat: the events named"
	run vmtrace-convert --csv -o out.csv "$T/$f.dat"
	expect_one_line_error vmtrace-convert "$f.dat: no kvm:kvm_exit or kvm:kvm_entry"
	check err.txt "$T/$f.report.txt.gz" kvm:kvm_exit,kvm:kvm_entry >/dev/null ||
		fail "$f.dat: the events named by vmtrace-convert"
	[ ! -e out.csv ] || fail "$f.dat: an output file left behind"
	# the suggestion works: the pair named reads every event trace-cmd printed of it
	pair=$(cat pair.txt)
	vmtrace-report --json --pair "$pair" "$T/$f.dat" >r.json 2>/dev/null
	[ $? -le 2 ] || fail "$f.dat: --pair $pair"
	b=${pair%%,*} e=${pair#*,}
	want=$(zcat "$T/$f.report.txt.gz" | grep -c " ${b#*:}: \| ${e#*:}: ")
	[ "$(json r.json 'd["events"]')" = "$want" ] ||
		fail "$f.dat: --pair $pair reads $(json r.json 'd["events"]') events, not $want"
done

# One of the two missing: that one and the pair are named.
run vmtrace-report --pair kvm:kvm_exit,kvm:nope "$T/kvm.v6.dat"
expect_one_line_error vmtrace-report \
	"kvm.v6.dat: no kvm:nope event format in the file (the pair kvm:kvm_exit,kvm:nope); it holds"
check err.txt "$T/kvm.v6.report.txt.gz" kvm:kvm_exit,kvm:nope >/dev/null ||
	fail "kvm.v6.dat: the events named"

# The formats are there (trace-cmd saves whole systems') but not one record: the report of
# nothing, and instead of "no guest ran", what the file holds.
for prog in vmtrace-report "vmtrace-convert --csv -o out.csv"; do
	run $prog "$T/context.dat"
	[ "$rc" = 0 ] || { cat err.txt; fail "$prog context.dat: exit $rc"; }
	unfold err.txt | grep -q "no guest ran\|has no exits" && fail "$prog context.dat: the old words"
	unfold err.txt | grep -q "^${prog%% *}: .*context.dat: not one kvm:kvm_exit event in the file (the pair" || { cat err.txt; fail "$prog context.dat: the pair is not named"; }
	check err.txt "$T/context.report.txt.gz" kvm:kvm_exit,kvm:kvm_entry >pair.txt ||
		fail "$prog context.dat: the events named"
done
[ "$(cat pair.txt)" = raw_syscalls:sys_exit,raw_syscalls:sys_enter ] ||
	fail "context.dat: the most frequent events are $(cat pair.txt)"
finish
