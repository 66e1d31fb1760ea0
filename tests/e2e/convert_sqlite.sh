#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The SQLite example of man/vmtrace-convert.1, run verbatim as the rendered page shows it,
# on a recording where the text and the numeric maximum of latency_ns differ ("900" sorts
# after "10000"): its answer must be a Python recount of the same CSV, per reason.
# Skips where sqlite3 or groff is missing.
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null || skip "no sqlite3"
command -v groff >/dev/null || skip "no groff (to render the man page)"

cat >s.txt <<'S'
exit 0 1000 7 0x78 0
entry 0 1900 7 0
exit 0 5000 7 0x78 0
entry 0 15000 7 0
exit 0 20000 7 0x72 0
entry 0 20300 7 0
exit 0 30000 7 0x72 0
entry 0 32000 7 0
exit 0 40000 7 0x78 0
entry 0 40095 7 0
S
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" run1.vmt <s.txt || fail mkvmt

# The page as man shows it (ASCII, no overstriking), its EXAMPLES block, from the CSV
# conversion through the end of the sqlite3 command.
groff -man -Tascii -P-cbou "$top_srcdir/man/vmtrace-convert.1" 2>/dev/null |
	sed -n '/^EXAMPLES/,/^SEE ALSO/p' | sed 's/^       //' |
	awk '/^vmtrace-convert --csv -o run1.csv run1.vmt$/ { on = 1 }
	     on { print }
	     on && /^sqlite3 / { sq = 1 }
	     sq && /"$/ { exit }' >example.sh
[ "$(grep -c '^sqlite3 ' example.sh)" = 1 ] && [ "$(grep -c '^vmtrace-convert' example.sh)" = 1 ] ||
	fail "the SQLite example is not in the man page as expected: $(cat example.sh)"
cat example.sh
sh ./example.sh >got.txt 2>err.txt || fail "the documented commands fail: $(cat err.txt)"

python3 - run1.csv got.txt <<'PY' || fail "SQLite's answer is not the recount: $(cat got.txt)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
per = {}
for r in rows:
    per.setdefault(r["reason"], []).append(int(r["latency_ns"]))
want = sorted(f"{k}|{len(v)}|{max(v)}" for k, v in per.items())
got = sorted(l.strip() for l in open(sys.argv[2]) if l.strip())
assert got == want, f"{got} != {want}"
# The file tells text from numbers apart: as text, some reason's maximum differs.
assert any(max(map(str, v)) != str(max(v)) for v in per.values())
print("sqlite3:", got)
PY
