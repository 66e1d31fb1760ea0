#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench-report: a generated recording of EXITS exits (2 events each, one CPU, realistic
# field values), side by side in one run, BENCH_RUNS runs each, medians of wall seconds
# and of CPU seconds (user + system, every thread), never one favourable figure:
#   - vmtrace-report --json on the .vmt (the full analysis), with the file cached and,
#     as root, uncached (the page cache dropped before each such run); in time slices on
#     every CPU (the default), on one CPU (taskset -c 0) and in one pass (--jobs 1),
#   - the same on the same exits with context events (the attribution's cost), and with
#     --no-causes (the figures alone, in time slices),
#   - zstd -d of the same chunks to /dev/null (the floor),
#   - vmtrace-report --json on the same events as the original's 2015-layout trace.bin,
#     cached and uncached, in slices on every CPU, on one CPU and in one pass,
#   - the original vm-trace -f on that trace.bin, cached and uncached, built from
#     ../shared/seed outside the repository when the seed is there,
#   - vmtrace-convert --csv to /dev/null, one row per exit and (--events) one per event,
#     in rows per second, on every CPU (rows formatted on other cores) and on one
#     (taskset -c 0: no threads),
#   - vmtrace-report --json --html (the page as well: time series and heatmap), and the
#     page's size, which must stay under 2 MB,
#   - many CPUs: a fifth of the exits spread over 64 CPUs, in one pass without threads and
#     with the defaults, in the chunks vmtrace-record writes for 64 CPUs (512 KiB) and in
#     1 MiB chunks (earlier recorders'), against the same count on one CPU: the merge's
#     cost per CPU and the memory it holds (a chunk per CPU).
# BENCH_UNCACHED=no skips the uncached runs (they drop the whole machine's page cache).
# Timings, never pass/fail.
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
"$top_builddir/tests/helpers/mkvmt" --context --random "$EXITS" 1 "$F" "$work/ctx.vmt"
MANY=$((EXITS / 5))
"$top_builddir/tests/helpers/mkvmt" --random "$MANY" 1 "$F" "$work/m1.vmt"
"$top_builddir/tests/helpers/mkvmt" --random "$MANY" 64 "$F" "$work/m64.vmt"
"$top_builddir/tests/helpers/mkvmt" --chunk-pages 256 --random "$MANY" 64 "$F" "$work/m64big.vmt"
UNCACHED=${BENCH_UNCACHED:-yes}
[ -w /proc/sys/vm/drop_caches ] || UNCACHED=no
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

