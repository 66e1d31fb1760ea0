#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-convert --to-vmt writes chunks of the size vmtrace-record would write for the
# CPUs copied (vmt_chunk_pages(): 32 MiB / CPUs past 32 CPUs), cutting larger chunks of the
# input between pages: recordings of earlier recorders (1 MiB chunks on 64 CPUs), which a
# report must otherwise read in windows. Checked: the copy's chunks, walked in Python from
# man/vmtrace-file.5 (sizes, per-CPU pages, the header's figures against the pages'), and
# every report of the copy against the original's, byte for byte (but the file name and
# the chunk count): JSON, -v, CSV per exit and per event, on generated files and on one
# whose cuts fall on lost-events pages and between an exit and its entry. And the
# report's hint, on a terminal, that such a file is read in parts.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
command -v python3 >/dev/null || skip "python3 missing"

# chunks FILE: per chunk "cpu pages first_ts last_ts missed_pages", from the block headers
chunks() {
	python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
off = struct.unpack_from("<I", b, 12)[0]
while off + 32 <= len(b):
    kind = b[off:off + 4]
    hs, ps = struct.unpack_from("<IQ", b, off + 4)
    if kind == b"CHNK":
        cpu, pages, size, flags, raw, first, last, missed = \
            struct.unpack_from("<IIIIQQQI", b, off + 32)
        assert raw == pages * size, "raw size is not pages x page size"
        print(cpu, pages, first, last, missed)
    off += hs + ps
EOF
}

# same_reports ORIG COPY [OPTIONS]: every view of the copy is the original's
same_reports() {
	# the same exit status (2 on files with lost events), and something printed
	vmtrace-report --json "$1" >a.raw
	rc1=$?
	vmtrace-report --json "$2" >b.raw
	[ "$?" = "$rc1" ] && [ "$rc1" -le 2 ] || fail "report $1 / $2: exit statuses differ"
	[ -s a.raw ] || fail "report $1 printed nothing"
	sed 's/"file":"[^"]*"//; s/"chunks":[0-9]*//' a.raw >a.json
	sed 's/"file":"[^"]*"//; s/"chunks":[0-9]*//' b.raw >b.json
	cmp -s a.json b.json || fail "$2: the JSON report differs from $1's"
	vmtrace-report -v "$1" >a.raw
	rc1=$?
	vmtrace-report -v "$2" >b.raw
	[ "$?" = "$rc1" ] && [ "$rc1" -le 2 ] || fail "report -v $1 / $2: exit statuses differ"
	sed "/^File: /d" a.raw >a.txt
	sed "/^File: /d" b.raw >b.txt
	cmp -s a.txt b.txt || fail "$2: -v differs from $1's"
	for opt in --csv "--csv --events"; do
		# shellcheck disable=SC2086 # $opt is one or two words
		vmtrace-convert $opt "$1" >a.csv && vmtrace-convert $opt "$2" >b.csv ||
			fail "vmtrace-convert $opt"
		cmp -s a.csv b.csv || fail "$2: $opt differs from $1's"
	done
}

# check_split ORIG COPY MAX: the copy's chunks hold at most MAX pages, and per CPU the same
# pages as the original's in the same order (the headers' first and last times and lost-
# events pages add up to the original's)
check_split() {
	chunks "$1" >orig.txt || fail "walking $1"
	chunks "$2" >copy.txt || fail "walking $2"
	python3 - orig.txt copy.txt "$3" <<'EOF' || fail "$2: chunks not cut as the recorder would"
import sys
def load(name):
    per = {}
    for line in open(name):
        cpu, pages, first, last, missed = map(int, line.split())
        per.setdefault(cpu, []).append((pages, first, last, missed))
    return per
orig, copy, most = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
assert sorted(orig) == sorted(copy), "other CPUs"
for cpu in orig:
    o, c = orig[cpu], copy[cpu]
    assert max(p for p, *_ in c) <= most, f"CPU {cpu}: a chunk of more than {most} pages"
    assert sum(p for p, *_ in o) == sum(p for p, *_ in c), f"CPU {cpu}: pages lost"
    assert sum(m for *_, m in o) == sum(m for *_, m in c), f"CPU {cpu}: missed pages"
    assert o[0][1] == c[0][1] and o[-1][2] == c[-1][2], f"CPU {cpu}: first/last time"
    firsts = [f for _, f, _, _ in c]
    assert firsts == sorted(firsts), f"CPU {cpu}: chunks out of time order"
    # a whole chunk that needed no cut is copied as it was
    if max(p for p, *_ in o) <= most:
        assert o == c, f"CPU {cpu}: chunks cut that fitted"
EOF
}

