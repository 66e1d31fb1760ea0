#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Chunks read in windows (common/reader.c): when one chunk of every CPU would pass 32 MiB
# (recordings of more than 32 CPUs in 1 MiB chunks, as earlier recorders wrote them), each
# CPU's chunk is read a window at a time, and the report stays under 64 MiB. The outputs
# must be the ones of whole chunks (VMTRACE_TEST_WINDOW=0), byte for byte: on such a file
# of 64 CPUs, and with windows forced (VMTRACE_TEST_WINDOW=bytes) on recordings whose small
# chunks have lost-events pages, orphans and exits across chunks, a trace.bin, a
# trace.dat, the bundled real recording with context events, in time slices, and with a
# damaged chunk.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
command -v python3 >/dev/null || skip "python3 missing"

# peak resident memory in KiB of a command, its output to out.txt
peak_kib() {
	python3 - "$@" <<'EOF'
import resource, subprocess, sys
with open("out.txt", "wb") as out:
    rc = subprocess.call(sys.argv[1:], stdout=out)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -1)
EOF
}

# same WINDOW PROGRAM ARGS...: whole chunks and windows of WINDOW bytes print the same
same() {
	w=$1
	shift
	VMTRACE_TEST_WINDOW=0 "$@" >whole.out 2>whole.err
	rc1=$?
	VMTRACE_TEST_WINDOW=$w "$@" >win.out 2>win.err
	rc2=$?
	[ "$rc1" = "$rc2" ] || fail "$*: exit $rc1 with whole chunks, $rc2 in windows of $w"
	cmp -s whole.out win.out || {
		diff whole.out win.out | head -10 >&2
		fail "$* in windows of $w bytes: the output differs from whole chunks"
	}
	cmp -s whole.err win.err || fail "$* in windows of $w bytes: standard error differs"
	[ -s whole.out ] || [ "$rc1" != 0 ] || fail "$*: printed nothing"
}

# 64 CPUs in 1 MiB chunks (256 pages): a chunk of each is 64 MiB
"$HELPERS/mkvmt" --chunk-pages 256 --random 600000 64 "$F618" m64.vmt || fail "mkvmt m64"
# AddressSanitizer's shadow and quarantine add to every allocation: the bounds are for the
# plain build, the outputs are checked in both
bounds=yes
if ldd "$(command -v vmtrace-report)" | grep -q libasan; then
	bounds=no
	skip_part "the memory bounds (built with AddressSanitizer)"
fi
kib=$(peak_kib vmtrace-report --json m64.vmt)
[ "$kib" -gt 0 ] || fail "report on 64 CPUs in 1 MiB chunks failed"
mv out.txt windows.json
kib0=$(VMTRACE_TEST_WINDOW=0 peak_kib vmtrace-report --json m64.vmt)
cmp -s out.txt windows.json || fail "64 CPUs: the JSON in windows differs from whole chunks"
if [ $bounds = yes ]; then
	[ "$kib" -lt 65536 ] ||
		fail "64 CPUs in 1 MiB chunks: the report held $kib KiB, not under 64 MiB"
	# the bound is the windows' doing: the whole chunks alone are 64 MiB
	[ "$kib0" -ge 65536 ] ||
		fail "whole chunks of 64 CPUs held only $kib0 KiB: no window needed?"
fi
[ "$(json windows.json 'd["pairs"]')" = 600000 ] || fail "64 CPUs: not 600000 pairs"
[ "$(json windows.json 'len(d["cpus_detail"])')" = 64 ] || fail "64 CPUs: not 64 CPUs"
kib=$(peak_kib vmtrace-convert --csv m64.vmt)
[ "$kib" -gt 0 ] || fail "CSV of 64 CPUs in 1 MiB chunks failed"
if [ $bounds = yes ] && [ "$kib" -ge 65536 ]; then
	fail "CSV of 64 CPUs in 1 MiB chunks: $kib KiB, not under 64 MiB"
fi
mv out.txt windows.csv
VMTRACE_TEST_WINDOW=0 vmtrace-convert --csv m64.vmt >whole.csv || fail "CSV of whole chunks"
cmp -s windows.csv whole.csv || fail "64 CPUs: the CSV in windows differs from whole chunks"
[ "$(wc -l <windows.csv)" = 600001 ] || fail "64 CPUs: not 600000 CSV rows"

# small chunks of 3 to 4 pages, windows of 1, 2 and 3 pages
python3 "$top_srcdir/tests/helpers/mkslices.py" 1 6 4 2500 >s.txt || fail mkslices
"$HELPERS/mkvmt" "$F618" s.vmt <s.txt || fail "mkvmt s.vmt"
"$HELPERS/mkvmt" --legacy "$F618" s.bin <s.txt || fail "mkvmt --legacy s.bin"
"$HELPERS/mktracedat" s.vmt s.dat || fail mktracedat
for w in 4096 8192 12288; do
	for opts in "--json" "" "-v" "--histogram --top 40" "--window 20us --json --jobs 1"; do
		# shellcheck disable=SC2086 # $opts is several words
		same "$w" vmtrace-report $opts s.vmt
	done
	same "$w" vmtrace-report --json s.bin
	same "$w" vmtrace-report --json --jobs 1 s.dat
	same "$w" vmtrace-convert --csv s.vmt
	same "$w" vmtrace-convert --csv --events s.vmt
	same "$w" vmtrace-convert --jsonl --events s.dat
	# in time slices, each slice's reader in windows too
	VMTRACE_TEST_SLICES=5 same "$w" vmtrace-report --json --jobs 2 s.vmt
	grep -qx 'vmtrace-report: 5 time slices' win.err ||
		fail "s.vmt in windows of $w: not cut into 5 slices: $(cat win.err)"
	# the bundled real recording, its causes from context events
	same "$w" vmtrace-report --json "$DATA/why/sample/kvm.vmt"
	same "$w" vmtrace-convert --csv --why "$DATA/why/sample/kvm.vmt"