measure() {	# measure NAME CMD...: "wall-s kilobytes cpu-s user-s system-s" of one run
	name=$1
	shift
	/usr/bin/env time -f "%e %M %U %S" -o "$work/t" "$@" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; echo "bench: $name failed" >&2; exit 1; }
	awk '{ printf "%s %s %.2f %s %s\n", $1, $2, $3 + $4, $3, $4 }' "$work/t"
}
cold() {	# cold NAME CMD...: measure with the page cache dropped first
	sync
	echo 3 >/proc/sys/vm/drop_caches
	measure "$@"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for f in a ac a1 ap x xn z l lc l1 lp o oc c c1 e e1 h n1 n64 n64b d1 d64 d64b; do
	: >"$work/$f"
done
i=0
while [ $i -lt "$RUNS" ]; do
	measure report vmtrace-report --json "$work/b.vmt" >>"$work/a"
	measure context vmtrace-report --json "$work/ctx.vmt" >>"$work/x"
	measure context-no-causes vmtrace-report --json --no-causes "$work/ctx.vmt" >>"$work/xn"
	measure zstd zstd -d -c "$work/frames.zst" >>"$work/z"
	measure legacy vmtrace-report --json "$work/trace.bin" >>"$work/l"
	measure report-1pass vmtrace-report --jobs 1 --json "$work/b.vmt" >>"$work/ap"
	measure legacy-1pass vmtrace-report --jobs 1 --json "$work/trace.bin" >>"$work/lp"
	if command -v taskset >/dev/null; then
		measure report-1cpu taskset -c 0 vmtrace-report --json "$work/b.vmt" >>"$work/a1"
		measure legacy-1cpu taskset -c 0 vmtrace-report --json "$work/trace.bin" \
			>>"$work/l1"
	fi
	[ $have_orig = no ] || measure original "$work/vm-trace" -f "$work/trace.bin" >>"$work/o"
	if [ "$UNCACHED" = yes ]; then
		cold report vmtrace-report --json "$work/b.vmt" >>"$work/ac"
		cold legacy vmtrace-report --json "$work/trace.bin" >>"$work/lc"
		[ $have_orig = no ] || cold original "$work/vm-trace" -f "$work/trace.bin" >>"$work/oc"
	fi
	measure csv vmtrace-convert --csv -o /dev/null "$work/b.vmt" >>"$work/c"
	measure csv-events vmtrace-convert --csv --events -o /dev/null "$work/b.vmt" >>"$work/e"
	if command -v taskset >/dev/null; then
		measure csv-1cpu taskset -c 0 vmtrace-convert --csv -o /dev/null "$work/b.vmt" \
			>>"$work/c1"
		measure csv-events-1cpu taskset -c 0 vmtrace-convert --csv --events -o /dev/null \
			"$work/b.vmt" >>"$work/e1"
	fi
	measure html vmtrace-report --json --html "$work/b.html" "$work/b.vmt" >>"$work/h"
	for m in 1 64 64b; do
		f=$work/m$m.vmt
		[ $m != 64b ] || f=$work/m64big.vmt
		measure many-1pass env VMTRACE_NO_THREADS=1 vmtrace-report --jobs 1 --json "$f" \
			>>"$work/n$m"
		measure many vmtrace-report --json "$f" >>"$work/d$m"
	done
	i=$((i + 1))
done
events=$((EXITS * 2))
col() { awk -v c="$2" '{ print $c }' "$1" | median; }
echo "$events events, one CPU; .vmt $(stat -c %s "$work/b.vmt") bytes, trace.bin $(stat -c %s "$work/trace.bin") bytes; $RUNS runs, medians"
printf '%-50s %7s %7s %10s %9s %8s\n' "" "wall s" "CPU s" "M ev/s" "CPU ns/ev" "peak RSS"
row() {	# row LABEL FILE [COUNT]: wall, CPU, rate on the wall time, CPU per item, memory
	[ -s "$2" ] || return 0
	n=${3:-$events}
	s=$(col "$2" 1)
	cpu=$(col "$2" 3)
	printf '%-50s %7s %7s %10s %9s %5s MB\n' "$1" "$s" "$cpu" \
		"$(echo "$n $s" | awk '{ printf "%.1f", $1 / $2 / 1e6 }')" \
		"$(echo "$n $cpu" | awk '{ printf "%.1f", $2 * 1e9 / $1 }')" "$(($(col "$2" 2) / 1024))"
}
row "vmtrace-report --json, .vmt, cached ($(nproc) CPUs)" "$work/a"
row "  the same, one CPU (taskset -c 0)" "$work/a1"
row "  the same, one pass (--jobs 1)" "$work/ap"
row "vmtrace-report --json, .vmt, uncached" "$work/ac"
row "vmtrace-report --json, .vmt + context events" "$work/x"
row "  the same, --no-causes (time slices)" "$work/xn"
row "zstd -d of the same chunks (floor), cached" "$work/z"
row "vmtrace-report --json, trace.bin, cached ($(nproc) CPUs)" "$work/l"
row "  the same, one CPU (taskset -c 0)" "$work/l1"
row "  the same, one pass (--jobs 1)" "$work/lp"
row "vmtrace-report --json, trace.bin, uncached" "$work/lc"
[ $have_orig = no ] || row "original vm-trace -f, trace.bin, cached" "$work/o"
[ $have_orig = no ] || row "original vm-trace -f, trace.bin, uncached" "$work/oc"
ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }
echo "full analysis / zstd floor: wall $(ratio "$(col "$work/a" 1)" "$(col "$work/z" 1)")," \
	"CPU $(ratio "$(col "$work/a" 3)" "$(col "$work/z" 3)")"
