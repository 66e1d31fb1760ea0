#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The command line of every program: messages name the program by its short name however
# it was run (here by its full path), a usage error is one line plus a one-line --help hint
# with exit status 64, -h is --help; report and convert read "-" as standard input (a pipe
# copied to an unlinked temporary file in $TMPDIR, a regular file read in place), with the
# same figures as the file itself.
. "$(dirname "$0")/lib.sh"

# usage_error PROG ARGS...: exit 64, the error line, the hint line, nothing else
usage_error() {
	prog=$1
	shift
	"$top_builddir/$prog" "$@" >out.txt 2>err.txt
	rc=$?
	[ "$rc" = 64 ] || { cat err.txt >&2; fail "$prog $*: exit $rc, expected 64"; }
	[ "$(unfold err.txt | wc -l)" = 2 ] || { cat err.txt >&2; fail "$prog $*: not two lines"; }
	unfold err.txt | head -1 | grep -q "^$prog: " || { cat err.txt >&2; fail "$prog $*: no '$prog: '"; }
	[ "$(unfold err.txt | sed -n 2p)" = "Try '$prog --help' for more information." ] ||
		{ cat err.txt >&2; fail "$prog $*: hint"; }
	[ ! -s out.txt ] || fail "$prog $*: wrote to standard output"
}
for p in vmtrace-record vmtrace-report vmtrace-convert; do
	usage_error $p --no-such-option
	usage_error $p -Z
done
usage_error vmtrace-record
usage_error vmtrace-record -p
usage_error vmtrace-record -p x
usage_error vmtrace-record -p 1 -s 10x
# --cleanup uses no other option: each option --help lists, given a valid value, is refused
# by its names (before or after --cleanup), not ignored (-p 1 would clean up every CPU's)
"$top_builddir/vmtrace-record" --help |
	sed -n 's/^ \{2,6\}\(-\(.\), \)\{0,1\}--\([a-z-]*\)\(\[\{0,1\}=\([^ ]*\)\)\{0,1\} .*/\2|\3|\5/p' >opts.txt
[ "$(wc -l <opts.txt)" -ge 20 ] || { cat opts.txt; fail "the options of vmtrace-record --help"; }
n=0
while IFS="|" read -r short long arg; do
	case $long in cleanup|help|usage|version) continue ;; esac
	case $arg in
	"") val= ;;
	*TIME*) val=1s ;;
	SIZE) val=8M ;;
	FILE) val=x.out ;;
	BEGIN,END) val=$SYSCALL_EVENTS ;;
	VM*) val=web1 ;;
	NAME=VALUE) val=a=b ;;
	NAME) val=local ;;
	LIST) val=1 ;;
	*) val=1 ;;
	esac
	[ "$long" = context ] && val=none
	names="--$long"
	[ -n "$short" ] && names="-$short (--$long)"
	for order in before after; do
		if [ "$order" = before ]; then
			set -- "--$long${val:+=$val}" --cleanup
		else
			set -- --cleanup "--$long${val:+=$val}"
		fi
		usage_error vmtrace-record "$@"
		[ "$(unfold err.txt | head -1)" = "vmtrace-record: --cleanup takes no other option: not with $names" ] ||
			{ cat err.txt; fail "vmtrace-record $*: the message"; }
	done
	n=$((n + 1))
done <opts.txt
[ "$n" -ge 20 ] || fail "only $n options tried with --cleanup"
[ ! -e x.out ] || fail "an option given with --cleanup wrote x.out"
usage_error vmtrace-record -p 1 stray
usage_error vmtrace-report
usage_error vmtrace-report --top x x.vmt
usage_error vmtrace-report --json --legacy x.vmt
usage_error vmtrace-report --window
# natural slips named as what they are: a recording taken as --html's page, a metrics file
# given without '=' (it reads as a second recording)
cp "$DATA/small-syscalls.vmt" s.vmt
usage_error vmtrace-report --html s.vmt
unfold err.txt | grep -qx "vmtrace-report: no recording given: --html took s.vmt as the page to write (--html PAGE.html RECORDING)" ||
	fail "--html RECORDING: $(head -1 err.txt)"
