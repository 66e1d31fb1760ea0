#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every program: --help, --version, and one clear line for every bad command line.
. "$(dirname "$0")/lib.sh"

for p in vmtrace-record vmtrace-report vmtrace-convert; do
	run $p --help
	expect_rc 0 "$p --help"
	grep -q "Usage: $p" out.txt || fail "$p --help has no usage"
	grep -q "Examples" out.txt || fail "$p --help has no examples"
	# each example on lines of its own, as typed (argp wraps what passes 79 columns, and
	# a wrapped example breaks the command when copied): indented, or a continuation
	sed -n '/^Examples:$/,/^$/p' out.txt | grep -v '^  \|^Examples:$\|^$' &&
		fail "$p --help: an example wrapped"
	run $p --version
	expect_rc 0 "$p --version"
	[ "$(cat out.txt)" = "$p (vmtrace) $(sed -n 's/^AC_INIT(\[vmtrace\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")" ] ||
		fail "$p --version: $(cat out.txt), not '$p (vmtrace) VERSION' of configure.ac"
	# a standard output that cannot take the text: an error, not a silent 0
	for o in --version --help --usage; do
		$p $o >/dev/full 2>err.txt
		rc=$?
		[ "$rc" = 1 ] || fail "$p $o >/dev/full: exit $rc"
		[ "$(cat err.txt)" = "$p: standard output: No space left on device" ] ||
			fail "$p $o >/dev/full: $(cat err.txt)"
	done
	run $p --no-such-option
	[ "$rc" = 64 ] || fail "$p: bad option should exit 64 (EX_USAGE), got $rc"
done

# vmtrace-record: bad values, each refused before anything touches tracefs
for args in "" "-p" "-p x" "-p 3-1" "-p 1 -s 0" "-p 1 -s 10x" "-p 1 -b 1" "-p 1 -l 20" \
	    "-p 1 -e kvm:kvm_exit" "-p 1 -e a,b" "-p 1 -e kvm:x,kvm:x" "-p 1 -c abc" \
	    "-p 1 --poll-interval 5s" "-p 1 stray"; do
	# shellcheck disable=SC2086
	run vmtrace-record $args
	[ "$rc" = 64 ] || { cat err.txt >&2; fail "vmtrace-record $args: exit $rc, expected 64"; }
	grep -q "^vmtrace-record: " err.txt || fail "vmtrace-record $args: no error line"
done

# vmtrace-report: missing, empty, foreign files
run vmtrace-report
[ "$rc" = 64 ] || fail "report without a file: $rc"
run vmtrace-report "$scratch/missing.vmt"
expect_one_line_error vmtrace-report "missing.vmt: No such file or directory"
: >empty.vmt
run vmtrace-report empty.vmt
expect_one_line_error vmtrace-report "empty.vmt: not a vmtrace recording.* (it is empty)"
printf 'hello world, not a trace at all\n' >text.vmt
run vmtrace-report text.vmt
expect_one_line_error vmtrace-report "text.vmt: not a vmtrace recording"
run vmtrace-report -f "$scratch"
expect_one_line_error vmtrace-report "not a regular file"
run vmtrace-report --json --legacy x.vmt
[ "$rc" = 64 ] || fail "--json --legacy together should be refused"
run vmtrace-report --window 0 x.vmt
[ "$rc" = 64 ] || fail "--window 0 should be refused"
[ "$(wc -l <err.txt)" -le 3 ] || fail "too many lines for one error"

# vmtrace-convert: bad command lines
for args in "" "--csv" "x.vmt" "--csv --jsonl x.vmt" "--legacy x.vmt" "--to-vmt x.vmt" \
	    "--legacy --events -o y x.vmt" "--csv --cpu x x.vmt" "--csv --from 2s --to 1s x.vmt"; do
	# shellcheck disable=SC2086
	run vmtrace-convert $args
	[ "$rc" = 64 ] || { cat err.txt >&2; fail "vmtrace-convert $args: exit $rc, expected 64"; }
done
run vmtrace-convert --csv "$scratch/missing.vmt"
expect_one_line_error vmtrace-convert "missing.vmt: No such file or directory"
exit 0