# zstd's command line also checks XXH64, which the .vmt reader skips: the floor's CPU is
# above what decompression costs inside the report. The analysis alone, without any
# decompression, is the trace.bin's CPU per event on one CPU (no thread): its user time,
# and the system time of the kernel copying the file's pages.
per_event() { echo "$1 $events" | awk '{ printf "%.1f", $1 * 1e9 / $2 }'; }
[ ! -s "$work/l1" ] || echo "analysis CPU without decompression (trace.bin, cached, one CPU):" \
	"$(per_event "$(col "$work/l1" 3)") ns per event: user $(per_event "$(col "$work/l1" 4)")," \
	"system (the file's copy) $(per_event "$(col "$work/l1" 5)")"
echo "the same in one pass with its read-ahead thread: $(per_event "$(col "$work/lp" 3)") ns per event"
echo "time slices on $(nproc) CPUs / one CPU: wall .vmt $(ratio "$(col "$work/a" 1)" "$(col "$work/a1" 1)"), trace.bin $(ratio "$(col "$work/l" 1)" "$(col "$work/l1" 1)"); CPU .vmt $(ratio "$(col "$work/a" 3)" "$(col "$work/a1" 3)"), trace.bin $(ratio "$(col "$work/l" 3)" "$(col "$work/l1" 3)")"
# a recording with context events is analysed in one pass: compare with one pass
echo "attribution: CPU with context events / without, one pass each: $(ratio "$(col "$work/x" 3)" "$(col "$work/ap" 3)")"
if [ $have_orig = yes ]; then
	vs() {	# vs LABEL OURS THEIRS: wall and CPU ratios of two cases
		echo "$1: wall $(ratio "$(col "$2" 1)" "$(col "$3" 1)"), CPU $(ratio "$(col "$2" 3)" "$(col "$3" 3)")"
	}
	vs "trace.bin cached, ours / original" "$work/l" "$work/o"
	vs "trace.bin cached, ours on one CPU / original" "$work/l1" "$work/o"
	vs "trace.bin cached, ours in one pass / original" "$work/lp" "$work/o"
	vs ".vmt cached / original's trace.bin cached" "$work/a" "$work/o"
	[ ! -s "$work/lc" ] || vs "trace.bin uncached, ours / original" "$work/lc" "$work/oc"
fi
[ "$UNCACHED" = yes ] || echo "(uncached runs skipped: BENCH_UNCACHED=no or not root)"
printf '%-50s %7s %7s %10s %9s %8s\n' "" "wall s" "CPU s" "M rows/s" "CPU ns/row" "peak RSS"
row "vmtrace-convert --csv (a row per exit)" "$work/c" "$EXITS"
row "vmtrace-convert --csv --events (per event)" "$work/e" "$events"
row "vmtrace-convert --csv, one CPU (taskset -c 0)" "$work/c1" "$EXITS"
row "vmtrace-convert --csv --events, one CPU" "$work/e1" "$events"
row "vmtrace-report --json --html (the page too)" "$work/h"
printf '%-50s %7s %7s %10s %9s %8s\n' "" "wall s" "CPU s" "M ev/s" "CPU ns/ev" "peak RSS"
row "$((MANY * 2)) events on 1 CPU, one pass, no threads" "$work/n1" $((MANY * 2))
row "  on 64 CPUs, 512 KiB chunks (vmtrace-record)" "$work/n64" $((MANY * 2))
row "  on 64 CPUs, 1 MiB chunks (earlier recorders)" "$work/n64b" $((MANY * 2))
row "$((MANY * 2)) events on 1 CPU, defaults ($(nproc) CPUs)" "$work/d1" $((MANY * 2))
row "  on 64 CPUs, 512 KiB chunks (vmtrace-record)" "$work/d64" $((MANY * 2))
row "  on 64 CPUs, 1 MiB chunks (earlier recorders)" "$work/d64b" $((MANY * 2))
html_size=$(stat -c %s "$work/b.html")
echo "HTML page: $html_size bytes"
[ "$html_size" -lt 2000000 ] || { echo "bench: the HTML page is over 2 MB" >&2; exit 1; }
