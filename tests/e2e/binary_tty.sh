#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Binary output (.vmt, trace.bin) to standard output on a terminal garbles the screen and is
# lost: refused with one line and exit 64, before anything is read or traced, with standard
# output a real pseudo-terminal. Through a pipe it is written as into a file: the bytes are
# compared with -o FILE's. (vmtrace-record -o - through a pipe: record_unfinished.sh.)
. "$(dirname "$0")/lib.sh"

K="$DATA/sample-kvm.vmt"
DAT="$DATA/tracedat/kvm.v6.dat"
MSG="refusing to write binary %s data to a terminal; redirect it or use -o FILE"

# on_tty CMD...: run CMD with standard output a new pseudo-terminal (stdin /dev/null);
# what reached the terminal in tty.txt, stderr in err.txt, the status in $rc.
on_tty() {
	python3 "$top_srcdir/tests/helpers/ptyrun.py" --stderr err.txt tty.txt 80 24 -- "$@"
	rc=$?
}

# the terminal is one: a test that passes on a pipe would prove nothing
on_tty sh -c 'test -t 1'
[ "$rc" = 0 ] || fail "python3's pseudo-terminal is not a terminal to the program"

# refuse_on_tty PROG FORMAT ARGS...: one line, exit 64, nothing on the terminal, no file
refuse_on_tty() {
	local prog=$1 fmt=$2
	shift 2
	# shellcheck disable=SC2059
	line="$prog: standard output: $(printf "$MSG" "$fmt")"
	on_tty "$prog" "$@"
	[ "$rc" = 64 ] || { cat err.txt >&2; fail "$prog $*: exit $rc on a terminal, not 64"; }
	[ "$(cat err.txt)" = "$line" ] || { cat err.txt >&2; fail "$prog $*: not the one line"; }
	[ ! -s tty.txt ] || fail "$prog $*: $(wc -c <tty.txt) bytes reached the terminal"
	! ls ./*.part 2>/dev/null || fail "$prog $*: a file left"
}
refuse_on_tty vmtrace-convert .vmt --to-vmt -o - "$K"
refuse_on_tty vmtrace-convert .vmt --to-vmt -o - "$DAT"
refuse_on_tty vmtrace-convert trace.bin --legacy --cpu 1 -o - "$K"
# the recorder refuses before it needs root or traces anything
refuse_on_tty vmtrace-record .vmt -p 1 -c 0 -s 1s -o -
refuse_on_tty vmtrace-record .vmt -p 1 -c 0 -s 1s --output=-

# text to a terminal is fine: CSV as a pipe gets it
on_tty vmtrace-convert --csv --to 20ms -o - "$K"
[ "$rc" = 0 ] || { cat err.txt >&2; fail "--csv -o - on a terminal: exit $rc"; }
vmtrace-convert --csv --to 20ms -o - "$K" >piped.csv || fail "--csv -o - through a pipe"
# the terminal turns each \n into \r\n (and RFC 4180's \r\n into \r\r\n)
tr -d '\r' <tty.txt >tty.csv
tr -d '\r' <piped.csv | cmp -s - tty.csv || fail "--csv on a terminal: not the rows a pipe gets"
[ "$(wc -l <tty.csv)" -gt 10 ] || fail "--csv on a terminal: $(wc -l <tty.csv) lines"

# through a pipe: the bytes -o FILE writes
for mode in "--to-vmt $K" "--to-vmt $DAT" "--legacy --cpu 1 $K"; do
	# shellcheck disable=SC2086
	vmtrace-convert $mode -o - 2>err.txt | cat >piped.out || fail "$mode -o - through a pipe"
	# shellcheck disable=SC2086
	vmtrace-convert $mode -o file.out 2>/dev/null || fail "$mode -o file.out"
	[ -s piped.out ] && cmp -s piped.out file.out || fail "$mode: the pipe got other bytes"
done
# and what the pipe got reads back: the pairs of the recording
vmtrace-convert --to-vmt -o - "$K" 2>/dev/null | cat >piped.vmt
vmtrace-report --json piped.vmt >p.json || fail "the piped .vmt does not read back"
vmtrace-report --json "$K" >k.json
[ "$(json p.json 'd["pairs"]')" = "$(json k.json 'd["pairs"]')" ] || fail "the piped .vmt's pairs"
exit 0
