#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make fuzz: build each target with clang's libFuzzer, ASan and UBSan, seed its corpus from
# tests/data, and run it FUZZ_SECONDS (default 60). A crash is kept under
# tests/data/bad/<target>/ (commit it: make check replays it) and fails the run.
set -eu
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${top_builddir:-$(pwd)}
secs=${FUZZ_SECONDS:-60}
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "fuzz: $CC not found" >&2; exit 77; }
out="$builddir/fuzz-out"
mkdir -p "$out"
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I$builddir -I$srcdir/common"
srcs=$(ls "$srcdir"/common/*.c)
status=0
for t in rbpage evformat container tracedat attrib; do
	# shellcheck disable=SC2086
	$CC $flags "$srcdir/tests/fuzz/fuzz_$t.c" $srcs -lzstd -lz -lm -o "$out/fuzz_$t"
	corpus="$out/corpus_$t"
	mkdir -p "$corpus" "$srcdir/tests/data/bad/$t"
	case $t in
	rbpage)
		# real pages, one per file, behind the layout byte
		i=0
		while [ $i -lt 17 ]; do
			{ printf '\000'; dd if="$srcdir/tests/data/pages/raw_syscalls-cpu1.pages" bs=4096 \
				skip=$i count=1 status=none; } >"$corpus/page$i"
			i=$((i + 1))
		done ;;
	evformat)
		find "$srcdir/tests/data/formats" -type f | while read -r f; do
			cp "$f" "$corpus/$(echo "$f" | md5sum | cut -c1-12)"
		done ;;
	container)
		"$builddir/tests/helpers/mkvmt" "$srcdir/tests/data/formats/linux-6.18-x86_64" \
			"$corpus/small.vmt" <<'S'
exit 0 1000 7 0x72 0
entry 0 1100 7 0
page 0 missed 3
exit 0 5000 7 0x7b 0
entry 1 5300 7 0
S
		head -c 65536 "$srcdir/tests/data/sample-syscalls.vmt" >"$corpus/sample-head.vmt"
		# chunks of 8 pages on 2 CPUs: each read in 8 windows by the second walk
		"$builddir/tests/helpers/mkvmt" --chunk-pages 8 --random 1500 2 \
			"$srcdir/tests/data/formats/linux-6.18-x86_64" "$corpus/windows.vmt"
		# the original tool's trace.bin goes through the same reader
		printf 'exit 0 1000 7 0x72 0\nentry 0 1300 7 0\n' |
			"$builddir/tests/helpers/mkvmt" --legacy \
			"$srcdir/tests/data/formats/rt-2015-x86_64" "$corpus/legacy.bin" ;;
	tracedat)
		# the committed trace-cmd files (v6, v7 zstd and zlib, tsc2nsec, instance
		# buffers, context formats) behind the pair byte: 0 kvm, 1 raw_syscalls
		for f in "$srcdir"/tests/data/tracedat/*.dat; do
			case $f in
			*syscalls*|*tsc2nsec*|*context*) sel='\001' ;;
			*) sel='\000' ;;
			esac
			{ printf "$sel"; cat "$f"; } >"$corpus/$(basename "$f")"
		done ;;
	attrib)
		# any bytes are a program for it: start from deterministic noise
		for n in 1 2 3 4 5 6 7 8; do
			# shellcheck disable=SC2059
			printf "$(LC_ALL=C awk -v s=$n 'BEGIN { srand(s); for (i = 0; i < s * 400; i++)
				printf "\\%03o", int(rand() * 256) }')" >"$corpus/seed$n"
		done ;;
	esac
	echo "fuzz_$t: ${secs}s"
	if ! "$out/fuzz_$t" -max_total_time="$secs" -max_len=100000 -rss_limit_mb=1024 \
		-artifact_prefix="$srcdir/tests/data/bad/$t/" -print_final_stats=1 \
		"$corpus" >"$out/fuzz_$t.log" 2>&1; then
		tail -40 "$out/fuzz_$t.log"
		echo "fuzz_$t: found a crash, kept in tests/data/bad/$t/" >&2
		status=1
	fi
	grep -E "stat::number_of_executed_units|cov:" "$out/fuzz_$t.log" | tail -2
done
exit $status
