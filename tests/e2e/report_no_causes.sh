#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --no-causes: the report of a recording with context events without the attribution.
# Its figures must be those of the full report (every JSON key but the causes', compared
# value by value), it must run in time slices (which attribution forbids) and print there
# exactly what one pass prints, and every view must say that the causes were not worked
# out rather than that there were none: the text, the JSON, the page, --compare and a
# merge. --legacy and --openmetrics show no causes, so they now run in slices too, with the
# same output as one pass. --why with --no-causes is a usage error (64).
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
REAL="$DATA/why/sample/kvm.vmt"
command -v python3 >/dev/null || skip "python3 missing"
"$HELPERS/mkvmt" --context --random 150000 4 "$F618" ctx4.vmt || fail "mkvmt --context"
"$HELPERS/mkvmt" --context --random 100000 4 "$F618" ctx4b.vmt || fail "mkvmt --context b"

# ok COMMAND...: it must succeed (its output where the caller sends it)
ok() {
	"$@" || fail "$*: exit $?"
}

# sliced FILE SLICES OPTIONS...: in SLICES slices (said on stderr) the output of one pass
sliced() {
	file=$1 slices=$2
	shift 2
	ok vmtrace-report --jobs 1 "$@" "$file" >one.out
	VMTRACE_TEST_SLICES=$slices vmtrace-report --jobs 3 "$@" "$file" >many.out 2>many.err ||
		fail "$file $*: exit $? in slices"
	grep -qx "vmtrace-report: $slices time slices" many.err ||
		fail "$file $*: not analysed in $slices slices: $(cat many.err)"
	cmp -s one.out many.out || {
		diff one.out many.out | head -20 >&2
		fail "$file $* in $slices slices: the output differs from one pass"
	}
}

for f in "$REAL" ctx4.vmt; do
	for slices in 3 5; do
		sliced "$f" $slices --no-causes
		sliced "$f" $slices --no-causes --json
		sliced "$f" $slices --legacy
		sliced "$f" $slices --openmetrics
		sliced "$f" $slices --no-causes --histogram --log --top 3 --window 100us
		sliced "$f" $slices --no-causes --json --reason npf,hlt,msr --from 0.01s --to 0.2s
	done
	# without --no-causes, the causes keep the one pass (0 slices)
	VMTRACE_TEST_SLICES=4 vmtrace-report --jobs 3 "$f" >/dev/null 2>many.err ||
		fail "$f: the report with causes failed"
	grep -qx 'vmtrace-report: 0 time slices' many.err ||
		fail "$f: the report with causes was not one pass: $(cat many.err)"

	# the figures: every key of the full report but the causes', value by value
	ok vmtrace-report --json "$f" >full.json
	ok vmtrace-report --json --no-causes "$f" >bare.json
	python3 - full.json bare.json "$f" <<'PY' || fail "$f: --no-causes figures"
import json, sys
full, bare = (json.load(open(p)) for p in sys.argv[1:3])
CAUSES = {"culprits", "culprits_merged", "why_by_reason", "why_note",
          "why", "worst_window_why", "before_exit_exits", "before_exit_ns",
          "before_exit_max_out_ns", "before_exit_max_out_latency_ns"}
def walk(a, b, path):
    if isinstance(a, dict):
        if set(a) - CAUSES != set(b) - CAUSES:
            sys.exit(f"{path}: keys {sorted(set(a) ^ set(b))}")
        for k in a:
            if k not in CAUSES:
                walk(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        if len(a) != len(b):
            sys.exit(f"{path}: {len(a)} against {len(b)} items")
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]")
    elif a != b:
        sys.exit(f"{path}: {a!r} with causes, {b!r} without")
walk(full, bare, "")
# the full report did work the causes out; the bare one says it did not
assert full["why_recorded"] and full["why_by_reason"], "no causes in the full report"
assert any(t["why"] for t in full["top"]), "no top exit with its causes"
assert bare["why_note"] == "causes not worked out (--no-causes): unknown, not zero", \
    bare.get("why_note")
assert bare["why_by_reason"] is None, "causes left in"
assert not {"before_exit_exits", "before_exit_ns", "before_exit_max_out_ns",
            "before_exit_max_out_latency_ns"} & set(bare), "before left in"
assert all(t["why"] is None for t in bare["top"]), "a top exit kept its causes"
assert all(v["worst_window_why"] is None for v in bare["vcpus"]), "a window kept its causes"
PY

	ok vmtrace-report --no-causes "$f" >bare.txt
	grep -qx 'Causes: not worked out (--no-causes); the recording has the context events to tell them.' \
		bare.txt || fail "$f: the text does not say the causes were left out"
	grep -q 'context events' bare.txt && ! grep -q 'has no context events' bare.txt ||
		fail "$f: the text says the recording has no context events"
	ok vmtrace-report --no-causes --html page.html "$f" >/dev/null
	grep -q 'Causes: not worked out (--no-causes)' page.html ||
		fail "$f: the page does not say the causes were left out"
	grep -q 'needs context events\|has no context events' page.html &&
		fail "$f: the --no-causes page says the recording has no context events"
	# --legacy prints no causes, but a page beside it does: it works them out
	ok vmtrace-report --legacy --html legacy.html "$f" >/dev/null
	grep -q 'not worked out' legacy.html && fail "$f: --legacy --html left the causes out"
	grep -q '<section id="causes"><h2>Where the time went</h2><p class="note">Each' legacy.html ||
		fail "$f: --legacy --html has no causes"
