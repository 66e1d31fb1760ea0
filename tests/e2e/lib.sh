# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the end-to-end tests: a scratch directory removed on exit, failure and skip
# helpers, and the checks for root and tracefs. Sourced, never run.
set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PATH="$top_builddir:$PATH"
DATA="$top_srcdir/tests/data"
HELPERS="$top_builddir/tests/helpers"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/vmtrace-e2e.XXXXXX")
cleanup_hooks=":"
cleanup() {
	local rc=$?
	eval "$cleanup_hooks"
	rm -rf "$scratch"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cd "$scratch" || exit 99

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# A part of a test left out (a tool or a clock missing): said at once, and the test then
# ends as SKIP (77) through finish, never as PASS.
skipped_parts=
skip_part() {
	echo "SKIP (part): $*" >&2
	skipped_parts="$skipped_parts${skipped_parts:+; }$*"
}

# The end of a test: PASS when all of it ran, SKIP naming what was left out otherwise.
finish() {
	[ -z "$skipped_parts" ] || skip "left out: $skipped_parts"
	exit 0
}

# Run a command, keep its stdout/stderr in out.txt/err.txt and its status in $rc.
run() {
	"$@" >out.txt 2>err.txt
	rc=$?
}

expect_rc() {
	[ "$rc" = "$1" ] || { cat err.txt >&2; fail "expected exit $1, got $rc: ${2:-}"; }
}

# The error must be one message on stderr, starting with the program's name: one line, or
# one folded to 120 columns (a list of names; see unfold below).
expect_one_line_error() {
	local prog=$1 pattern=$2
	[ "$rc" != 0 ] || fail "$prog: expected a failure"
	[ "$rc" != 139 ] && [ "$rc" != 134 ] || fail "$prog crashed (exit $rc)"
	unfold err.txt | grep -q "^$prog: .*$pattern" ||
		{ cat err.txt >&2; fail "$prog: no '$pattern' error"; }
}

# unfold FILE: each message of a program as one line again (a long note is folded to 120
# columns, its lines after the first starting with two spaces: common/log.c).
unfold() {
	awk 'NR > 1 && /^  / { sub(/^  /, " "); line = line $0; next }
	     NR > 1 { print line } { line = $0 } END { if (NR) print line }' "$1"
}

# widths_ok FILE...: every line at most 120 columns; those longer are shown. Display
# columns, not bytes (awk here is mawk, which counts bytes): a wide character is 2, a
# combining mark 0, from Python's Unicode tables (tests/helpers/textcols.py).
widths_ok() {
	python3 "$top_srcdir/tests/helpers/textcols.py" 120 "$@"
}

# json FILE EXPR: evaluate a Python expression on the parsed JSON object d.
json() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# why_load_start MODE ARGS...: tests/helpers/why_load MODE ARGS, waiting for the go on fd 3
# once the recorder records; sets $load and $ready_pid (the pid it says is ready), and
# kills the load at the end.
why_load_start() {
	rm -f go load.txt
	mkfifo go || fail "mkfifo"
	"$HELPERS/why_load" "$@" <go >load.txt &
	load=$!
	cleanup_hooks="$cleanup_hooks; kill $load 2>/dev/null"
	exec 3>go
	for _ in $(seq 100); do
		grep -q ready load.txt 2>/dev/null && break
		sleep 0.05
	done
	ready_pid=$(awk '/ready/ {print $2}' load.txt)
	[ -n "$ready_pid" ] || fail "why_load $1 did not start"
}

# start_why_load ROUNDS BLOCK_US BURST_MS PAUSE_US: why_load spikes on CPU 1 (its reader
# blocks BLOCK_US a round); sets $load and $reader (the blocked reader's pid).
start_why_load() {
	why_load_start spikes 1 "$1" "$2" "$3" "$4"
	reader=$ready_pid
}

# start_why_stuck CPU: why_load stuck on CPU (a vCPU stuck in its exit: after the go it
# blocks in read() for good); sets $load and $stuck (its pid).
start_why_stuck() {
	why_load_start stuck "$1"
	stuck=$ready_pid
}

need_tracefs() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	if [ ! -e /sys/kernel/tracing/trace_clock ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || skip "no tracefs"
	fi
	[ -e /sys/kernel/tracing/events/raw_syscalls/sys_enter ] || skip "no raw_syscalls events"
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (one traced, one collecting)"
	# One recorder per CPU: tests that record take turns, even under make -j.
	exec 9>"${TMPDIR:-/tmp}/vmtrace-e2e.lock"
	flock 9
}

SYSCALL_EVENTS=raw_syscalls:sys_enter,raw_syscalls:sys_exit

# Start vmtrace-record in the background and wait until tracing is on (its "recording"
# line). Sets $rec_pid. Extra arguments go to vmtrace-record. With record_prio set, the
# recorder runs at that SCHED_FIFO priority (chrt execs it: $rec_pid is the recorder's).
start_record() {
	# The previous recorder's rec.err says "recording" too: until the new one has opened
	# (and emptied) the file, a check would find that line and start the workload before
	# tracing is on. On a loaded machine that happened (record_signals.sh: 0 pairs).
	rm -f rec.out rec.err
	${record_prio:+chrt -f "$record_prio"} vmtrace-record "$@" >rec.out 2>rec.err &
	rec_pid=$!
	cleanup_hooks="$cleanup_hooks; kill -9 $rec_pid 2>/dev/null"
	for _ in $(seq 200); do
		grep -q "recording" rec.err 2>/dev/null && return 0
		kill -0 "$rec_pid" 2>/dev/null || { cat rec.err >&2; fail "vmtrace-record exited early"; }
		sleep 0.05
	done
	cat rec.err >&2
	fail "vmtrace-record did not start"
}

no_instance_left() {
	local pid=$1
	[ ! -e "/sys/kernel/tracing/instances/vmtrace-$pid" ] ||
		fail "instance vmtrace-$pid left behind"
}
