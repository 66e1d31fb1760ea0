#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace.dat made here and now by the installed trace-cmd: raw_syscalls traced in an
# ftrace instance of our own (trace-cmd record itself cannot run on hosts where function
# tracing is locked), `trace-cmd extract -B` (v7, zstd), then `trace-cmd convert` to v6
# and to uncompressed v7; with the local clock and with x86-tsc. Every file is read by
# vmtrace-convert and compared event by event with `trace-cmd report -t`; the three
# versions give the same report.
#
# trace-cmd 3.1's extract -B takes the top-level buffer along (trace-cmd 3.2 takes only
# the instance asked for), so a file gets the top level's events too when another program
# traces there: trace-cmd report prints both buffers, vmtrace reads the first with data.
# That once failed here (trace-cmd 56 102 events, vmtrace 39 089: the top level's). Each
# side is now compared on the buffer vmtrace read; the loop's own figures need it to be
# our instance, and are left out (SKIP) when another program's events came first.
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v trace-cmd >/dev/null || skip "trace-cmd not installed (scripts/setup-debian12.sh --tests installs it)"
ORACLE="python3 $top_srcdir/tests/helpers/tracecmd_oracle.py"
inst=/sys/kernel/tracing/instances/vmtrace-e2e-tracedat-$$
cleanup_hooks="$cleanup_hooks; [ ! -d $inst ] || rmdir $inst"

for clock in local x86-tsc; do
	grep -q "$clock" /sys/kernel/tracing/trace_clock ||
		{ skip_part "the $clock clock (not a clock of this kernel)"; continue; }
	mkdir "$inst" || fail "cannot create an instance"
	echo 4096 >"$inst/buffer_size_kb"
	echo "$clock" >"$inst/trace_clock"
	echo 1 >"$inst/events/raw_syscalls/sys_enter/enable"
	echo 1 >"$inst/events/raw_syscalls/sys_exit/enable"
	echo 1 >"$inst/tracing_on"
	"$HELPERS/syscall_loop" 1 5000 >/dev/null || fail syscall_loop
	echo 0 >"$inst/tracing_on"
	trace-cmd extract -B "$(basename "$inst")" -o x.dat >tc.log 2>&1 ||
		{ cat tc.log; fail "trace-cmd extract ($clock)"; }
	[ ! -d "$inst" ] || rmdir "$inst"
	trace-cmd convert --file-version 6 --compression none -i x.dat -o x6.dat >tc.log 2>&1 ||
		{ cat tc.log; fail "trace-cmd convert to v6"; }
	trace-cmd convert --file-version 7 --compression none -i x.dat -o x7.dat >tc.log 2>&1 ||
		{ cat tc.log; fail "trace-cmd convert to uncompressed v7"; }
	for f in x.dat x6.dat x7.dat; do
		trace-cmd report -t -i "$f" >tc.txt 2>/dev/null || fail "trace-cmd report $f"
		vmtrace-report --json --pair "$SYSCALL_EVENTS" "$f" >"$f.json" ||
			fail "vmtrace-report $f ($clock)"
		# the buffer vmtrace read: format_source ends with buffer "NAME" (none: the top-level one)
		buf=$(json "$f.json" '(d["format_source"].rsplit(", buffer ", 1)[1:] or [""])[0].strip(chr(34))')
		vmtrace-convert --csv --events --pair "$SYSCALL_EVENTS" "$f" >ev.csv ||
			fail "vmtrace-convert $f ($clock)"
		$ORACLE tc.txt ev.csv sys_enter sys_exit "$buf" ||
			fail "$f ($clock) differs from trace-cmd's buffer \"$buf\""
	done
	# 5000 calls of the loop on CPU 1, all kept (4 MiB per CPU is plenty). The clock is
	# what the file says: trace-cmd 3.1 extract writes the top instance's clock in the
	# BUFFER option ("local" here even with x86-tsc), and trace-cmd report trusts it too.
	buf=$(json x.dat.json '(d["format_source"].rsplit(", buffer ", 1)[1:] or [""])[0].strip(chr(34))')
	if [ "$buf" = "$(basename "$inst")" ]; then
		json x.dat.json 'd["pairs"] >= 5000 and d["lost_events"] == 0' |
			grep -q True || { cat x.dat.json; fail "figures ($clock)"; }
	else
		skip_part "the loop's figures ($clock): the file's top-level buffer held another program's events (trace-cmd 3.1 extract -B takes it along)"
	fi
	for f in x6.dat x7.dat; do
		json "$f.json" 'd["pairs"]' >a.txt
		json x.dat.json 'd["pairs"]' >b.txt
		cmp -s a.txt b.txt || fail "$f and x.dat differ ($clock)"
		python3 -c 'import json,sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
keys = ("events", "pairs", "latency_ns", "percentiles_ns", "reasons", "top", "orphans")
sys.exit(0 if all(a[k] == b[k] for k in keys) else 1)' "$f.json" x.dat.json ||
			fail "$f and x.dat reports differ ($clock)"
	done
done
finish
