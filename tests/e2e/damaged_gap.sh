#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A damaged chunk is skipped, and its events are lost as much as those the kernel flags:
# an exit before it is never paired with an entry after it (gap_dropped), in one pass,
# in windows and in CSV. Found by a new user: a 56 ms "exit" made of a real exit and an
# entry 44 ms later, across a chunk that failed its checksum.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
command -v python3 >/dev/null || skip "python3 missing"

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
done
# the warning counts what the JSON does, one chunk as "1 chunk"
run vmtrace-report bad.vmt
expect_rc 2 "report bad.vmt"
grep -q "^vmtrace-report: warning: bad.vmt: damaged data skipped: 0 blocks, 1 chunk, 0 pages (" \
	err.txt || { cat err.txt; fail "bad.vmt: the damage not counted as 1 chunk"; }
vmtrace-convert --csv bad.vmt >bad.csv
[ $? = 2 ] || fail "CSV of bad.vmt: exit status not 2"
python3 - bad.csv <<'PY' || fail "CSV of bad.vmt: a row across the damaged chunk"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 109, len(rows)
assert max(int(r["latency_ns"]) for r in rows) < 20000
PY
# Its .vmt copy leaves the damaged chunk out and marks the hole as lost events on the next
# page of that CPU: the same 109 pairs, the pair across it dropped, and a warning
vmtrace-convert --to-vmt -o copy.vmt bad.vmt 2>/dev/null
[ $? = 2 ] || fail "--to-vmt of bad.vmt: exit status not 2"
run vmtrace-report --json copy.vmt
expect_rc 0 "report of the copy"
grep -q "events were lost while recording, how many is not known" err.txt ||
	{ cat err.txt; fail "copy of bad.vmt: no word on the hole"; }
[ "$(json out.txt '(d["pairs"], d["gap_dropped"], d["latency_ns"]["max"] < 20000)')" = \
  "(109, 1, True)" ] || fail "copy of bad.vmt: an exit paired across the hole"
finish