usage_error vmtrace-report --openmetrics out.prom s.vmt
unfold err.txt | grep -qx "vmtrace-report: --openmetrics reads one recording; to write the metrics into out.prom, give --openmetrics=out.prom" ||
	fail "--openmetrics FILE: $(head -1 err.txt)"
[ ! -e out.prom ] || fail "--openmetrics FILE wrote out.prom"
# options whose values would change what the figures mean, refused before any file is read
# (x.vmt does not exist: a file read would say so instead)
line1() {	# line1 TEXT: the usage error's first message is exactly TEXT
	[ "$(unfold err.txt | head -1)" = "$1" ] || fail "'$(head -1 err.txt)', not '$1'"
}
for p in vmtrace-report vmtrace-convert; do
	fmt=
	[ $p = vmtrace-convert ] && fmt=--csv
	# KVM's pair the wrong way round is the time in the guest, not out of it
	usage_error $p $fmt --pair kvm:kvm_entry,kvm:kvm_exit x.vmt
	line1 "$p: --pair kvm:kvm_entry,kvm:kvm_exit measures the time in the guest (from each entry to the next exit); the out-of-guest pair is kvm:kvm_exit,kvm:kvm_entry"
	usage_error $p $fmt --pair kvm:kvm_exit,kvm:kvm_exit x.vmt
	line1 "$p: invalid --pair 'kvm:kvm_exit,kvm:kvm_exit': BEGIN and END are the same event"
	# not of the form SYSTEM:BEGIN,SYSTEM:END: a bad command line as well, whatever the file
	for pair in a kvm:kvm_exit kvm:kvm_exit, ,kvm:kvm_entry kvm:,kvm:kvm_entry :a,kvm:b \
		    a:b:c,d:e kvm:kvm_exit,kvm:kvm_entry,x kvm_exit,kvm_entry; do
		usage_error $p $fmt --pair "$pair" "$DATA/tracedat/kvm.v6.dat"
		line1 "$p: invalid --pair '$pair': the form is SYSTEM:BEGIN,SYSTEM:END, e.g. kvm:kvm_exit,kvm:kvm_entry"
	done
	# an empty item in a list of names is refused as in the CPU lists, not skipped
	for list in , hlt, ,hlt hlt,,io 'hlt, ,io' ' '; do
		usage_error $p $fmt --reason "$list" x.vmt
		line1 "$p: invalid --reason list '$list': an empty item (expected e.g. hlt or hlt,io)"
	done
	usage_error $p $fmt --vm web1, x.vmt
	line1 "$p: invalid --vm list 'web1,': an empty item (expected e.g. web1 or web1,web2)"
	usage_error $p $fmt --reason '' x.vmt
	line1 "$p: empty --reason"
done
# the recorder's -e alike, refused while its options are read (nothing is recorded)
usage_error vmtrace-record -p 1 -e kvm:kvm_entry,kvm:kvm_exit
line1 "vmtrace-record: -e kvm:kvm_entry,kvm:kvm_exit measures the time in the guest (from each entry to the next exit); the out-of-guest pair is kvm:kvm_exit,kvm:kvm_entry"
# the original's number of events counts every event: its four lines take no filter
for f in "--cpu 1" "--vcpu 0" "--vm web1" "--reason hlt" "--from 1s" "--to 1s"; do
	# shellcheck disable=SC2086 # the option and its value
	usage_error vmtrace-report --legacy $f x.vmt
	line1 "vmtrace-report: --legacy prints the original tool's figures, whose event count is of every event: it takes no filter (${f% *} given)"
done
# --why goes with -v or --around, as the program says, --help and the man page too: the
# entries --around lists carry the why lines -v --why gives them
W="$DATA/why/sample/kvm.vmt"
usage_error vmtrace-report --why "$W"
line1 "vmtrace-report: --why goes with -v or --around (the report shows causes anyway)"
"$top_builddir/vmtrace-report" --help | grep -q -- "--why  *with -v or --around:" ||
	fail "--help: --why without --around"
