#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --help and the man page describe the same options: every long and short option that
# --help lists is documented in the program's man page, and every option the man page
# documents (its SYNOPSIS and OPTIONS) exists in --help and is accepted (-h works like
# --help). What --help says about TIME units, implied options, defaults and exit statuses
# matches what the programs do.
. "$(dirname "$0")/lib.sh"

# man_options MAN: the options a man page documents, one per line ("--cpu", "-p"): those
# on the SYNOPSIS and on the option lines of OPTIONS (a .TP tag, or a line that starts
# with an option, as in a list of filters), groff's \- unescaped.
man_options() {
	python3 - "$1" <<'PY'
import re, sys
sec, after_tp, out = None, False, set()
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith(".SH"):
        sec = line[3:].strip().strip('"')
        continue
    tag = after_tp
    after_tp = line.startswith(".TP")
    if sec == "SYNOPSIS" or (sec == "OPTIONS" and (tag or re.match(r"^\.[BRI]+ +\\-", line))):
        for m in re.finditer(r"\\-\\-([a-z0-9](?:[a-z0-9]|\\-)*)", line):
            out.add("--" + m.group(1).replace("\\-", "-"))
        for m in re.finditer(r"(?<![\w\\-])\\-([A-Za-z?])(?![\w\\])", line):
            out.add("-" + m.group(1))
print("\n".join(sorted(out)))
PY
}

for p in vmtrace-record vmtrace-report vmtrace-convert; do
	man="$top_srcdir/man/$p.1"
	[ -s "$man" ] || fail "$man is missing"
	$p --help >help.txt || fail "$p --help"
	grep -o -- '--[a-z][a-z-]*' help.txt | sort -u >opts.txt
	# the short options of the option lines: "  -f, --file=FILE", "  -h, -?, --help"
	sed -n 's/^  \(\(-[A-Za-z?], \)*\).*/\1/p' help.txt | grep -o -- '-[A-Za-z?]' | sort -u >short.txt
	[ -s opts.txt ] && [ -s short.txt ] || fail "$p --help lists no options"
	cat short.txt >>opts.txt
	while read -r opt; do
		# groff escapes dashes: --cpu is written \-\-cpu
		esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g; s/?/\\?/')
		grep -q -- "$esc\\([^a-z0-9\\\\]\\|\$\\)" "$man" || fail "$p: $opt is in --help but not in $man"
	done <opts.txt
	man_options "$man" >man.txt
	[ -s man.txt ] || fail "no options found in $man"
	while read -r opt; do
		grep -qx -- "$opt" opts.txt || fail "$p: $opt is in $man but not in --help"
	done <man.txt
	# -h is --help, -? too
	for h in -h -?; do
		$p "$h" >h.txt || fail "$p $h: exit $?"
		cmp -s h.txt help.txt || fail "$p $h differs from --help"
	done
	# what the doc text says of units and exit statuses
	tr -s ' \n' ' ' <help.txt >flat.txt
	grep -q "TIME[^.]* takes ns, us, ms, s, m (or min) or h" flat.txt || fail "$p: TIME units"
	grep -q "64 for a bad command line" flat.txt || fail "$p: exit status 64 not in --help"
	grep -q "64" "$man" || fail "$p: exit status 64 not in $man"
done

