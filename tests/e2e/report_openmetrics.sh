#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-report --openmetrics on the bundled samples and on a real syscall recording: the
# text parsed by python3-prometheus-client's OpenMetrics parser (independent of ours) and
# every counter, gauge, sum and count compared with vmtrace-report --json on the same file;
# every histogram bucket compared with a recount of vmtrace-convert --csv's latencies
# (tests/helpers/openmetrics_check.py). --openmetrics refuses other views with one line.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
$PY -c 'import prometheus_client.openmetrics.parser' 2>/dev/null ||
	skip "python3-prometheus-client is not installed (scripts/setup-debian12.sh --tests)"
CHECK="$top_srcdir/tests/helpers/openmetrics_check.py"

# check_file FILE HOST [OPTIONS]: HOST - when the file names none (no host label).
check_file() {
	local f=$1 host=$2
	shift 2
	run vmtrace-report --openmetrics "$@" "$f"
	expect_rc 0 "--openmetrics $f"
	mv out.txt om.txt
	# a real recording on a loaded machine may have lost events: said, and still compared
	# with the JSON of the same file below; nothing else may be said
	! unfold err.txt | grep -v "events were lost while recording" >&2 ||
		fail "$f: messages on stderr"
	tail -n 1 om.txt | grep -qx '# EOF' || fail "$f: no # EOF at the end"
	vmtrace-report --json "$@" "$f" >r.json || fail "$f: --json"
	vmtrace-convert --csv "$@" "$f" >pairs.csv || fail "$f: --csv"
	echo "$f:"
	$PY "$CHECK" om.txt r.json pairs.csv "$host" || fail "$f: metrics differ (above)"
}

check_file "$DATA/sample-kvm.vmt" "(none)"
check_file "$DATA/sample-syscalls.vmt" vm
check_file "$DATA/small-syscalls.vmt" vm
# the original tool's trace.bin: no host name in it; the KVM sample converted
vmtrace-convert --legacy -o kvm.bin "$DATA/sample-kvm.vmt" || fail "--legacy"
check_file kvm.bin - --format-dir "$DATA/formats/linux-6.1-kvmhost"

