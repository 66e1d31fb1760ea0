#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record --metrics FILE --interval 1s on this machine's tracefs with the syscall
# pair: a loop pinned to CPU 1 makes system calls in three bursts while the recorder
# traces CPU 1. FILE is read after each burst: it is always whole (every line a comment or
# a sample), it is rewritten while recording, and its exit counter grows. At the end its
# counters equal vmtrace-report --json on the recorded file (pairs per reason and per
# vCPU task, out-of-guest seconds, lost events), and the file is byte for byte what
# vmtrace-report --openmetrics=FILE writes from the recording. A task blocked in read() on
# CPU 1 from the first burst on (tests/helpers/why_load stuck: a vCPU stuck in its exit)
# shows in vmtrace_open_exit_seconds{reason="read"} while recording, for about as long as
# it has been blocked, growing; at the end as the report's open_exits say. Bad input: one
# line, exit 64 (command line) or 1 (a FILE that cannot be written, before recording
# starts).
. "$(dirname "$0")/lib.sh"
need_tracefs
record_prio=20

start_why_stuck 1
start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none --metrics m.prom --interval 1s \
	-o run.vmt
[ -s m.prom ] || fail "no metrics file at the start"
printf '\n' >&3	# it blocks in read() from now on
go_at=$(date +%s.%N)
open_read() {	# vmtrace_open_exit_seconds{reason="read"} in FILE, or nothing
	sed -n 's/^vmtrace_open_exit_seconds{.*reason="read"} //p' "$1"
}
exits() {	# the sum of vmtrace_exits_total in FILE
	awk '/^vmtrace_exits_total\{/ { n += $NF } END { print n + 0 }' "$1"
}
whole() {	# every line a comment or a sample
	grep -v -E '^(# (HELP|TYPE) .*|vmtrace_[a-z_]+(\{[^}]*\})? [0-9.e+-]+|)$' "$1" &&
		fail "a line of $1 is neither a comment nor a sample"
	return 0
}
last=-1
changes=0
for burst in 1 2 3; do
	"$HELPERS/syscall_loop" -r 1 50000 >loop.txt || fail "syscall_loop"
	sleep 2.5	# the look-behind (1 s) and an interval (1 s) at least
	cp m.prom "m$burst.prom"
	whole "m$burst.prom"
	n=$(exits "m$burst.prom")
	[ "$n" -ge "$last" ] || fail "the exit counter went down: $last -> $n"
	[ "$n" -gt "$last" ] && changes=$((changes + 1))
	last=$n
	# the burst filled the page that holds the read's begin: the pass has it
	o=$(open_read "m$burst.prom")
	[ -n "$o" ] || { cat "m$burst.prom"; fail "burst $burst: no open read in the metrics"; }
	since=$(awk -v a="$(date +%s.%N)" -v b="$go_at" 'BEGIN { print a - b }')
	awk -v o="$o" -v s="$since" 'BEGIN { exit !(o > 0 && o <= s) }' ||
		fail "burst $burst: the read open $o s, blocked $since s"
	[ "$burst" = 1 ] || awk -v o="$o" -v p="$prev_open" 'BEGIN { exit !(o > p) }' ||
		fail "burst $burst: the open read did not grow: $prev_open -> $o s"
	prev_open=$o