sed -n '/^\.B \\-\\-why$/,/^\.TP$/p' "$top_srcdir/man/vmtrace-report.1" | tr '\n' ' ' |
	grep -q 'With .B \\-v or .BR \\-\\-around :' || fail "the man page: --why without --around"
vmtrace-report --around 0.0760s,300us --why "$W" | sed -n '/^Events within/,$p' >around.txt ||
	fail "--around --why"
vmtrace-report -v --why "$W" >verbose.txt || fail "-v --why"
grep -q "^ *why: " around.txt || fail "--around --why: no why line"
grep -A1 " ENTRY " around.txt | grep -v '^--$' >a.txt
grep " ENTRY " around.txt >entries.txt
grep -A1 -F -f entries.txt verbose.txt | grep -v '^--$' >b.txt
cmp -s a.txt b.txt || fail "--around --why: the entries' why lines differ from -v --why's"
# with --wide every part of each why line (as -v --why --wide gives it, never "+ N more"):
# the parts of each kind add up to that kind's ns in convert's CSV row of the exit
vmtrace-report --around 0.763531525s,200us --why --wide --top 0 "$W" |
	sed -n '/^Events within/,$p' >around.txt || fail "--around --why --wide"
vmtrace-report -v --why --wide --top 0 "$W" >verbose.txt || fail "-v --why --wide"
grep -A1 " ENTRY " around.txt | grep -v '^--$' >a.txt
grep " ENTRY " around.txt >entries.txt
grep -A1 -F -f entries.txt verbose.txt | grep -v '^--$' >b.txt
cmp -s a.txt b.txt || fail "--around --why --wide: the why lines differ from -v --why --wide's"
vmtrace-convert --csv --why "$W" >why.csv || fail "convert --csv --why"
python3 - around.txt why.csv <<'PY' || fail "--around --why --wide: the parts are not the CSV's"
import csv, re, sys
kinds = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]
unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
rows = {int(r["start_ns"]) + int(r["latency_ns"]): r for r in csv.DictReader(open(sys.argv[2]))}
lines = open(sys.argv[1]).read().splitlines()
n = 0
for i, l in enumerate(lines):
    m = re.match(r" *(\d+)\.(\d{9}) .* ENTRY ", l)
    if not m:
        continue
    why = lines[i + 1].split(" = ", 1)[1]
    assert " more " not in why, why
    got = dict.fromkeys(kinds, 0.0)
    for part in why.split(" + "):
        k, v, u = part.split()[:3]
        got[k] += float(v) * unit[u]
    r = rows[int(m[1]) * 10**9 + int(m[2])]
    for k in kinds:
        want = int(r[k + "_ns"])
        assert abs(got[k] - want) <= want * 0.0006 + 1, (l, k, got[k], want)
    n += 1
assert n >= 2 and "wakeup 46.13 us" in open(sys.argv[1]).read(), n
PY
usage_error vmtrace-convert x.vmt
usage_error vmtrace-convert --csv
usage_error vmtrace-convert --legacy x.vmt
usage_error vmtrace-convert --csv --from 2s --to 1s x.vmt
usage_error vmtrace-convert --csv --cpu x x.vmt

# -h, -? and --help print the same help and exit 0; --usage and -V work by path too
for p in vmtrace-record vmtrace-report vmtrace-convert; do
	"$top_builddir/$p" --help >a.txt || fail "$p --help"
	"$top_builddir/$p" -h >b.txt || fail "$p -h"
	cmp -s a.txt b.txt || fail "$p -h is not --help"
	grep -q "^Usage: $p " a.txt || fail "$p --help: the usage line names $(head -1 a.txt)"
	grep -q -- "-h, -?, --help" a.txt || fail "$p --help does not list -h"
	"$top_builddir/$p" --usage | grep -q "^Usage: $p " || fail "$p --usage"
	[ "$("$top_builddir/$p" -V)" = "$("$top_builddir/$p" --version)" ] || fail "$p -V"
done

