#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Closed standard descriptors: the programs hold 0-2 open on /dev/null (common/procinit.c),
# so no file opened later takes their number. The adversarial tester's `cat S | R - >&-`
# wrote the report into the temporary copy of standard input (opened as descriptor 1) and
# exited 0; a closed standard output is an error when output goes there, and said so.
. "$(dirname "$0")/lib.sh"

S="$DATA/sample-kvm.vmt"

vmtrace-report "$S" >want.txt 2>/dev/null || fail "report of sample-kvm.vmt"
vmtrace-convert --csv "$S" >want.csv 2>/dev/null || fail "CSV of sample-kvm.vmt"

# closed_out PROG ARGS...: S on a pipe to PROG ARGS - with standard output closed
closed_out() {
	cat "$S" | "$@" - >&- 2>err.txt
	rc=$?
	[ "$rc" = 1 ] || { cat err.txt; fail "$*: exit $rc with standard output closed"; }
	[ "$(cat err.txt)" = "$1: standard output: it is closed" ] ||
		{ cat err.txt; fail "$*: not said that standard output is closed"; }
}
closed_out vmtrace-report
closed_out vmtrace-report -v
closed_out vmtrace-report --json
closed_out vmtrace-convert --csv
# (run's own redirection reopens standard output: closed here by hand)
vmtrace-report "$S" >&- 2>err.txt
[ $? = 1 ] && [ "$(cat err.txt)" = "vmtrace-report: standard output: it is closed" ] ||
	{ cat err.txt; fail "report of a file, standard output closed"; }
vmtrace-convert --csv "$S" >&- 2>err.txt
[ $? = 1 ] && [ "$(cat err.txt)" = "vmtrace-convert: standard output: it is closed" ] ||
	{ cat err.txt; fail "convert: standard output closed"; }
vmtrace-report --help >&- 2>err.txt
[ $? = 1 ] && [ "$(cat err.txt)" = "vmtrace-report: standard output: it is closed" ] ||
	{ cat err.txt; fail "--help: standard output closed"; }

# output elsewhere: a closed standard output is no error, and the file is whole
vmtrace-convert --csv -o got.csv "$S" >&- 2>err.txt || { cat err.txt; fail "-o with stdout closed"; }
cmp -s got.csv want.csv || fail "-o with standard output closed: the CSV differs"
cat "$S" | vmtrace-convert --csv -o got2.csv - >&- 2>err.txt ||
	{ cat err.txt; fail "-o - with stdout closed"; }
cmp -s got2.csv want.csv || fail "the CSV of standard input, its output closed: differs"

# standard error closed: the copy of standard input is not opened as descriptor 2, where
# the warnings would go; the report is the file's (its File: line names "-")
cat "$S" | vmtrace-report - 2>&- >got.txt || fail "report with standard error closed"
sed '/^File: /d' want.txt >a.txt
sed '/^File: /d' got.txt >b.txt
cmp -s a.txt b.txt || { diff a.txt b.txt | head; fail "report with standard error closed differs"; }

# standard input closed: said so, not "it is empty"
vmtrace-report - <&- 2>err.txt >/dev/null
[ $? = 1 ] && [ "$(cat err.txt)" = "vmtrace-report: -: standard input is closed" ] ||
	{ cat err.txt; fail "report - with standard input closed"; }
vmtrace-convert --csv - <&- 2>err.txt >/dev/null
[ $? = 1 ] && [ "$(cat err.txt)" = "vmtrace-convert: -: standard input is closed" ] ||
	{ cat err.txt; fail "convert - with standard input closed"; }
finish