# 64 CPUs in 1 MiB chunks (256 pages), as earlier recorders wrote them: cut to 512 KiB
"$HELPERS/mkvmt" --chunk-pages 256 --random 300000 64 "$F618" m64.vmt || fail "mkvmt m64"
vmtrace-convert --to-vmt -o c64.vmt m64.vmt || fail "convert m64.vmt"
check_split m64.vmt c64.vmt 128
[ "$(awk '$2 > 128' orig.txt | wc -l)" -gt 20 ] || fail "m64.vmt has too few 1 MiB chunks"
[ "$(wc -l <copy.txt)" -gt "$(wc -l <orig.txt)" ] || fail "c64.vmt: no chunk was cut"
same_reports m64.vmt c64.vmt
# on a terminal, the report of the original says it reads in parts and what cures it
if command -v script >/dev/null; then
	script -qec "vmtrace-report m64.vmt >/dev/null" /dev/null >tty.txt ||
		fail "report m64.vmt on a terminal"
	kib=$(awk '$2 > n { n = $2 } END { print n * 4 }' orig.txt)
	hint="read in parts (slower); vmtrace-convert --to-vmt cuts them"
	grep -q "m64.vmt: $kib KiB chunks on 64 CPUs are $hint" tty.txt ||
		fail "no hint on a terminal: $(cat tty.txt)"
	script -qec "vmtrace-report c64.vmt >/dev/null" /dev/null >tty.txt ||
		fail "report c64.vmt on a terminal"
	[ ! -s tty.txt ] || fail "a hint for the copy: $(cat tty.txt)"
else
	skip_part "the hint on a terminal (no script(1))"
fi
vmtrace-report m64.vmt 2>err.txt >/dev/null || fail "report m64.vmt"
[ ! -s err.txt ] || fail "a hint without a terminal: $(cat err.txt)"
# four CPUs copied: 1 MiB chunks are what the recorder writes for them, nothing is cut
vmtrace-convert --to-vmt --cpu 0-3 -o c4.vmt m64.vmt || fail "convert --cpu 0-3"
chunks c4.vmt >c4.txt
[ "$(awk '$2 > 128' c4.txt | wc -l)" -gt 0 ] || fail "c4.vmt: 1 MiB chunks of 4 CPUs were cut"
vmtrace-convert --to-vmt --cpu 0-3 -o c4b.vmt c64.vmt || fail "convert --cpu 0-3 c64.vmt"
vmtrace-report --json c4.vmt | sed 's/"file":"[^"]*"//; s/"chunks":[0-9]*//' >a.json
vmtrace-report --json c4b.vmt | sed 's/"file":"[^"]*"//; s/"chunks":[0-9]*//' >b.json
cmp -s a.json b.json || fail "CPUs 0-3 of the cut copy differ from those of the original"

# 40 CPUs of 300 pages each in one chunk, a page per exit or entry: cut at 204 pages
# (32 MiB / 40), where pages flagged "missed events" start a piece, exits wait for their
# entries across the cut, and a CPU's first page of the piece holds only another record
python3 - <<'EOF' >cut.txt || fail "writing the script"
cpus, pages, cut = 40, 300, 204
lines, ts = [], {}
for cpu in range(cpus):
    t = 1000000 + cpu * 37
    pid = 3000 + cpu
    for p in range(pages):
        missed = (p == cut and cpu % 3 == 0) or (p % 97 == 5 and cpu % 2)
        lines.append((t, f"page {cpu}" + (f" missed {p + cpu}" if missed else "")))
        if p == cut and cpu % 5 == 1:
            lines.append((t, f"other {cpu} {t}"))
        elif p % 2 == 0:
            lines.append((t, f"exit {cpu} {t} {pid} {(p * 7 + cpu) % 60} {cpu}"))
        else:
            lines.append((t, f"entry {cpu} {t} {pid} {cpu}"))
        t += 1000 + (p * 131 + cpu * 17) % 5000
# the CPUs' pages are written CPU by CPU: each CPU's in time order, as mkvmt needs
print(f"cpus 0-{cpus - 1}")
for _, line in lines:
    print(line)
EOF
"$HELPERS/mkvmt" --chunk-pages 300 "$F618" cut.vmt <cut.txt || fail "mkvmt cut.vmt"
vmtrace-convert --to-vmt -o cutc.vmt cut.vmt || fail "convert cut.vmt"
check_split cut.vmt cutc.vmt 204
[ "$(wc -l <orig.txt)" = 40 ] && [ "$(wc -l <copy.txt)" = 80 ] ||
	fail "cut.vmt: $(wc -l <orig.txt) chunks cut into $(wc -l <copy.txt), not 40 into 80"
# the second pieces of CPUs 0, 3, ... begin with a lost-events page, as the chunk said
awk '$1 % 3 == 0 && $3 > 1000000 + $1 * 37 && $5 < 1 { bad = 1 } END { exit bad }' copy.txt ||
	fail "cutc.vmt: a piece starting with a lost-events page does not count it"
vmtrace-report --json cut.vmt >cut.json || true
[ "$(json cut.json 'd["missed_pages"] > 0 and d["pairs"] > 5000')" = True ] ||
	fail "cut.vmt has not the pairs and lost-events pages this test needs"
same_reports cut.vmt cutc.vmt
finish