done
awk -v o="$prev_open" 'BEGIN { exit !(o >= 2) }' || fail "the read open only $prev_open s after 3 bursts"
[ "$changes" -ge 3 ] || fail "the metrics file changed $changes times over 3 bursts"
[ "$last" -ge 100000 ] || fail "only $last exits in the metrics after 3 x 50000 calls"
kill -INT "$rec_pid"
wait "$rec_pid"
rc=$?
[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record --metrics exited $rc"; }
kill "$load" 2>/dev/null
whole m.prom
ls m.prom.* 2>/dev/null && fail "a temporary metrics file was left"

run vmtrace-report --json run.vmt
expect_rc 0 "report on the recording"
mv out.txt r.json
python3 - m.prom r.json <<'PY' || fail "the metrics differ from the report"
import json, re, sys
d = json.load(open(sys.argv[2]))
m = {}
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    name, value = line.rsplit(" ", 1)
    m[name] = float(value)
def total(family):
    return sum(v for k, v in m.items() if k.startswith(family + "{"))
bad = []
if total("vmtrace_exits_total") != d["pairs"]:
    bad.append("exits %d, report pairs %d" % (total("vmtrace_exits_total"), d["pairs"]))
if total("vmtrace_vcpu_exits_total") != d["pairs"]:
    bad.append("vcpu exits %d" % total("vmtrace_vcpu_exits_total"))
for t in d["vcpus"]:
    k = [v for k, v in m.items() if k.startswith("vmtrace_vcpu_exits_total{") and
         re.search(r'vcpu="[^"]*pid %d"' % t["pid"], k)]
    if k != [t["pairs"]]:
        bad.append("task %d: %s, report %d" % (t["pid"], k, t["pairs"]))
lost = [v for k, v in m.items() if k.startswith("vmtrace_lost_events_total")]
if lost != [d["lost_events"]]:
    bad.append("lost %s, report %d" % (lost, d["lost_events"]))
count = total("vmtrace_exit_latency_seconds_count")
if count != d["pairs"]:
    bad.append("histogram count %d" % count)
# the exits open at the stop: how many, and per reason the longest (the stuck read's)
opens = [v for k, v in m.items() if k.startswith("vmtrace_open_exits{")]
if opens != [len(d["open_exits"])]:
    bad.append("open exits %s, report %d" % (opens, len(d["open_exits"])))
longest = {}
for o in d["open_exits"]:
    r = o["reason"].split("(")[0]
    longest[r] = max(longest.get(r, 0), o["open_ns"] / 1e9)
got = {re.search(r'reason="([^"]*)"', k).group(1): v for k, v in m.items()
       if k.startswith("vmtrace_open_exit_seconds{")}
if set(got) != set(longest) or any(abs(got[r] - longest[r]) > 1e-9 for r in got):
    bad.append("open per reason %s, report %s" % (got, longest))
if "read" not in got:
    bad.append("the stuck read is not open at the stop")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
run vmtrace-report --openmetrics=r.prom run.vmt
expect_rc 0 "report --openmetrics=FILE"
cmp r.prom m.prom || { diff r.prom m.prom | head; fail "the recorder's last metrics differ"; }

# A metrics file whose disk fills up while recording: said at once, while the recorder
# runs (not only at its end), the file keeps the figures last written, and the end counts
# the failures.
mkdir full
if mount -t tmpfs -o size=256k tmpfs full 2>/dev/null; then
	cleanup_hooks="$cleanup_hooks; umount '$scratch/full'"
	start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" --context none --metrics full/m.prom \
		--interval 1s -o run2.vmt
	dd if=/dev/zero of=full/fill bs=4k 2>/dev/null	# until the disk is full
	"$HELPERS/syscall_loop" -r 1 20000 >loop.txt || fail "syscall_loop"
	for _ in $(seq 100); do	# at most 10 s: a publication is due every second
		unfold rec.err | grep -q "writing the metrics failed" && break
		sleep 0.1
	done
	unfold rec.err | grep -q "^vmtrace-record: warning: full/m.prom: writing the metrics failed: No space left on device" ||
		{ cat rec.err; fail "a full disk under the metrics: no warning while recording"; }
	cp full/m.prom kept.prom	# the figures last written: no later write can succeed
	whole kept.prom
	sleep 2.5	# two more intervals
	[ "$(unfold rec.err | grep -c "writing the metrics failed")" = 1 ] || { cat rec.err; fail "said more than once"; }
	kill -INT "$rec_pid"
	wait "$rec_pid"
	rc=$?
	[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record exited $rc with the metrics' disk full"; }
	unfold rec.err | grep -q "warning: full/m.prom: writing the metrics failed [1-9][0-9]* of [1-9][0-9]* times, first: No space left on device" ||
		{ cat rec.err; fail "no count of the failures at the end"; }
	cmp -s kept.prom full/m.prom || fail "the metrics file did not keep the figures last written"
	ls full/m.prom.* 2>/dev/null && fail "a temporary metrics file was left on the full disk"
	vmtrace-report --json run2.vmt >/dev/null || fail "the recording is not whole"
else
	skip_part "no tmpfs mount: a full disk under the metrics"
fi

# Bad input.
run vmtrace-record -p 1 -s 1 -e "$SYSCALL_EVENTS" --context none --metrics /nonexistent/m.prom \
	-o x.vmt
expect_rc 1 "an unwritable metrics file"
expect_one_line_error vmtrace-record "/nonexistent/m.prom: cannot create: No such file or directory$"
[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "not one line"; }
[ ! -e x.vmt ] || fail "a recording was made although the metrics cannot be written"
# a file that is there, in a directory that takes no new file: the temporary file beside it
# failed, named with the recorder's pid (not "No such file" about a file that exists)
if [ -f /proc/version ]; then
	vmtrace-record -p 1 -s 1 -e "$SYSCALL_EVENTS" --context none --metrics /proc/version \
		-o x.vmt >out.txt 2>err.txt &
	pid=$!
	wait $pid
	rc=$?
	expect_rc 1 "--metrics /proc/version"
	[ "$(unfold err.txt)" = "vmtrace-record: /proc/version: cannot create the temporary file beside it \
(/proc/version.$pid.part): No such file or directory" ] || { cat err.txt; fail "--metrics /proc/version: the message"; }
	[ ! -e x.vmt ] || fail "--metrics /proc/version: a recording was made"
fi
run vmtrace-record -p 1 --interval 5s -e "$SYSCALL_EVENTS"
expect_rc 64 "--interval without --metrics"
expect_one_line_error vmtrace-record "interval needs --metrics"
run vmtrace-record -p 1 --metrics m.prom --interval 10ms -e "$SYSCALL_EVENTS"
expect_rc 64 "--interval 10ms"
expect_one_line_error vmtrace-record "invalid --interval"
run vmtrace-record -p 1 --metrics m.prom -C x86-tsc -e "$SYSCALL_EVENTS"
expect_rc 64 "--metrics -C x86-tsc"
expect_one_line_error vmtrace-record "needs a nanosecond trace clock"
# the metrics never take the recording's place, by its name or through a link to it
echo keep >old.vmt
ln -s old.vmt old-link.vmt
for m in old.vmt old-link.vmt; do
	run vmtrace-record -p 1 -s 1 -e "$SYSCALL_EVENTS" --metrics $m -o old.vmt
	expect_rc 64 "--metrics $m -o old.vmt"
	expect_one_line_error vmtrace-record "metrics $m is the recording's output"
	[ "$(cat old.vmt)" = keep ] || fail "--metrics $m: old.vmt was touched"
done
# nor do they replace another recording (the report's --openmetrics=FILE alike)
cp "$DATA/sample-kvm.vmt" other.vmt
run vmtrace-record -p 1 -s 1 -e "$SYSCALL_EVENTS" --metrics other.vmt -o x.vmt
expect_rc 64 "--metrics over a recording"
expect_one_line_error vmtrace-record "other.vmt holds a recording (.vmt): refusing to write the metrics over it"
cmp -s other.vmt "$DATA/sample-kvm.vmt" || fail "--metrics over a recording: it was touched"
[ ! -e x.vmt ] || fail "--metrics over a recording: a recording was made"
finish
