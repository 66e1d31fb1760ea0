#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What vmtrace-report says of a flight recording's trigger when the file cannot show it:
# - the exit began before the file's pages (tests/data/flight/dropped.vmt: a real
#   recording whose --ring-size was too small): the line says so instead of placing the
#   exit at 0 ns, the JSON has "in_file": false and no at_ns, its latency, pid and CPU
#   are the recorder's own (dropped-record.txt), no exit of the file is that one (a
#   recount of vmtrace-convert --csv), and --around trigger is a one-line error; written
#   by an older recorder (its END's end when it finished the file), its recorded duration
#   is its pages' span (vmtrace-convert --events' times);
# - the file was not finished (the trigger's keys are in END): "unknown", in the text and
#   as "known": false, never "nothing triggered"; --around trigger is a one-line error;
# - in a syscall recording's words: the trigger is a pair, never an exit;
# - several recordings as one (vmtrace-report A B C): a line per flight recording named by
#   its number in the list of recordings ("  [3] "), within 120 columns, and a "triggers"
#   array of the same objects; none for other recordings.
# - the trigger's line once, in every combination of views (a KVM flight recording by mkvmt,
#   with the trigger's END keys; its values from the script's numbers).
. "$(dirname "$0")/lib.sh"
F="$DATA/flight/dropped.vmt"

