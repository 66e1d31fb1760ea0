#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench-report: a generated recording of EXITS exits (2 events each, one CPU, realistic
# field values), side by side in one run, BENCH_RUNS runs each, medians:
#   - vmtrace-report --json on the .vmt (the full analysis),
#   - zstd -d of the same chunks to /dev/null (the floor),
#   - vmtrace-report --json on the same events as an uncompressed trace.bin,
#   - the original vm-trace -f on that trace.bin, built from ../shared/seed outside the
#     repository when the seed is there,
#   - vmtrace-convert --csv to /dev/null, one row per exit and (--events) one per event,
#     in rows per second,
#   - vmtrace-report --json --html (the page as well: time series and heatmap), and the
#     page's size, which must stay under 2 MB.
# Wall seconds and peak resident memory. Timings, never pass/fail.
set -eu
top_builddir=${top_builddir:-$(pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
EXITS=${BENCH_EXITS:-10000000}
RUNS=${BENCH_RUNS:-5}
SEED=${SEED:-$top_srcdir/../shared/seed}
F="$top_srcdir/tests/data/formats/linux-6.18-x86_64"
PATH="$top_builddir:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$top_builddir/tests/helpers/mkvmt" --random "$EXITS" 1 "$F" "$work/b.vmt"
"$top_builddir/tests/helpers/mkvmt" --legacy --random "$EXITS" 1 "$F" "$work/trace.bin"
python3 - "$work/b.vmt" "$work/frames.zst" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, out = 16, open(sys.argv[2], "wb")
while off < len(b):
    typ, hs, ps = struct.unpack_from("<IIQ", b, off)
    if typ == 0x4B4E4843:
        out.write(b[off + hs:off + hs + ps])
    off += hs + ps
PY
have_orig=no
if ls "$SEED"/*.txt >/dev/null 2>&1; then
	# The seed is the original source as a diff: take the C file's added lines.
	awk '/^--- \/dev\/null/ { n++ } n == 2 && /^\+/ { print substr($0, 2) }' "$SEED"/*.txt |
		sed 's/¶m/\&param/' >"$work/vm-trace.c"
	gcc -O2 -pthread -w -o "$work/vm-trace" "$work/vm-trace.c" && have_orig=yes
fi

measure() {	# measure NAME CMD...: "seconds kilobytes" of one run
	name=$1
	shift
	/usr/bin/env time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; echo "bench: $name failed" >&2; exit 1; }
	cat "$work/t"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: >"$work/a"; : >"$work/z"; : >"$work/l"; : >"$work/o"; : >"$work/c"; : >"$work/e"; : >"$work/h"
i=0
while [ $i -lt "$RUNS" ]; do
	measure report vmtrace-report --json "$work/b.vmt" >>"$work/a"
	measure zstd zstd -d -c "$work/frames.zst" >>"$work/z"
	measure legacy vmtrace-report --json "$work/trace.bin" >>"$work/l"
	[ $have_orig = no ] || measure original "$work/vm-trace" -f "$work/trace.bin" >>"$work/o"
	measure csv vmtrace-convert --csv -o /dev/null "$work/b.vmt" >>"$work/c"
	measure csv-events vmtrace-convert --csv --events -o /dev/null "$work/b.vmt" >>"$work/e"
	measure html vmtrace-report --json --html "$work/b.html" "$work/b.vmt" >>"$work/h"
	i=$((i + 1))
done
events=$((EXITS * 2))
col() { awk -v c="$2" '{ print $c }' "$1" | median; }
echo "$events events, one CPU; .vmt $(stat -c %s "$work/b.vmt") bytes, trace.bin $(stat -c %s "$work/trace.bin") bytes; $RUNS runs, medians"
printf '%-44s %9s %12s %10s\n' "" "seconds" "M events/s" "peak RSS"
row() {
	s=$(col "$2" 1)
	printf '%-44s %9s %12s %7s MB\n' "$1" "$s" "$(echo "$events $s" | awk '{ printf "%.1f", $1 / $2 / 1e6 }')" "$(($(col "$2" 2) / 1024))"
}
row "vmtrace-report --json, .vmt (full analysis)" "$work/a"
row "zstd -d of the same chunks (floor)" "$work/z"
row "vmtrace-report --json, trace.bin" "$work/l"
[ $have_orig = no ] || row "original vm-trace -f, trace.bin" "$work/o"
echo "full analysis / zstd floor: $(echo "$(col "$work/a" 1) $(col "$work/z" 1)" | awk '{ printf "%.2f", $1 / $2 }')"
# The host sometimes slows one vCPU by 1.5x for minutes; a floor run that landed there
# flatters the ratio. The strict one divides by the fastest floor run.
echo "full analysis / fastest zstd run (strict): $(echo "$(col "$work/a" 1) $(awk '{ print $1 }' "$work/z" | sort -n | head -1)" | awk '{ printf "%.2f", $1 / $2 }')"
[ $have_orig = no ] || echo "original / full analysis: $(echo "$(col "$work/o" 1) $(col "$work/a" 1)" | awk '{ printf "%.2f", $1 / $2 }')"
crow() {	# crow LABEL FILE ROWS
	s=$(col "$2" 1)
	printf '%-44s %9s %12s %7s MB\n' "$1" "$s" "$(echo "$3 $s" | awk '{ printf "%.1f", $1 / $2 / 1e6 }')" "$(($(col "$2" 2) / 1024))"
}
printf '%-44s %9s %12s %10s\n' "" "seconds" "M rows/s" "peak RSS"
crow "vmtrace-convert --csv (a row per exit)" "$work/c" "$EXITS"
crow "vmtrace-convert --csv --events (per event)" "$work/e" "$events"
row "vmtrace-report --json --html (the page too)" "$work/h"
html_size=$(stat -c %s "$work/b.html")
echo "HTML page: $html_size bytes"
[ "$html_size" -lt 2000000 ] || { echo "bench: the HTML page is over 2 MB" >&2; exit 1; }
