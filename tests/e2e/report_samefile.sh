#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One recording given twice, by the same path, a symlink, a hard link, another spelling or
# as standard input: merging refuses it (exit 64, one line naming both), since each exit
# would count twice; --compare warns and compares (every change 0, the counts those of the
# single report). A copy (another inode) is a second recording: merged, twice the count.
. "$(dirname "$0")/lib.sh"

cp "$DATA/sample-kvm.vmt" k.vmt
cp k.vmt copy.vmt
ln -s k.vmt sym.vmt
ln k.vmt hard.vmt
run vmtrace-report --json k.vmt
expect_rc 0 "single"
n=$(json out.txt 'd["pairs"]')

refused() {	# refused A B [stdin]: exit 64, one line naming both
	if [ $# = 3 ]; then
		vmtrace-report "$1" "$2" <"$3" >out.txt 2>err.txt
		rc=$?
	else
		run vmtrace-report "$@"
	fi
	expect_rc 64 "$1 $2"
	expect_one_line_error vmtrace-report "same file"
	[ "$(wc -l <err.txt)" = 1 ] || { cat err.txt; fail "$1 $2: not one line"; }
	b=$2
	[ "$b" = - ] && b="standard input"
	grep -qF "$1 and $b are" err.txt || { cat err.txt; fail "$1 $2: names"; }
	[ ! -s out.txt ] || fail "$1 $2: printed a report"
}
refused k.vmt k.vmt
refused k.vmt sym.vmt
refused hard.vmt ./k.vmt
refused "$PWD/k.vmt" hard.vmt
refused k.vmt - k.vmt
run vmtrace-report copy.vmt k.vmt sym.vmt
expect_rc 64 "three files, two the same"
grep -qF "k.vmt and sym.vmt are the same file" err.txt || fail "third and fourth"

run vmtrace-report --json k.vmt copy.vmt
expect_rc 0 "a copy"
[ "$(json out.txt '[g["count"] for g in d["merged"]["groups"] if g["reason_code"] is None][0]')" \
	= $((2 * n)) ] || fail "a copy merged: not twice $n"

run vmtrace-report --compare --json k.vmt sym.vmt
expect_rc 0 "--compare with itself"
grep -q "warning: k.vmt and sym.vmt are the same file" err.txt || fail "--compare: no warning"
[ "$(json out.txt 'all(v in (0, None) for g in d["compare"]["groups"] for v in g["change_pct"].values())')" \
	= True ] || fail "--compare with itself: a change"
[ "$(json out.txt '[g["before"]["count"] for g in d["compare"]["groups"] if g["reason_code"] is None][0]')" \
	= "$n" ] || fail "--compare with itself: count"
finish
