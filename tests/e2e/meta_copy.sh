#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The metadata's copy (man/vmtrace-file.5, MCPY): a byte flipped anywhere in a .vmt's META
# block, header or payload, loses nothing: the report, the JSON and the CSV are those of the
# sound file, with one note naming the file; a flip in the copy changes nothing at all; both
# damaged, and a damaged META in a file written before the copy existed, are refused in one
# line. The layout is checked by a Python walk of the blocks, the figures against the file
# the copy was made from (the committed sample, which has no copy).
. "$(dirname "$0")/lib.sh"

src="$DATA/sample-kvm.vmt"
run vmtrace-convert --to-vmt -o k.vmt "$src"
expect_rc 0 "convert --to-vmt"

# META at 16, then MCPY with the same payload, then the chunks; prints both blocks' spans
set -- $(python3 - k.vmt <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
blocks, off = [], 16
while off < len(b):
    hsize, psize = struct.unpack_from("<IQ", b, off + 4)
    blocks.append((b[off:off + 4], off, hsize, psize))
    off += hsize + psize
(t0, m, mh, mp), (t1, c, ch, cp) = blocks[:2]
assert (t0, t1, m) == (b"META", b"MCPY", 16), blocks[:3]
assert b[m + mh:m + mh + mp] == b[c + ch:c + ch + cp], "the copy differs from META"
assert blocks[2][0] == b"CHNK" and blocks[-1][0] == b"END\0", blocks[2:3] + blocks[-1:]
print(m, c, c + ch + cp)
EOF
) || fail "k.vmt: not META, its copy, the chunks"
meta=$1 copy=$2 chunks=$3

# The sound file's figures: the sample's, except its name
strip='import json,sys; d=json.load(open(sys.argv[1])); d.pop("file"); print(json.dumps(d, sort_keys=True))'
vmtrace-report --json "$src" >src.json && python3 -c "$strip" src.json >want.json || fail "sample report"
vmtrace-report --json k.vmt >k.json && python3 -c "$strip" k.json >got.json || fail "k.vmt report"
cmp -s want.json got.json || fail "k.vmt: figures differ from the sample's"
grep -q '"meta_from_copy": false' want.json || fail "no meta_from_copy: false in the JSON"
vmtrace-convert --csv -o want.csv k.vmt || fail "k.vmt CSV"

# flip OFF FILE: k.vmt with one byte changed at OFF
flip() {
	cp k.vmt "$2"
	python3 -c 'import sys; f=open(sys.argv[1], "r+b"); o=int(sys.argv[2]); f.seek(o); b=f.read(1); f.seek(o); f.write(bytes([b[0] ^ 0x5a]))' "$2" "$1"
}

# META's header every 3 bytes (each of its fields), its payload every 173 and its last byte
offsets=$(python3 -c "import sys; m,c=int(sys.argv[1]),int(sys.argv[2]); print(*sorted(set(list(range(m, m + 32, 3)) + list(range(m + 32, c, 173)) + [c - 1])))" "$meta" "$copy")
n=0
for off in $offsets; do
	flip "$off" f.vmt
	run vmtrace-report --json f.vmt
	expect_rc 0 "META flipped at $off"
	[ "$(cat err.txt)" = "vmtrace-report: warning: f.vmt: damaged metadata block at offset 16: its copy was read instead" ] ||
		{ cat err.txt; fail "META flipped at $off: not the one note"; }
	python3 -c "$strip" out.txt | sed 's/"meta_from_copy": true/"meta_from_copy": false/' >got.json
	cmp -s want.json got.json || fail "META flipped at $off: figures differ"
	[ "$(json out.txt 'd["meta_from_copy"]')" = True ] || fail "META flipped at $off: meta_from_copy not true"
	run vmtrace-convert --csv -o got.csv f.vmt
	expect_rc 0 "META flipped at $off: CSV"
	grep -q "^vmtrace-convert: warning: f.vmt: damaged metadata block at offset 16: its copy was read" err.txt ||
		{ cat err.txt; fail "META flipped at $off: convert's note"; }
	cmp -s want.csv got.csv || fail "META flipped at $off: CSV rows differ"
	n=$((n + 1))
done
[ "$n" -gt 40 ] || fail "only $n META flips tried"

# A flip in the copy: nothing to say, nothing changed
for off in $copy $((copy + 20)) $((copy + 40)) $((chunks - 1)); do
	flip "$off" f.vmt
	run vmtrace-report --json f.vmt
	expect_rc 0 "copy flipped at $off"
	[ ! -s err.txt ] || { cat err.txt; fail "copy flipped at $off: a message"; }
	python3 -c "$strip" out.txt >got.json
	cmp -s want.json got.json || fail "copy flipped at $off: figures differ"
done

# Both damaged: one line naming the file, exit 1, for the report and the conversion
flip $((meta + 100)) f1.vmt
python3 -c 'import sys; f=open(sys.argv[1], "r+b"); o=int(sys.argv[2]); f.seek(o); b=f.read(1); f.seek(o); f.write(bytes([b[0] ^ 1]))' f1.vmt $((copy + 100))
for prog in vmtrace-report vmtrace-convert; do
	if [ "$prog" = vmtrace-report ]; then run $prog --json f1.vmt; else run $prog --csv -o f1.csv f1.vmt; fi
	expect_one_line_error $prog "f1.vmt: damaged metadata block, and its copy"
	[ "$(wc -l <err.txt)" = 1 ] && [ "$rc" = 1 ] || fail "$prog: both damaged: exit $rc, $(cat err.txt)"