# The pages as printed: no sentence glued to the one before ("a .vmt).With", where a macro
# such as .BR, which joins its arguments without a space, took the next word along).
if command -v nroff >/dev/null; then
	for m in "$top_srcdir"/man/*.[15]; do
		# wide lines, and bold and underline (overstruck with backspaces) taken out
		nroff -man -rLL=200n "$m" 2>/dev/null | sed 's/.\x08//g' >page.txt
		grep -nE "[a-z)\"'][.;:!?][A-Z][a-z]" page.txt | grep -v "e\.g\.\|i\.e\." >glued.txt
		[ ! -s glued.txt ] || fail "$(basename "$m"): no space after a sentence: $(head -n 1 glued.txt)"
		# at the widths terminals have, troff fits every line (a word longer than the
		# line, such as a list of events without a break point, warns "cannot adjust")
		for w in 60n 80n 120n; do
			nroff -man -ww -rLL=$w "$m" 2>warn.txt >/dev/null
			[ ! -s warn.txt ] || fail "$(basename "$m") at $w: $(head -n 1 warn.txt)"
		done
	done
else
	skip_part "the man pages as printed (no nroff)"
fi

# TIME units work as --help says: 1h and 60min are 3600 s, 2m is 120 s
K="$DATA/sample-kvm.vmt"
for t in 1h 60min 3600s 3600; do
	vmtrace-convert --csv --from "$t" -o cut.csv "$K" || fail "--from $t refused"
	[ "$(wc -l <cut.csv)" = 1 ] || fail "--from $t kept exits (the sample is 4 s long)"
done
vmtrace-convert --csv --to 2m -o all.csv "$K" || fail "--to 2m refused"
vmtrace-convert --csv -o none.csv "$K" || fail "convert"
cmp -s all.csv none.csv || fail "--to 2m dropped exits of a 4 s recording"
# --bucket, --buckets, --log and --hist-format imply --histogram
vmtrace-report --json "$K" >plain.json || fail report
[ "$(json plain.json 'd["histogram"] is None')" = True ] || fail "a histogram without asking"
for o in "--bucket 2us" "--buckets 10" --log "--hist-format text"; do
	# shellcheck disable=SC2086
	vmtrace-report --json $o "$K" >h.json || fail "report $o"
	[ "$(json h.json 'd["histogram"] is not None')" = True ] || fail "$o does not imply --histogram"
done
# --series without TIME: --help, the man page and the program give the same number of
# intervals (--help once said 100 to 1000 while the man page and the program said 200 to 500)
range=$(vmtrace-convert --help | tr -s ' \n' ' ' |
	sed -n 's/.*--series\[=TIME\] [^(]*(default: \([0-9]* to [0-9]*\) of them).*/\1/p')
[ -n "$range" ] || fail "convert --help: no default number of --series intervals"
tr -s ' \n' ' ' <"$top_srcdir/man/vmtrace-convert.1" | grep -q "cuts the recording into $range parts" ||
	fail "convert: --help's --series default ($range) is not the man page's"
tr -s ' \n' ' ' <"$top_srcdir/man/vmtrace-report.1" | grep -q "cuts the recording into $range parts" ||
	fail "report: the --interval default is not convert's --series default ($range)"
for f in sample-kvm.vmt sample-syscalls.vmt why/sample/kvm.vmt; do
	vmtrace-convert --series --csv -o series.csv "$DATA/$f" 2>/dev/null || fail "--series $f"
	python3 - series.csv $range <<'PY' || fail "--series $f: not $range intervals"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = len({r["start_ns"] for r in rows})
lo, hi = int(sys.argv[2]), int(sys.argv[4])
# the first interval starts on a multiple of the step, so the last may reach one past
if not lo <= n <= hi + 1:
    sys.exit("%d intervals" % n)
PY
done
# the clock of a recording made without -C is a new instance's: local, whatever the top
# level uses (needs root and tracefs; the rest of the test does not)
if [ "$(id -u)" = 0 ] && [ -w /sys/kernel/tracing/trace_clock ] &&
   [ -e /sys/kernel/tracing/events/raw_syscalls/sys_enter ] && [ "$(nproc)" -ge 2 ]; then
	vmtrace-record --help | tr -s ' \n' ' ' | grep -q "default local, what a new ftrace" ||
		fail "record --help: the -C default"
	exec 9>"${TMPDIR:-/tmp}/vmtrace-e2e.lock"
	flock 9
	top=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/tracing/trace_clock)
	echo global >/sys/kernel/tracing/trace_clock || fail "cannot set the top-level clock"
	cleanup_hooks="$cleanup_hooks; echo $top >/sys/kernel/tracing/trace_clock"
	vmtrace-record -q -p 1 -c 0 -s 100ms -e "$SYSCALL_EVENTS" -o clk.vmt || fail "record"
	echo "$top" >/sys/kernel/tracing/trace_clock
	vmtrace-report --json clk.vmt >clk.json
	[ "$(json clk.json 'd["clock"]')" = local ] || fail "-C default: $(json clk.json 'd["clock"]')"
else
	skip_part "the -C default (needs root, tracefs and 2 CPUs)"
fi
finish