# (the line an older recorder printed: "an exit of", now "a pair of" for this syscall pair)
re='.* of \([0-9]*\) ns (pid \([0-9]*\), CPU \([0-9]*\)) triggered.*'
set -- $(sed -n "s/$re/\1 \2 \3/p" "$DATA/flight/dropped-record.txt")
[ $# = 3 ] || fail "the recorder's trigger line"
lat=$1 pid=$2 cpu=$3

run vmtrace-report "$F"
expect_rc 0 "report of dropped.vmt"
line="Triggered by a pair of 1.200 s (task $pid, pCPU $cpu), threshold 1.100 s, that began"
grep -q "^$line before this file's pages" out.txt ||
	{ cat out.txt; fail "the text does not say the trigger began before the file"; }
! grep -q "pair at 0 ns\|see --around trigger" out.txt || fail "the text places the trigger"
run vmtrace-report --json "$F"
expect_rc 0 "report --json of dropped.vmt"
want="[('cpu', $cpu), ('in_file', False), ('known', True), ('latency_ns', $lat), ('pid', $pid),"
want="$want ('reasons', None), ('threshold_ns', 1100000000)]"
[ "$(json out.txt 'sorted(d["trigger"].items())')" = "$want" ] ||
	fail "trigger object: $(json out.txt 'd["trigger"]')"
# an older recorder's file: END's end is when it finished the file (3.431 s after its
# start) and its pages were not cut at the window; its duration is its pages' span
dur=$(json out.txt 'd["duration_ns"]')
vmtrace-convert --events --csv -o events.csv "$F" || fail "convert --events"
span=$(python3 -c 'import csv, sys
ts = [int(r["ts_ns"]) for r in csv.DictReader(open(sys.argv[1]))]
print(max(ts) - min(ts))' events.csv)
[ "$dur" = "$span" ] || fail "dropped.vmt: recorded $dur ns, its pages span $span ns"
vmtrace-convert --csv -o exits.csv "$F" || fail "convert"
python3 - exits.csv "$lat" "$pid" <<'PY' || fail "the trigger is in the file after all"
import csv, sys
lat, pid = int(sys.argv[2]), sys.argv[3]
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows, "no exits"
assert all(int(r["latency_ns"]) < lat for r in rows), max(int(r["latency_ns"]) for r in rows)
PY
run vmtrace-report --around trigger "$F"
expect_one_line_error vmtrace-report \
	"dropped.vmt: --around trigger: the triggering pair began before this file's pages"
[ "$(unfold err.txt | wc -l)" = 1 ] || fail "--around trigger: more than one line"

# Unfinished: the same file without its END block (the last bytes).
size=$(wc -c <"$F")
head -c $((size - 64)) "$F" >unf.vmt
run vmtrace-report unf.vmt
line="Flight recording (threshold 1.100 s): not finished, so which pair triggered it"
grep -q "^$line (if any) is unknown" out.txt ||
	{ cat out.txt err.txt; fail "unfinished: the trigger is not said unknown"; }
! grep -q "nothing triggered" out.txt || fail "unfinished: 'nothing triggered'"
run vmtrace-report --json unf.vmt
want="[('known', False), ('reasons', None), ('threshold_ns', 1100000000)]"
[ "$(json out.txt 'sorted(d["trigger"].items())')" = "$want" ] ||
	fail "unfinished: trigger object $(json out.txt 'd["trigger"]')"
run vmtrace-report --around trigger unf.vmt
expect_one_line_error vmtrace-report \
	"unf.vmt: --around trigger: the recording was not finished, so its trigger is unknown"

# Several recordings (of one pair, the flight recorder's): each flight recording's trigger as
# when reported alone. (unf.vmt is a part of dropped.vmt: the two are one recording, which
# is not merged with itself, so each goes with another recording.)
cp "$F" dropped.vmt
run vmtrace-report dropped.vmt "$DATA/small-syscalls.vmt"
[ "$rc" = 0 ] || { cat err.txt; fail "merged report exited $rc"; }
sed -n '/^Flight recordings:$/,$p' out.txt >lines.txt
l2="  [1] Triggered by a pair of 1.200 s (task $pid, pCPU $cpu), threshold 1.100 s,"
l3="      that began before this file's pages: the flight ring dropped them (a larger"
l3="$l3 --ring-size keeps --keep)"
[ "$(sed -n 2p lines.txt)" = "$l2" ] && [ "$(sed -n 3p lines.txt)" = "$l3" ] &&
	[ "$(wc -l <lines.txt)" = 3 ] || { cat out.txt; fail "merged: the flight recording's lines"; }
widths_ok out.txt || fail "merged: lines over 120 columns"
run vmtrace-report "$DATA/small-syscalls.vmt" unf.vmt
[ "$rc" = 2 ] || { cat err.txt; fail "merged with unf.vmt: exited $rc"; }
sed -n '/^Flight recordings:$/,$p' out.txt >lines.txt
l4="  [2] Flight recording (threshold 1.100 s): not finished, so which pair triggered it"
l4="$l4 (if any) is unknown"
[ "$(sed -n 2p lines.txt)" = "$l4" ] && [ "$(wc -l <lines.txt)" = 2 ] ||
	{ cat out.txt; fail "merged: the unfinished flight recording's line"; }
widths_ok out.txt || fail "merged: lines over 120 columns"
run vmtrace-report --json dropped.vmt "$DATA/small-syscalls.vmt"
want="[('dropped.vmt', True, False, $lat)]"
[ "$(json out.txt '[(t["file"], t["trigger"]["known"], t["trigger"].get("in_file"),
	t["trigger"].get("latency_ns")) for t in d["triggers"]]')" = "$want" ] ||
	fail "merged JSON triggers: $(json out.txt 'd["triggers"]')"
run vmtrace-report --json "$DATA/small-syscalls.vmt" unf.vmt
want="[('unf.vmt', False, None, None)]"
[ "$(json out.txt '[(t["file"], t["trigger"]["known"], t["trigger"].get("in_file"),
	t["trigger"].get("latency_ns")) for t in d["triggers"]]')" = "$want" ] ||
	fail "merged JSON triggers (unf.vmt): $(json out.txt 'd["triggers"]')"
run vmtrace-report dropped.vmt unf.vmt
expect_rc 64 "dropped.vmt and a part of it"

# No flight recording: --around trigger says so in the recording's words, a pair for the
# syscall pair and an exit for KVM's.
run vmtrace-report --around trigger "$DATA/sample-syscalls.vmt"
expect_rc 64 "--around trigger on a syscall recording that is no flight recording"
expect_one_line_error vmtrace-report "sample-syscalls.vmt: --around trigger: no pair triggered this"
run vmtrace-report --around trigger "$DATA/sample-kvm.vmt"
expect_rc 64 "--around trigger on a KVM recording that is no flight recording"
expect_one_line_error vmtrace-report "sample-kvm.vmt: --around trigger: no exit triggered this"