# Standard input: a pipe and a redirected file give what the file gives.
K="$DATA/sample-kvm.vmt"
strip() {	# the report's JSON without its file name
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("file"); print(json.dumps(d, sort_keys=True))' "$1"
}
vmtrace-report --json "$K" >file.json || fail "report $K"
strip file.json >want.json
mkdir tmp
cat "$K" | TMPDIR=$scratch/tmp vmtrace-report --json - >pipe.json || fail "report - from a pipe"
strip pipe.json | cmp -s - want.json || fail "report - from a pipe differs from the file"
[ "$(json pipe.json 'd["file"]')" = - ] || fail "report -: file name"
[ -z "$(ls tmp)" ] || fail "the copy of standard input was left in \$TMPDIR: $(ls tmp)"
TMPDIR=$scratch/none vmtrace-report --json - <"$K" >redir.json || fail "report - from a file"
strip redir.json | cmp -s - want.json || fail "report - from a redirected file differs"
vmtrace-convert --csv -o file.csv "$K" || fail "convert $K"
cat "$K" | vmtrace-convert --csv - >pipe.csv || fail "convert - from a pipe"
cmp -s file.csv pipe.csv || fail "convert - from a pipe differs from the file"
# the other formats too: a trace.dat, and a trace.bin with its formats
T="$DATA/tracedat/kvm.v7zstd.dat"
vmtrace-convert --csv --events -o a.csv "$T" || fail "convert $T"
cat "$T" | vmtrace-convert --csv --events - >b.csv || fail "convert a trace.dat from a pipe"
cmp -s a.csv b.csv || fail "a trace.dat from a pipe differs"
printf 'exit 0 1000 7 0x72 0\nentry 0 1300 7 0\n' >s.txt
"$HELPERS/mkvmt" --legacy "$DATA/formats/linux-6.1-x86_64" s.bin <s.txt || fail mkvmt
cat s.bin | vmtrace-report --json --format-dir "$DATA/formats/linux-6.1-x86_64" - >bin.json ||
	fail "a trace.bin from a pipe"
[ "$(json bin.json 'd["pairs"]')" = 1 ] || fail "a trace.bin from a pipe: pairs"
# the file on standard input is read in place: no output of the report may be it (exit 64,
# one line, the file unchanged), nor a named recording
cp "$K" k.vmt
for args in "--html k.vmt -" "--openmetrics=k.vmt -" "--compare --html k.vmt $K -"; do
	# shellcheck disable=SC2086
	vmtrace-report $args <k.vmt >out.txt 2>err.txt
	rc=$?
	[ "$rc" = 64 ] && [ "$(unfold err.txt | wc -l)" = 1 ] && [ ! -s out.txt ] &&
		unfold err.txt | grep -q "^vmtrace-report: k.vmt: the --[a-z]* [a-z]* is the file on standard input" || fail "report $args <k.vmt: exit $rc: $(cat err.txt)"
	cmp -s k.vmt "$K" || fail "report $args <k.vmt changed the recording"
done
for args in - k.vmt "--json -" "--html - -" "--openmetrics -"; do
	# shellcheck disable=SC2086
	vmtrace-report $args <k.vmt >>k.vmt 2>err.txt
	rc=$?
	want="standard output is the \(input file k.vmt\|file on standard input\)"
	[ "$rc" = 64 ] && [ "$(unfold err.txt | wc -l)" = 1 ] && unfold err.txt | grep -q "^vmtrace-report: $want" ||
		fail "report $args >>k.vmt: exit $rc: $(cat err.txt)"
	cmp -s k.vmt "$K" || fail "report $args >>k.vmt changed the recording"
done
# where the copy goes is said when it cannot be made; an empty pipe is an empty file
cat "$K" | TMPDIR=$scratch/none vmtrace-report - >out.txt 2>err.txt
rc=$?
expect_one_line_error vmtrace-report "-: cannot make a temporary file in $scratch/none for standard input"
: | vmtrace-convert --csv - >out.txt 2>err.txt
rc=$?
expect_one_line_error vmtrace-convert "-: not a vmtrace recording.* (it is empty)"
exit 0
