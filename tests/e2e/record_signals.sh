#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Stopping by SIGINT, SIGTERM or SIGHUP in the middle leaves a complete, readable file and
# no instance; kill -9 leaves a readable partial file whose stale instance the next run
# (or --cleanup) removes.
. "$(dirname "$0")/lib.sh"
need_tracefs

# Every one of the loop's 20000 calls made after tracing was on is in the file: its own
# pairs are counted (other tasks on CPU 1 add theirs to the total), and a loss would be
# counted, never hidden. (A failure here under load, 0 pairs for SIGTERM, was the test's:
# start_record found the previous recorder's "recording" line; lib.sh now removes it.)
for sig in INT TERM HUP; do
	start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o "$sig.vmt"
	"$HELPERS/syscall_loop" 1 20000 >loop.txt
	kill -s "$sig" "$rec_pid"
	wait "$rec_pid"
	rc=$?
	[ "$rc" = 0 ] || { cat rec.err; fail "SIG$sig: exit $rc"; }
	no_instance_left "$rec_pid"
	grep -q "SIG$sig: stopping" rec.err || fail "SIG$sig: not reported"
	run vmtrace-report --json "$sig.vmt"
	expect_rc 0 "SIG$sig recording"
	mv out.txt "$sig.json"
	[ "$(json "$sig.json" 'd["finished"]')" = True ] || fail "SIG$sig: not finished"
	lost=$(json "$sig.json" 'd["lost_events"]')
	[ "$lost" = 0 ] || fail "SIG$sig: $lost events lost at 20000 calls"
	loop=$(json "$sig.json" "sum(t['pairs'] for t in d['vcpus'] if t['pid'] == $(awk '{print $2}' loop.txt))")
	[ "$loop" -ge 20000 ] || fail "SIG$sig: $loop pairs of the loop's 20000 calls"
done

# A second Ctrl-C during the final drain still finishes the file.
start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o twice.vmt
"$HELPERS/syscall_loop" 1 0 0.5 >/dev/null
kill -INT "$rec_pid"
kill -INT "$rec_pid" 2>/dev/null
wait "$rec_pid"
no_instance_left "$rec_pid"
run vmtrace-report --json twice.vmt
[ "$rc" = 0 ] || fail "double Ctrl-C: report exit $rc"

# kill -9: no cleanup can run. The partial file reads back; the instance stays until the
# next recorder notices its owner is gone.
start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o killed.vmt
"$HELPERS/syscall_loop" 1 0 1.5 >/dev/null
kill -9 "$rec_pid"
wait "$rec_pid" 2>/dev/null
[ -d "/sys/kernel/tracing/instances/vmtrace-$rec_pid" ] || fail "kill -9 left no instance?"
part="killed.vmt.$rec_pid.part"
[ -f "$part" ] || fail "no partial file after kill -9"
[ ! -e killed.vmt ] || fail "a partial file under the final name"
run vmtrace-report --json "$part"
[ "$rc" = 2 ] || { cat err.txt; fail "partial file: exit $rc, expected 2"; }
grep -q "^vmtrace-report: warning: $part: the recording was not finished (no end record after its last block); figures cover its [0-9]* chunks\?\$" err.txt ||
	{ cat err.txt; fail "partial file: no warning, or not this one"; }
[ "$(json out.txt 'd["pairs"] > 0')" = True ] || fail "partial file: no pairs read back"
c=$(json out.txt 'd["chunks"]')
[ "$c" = 1 ] && words="1 chunk" || words="$c chunks"
grep -q "figures cover its $words\$" err.txt || { cat err.txt; fail "partial file: not 'its $words'"; }
mv out.txt killed.json
# its .vmt copy: unfinished too (no END block), every pair kept
run vmtrace-convert --to-vmt -o copy.vmt "$part"
[ "$rc" = 2 ] || { cat err.txt; fail "--to-vmt of the partial file: exit $rc, expected 2"; }
run vmtrace-report --json copy.vmt
[ "$rc" = 2 ] || { cat err.txt; fail "copy of the partial file: exit $rc, expected 2"; }
grep -q "^vmtrace-report: warning: copy.vmt: the recording was not finished" err.txt ||
	{ cat err.txt; fail "copy of the partial file: reads as finished"; }
[ "$(json out.txt 'd["finished"]')" = False ] || fail "copy of the partial file: an END block"
python3 - killed.json out.txt <<'PY' || fail "copy of the partial file: other figures"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in ("pairs", "events", "chunks", "pages", "latency_ns", "total_ns", "max_window_sum_ns"):
    assert a.get(k) == b.get(k), (k, a.get(k), b.get(k))
PY
dead=$rec_pid
run vmtrace-record --cleanup
expect_rc 0 "--cleanup"
grep -q "vmtrace-$dead" out.txt || fail "--cleanup did not name the stale instance"
no_instance_left "$dead"
exit 0