# The trigger's line comes once, whatever views the report prints (it was reported as
# printed after every table): a KVM flight recording written by mkvmt, its trigger the exit
# of CPU 0 at 5000 ns (4000 ns after the first page), 4000 ns long, over a 3000 ns threshold;
# and one where nothing triggered. Counted in the text of each combination of views.
cat >fl.txt <<'EOS'
meta trigger.threshold_ns 3000
meta trigger.keep_ns 1000000
cpus 0-1
page 0
exit 0 1000 100 30 0
entry 0 2000 100 0
exit 0 5000 100 12 0
entry 0 9000 100 0
page 1
exit 1 1500 200 30 1
entry 1 2500 200 1
EOS
grep -v "^meta trigger" fl.txt >plain.txt
cat fl.txt - >trig.txt <<'EOS'
endmeta trigger.ts 5000
endmeta trigger.lat 4000
endmeta trigger.cpu 0
endmeta trigger.pid 100
EOS
F618="$DATA/formats/linux-6.18-x86_64"
"$HELPERS/mkvmt" "$F618" trig.vmt <trig.txt || fail "mkvmt trig.vmt"
"$HELPERS/mkvmt" "$F618" none.vmt <fl.txt || fail "mkvmt none.vmt"
"$HELPERS/mkvmt" "$F618" plain.vmt <plain.txt || fail "mkvmt plain.vmt"
trig="Triggered by the exit at 4.000 us (task 100, pCPU 0): 4.000 us, threshold 3.000 us;"
trig="$trig see --around trigger"
none="Flight recording (threshold 3.000 us): nothing triggered"
count() {	# count FILE: lines of out.txt about a flight recording's trigger
	grep -c "Triggered by\|Flight recording" out.txt
}
# (no --why: these files hold no context events, which --why refuses, report_why.sh)
for views in "" "--histogram" "-v" "--wide" "--interval 2us" "--threshold 1us" \
	     "--around trigger" "--reason 0x1e" "--cpu 1" "--top 1" "--buckets 10 --log" \
	     "--histogram --interval 2us -v --wide --threshold 1us" \
	     "--histogram --interval 2us --wide --threshold 1us --around trigger"; do
	run vmtrace-report $views trig.vmt
	expect_rc 0 "report $views trig.vmt"
	[ "$(count)" = 1 ] && [ "$(grep -cxF "$trig" out.txt)" = 1 ] ||
		{ cat out.txt; fail "$views: the trigger's line not once"; }
	case $views in *"--around trigger"*) continue ;; esac	# none.vmt: refused
	run vmtrace-report $views none.vmt
	[ "$(count)" = 1 ] && [ "$(grep -cxF "$none" out.txt)" = 1 ] ||
		{ cat out.txt; fail "$views: 'nothing triggered' not once"; }
done
# several recordings (they take filters and --window, no other view): one heading and a line
# per flight recording, once
for views in "" "--window 2us" "--reason 0x1e" "--cpu 0"; do
	run vmtrace-report $views trig.vmt none.vmt plain.vmt
	expect_rc 0 "report $views of three recordings"
	[ "$(count)" = 3 ] && [ "$(grep -cxF "  [1] $trig" out.txt)" = 1 ] &&
		[ "$(grep -cxF "  [2] $none" out.txt)" = 1 ] &&
		[ "$(grep -c "^Flight recordings:$" out.txt)" = 1 ] ||
		{ cat out.txt; fail "$views, three recordings: the triggers' lines not once each"; }
	run vmtrace-report --json $views trig.vmt none.vmt plain.vmt
	[ "$(json out.txt 'len(d["triggers"])')" = 2 ] || fail "$views: JSON triggers"
done
run vmtrace-report --json trig.vmt
[ "$(json out.txt '(d["trigger"]["at_ns"], d["trigger"]["latency_ns"], d["trigger"]["pid"])')" = \
  "(4000, 4000, 100)" ] || fail "JSON trigger: $(json out.txt 'd["trigger"]')"