done
vmtrace-report --json s.vmt >s.json || fail "report s.vmt"
[ "$(json s.json 'd["chunks"] > 40 and d["missed_pages"] > 0')" = True ] ||
	fail "s.vmt has not the many chunks and lost-events pages this test needs"

# In chunks of 256 KiB (zstd blocks of up to 128 KiB: several a frame), the third chunk's
# payload changed, its checksums made right again (the block header's CRC32C fields,
# man/vmtrace-file.5): the zstd frame damaged in its last blocks, a second frame after it
# (its pages one too many), a skippable frame after it (nothing wrong), the frame's header
# declaring a window of 2^29 (zstd's streaming default refuses over 2^27; nothing wrong),
# and after it a frame of 4000 blocks of 128 KiB each of one byte repeated (500 MiB from
# 16 KiB), in a window of 2^28. The first window reads the whole payload as the whole
# chunk's read does, so the chunk is skipped whole in both ways, or read whole in both,
# and the frame after it is not decoded to learn it is one too many.
"$HELPERS/mkvmt" --chunk-pages 64 --random 20000 1 "$F618" b.vmt || fail "mkvmt b.vmt"
vmtrace-report --json b.vmt >b.json || fail "report b.vmt"
for how in damaged second skippable window29 bomb; do
	python3 - b.vmt $how.vmt $how <<'EOF' || fail "rewriting b.vmt ($how)"
import struct, sys
T = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    T.append(c)
def crc32c(data):
    crc = 0xFFFFFFFF
    for x in data:
        crc = T[(crc ^ x) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF
b = bytearray(open(sys.argv[1], "rb").read())
at = -1
for _ in range(3):
    at = b.index(b"CHNK", at + 1)
hs, ps = struct.unpack_from("<IQ", b, at + 4)
p = bytearray(b[at + hs:at + hs + ps])
if sys.argv[3] == "damaged":
    for i in range(len(p) * 7 // 10, len(p)):
        p[i] = 0xFF
elif sys.argv[3] == "second":
    # a frame of one raw block of 100 bytes: single segment, content size 100
    p += bytes.fromhex("28b52ffd2064") + struct.pack("<I", 1 | 100 << 3)[:3] + b"x" * 100
elif sys.argv[3] == "skippable":
    p += struct.pack("<II", 0x184D2A50, 12) + b"\0" * 12
elif sys.argv[3] == "window29":
    # the header again: no single segment, a window byte for 2^29, the size in 8 bytes
    fhd = p[4]
    at_fcs = 5 + (0 if fhd & 0x20 else 1) + [0, 1, 2, 4][fhd & 3]
    fcs_len = [1 if fhd & 0x20 else 0, 2, 4, 8][fhd >> 6]
    raw = struct.unpack_from("<Q", b, at + 48)[0]
    p = p[:4] + bytes([3 << 6 | fhd & 4, (29 - 10) << 3]) + struct.pack("<Q", raw) + \
        p[at_fcs + fcs_len:]
else:
    # a frame of unknown size, window 2^28, RLE blocks of 128 KiB, the last one marked
    rle = [struct.pack("<I", (i == 3999) | 1 << 1 | 131072 << 3)[:3] + b"\x07"
           for i in range(4000)]
    p += bytes.fromhex("28b52ffd00") + bytes([(28 - 10) << 3]) + b"".join(rle)
h = bytearray(b[at:at + hs])
struct.pack_into("<QII", h, 8, len(p), 0, crc32c(p))
struct.pack_into("<I", h, 16, crc32c(h))
b[at:at + hs + ps] = h + p
open(sys.argv[2], "wb").write(b)
EOF
	for w in 4096 65536; do
		same "$w" vmtrace-report --json $how.vmt
		if [ $how = skippable ] || [ $how = window29 ]; then
			[ "$rc1" = 0 ] || fail "$how chunk: exit $rc1, not 0"
			sed "s/\"file\":\"$how.vmt\"/\"file\":\"b.vmt\"/" win.out | cmp -s - b.json ||
				fail "$how chunk: the report changed"
		else
			[ "$rc1" = 2 ] || fail "$how chunk: exit $rc1, not 2"
			[ "$(json win.out 'd["bad_chunks"]')" = 1 ] ||
				fail "$how chunk in windows of $w: not one damaged chunk"
		fi
	done
done
if [ $bounds = yes ]; then
	# (its exit, 2, was checked above)
	kib=$(python3 -c 'import resource, subprocess, sys
subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' env VMTRACE_TEST_WINDOW=4096 \
		vmtrace-report --json bomb.vmt)
	[ "$kib" -lt 65536 ] || fail "a frame of 500 MiB after a chunk's: the report held $kib KiB"
fi

# a byte of a chunk's payload changed: the checksum finds it at the first window
python3 - s.vmt <<'EOF' || fail "damaging s.vmt"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
at = -1
for _ in range(10):
    at = b.index(b"CHNK", at + 1)
b[at + 200] ^= 0xff
open(sys.argv[1], "wb").write(b)
EOF
for w in 4096 12288; do
	same "$w" vmtrace-report --json s.vmt
	[ "$rc1" = 2 ] || fail "a damaged chunk: exit $rc1, not 2"
	[ "$(json win.out 'd["bad_chunks"]')" = 1 ] || fail "a damaged chunk in windows: not counted"
done
finish