done

# Blocks out of a writer's order (the review's crafted files): the copy first is skipped,
# META read; no META at all is refused, the copy is never the metadata on its own; a META
# after a damaged one is not a copy; META damaged and the file cut in the copy says both;
# a copy whose header and payload are both damaged, META sound, is no damage at all.
python3 - k.vmt <<'EOF' || fail "crafting the blocks out of order"
import struct, sys
b = open(sys.argv[1], "rb").read()
blocks, off = [], 16
while off < len(b):
    hsize, psize = struct.unpack_from("<IQ", b, off + 4)
    blocks.append(b[off:off + hsize + psize])
    off += hsize + psize
meta, copy, rest = blocks[0], blocks[1], b"".join(blocks[2:])
def flip(block, at):
    x = bytearray(block); x[at] ^= 0x5a; return bytes(x)
open("swapped.vmt", "wb").write(b[:16] + copy + meta + rest)
open("nometa.vmt", "wb").write(b[:16] + copy + rest)
open("twometa.vmt", "wb").write(b[:16] + flip(meta, 100) + meta + rest)
open("cutcopy.vmt", "wb").write(b[:16] + flip(meta, 100) + copy[:10])
open("badcopy.vmt", "wb").write(b[:16] + meta + flip(flip(copy, 20), 100) + rest)
open("badcopychunk.vmt", "wb").write(b[:16] + meta + flip(copy, 20) + flip(blocks[2], 20) +
                                     b"".join(blocks[3:]))
EOF
for f in swapped badcopy; do
	run vmtrace-report --json $f.vmt
	expect_rc 0 "$f.vmt"
	[ ! -s err.txt ] || { cat err.txt; fail "$f.vmt: a message"; }
	python3 -c "$strip" out.txt >got.json
	cmp -s want.json got.json || fail "$f.vmt: figures differ from the sound file's"
done
# the copy's header damaged and the chunk after it too: the chunk is damage all the same
run vmtrace-report --json badcopychunk.vmt
expect_rc 2 "badcopychunk.vmt"
[ "$(json out.txt '(d["bad_blocks"], d["lost_events_exact"])')" = "(1, False)" ] ||
	fail "badcopychunk.vmt: the damaged chunk after the copy not counted: $(json out.txt '(d["bad_blocks"], d["lost_events_exact"])')"
for f in "nometa:no metadata block at the start" "twometa:damaged metadata block" \
	 "cutcopy:damaged metadata block, and the file is cut at byte "; do
	run vmtrace-report --json "${f%%:*}.vmt"
	expect_one_line_error vmtrace-report "${f%%:*}.vmt: ${f#*:}"
	[ "$(wc -l <err.txt)" = 1 ] && [ "$rc" = 1 ] || fail "${f%%:*}.vmt: exit $rc, $(cat err.txt)"
done

# A file from before the copy (the bundled sample: its META is followed by a CHNK block, as
# the walk below finds): a damaged META is still the end of it, and the line says there is
# no copy to fall back on and why, for a flip in the block's header or in its payload.
python3 - "$src" <<'EOF' || fail "the sample has a copy of its META"
import struct, sys
b = open(sys.argv[1], "rb").read()
off = struct.unpack_from("<I", b, 12)[0]
hsize, psize = struct.unpack_from("<IQ", b, off + 4)
assert b[off:off + 4] == b"META" and b[off + hsize + psize:][:4] == b"CHNK"
EOF
for at in 20 200 $((meta + 100)); do
	cp "$src" old.vmt
	python3 -c 'import sys; f=open(sys.argv[1], "r+b"); o=int(sys.argv[2]); f.seek(o); b=f.read(1); f.seek(o); f.write(bytes([b[0] ^ 1]))' old.vmt "$at"
	for prog in vmtrace-report vmtrace-convert; do
		if [ "$prog" = vmtrace-report ]; then run $prog old.vmt; else run $prog --csv -o old.csv old.vmt; fi
		[ "$rc" = 1 ] && [ "$(cat err.txt)" = "$prog: old.vmt: damaged metadata block, and no copy of it (written before recorders made one)" ] ||
			fail "old file flipped at $at: $prog: exit $rc, $(cat err.txt)"
		[ ! -e old.csv ] || fail "old file flipped at $at: a CSV was left"
	done
done
# the file ends with the damaged META: an old file's, or one cut before its copy
end=$(python3 -c 'import struct, sys; b = open(sys.argv[1], "rb").read(); o = struct.unpack_from("<I", b, 12)[0]; h, p = struct.unpack_from("<IQ", b, o + 4); print(o + h + p)' "$src")
head -c "$end" old.vmt >metaonly.vmt
run vmtrace-report metaonly.vmt
[ "$rc" = 1 ] && [ "$(cat err.txt)" = "vmtrace-report: metaonly.vmt: damaged metadata block, and the file ends after it: no copy of it" ] ||
	fail "a damaged META that ends the file: exit $rc, $(cat err.txt)"
exit 0
