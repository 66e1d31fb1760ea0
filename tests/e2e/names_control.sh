#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# File names with control characters are shown escaped (\n, \t, \r, \xHH), in messages, in
# the text's File: line and in the HTML page: the adversarial tester's file named
# "evil<newline>vmtrace-report: all good.vmt" forged a second message line and split the
# File: line, and an ESC sequence reached the terminal and the page's <title>.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 missing"

n=$(printf 'evil\nvmtrace-report: all good\033[31m\t.vmt')
e=$(printf 'empty\nvmtrace-report: all good\033[0m')
cp "$DATA/sample-kvm.vmt" "$n"
: >"$e"
# shown NAME: the escaping computed here, byte by byte
shown() {
	python3 -c '
import sys
out = ""
for c in sys.argv[1]:
    o = ord(c)
    out += {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(c) or \
           ("\\x%02x" % o if o < 0x20 or o == 0x7f else c)
print(out)' "$1"
}
sn=$(shown "$n")
se=$(shown "$e")
[ "$sn" = 'evil\nvmtrace-report: all good\x1b[31m\t.vmt' ] || fail "the test's own escaping: $sn"

run vmtrace-report "$n"
expect_rc 0 "report of the file"
grep -qxF "File: $sn" out.txt || { grep File out.txt; fail "the File: line"; }
! grep -q "^vmtrace-report: all good" out.txt || fail "a line of the name's own"
! grep -q "$(printf '\033')" out.txt || fail "an ESC in the report"
run vmtrace-report "$e"
expect_rc 1 "report of the empty file"
[ "$(unfold err.txt)" = "vmtrace-report: $se: not a vmtrace recording, a trace.dat or a trace.bin (it is empty)" ] ||
	{ cat err.txt; fail "the message on the empty file"; }
run vmtrace-convert --csv "$e"
expect_rc 1 "convert of the empty file"
[ "$(unfold err.txt | wc -l)" = 1 ] && unfold err.txt | grep -qF "vmtrace-convert: $se: not a vmtrace" ||
	{ cat err.txt; fail "convert's message on the empty file"; }

# the page: its title holds the name escaped (and & < > as entities), no control byte
run vmtrace-report --html page.html "$n"
expect_rc 0 "--html"
python3 - page.html "$sn" <<'PY' || fail "the page's title"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
assert title == "vmtrace report: " + sys.argv[2], repr(title)
assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", page), "a control byte in the page"
PY
# merged: each file's line in the list
cp "$DATA/why/sample/kvm.vmt" other.vmt
run vmtrace-report "$n" other.vmt
expect_rc 0 "merge"
grep -qF "  [1] $sn" out.txt || { cat out.txt; fail "the merged report's list"; }
widths_ok out.txt err.txt || fail "over 120 columns"
finish