done

# Past VMT_COMMTAB_MAX (65536) named pids one pass keeps only its tasks' names, at a moment
# the slices do not see: the slices give way to one pass, whose names the output keeps
# (the vCPU task named only after the table filled is named; the many others are not).
python3 - >churn.txt <<'PY'
print("cpus 0-1")
print("context sched:sched_switch,sched:sched_waking")
ts = 1000
for i in range(70000):
    print(f"ctx 1 {ts} sched:sched_switch 0 0 prev_comm=swapper prev_pid=0 prev_state=0 "
          f"next_comm=t{i} next_pid={100000 + i}")
    if i % 2 == 0:
        print(f"exit 0 {ts + 1} 1000 0x72 0")
        print(f"entry 0 {ts + 300} 1000 0")
    ts += 1000
print(f"ctx 0 {ts} sched:sched_switch 0 1000 prev_comm=vcpu-late prev_pid=1000 prev_state=1 "
      f"next_comm=swapper next_pid=0")
print(f"exit 0 {ts + 10} 1000 0x72 0")
print(f"entry 0 {ts + 500} 1000 0")
PY
"$HELPERS/mkvmt" --chunk-pages 4 "$F618" churn.vmt <churn.txt || fail "mkvmt churn"
sliced_or_not() {	# the output of one pass, and no slices used
	ok vmtrace-report --jobs 1 "$@" churn.vmt >one.out
	VMTRACE_TEST_SLICES=4 vmtrace-report --jobs 3 "$@" churn.vmt >many.out 2>many.err ||
		fail "churn.vmt $*: exit $?"
	grep -qx 'vmtrace-report: 0 time slices' many.err ||
		fail "churn.vmt $*: sliced past the names' table: $(cat many.err)"
	cmp -s one.out many.out || fail "churn.vmt $*: the output differs from one pass"
}
sliced_or_not --no-causes --json
sliced_or_not --legacy
ok vmtrace-report --no-causes --json churn.vmt >churn.json
[ "$(json churn.json '[v["comm"] for v in d["vcpus"] if v["pid"] == 1000][0]')" = vcpu-late ] ||
	fail "churn.vmt: the vCPU task is not named vcpu-late"

# --compare and a merge: the same figures, and a line instead of the causes
ok vmtrace-report --compare --json ctx4.vmt ctx4b.vmt >cmp-full.json
ok vmtrace-report --compare --json --no-causes ctx4.vmt ctx4b.vmt >cmp-bare.json
python3 - cmp-full.json cmp-bare.json <<'PY' || fail "--compare --no-causes figures"
import json, sys
full, bare = (json.load(open(p))["compare"] for p in sys.argv[1:3])
assert full["groups"][0]["causes"]["before"]["exits"] > 0, "no causes compared"
for g, h in zip(full["groups"], bare["groups"]):
    assert h["causes"] is None, f"{g['reason']}: causes left in"
    g.pop("causes"); h.pop("causes")
    assert g == h, f"{g['reason']}: {g} != {h}"
assert len(full["groups"]) == len(bare["groups"])
full.pop("groups"); bare.pop("groups")
assert "causes_note" not in full, "a note in the full comparison"
assert bare.pop("causes_note") == "not worked out (--no-causes): unknown, not zero"
assert full == bare, "the comparison differs"
PY
ok vmtrace-report --compare --no-causes ctx4.vmt ctx4b.vmt >cmp.txt
tail -n 1 cmp.txt | grep -qx 'Causes: not worked out (--no-causes).' ||
	fail "--compare --no-causes: $(tail -n 1 cmp.txt)"
grep -q '^Causes (context events)' cmp.txt && fail "--compare --no-causes shows causes"
ok vmtrace-report --compare --no-causes --html cmp.html ctx4.vmt ctx4b.vmt >/dev/null
grep -q 'Not worked out (--no-causes)' cmp.html || fail "the compare page does not say so"
ok vmtrace-report --no-causes ctx4.vmt ctx4b.vmt >merge.txt
tail -n 1 merge.txt | grep -qx 'Causes: not worked out (--no-causes).' ||
	fail "a merge with --no-causes: $(tail -n 1 merge.txt)"
ok vmtrace-report --json --no-causes ctx4.vmt ctx4b.vmt >merge.json
[ "$(json merge.json 'd["merged"]["causes_note"]')" = "not worked out (--no-causes): unknown, not zero" ] ||
	fail "a merge's JSON does not say the causes were left out"
ok vmtrace-report ctx4.vmt ctx4b.vmt >merge-full.txt
grep -q '^Causes (context events)' merge-full.txt || fail "a merge lost its causes"

# without context events --no-causes changes nothing, and says what it always says
ok vmtrace-report "$DATA/sample-kvm.vmt" >plain.txt
ok vmtrace-report --no-causes "$DATA/sample-kvm.vmt" >plain-nc.txt
cmp -s plain.txt plain-nc.txt || fail "--no-causes changed a report without context events"

run vmtrace-report --no-causes --why -v "$REAL"
expect_rc 64 "--why --no-causes"
expect_one_line_error vmtrace-report "--why shows the causes that --no-causes leaves out"
finish
