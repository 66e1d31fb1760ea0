#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A pipe given as a path (a FIFO from mkfifo, bash's <(...) as /dev/fd/N) is read as "-"
# is: copied, then reported or converted. The output equals the regular file's (but for
# the name it prints), for vmtrace-report's text and JSON, a merge and vmtrace-convert's CSV.
. "$(dirname "$0")/lib.sh"

K="$DATA/sample-kvm.vmt"
T="$DATA/tracedat/kvm.v6.dat"
command -v mkfifo >/dev/null || skip "no mkfifo"

# fifo_run OUT PROG ARGS...: PROG with the FIFO "ff" fed with $src, its stdout in OUT
fifo_run() {
	out=$1
	shift
	rm -f ff
	mkfifo ff || fail "mkfifo"
	cat "$src" >ff &
	feeder=$!
	"$@" >"$out" 2>err.txt
	rc=$?
	# a program that never opened the FIFO leaves cat blocked in its open: not a hang
	kill $feeder 2>/dev/null
	wait $feeder
	expect_rc 0 "$* (FIFO of $src)"
}

same() {	# same A B WHAT: equal but for the file's name
	sed -e "s|$src|NAME|g" -e 's|/dev/fd/[0-9]*|NAME|g' -e 's|\bff\b|NAME|g' "$1" >a.cmp
	sed -e "s|$src|NAME|g" -e 's|/dev/fd/[0-9]*|NAME|g' -e 's|\bff\b|NAME|g' "$2" >b.cmp
	cmp -s a.cmp b.cmp || { diff a.cmp b.cmp | head -20 >&2; fail "$3"; }
}

for src in "$K" "$T"; do
	vmtrace-report "$src" >file.txt 2>/dev/null || fail "report $src"
	vmtrace-report --json "$src" >file.json 2>/dev/null || fail "report --json $src"
	vmtrace-convert --csv "$src" >file.csv 2>/dev/null || fail "convert $src"
	fifo_run fifo.txt vmtrace-report ff
	same file.txt fifo.txt "report of a FIFO of $src"
	fifo_run fifo.json vmtrace-report --json ff
	same file.json fifo.json "report --json of a FIFO of $src"
	fifo_run fifo.csv vmtrace-convert --csv ff
	same file.csv fifo.csv "convert of a FIFO of $src"
	if command -v bash >/dev/null; then
		# merged with another recording (the file's own copy is refused as itself)
		O="$DATA/why/sample/kvm.vmt"
		bash -c 'vmtrace-report "$1" <(cat "$2") >ps.txt' sh "$src" "$O" 2>err.txt ||
			{ cat err.txt; fail "report $src and <(cat $O)"; }
		cp "$O" copy.bin
		vmtrace-report "$src" copy.bin >cp.txt 2>/dev/null || fail "merge with a copy"
		sed -i 's|copy.bin|NAME|' cp.txt
		same cp.txt ps.txt "a merge with <(cat $O)"
		bash -c 'vmtrace-convert --csv <(cat "$1") >ps.csv' sh "$src" 2>err.txt ||
			{ cat err.txt; fail "convert <(cat $src)"; }
		cmp -s file.csv ps.csv || fail "convert <(cat $src): not the file's CSV"
	else
		skip_part "no bash for <(...)"
	fi
done

# what is not a recording, through a pipe: one line, the pipe's name
src=/dev/null
rm -f ff
mkfifo ff
echo "not a recording" >ff &
feeder=$!
run vmtrace-report ff
kill $feeder 2>/dev/null
wait $feeder
expect_one_line_error vmtrace-report "ff: not a vmtrace recording"
finish
