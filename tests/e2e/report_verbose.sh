#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every line of -v (common/evdump.c builds them without printf) against lines built here
# from vmtrace-convert --json --events (a separate path: rows.c and jsonw.c): time, CPU
# and pid columns, reason names and unknown codes, hex fields (rip always, the others when
# not 0, all with --wide), latencies in ns, us, ms and s, and entries without an exit.
. "$(dirname "$0")/lib.sh"

cat >script.txt <<'S'
cpus 0-2
exit 0 1000 7 0x72 0
entry 0 1999 7 0
exit 1 3000 8 0x7b 1
entry 1 4000 8 1
exit 2 5000 0 0x9999 2
entry 2 17345 0 2
exit 0 20000 7 0x400 0
entry 0 2520000 7 0
exit 1 3000000 8 0x78 1
entry 1 3000000 8 1
exit 0 4000000 7 0x60 0
entry 0 2004000000 7 0
entry 2 2005000000 12345678 2
S
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" v.vmt <script.txt || fail mkvmt
cp "$DATA/sample-kvm.vmt" kvm.vmt

check() {	# check FILE [--wide] [neutral]: neutral for another pair than KVM's
	run vmtrace-report -v ${2:-} "$1"
	expect_rc 0 "-v $1"
	mv out.txt v.txt
	run vmtrace-convert --json --events -o - "$1"
	expect_rc 0 "convert $1"
	PYTHONPATH="$top_srcdir/tests/helpers" python3 - v.txt out.txt "${2:-}" "${3:-}" <<'PY' || fail "$1 ${2:-}: -v lines differ"
import json, re, sys
wide = sys.argv[3] == "--wide"
# another pair's lines say BEGIN, END, id and "no begin", never KVM's words
neutral = sys.argv[4] == "neutral"
B, E, R, NO = ("BEGIN", "END  ", "id", "no begin") if neutral else ("EXIT ", "ENTRY", "reason", "no exit")
# an exit's fields past 120 columns go on lines of their own (15 spaces, then the field):
# joined back here; every line fits 120 columns but for a long reason name's
got = []
for l in open(sys.argv[1]):
    l = l.rstrip("\n")
    if re.match(r" {15}(info1|info2|intr_info|error_code) ", l):
        assert not wide and got and " %s " % B.strip() in got[-1], l
        got[-1] += " " + l.lstrip()
    elif re.search(r" (EXIT |ENTRY|BEGIN|END  ) ?", l):
        assert (" EXIT " in l or " ENTRY" in l) != neutral, l
        got.append(l)
    else:
        continue
    m = re.search(r" (?:reason|id) (\S+)", l)
    assert wide or len(l) <= 120 or (m and len(m.group(1)) > 40), "%d columns: %s" % (len(l), l)
from latfmt import lat  # tests/helpers: as the text views print it
want = []
for line in open(sys.argv[2]):
    e = json.loads(line)
    # another pair's events are begins and ends (man vmtrace-convert), as -v's words
    kinds = ("begin", "end") if neutral else ("exit", "entry")
    assert e["kind"] in kinds, e
    e["kind"] = {"begin": "exit", "end": "entry"}.get(e["kind"], e["kind"])
    t = "%d.%09d" % divmod(e["time_ns"], 10**9)
    s = "%14s cpu %3u pid %7d %s" % (t, e["pcpu"], e["task"],
                                      B if e["kind"] == "exit" else E)
    if e["vcpu"] is not None:
        s += " vcpu %d" % e["vcpu"]
    if e["kind"] == "exit" and e["reason_code"] is not None:
        r = e["reason"]
        s += " %s " % R + ("%s(0x%x)" % (r, e["reason_code"]) if r else "0x%x" % e["reason_code"])
    # kvm_entry has only rip of these (the JSON lines fill the others in with 0)
    for f in ("rip", "info1", "info2", "intr_info", "error_code")[:5 if e["kind"] == "exit" else 1]:
        v = e.get(f)
        if v is not None and (wide or f == "rip" or int(v, 16)):
            s += " %s %s" % (f, v)
    if e["kind"] == "entry":
        s += " latency " + lat(e["latency_ns"]) if e["latency_ns"] is not None else " (%s)" % NO
    want.append(s)
if got != want:
    for g, w in zip(got, want):
        if g != w:
            print("got  " + g + "\nwant " + w)
            break
    print(len(got), "lines, expected", len(want))
    sys.exit(1)
PY
}
check v.vmt
check "$DATA/small-syscalls.vmt" "" neutral
check v.vmt --wide
check kvm.vmt
check kvm.vmt --wide
# npf exits with an interrupt pending: 128 columns, wrapped at 120 (not with --wide)
check "$DATA/why/sample/kvm.vmt"
grep -q "^ \{15\}intr_info 0x" v.txt || fail "the why sample's intr_info fields not wrapped"
check "$DATA/why/sample/kvm.vmt" --wide

# Reason names as long as a recording's format may make them: 256 bytes still go into the
# line's buffer, 3000 go around it (evdump.c), in order with the lines before and after.
cp -r "$DATA/formats/linux-6.18-x86_64" fmt
python3 - fmt/kvm/kvm_exit/format <<'PY' || fail "long names: format"
import sys
f = sys.argv[1]
t = open(f).read()
assert '{ 0x072, "cpuid" }' in t and '{ 0x078, "hlt" }' in t
t = t.replace('"cpuid"', '"' + "c" * 3000 + '"').replace('"hlt"', '"' + "h" * 256 + '"')
open(f, "w").write(t)
PY
{ cat script.txt; printf 'exit 0 2004500000 7 0x72 0\nentry 0 2004600000 7 0\n'; } >long.txt
"$HELPERS/mkvmt" fmt long.vmt <long.txt || fail "mkvmt long names"
check long.vmt
grep -q "reason $(printf 'c%.0s' $(seq 3000))(0x72) rip" v.txt || fail "the 3000-byte name"
[ "$(grep -c "reason c" v.txt)" = 2 ] || fail "both exits with the long name"
finish
