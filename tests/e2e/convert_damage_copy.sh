#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A copy of a damaged recording carries its damage (vmtrace-convert --to-vmt): chunks it
# could not read are counted in the copy's END (chunk.count), so the report of the copy
# warns and exits 2 as on the input, and pages the reader skips make convert exit 2 as the
# report does. Found by an adversarial tester: one flipped byte in every chunk gave a copy
# with no chunks, "chunk.count 0", read as clean (exit 0).
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 missing"
S="$DATA/sample-kvm.vmt"

# chunks FILE [CPU]: the CHNK blocks of a .vmt (of one CPU), counted from its blocks
chunks() {
	python3 - "$@" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, n = 16, 0
while off < len(b):
    hs, ps = struct.unpack_from("<IQ", b, off + 4)
    if b[off:off + 4] == b"CHNK":
        cpu = struct.unpack_from("<I", b, off + 32)[0]
        n += len(sys.argv) < 3 or cpu == int(sys.argv[2])
    off += hs + ps
print(n)
PY
}

# flip IN OUT WHICH: one payload byte flipped in every chunk ("all") or in the 5th only
flip() {
	python3 - "$@" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off, n = 16, 0
while off < len(b):
    hs, ps = struct.unpack_from("<IQ", b, off + 4)
    if b[off:off + 4] == b"CHNK":
        n += 1
        if sys.argv[3] == "all" or n == 5:
            b[off + hs + ps // 2] ^= 0x5A
    off += hs + ps
open(sys.argv[2], "wb").write(b)
PY
}

flip "$S" allbad.vmt all || fail "flipping bytes"
flip "$S" onebad.vmt one || fail "flipping a byte"
n=$(chunks "$S")
n1=$(chunks "$S" 1)
[ "$n" -gt 5 ] && [ "$n1" -gt 0 ] || fail "sample-kvm.vmt: $n chunks, $n1 of CPU 1"

run vmtrace-convert --to-vmt -o all.vmt allbad.vmt
expect_rc 2 "--to-vmt of allbad.vmt"
[ "$(chunks all.vmt)" = 0 ] || fail "all.vmt holds chunks"
run vmtrace-report all.vmt
expect_rc 2 "report of the copy of allbad.vmt"
unfold err.txt | grep -qx "vmtrace-report: warning: all.vmt: damaged file: its end record counts $n chunks, 0 were found: $n chunks lost with the damaged data" ||
	{ cat err.txt; fail "all.vmt: no word on its $n lost chunks"; }

# --cpu 1: that CPU's chunks, all damaged; no "nothing selected" that says it has data there
run vmtrace-convert --to-vmt --cpu 1 -o all1.vmt allbad.vmt
expect_rc 2 "--to-vmt --cpu 1 of allbad.vmt"
! unfold err.txt | grep -q "nothing selected" || { cat err.txt; fail "--cpu 1: nothing selected"; }
unfold err.txt | grep -q "damaged data skipped: $n1 chunks" || { cat err.txt; fail "--cpu 1: damage"; }
run vmtrace-report all1.vmt
expect_rc 2 "report of the --cpu 1 copy of allbad.vmt"
unfold err.txt | grep -q "its end record counts $n1 chunks, 0 were found" ||
	{ cat err.txt; fail "all1.vmt: no word on its $n1 lost chunks"; }

# one chunk damaged: the copy has the others (the same number: no chunk is cut), and the
# report of it says the one lost and exits 2
run vmtrace-convert --to-vmt -o one.vmt onebad.vmt
expect_rc 2 "--to-vmt of onebad.vmt"
c=$(chunks one.vmt)
[ "$c" = $((n - 1)) ] || fail "one.vmt: $c chunks, not $((n - 1))"
run vmtrace-report one.vmt
expect_rc 2 "report of the copy of onebad.vmt"
unfold err.txt | grep -qx "vmtrace-report: warning: one.vmt: damaged file: its end record counts $n chunks, $c were found: 1 chunk lost with the damaged data" ||
	{ cat err.txt; fail "one.vmt: no word on its lost chunk"; }
# its losses are worded as the original's (the pages the copy flagged to mark its hole are
# the damage, not losses while recording), in the warning and in the text's line
lost_words() {	# lost_words FILE: the report's lost-events warning and line, the name cut
	vmtrace-report "$1" 2>&1 >/dev/null | unfold /dev/stdin | grep "events were lost" |
		sed "s/ $1: / FILE: /"
	vmtrace-report "$1" 2>/dev/null | grep "^Lost events"
}
lost_words onebad.vmt >orig.lost
grep -q "events were lost with the damaged data" orig.lost || { cat orig.lost; fail "onebad.vmt: the loss"; }
lost_words one.vmt >copy.lost
cmp -s orig.lost copy.lost || { diff orig.lost copy.lost; fail "one.vmt: its losses worded otherwise"; }
# an undamaged copy still reads clean
run vmtrace-convert --to-vmt -o good.vmt "$S"
expect_rc 0 "--to-vmt of sample-kvm.vmt"
run vmtrace-report good.vmt
expect_rc 0 "report of the copy of sample-kvm.vmt"

# A trace.dat with a page whose commit passes the page size: the report skips it and exits
# 2, and so does convert; the copy, without the page, counts it lost in its END: its report
# exits 2 too, with the pairs of the damaged file (none across the hole)
"$HELPERS/mktracedat" -V 6 -z none "$S" t.dat || fail mktracedat
python3 - "$S" t.dat bad.dat <<'PY' || fail "damaging a page of t.dat"
import struct, sys
v = open(sys.argv[1], "rb").read()
off = 16
while v[off:off + 4] != b"CHNK":
    hs, ps = struct.unpack_from("<IQ", v, off + 4)
    off += hs + ps
first_ts, = struct.unpack_from("<Q", v, off + 56)
page_size, = struct.unpack_from("<I", v, off + 40)
b = bytearray(open(sys.argv[2], "rb").read())
at = b.find(struct.pack("<Q", first_ts))
while at >= 0 and at % page_size:
    at = b.find(struct.pack("<Q", first_ts), at + 1)
assert at > 0
struct.pack_into("<Q", b, at + 8, page_size * 4)	# its commit: past the page's end
open(sys.argv[3], "wb").write(b)
PY
vmtrace-report --json t.dat >t.json || fail "report of t.dat"
run vmtrace-report --json bad.dat
expect_rc 2 "report of bad.dat"
mv out.txt bad.json
[ "$(json bad.json 'd["bad_pages"] + d["bad_blocks"]')" = 1 ] &&
	[ "$(json bad.json 'd["pages"]')" = "$(($(json t.json 'd["pages"]') - 1))" ] ||
	fail "bad.dat: not one page skipped"
run vmtrace-convert --to-vmt -o dat.vmt bad.dat
expect_rc 2 "--to-vmt of bad.dat"
unfold err.txt | grep -q "damaged data skipped: 1 .*(page commit beyond the page size)" ||
	{ cat err.txt; fail "--to-vmt of bad.dat: no word on the page"; }
run vmtrace-report --json dat.vmt
expect_rc 2 "report of the copy of bad.dat"
unfold err.txt | grep -q "1 chunk lost with the damaged data" || { cat err.txt; fail "dat.vmt: the loss"; }
[ "$(json out.txt 'd["pairs"]')" = "$(json bad.json 'd["pairs"]')" ] || fail "dat.vmt: pairs"
run vmtrace-convert --to-vmt -o datgood.vmt t.dat
expect_rc 0 "--to-vmt of t.dat"
finish
