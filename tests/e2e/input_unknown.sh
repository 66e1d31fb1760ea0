#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A file that is none of the formats read is refused in one line that names it, says what
# it is not and what it starts with (or that it is empty, or compressed), exit status 1;
# a recording cut inside its first header is said to be cut. Both programs, and the
# second file of a --compare.
. "$(dirname "$0")/lib.sh"

not="not a vmtrace recording, a trace.dat or a trace.bin"
printf 'hello world, not a trace at all\n' >text.txt
printf '#!/bin/sh\nexit 0\n' >script.sh
: >empty.vmt
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000>\000' >elf.bin
gzip -c "$DATA/sample-kvm.vmt" >kvm.vmt.gz
printf '\050\265\057\375\000\000' >kvm.vmt.zst
printf "it's" >quote.txt
printf '\nabc\n' >newline.txt	# its first line is empty: the newline is shown
head -c 12 "$DATA/sample-kvm.vmt" >cut.vmt
head -c 9 "$DATA/tracedat/kvm.v6.dat" >cut.dat

# file, then the words after "FILE: "
while read -r f words; do
	for prog in vmtrace-report vmtrace-convert; do
		case $prog in
		vmtrace-report) run $prog "$f" ;;
		*) run $prog --csv -o out.csv "$f" ;;
		esac
		[ "$rc" = 1 ] || { cat err.txt; fail "$prog $f: exit $rc, expected 1"; }
		[ "$(cat err.txt)" = "$prog: $f: $words" ] ||
			fail "$prog $f: '$(cat err.txt)', expected '$prog: $f: $words'"
		[ ! -s out.txt ] || fail "$prog $f: wrote to standard output"
	done
done <<EOT
text.txt $not (it starts with 'hello world,')
script.sh $not (it starts with '#!/bin/sh')
empty.vmt $not (it is empty)
elf.bin $not (it starts with '\x7fELF')
kvm.vmt.gz $not (it is gzip-compressed)
kvm.vmt.zst $not (it is zstd-compressed)
quote.txt $not (it starts with 'it\x27s')
newline.txt $not (it starts with '\x0aabc')
cut.vmt truncated: the file is cut inside the header of a vmtrace recording (12 bytes)
cut.dat truncated: the file is cut inside the header of a trace.dat (9 bytes)
EOT
[ ! -e out.csv ] || fail "an output file for an unknown input"

# the same words from a pipe, and for the second recording of a comparison
printf 'plain text\n' | vmtrace-report - >out.txt 2>err.txt
rc=$?
[ "$rc" = 1 ] && [ "$(cat err.txt)" = "vmtrace-report: -: $not (it starts with 'plain text')" ] ||
	fail "standard input: exit $rc: $(cat err.txt)"
run vmtrace-report --compare "$DATA/sample-kvm.vmt" elf.bin
[ "$rc" = 1 ] && [ "$(cat err.txt)" = "vmtrace-report: elf.bin: $not (it starts with '\x7fELF')" ] ||
	fail "--compare: exit $rc: $(cat err.txt)"
exit 0
