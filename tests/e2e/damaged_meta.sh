#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A .vmt with a whole second META block (vmtrace-file(5): a file has one), here a valid one
# from another recording, after some CHNK blocks or right after the first: damage, said in
# one line naming the file and the block's offset, exit status 2, but not data that lost
# events (a META block holds no pages): the lost-events figure stays exact and is the first
# META's (its start statistics with END's), the recording counts as finished, and every
# event is read. Oracle: the block walk below (offsets, counts), the script's own numbers
# (stats, exits, entries), and the same file without the extra block.
. "$(dirname "$0")/lib.sh"
F618="$DATA/formats/linux-6.18-x86_64"
command -v python3 >/dev/null || skip "python3 missing"

# CPU 0 lost 9 - 2 = 7 events by its ring buffer's statistics (START_LOST 2 in META, END_LOST
# 9 in END); b.txt says START_LOST 0 in its META: read instead, CPU 0 would have lost 9.
script() {	# script START_LOST
	cat <<EOS
cpus 0-1
stats 0 $1 9
stats 1 0 0
page 0
exit 0 1000 100 30 0
entry 0 3000 100 0
chunk 0
page 1
exit 1 1500 200 30 1
entry 1 2500 200 1
chunk 1
page 0
exit 0 5000 100 30 0
entry 0 9000 100 0
chunk 0
page 1
exit 1 6000 200 12 1
entry 1 6500 200 1
chunk 1
EOS
}
script 2 >a.txt
script 0 >b.txt
"$HELPERS/mkvmt" "$F618" a.vmt <a.txt || fail "mkvmt a"
"$HELPERS/mkvmt" "$F618" b.vmt <b.txt || fail "mkvmt b"

# splice IN OUT AFTER...: IN with b.vmt's META block after its AFTER-th CHNK block (0: right
# after its own META), once per AFTER; prints the offsets of the blocks put in
splice() {
	python3 - "$@" <<'PY'
import struct, sys

def blocks(d):
    off, out = struct.unpack_from("<I", d, 12)[0], []
    while off < len(d):
        hs, ps = struct.unpack_from("<IQ", d, off + 4)
        out.append((d[off:off + 4], d[off:off + hs + ps]))
        off += hs + ps
    return d[:struct.unpack_from("<I", d, 12)[0]], out

head, own = blocks(open(sys.argv[1], "rb").read())
extra = [b for t, b in blocks(open("b.vmt", "rb").read())[1] if t == b"META"][0]
after = [int(a) for a in sys.argv[3:]]
out, chunks, at = bytearray(head), 0, []
for t, b in own:
    out += b
    chunks += t == b"CHNK"
    if t in (b"META", b"CHNK"):
        for a in after:
            if a == chunks:
                at.append(len(out))
                out += extra
open(sys.argv[2], "wb").write(out)
# the oracle's counts: META blocks in the result, and CHNK blocks
_, res = blocks(bytes(out))
assert sum(t == b"META" for t, _ in res) == 1 + len(after)
assert sum(t == b"CHNK" for t, _ in res) == chunks
print(" ".join(map(str, at)))
PY
}

exits=$(grep -c "^exit" a.txt) entries=$(grep -c "^entry" a.txt)
vmtrace-report --json a.vmt >good.json 2>/dev/null || fail "report of a.vmt"
vmtrace-report a.vmt >good.txt 2>/dev/null || fail "report of a.vmt"
for after in 2 0 "1 3"; do
	at=$(splice a.vmt d.vmt $after) || fail "splicing after $after"
	first=${at%% *} n=$(echo $at | wc -w)
	run vmtrace-report d.vmt
	expect_rc 2 "a second META after chunk $after"
	unfold err.txt >e.txt
	more=""
	[ "$n" = 1 ] || more=" (and $((n - 1)) more)"
	grep -qx "vmtrace-report: warning: d.vmt: damaged file: a second metadata block at offset \
$first$more, where a file has one: skipped (it held no events), the first one's keys kept" e.txt ||
		{ cat e.txt; fail "after $after: the warning does not name the block at $first"; }
	[ "$(wc -l <e.txt)" = 2 ] || { cat e.txt; fail "after $after: not two warnings"; }
	grep -q "d.vmt: 7 events were lost while recording" e.txt ||
		{ cat e.txt; fail "after $after: lost events not the first META's 7"; }
	grep -q "not finished\|unknown\|damaged data" e.txt out.txt &&
		{ cat out.txt e.txt; fail "after $after: said unfinished or lost unknown"; }
	[ "$(grep "^Lost events" out.txt)" = "$(grep "^Lost events" good.txt)" ] ||
		{ grep "^Lost" out.txt; fail "after $after: the lost-events line"; }
	grep -q "^Lost events = 7 " out.txt || fail "after $after: not 7 lost"
	vmtrace-report --json d.vmt >d.json 2>/dev/null
	got=$(json d.json '(d["finished"], d["lost_events"], d["lost_events_exact"], d["lost_events_stats"], d["bad_blocks"], d["bad_chunks"], d["events"], d["pairs"])')
	[ "$got" = "(True, 7, True, 7, $n, 0, $((exits + entries)), $exits)" ] ||
		fail "after $after: JSON $got"
	# everything else as in the file without the extra block
	[ "$(json d.json 'd["percentiles_ns"], d["latency_ns"], d["reasons"]')" = \
	  "$(json good.json 'd["percentiles_ns"], d["latency_ns"], d["reasons"]')" ] ||
		fail "after $after: figures differ from a.vmt's"
	run vmtrace-convert --csv -o d.csv d.vmt
	expect_rc 2 "convert, a second META after chunk $after"
	grep -q "d.vmt: damaged file: a second metadata block at offset $first" err.txt ||
		{ cat err.txt; fail "convert after $after: no warning"; }
	[ "$(($(wc -l <d.csv) - 1))" = "$exits" ] || fail "convert after $after: rows"
done
finish