# A damaged chunk lost events nobody counted: lost_events alone reads 0, the uncounted
# counter says so (exit 2, as every view of a damaged file)
python3 - "$DATA/why/sample/kvm.vmt" bad.vmt <<'PY' || fail "damaging the sample"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
at = b.index(b"CHNK", len(b) // 3)
b[at + 400] ^= 0xFF
open(sys.argv[2], "wb").write(b)
PY
vmtrace-report --openmetrics bad.vmt >om.txt 2>/dev/null; [ $? = 2 ] || fail "damaged: exit not 2"
vmtrace-report --json bad.vmt >r.json 2>/dev/null
vmtrace-convert --csv bad.vmt >pairs.csv 2>/dev/null
$PY "$CHECK" om.txt r.json pairs.csv "(none)" || fail "damaged: metrics differ (above)"
grep -qx 'vmtrace_lost_uncounted_total{host="(none)"} 1' om.txt || fail "damaged: no uncounted loss"

# The filters apply: --reason keeps one reason's family members only.
run vmtrace-report --openmetrics --reason hlt "$DATA/sample-kvm.vmt"
expect_rc 0 "--openmetrics --reason"
[ "$(grep -c '^vmtrace_exits_total' out.txt)" = 1 ] || fail "--reason hlt: not one reason"
grep -q '^vmtrace_exits_total{host="(none)",reason="hlt"} 238$' out.txt ||
	fail "--reason hlt: its count"

# Other views are refused: one line, exit 64, naming exactly the views given that
# --openmetrics would drop (the histogram's own options too: they would print nothing).
for other in "--json:--json" "--html x.html:--html" "--legacy:--legacy" "-v:-v" \
	     "--histogram:--histogram" "--interval 1ms:--interval" "--wide:--wide" \
	     "--top 3:--top" "--threshold 1ms:--threshold" "--around 1s:--around" \
	     "--log:--log" "--bucket 2us:--bucket" "--buckets 5:--buckets" \
	     "--hist-format cyclictest:--hist-format" \
	     "--interval 1s --wide --top 3:--top, --interval, --wide"; do
	# shellcheck disable=SC2086
	run vmtrace-report --openmetrics ${other%%:*} "$DATA/sample-kvm.vmt"
	expect_rc 64 "--openmetrics ${other%%:*}"
	[ "$(head -1 err.txt)" = "vmtrace-report: --openmetrics prints the metrics only: it takes no other view (${other#*:} given)" ] ||
		fail "--openmetrics ${other%%:*}: $(head -1 err.txt)"
	[ ! -s out.txt ] || fail "--openmetrics ${other%%:*} printed on stdout"
done
[ ! -e x.html ] || fail "--openmetrics --html wrote the page"

# =FILE: published whole (Prometheus text for node_exporter: the same samples, counters
# typed under their _total names, no EOF), or one line and exit 1 when it cannot be.
run vmtrace-report --openmetrics=m.prom "$DATA/sample-kvm.vmt"
expect_rc 0 "--openmetrics=FILE"
[ ! -s out.txt ] || fail "--openmetrics=FILE printed on stdout"
vmtrace-report --openmetrics "$DATA/sample-kvm.vmt" >om.txt
grep -v '^#' m.prom >m.samples
grep -v '^#' om.txt | diff -u - m.samples || fail "=FILE has other samples than stdout"
grep -qx '# TYPE vmtrace_exits_total counter' m.prom || fail "=FILE: counter type line"
grep -q '^# EOF' m.prom && fail "=FILE: # EOF in the textfile"
$PY -c 'import sys
from prometheus_client.parser import text_string_to_metric_families
n = sum(len(f.samples) for f in text_string_to_metric_families(open(sys.argv[1]).read()))
print(n)' m.prom >n.txt || fail "=FILE does not parse as Prometheus text"
[ "$(cat n.txt)" = "$(grep -vc '^#' om.txt)" ] || fail "=FILE: $(cat n.txt) samples"
ls ./*.part 2>/dev/null && fail "temporary file left behind"
run vmtrace-report --openmetrics=no/such/dir/m.prom "$DATA/sample-kvm.vmt"
expect_rc 1 "--openmetrics=FILE in a missing directory"
expect_one_line_error vmtrace-report "no/such/dir/m.prom: cannot create: No such file or directory$"
[ "$(unfold err.txt | wc -l)" = 1 ] || fail "more than one line for an unwritable file"
# A metrics file that is there in a directory that takes no new file (a read-only mount):
# what failed is the temporary file beside it, named with the report's pid, not the file
# (common/outfile.c); a new file there cannot be created at all. In a mount namespace of
# its own, so that nothing is left mounted.
mkdir ro
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -m sh -c 'mount -t tmpfs tmpfs "$1"' sh "$scratch/ro" 2>/dev/null; then
	unshare -m sh -c 'mount -t tmpfs tmpfs "$1" && echo old >"$1/m.prom" &&
		mount -o remount,ro "$1" || exit 1
		for f in m new; do
			vmtrace-report --openmetrics="$1/$f.prom" "$2" >/dev/null 2>"$f.err" &
			p=$!
			wait $p
			echo "$? $p" >"$f.rc"
		done
		cat "$1/m.prom" >kept.txt' sh "$scratch/ro" "$DATA/sample-kvm.vmt" ||
		fail "a read-only tmpfs"
	read -r rc p <m.rc
	[ "$rc" = 1 ] || fail "--openmetrics=FILE on a read-only mount: exit $rc"
	[ "$(unfold m.err)" = "vmtrace-report: $scratch/ro/m.prom: cannot create the temporary file beside it \
($scratch/ro/m.prom.$p.part): Read-only file system" ] || { cat m.err; fail "read-only mount: the message"; }
	[ "$(cat kept.txt)" = old ] || fail "read-only mount: the metrics file changed"
	read -r rc p <new.rc
	[ "$rc" = 1 ] || fail "a new --openmetrics=FILE on a read-only mount: exit $rc"
	[ "$(unfold new.err)" = "vmtrace-report: $scratch/ro/new.prom: cannot create: Read-only file system" ] ||
		{ cat new.err; fail "read-only mount, a new file: the message"; }
else
	skip_part "no root or mount namespace: a read-only mount"
fi
run vmtrace-report --openmetrics= "$DATA/sample-kvm.vmt"
expect_rc 64 "--openmetrics= (empty)"
# Never over the recording, by its name or through a link to it: a usage error (64).
cp "$DATA/sample-kvm.vmt" copy.vmt
ln -s copy.vmt link.vmt
for out in copy.vmt link.vmt; do
	run vmtrace-report --openmetrics=$out copy.vmt
	expect_rc 64 "--openmetrics=$out over the recording"
	expect_one_line_error vmtrace-report "$out: the --openmetrics file is the input file"
	[ "$(unfold err.txt | wc -l)" = 1 ] || fail "more than one line for --openmetrics=$out"
	cmp -s copy.vmt "$DATA/sample-kvm.vmt" || fail "--openmetrics=$out overwrote the recording"
done

# A real recording: the syscall loop on CPU 1.
if [ "$(id -u)" = 0 ] && { [ -e /sys/kernel/tracing/events/raw_syscalls/sys_enter ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; }; then
	need_tracefs
	start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o run.vmt
	"$HELPERS/syscall_loop" 1 100000 >loop.txt || fail "syscall_loop"
	kill -INT "$rec_pid"
	wait "$rec_pid" || { cat rec.err >&2; fail "vmtrace-record failed"; }
	check_file run.vmt "$(uname -n)"
else
	skip_part "the real recording (needs root and tracefs)"
fi
finish
