#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The original vm-trace's trace.bin as input: formats from --format-dir, from this host's
# tracefs when the ids match, else the original tool's own 2015 PREEMPT_RT layout; every
# source named in the report. A damaged or foreign trace.bin gets one clear line.
. "$(dirname "$0")/lib.sh"

cat >s.txt <<'S'
exit 0 1000 7 0x72 0
entry 0 1300 7 0
exit 0 5000 7 0x78 0
entry 0 9000 7 0
S
F="$DATA/formats"
"$HELPERS/mkvmt" --legacy "$F/rt-2015-x86_64" rt.bin <s.txt || fail mkvmt
"$HELPERS/mkvmt" --legacy "$F/linux-6.1-x86_64" v61.bin <s.txt || fail mkvmt
[ "$(od -An -tx4 -N4 rt.bin | tr -d ' ')" = cce96d01 ] || fail "trace.bin signature"

check() {	# check FILE EXPR [options]
	f=$1 expr=$2
	shift 2
	vmtrace-report --json "$@" "$f" >j.json || fail "report $f $*"
	[ "$(json j.json "$expr")" = True ] || { cat j.json; fail "$f $*: $expr"; }
}
# No formats given, ids unknown to this host: the original tool's layout (exit_reason at 16).
check rt.bin 'd["legacy"] and "original tool" in d["format_source"]'
check rt.bin 'd["pairs"] == 2 and d["latency_ns"] == {"min": 300, "avg": 2150, "max": 4000}'
check rt.bin '[(r["name"], r["count"]) for r in d["reasons"]] == [("hlt", 1), ("cpuid", 1)]'
# A 6.1 layout with its formats from a directory (as copied from the recording host).
check v61.bin 'd["format_source"] == "formats from '"$F"'/linux-6.1-x86_64"' --format-dir "$F/linux-6.1-x86_64"
check v61.bin 'd["pairs"] == 2 and d["vcpus"][0]["vcpu"] == 0 and d["reasons"][0]["name"] == "hlt"' --format-dir "$F/linux-6.1-x86_64"
run vmtrace-report -f v61.bin --legacy --format-dir "$F/linux-6.1-x86_64"
expect_rc 0 "legacy lines"
printf 'Number of VM events = 4\nAverage VM Exit-Entry latency = 2us\nMaximum VM Exit-Entry latency = 4us\nMaximum cumulative latency within 1ms = 4us\n' |
	diff - out.txt || fail "the four original lines"
run vmtrace-report --format-dir "$F/linux-6.18-x86_64" v61.bin
expect_one_line_error vmtrace-report \
	"v61.bin: --format-dir $F/linux-6.18-x86_64: its event ids differ from the trace.bin"
# A --format-dir that gives no formats: the directory named, and why.
run vmtrace-report --format-dir "$scratch/none" v61.bin
expect_one_line_error vmtrace-report "v61.bin: --format-dir $scratch/none: no such directory\$"
run vmtrace-convert --csv --format-dir "$scratch/none" v61.bin
expect_one_line_error vmtrace-convert "v61.bin: --format-dir $scratch/none: no such directory\$"
run vmtrace-report --format-dir s.txt v61.bin
expect_one_line_error vmtrace-report "v61.bin: --format-dir s.txt: not a directory\$"
mkdir -p part/kvm/kvm_exit part/kvm/kvm_entry
cp "$F/linux-6.1-x86_64/kvm/kvm_exit/format" part/kvm/kvm_exit/
run vmtrace-report --format-dir part v61.bin
expect_one_line_error vmtrace-report \
	"v61.bin: --format-dir part: cannot read part/kvm/kvm_entry/format: No such file"
echo "not a format" >part/kvm/kvm_entry/format
run vmtrace-report --format-dir part v61.bin
expect_one_line_error vmtrace-report \
	"v61.bin: --format-dir part: part/kvm/kvm_entry/format is not an event format"
if [ "$(id -u)" != 0 ]; then	# root reads whatever the permissions say
	cp "$F/linux-6.1-x86_64/kvm/kvm_entry/format" part/kvm/kvm_entry/
	chmod 000 part/kvm/kvm_entry/format
	run vmtrace-report --format-dir part v61.bin
	expect_one_line_error vmtrace-report \
		"v61.bin: --format-dir part: cannot read part/kvm/kvm_entry/format: Permission denied"
else
	echo "(as root: the unreadable --format-dir file is not tried)"
fi
# This host's formats, when the file's ids are this kernel's.
if [ -r /sys/kernel/tracing/events/kvm/kvm_exit/format ]; then
	mkdir -p host/kvm/kvm_exit host/kvm/kvm_entry
	cp /sys/kernel/tracing/events/kvm/kvm_exit/format host/kvm/kvm_exit/
	cp /sys/kernel/tracing/events/kvm/kvm_entry/format host/kvm/kvm_entry/
	cp /sys/kernel/tracing/events/header_page host/
	"$HELPERS/mkvmt" --legacy host here.bin <s.txt || fail mkvmt
	check here.bin '"this host" in d["format_source"] and d["pairs"] == 2'
else
	skip_part "this host's formats (no readable kvm formats in tracefs)"
fi
# --window keeps the original's last line, "within Nms = Mus", for every whole-ms window
# (the sums computed here, over every window ending where an exit ends); a window of no
# whole ms has no such line and is refused (exit 64).
cat >w.txt <<'S'
exit 0 0 7 0x72 0
entry 0 900000 7 0
exit 0 1500000 7 0x78 0
entry 0 2400000 7 0
exit 0 2600000 7 0x78 0
entry 0 2700000 7 0
S
"$HELPERS/mkvmt" --legacy "$F/linux-6.1-x86_64" w.bin <w.txt || fail mkvmt
for w in 1 2 3 1000; do
	run vmtrace-report --legacy --window ${w}ms --format-dir "$F/linux-6.1-x86_64" w.bin
	expect_rc 0 "--legacy --window ${w}ms"
	want=$(python3 - "$w" <<'PY'
import sys
w = int(sys.argv[1]) * 10**6
iv = [(0, 900000), (1500000, 2400000), (2600000, 2700000)]
best = max(sum(max(0, min(b, e) - max(a, e - w)) for a, b in iv) for _, e in iv)
print("Maximum cumulative latency within %dms = %dus" % (w // 10**6, best // 1000))
PY
)
	[ "$(sed -n 4p out.txt)" = "$want" ] || { cat out.txt; fail "--window ${w}ms: not '$want'"; }
	[ "$(wc -l <out.txt)" = 4 ] || fail "--window ${w}ms: not four lines"
done
for w in 1500us 300ns 1001us 2500000ns; do
	run vmtrace-report --legacy --window $w --format-dir "$F/linux-6.1-x86_64" w.bin
	expect_rc 64 "--legacy --window $w"
	grep -q "^vmtrace-report: --legacy prints the original's window in whole milliseconds.*--window" \
		err.txt || { cat err.txt; fail "--legacy --window $w: no error naming --window"; }
	[ ! -s out.txt ] || fail "--legacy --window $w: printed something"
done
# A page cut short: the whole pages are read, with a warning.
head -c 3000 rt.bin >cut.bin
run vmtrace-report cut.bin
[ "$rc" = 2 ] || fail "cut trace.bin: exit $rc"
grep -q "ends inside a page" err.txt || fail "cut trace.bin: no warning"
finish
