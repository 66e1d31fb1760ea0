#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every input the fuzzers ever crashed on (tests/data/bad/<target>/) and the seed inputs,
# replayed through the same fuzz targets built normally (and with sanitizers in CI); the
# report reads every bad container with a clean outcome.
. "$(dirname "$0")/lib.sh"
R="$top_builddir/tests/fuzz"

for t in rbpage evformat container tracedat attrib; do
	set -- "$DATA"/bad/$t/*
	[ -e "$1" ] || set --
	case $t in
	evformat) set -- "$@" $(find "$DATA/formats" -type f) ;;
	container) printf 'exit 0 1000 7 0x72 0\nentry 0 1300 7 0\n' |
			"$HELPERS/mkvmt" --legacy "$DATA/formats/rt-2015-x86_64" legacy.bin ||
			fail mkvmt
		set -- "$@" "$DATA/sample-syscalls.vmt" legacy.bin ;;
	rbpage) printf '\000' | cat - "$DATA/pages/raw_syscalls-cpu1.pages" >page.bin
		set -- "$@" page.bin ;;
	tracedat) printf '\000' | cat - "$DATA/tracedat/kvm.v7zlib.dat" >kvm.bin
		printf '\001' | cat - "$DATA/tracedat/syscalls-extract.v6.dat" >sys.bin
		set -- "$@" kvm.bin sys.bin ;;
	attrib) for n in 1 2 3 4 5 6 7 8; do
			# shellcheck disable=SC2059
			printf "$(LC_ALL=C awk -v s=$n 'BEGIN { srand(s); for (i = 0; i < s * 400; i++)
				printf "\\%03o", int(rand() * 256) }')" >seed$n
			set -- "$@" seed$n
		done ;;
	esac
	"$R/replay_$t" "$@" >out.txt 2>err.txt || { cat err.txt; fail "replay_$t"; }
done
for f in "$DATA"/bad/container/* "$DATA"/bad/tracedat/*; do
	[ -e "$f" ] || continue
	run vmtrace-report "$f"
	case $rc in 0|1|2) ;; *) fail "vmtrace-report $f: exit $rc" ;; esac
done
exit 0