# "flight": how it was armed (the script's META keys), whether it triggered; null trigger
# when nothing did, which once left the JSON without its threshold; none for others
[ "$(json out.txt 'd["flight"]')" = \
  "{'threshold_ns': 3000, 'keep_ns': 1000000, 'after_ns': None, 'reasons': None, 'triggered': True}" ] ||
	fail "JSON flight of trig.vmt: $(json out.txt 'd.get("flight")')"
{ echo "meta trigger.after_ns 2000"; echo "meta trigger.reasons hlt,npf"; cat fl.txt; } >armed.txt
"$HELPERS/mkvmt" "$F618" armed.vmt <armed.txt || fail "mkvmt armed.vmt"
run vmtrace-report --json armed.vmt
[ "$(json out.txt '(d["trigger"], d["flight"])')" = \
  "(None, {'threshold_ns': 3000, 'keep_ns': 1000000, 'after_ns': 2000, 'reasons': 'hlt,npf', 'triggered': False})" ] ||
	fail "JSON flight of armed.vmt: $(json out.txt '(d["trigger"], d.get("flight"))')"
{ cat armed.txt; echo unfinished; } | "$HELPERS/mkvmt" "$F618" cut.vmt || fail "mkvmt cut.vmt"
run vmtrace-report --json cut.vmt
[ "$(json out.txt 'd["flight"]["triggered"], d["trigger"]["known"]')" = "(None, False)" ] ||
	fail "JSON flight of an unfinished file: $(json out.txt '(d["trigger"], d.get("flight"))')"
run vmtrace-report --json plain.vmt
[ "$(json out.txt '"flight" in d or "trigger" in d')" = False ] || fail "plain.vmt: a flight member"
run vmtrace-report --json trig.vmt none.vmt plain.vmt
[ "$(json out.txt '[t["flight"]["triggered"] for t in d["triggers"]]')" = "[True, False]" ] ||
	fail "merged: the files' flight members"
# --compare: at most once (it names no trigger today)
for views in "" "--window 2us" "--json"; do
	run vmtrace-report --compare $views trig.vmt none.vmt
	expect_rc 0 "--compare $views"
	[ "$(count)" -le 2 ] && [ "$(grep -c "Triggered by" out.txt)" -le 1 ] ||
		{ cat out.txt; fail "--compare $views: the trigger more than once"; }
done
# vmtrace-record --trigger-reason's list (META trigger.reasons): a line under the trigger's,
# cut to 120 columns when long (also after a list's "[N] "); the JSON has it whole
for R in -hlt "$(seq -s, -f 'reason_%g_long_name' 1 12)"; do
	{ echo "meta trigger.reasons $R"; cat trig.txt; } >trigr.txt
	"$HELPERS/mkvmt" "$F618" trigr.vmt <trigr.txt || fail "mkvmt trigr.vmt"
	run vmtrace-report trigr.vmt
	expect_rc 0 "report of a file with trigger.reasons"
	under=$(grep -A1 -xF "$trig" out.txt | tail -n 1)
	if [ "$R" = -hlt ]; then
		[ "$under" = "      only exits of --trigger-reason -hlt could trigger" ] ||
			{ cat out.txt; fail "the line under the trigger's: $under"; }
	else
		case $under in
		"      only exits of --trigger-reason reason_1_long_name,"*"... could trigger") ;;
		*) cat out.txt; fail "a long list's line: $under" ;;
		esac
	fi
	widths_ok out.txt || fail "the trigger's lines wider than 120 columns"
	run vmtrace-report trigr.vmt none.vmt
	grep -A1 -xF "  [1] $trig" out.txt | tail -n 1 | grep -q "^            only exits of" ||
		{ cat out.txt; fail "two recordings: the list's line"; }
	widths_ok out.txt || fail "two recordings: the trigger's lines wider than 120 columns"
	run vmtrace-report --json trigr.vmt
	[ "$(json out.txt 'd["trigger"]["reasons"]')" = "$R" ] || fail "JSON trigger.reasons"
done
exit 0
