#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Stopping by SIGINT, SIGTERM, SIGHUP or SIGQUIT in the middle leaves a complete, readable
# file and no instance (SIGQUIT killed the recorder and left its .part file); kill -9
# leaves a readable partial file whose stale instance the next run (or --cleanup) removes.
. "$(dirname "$0")/lib.sh"
need_tracefs

# Every one of the loop's 20000 calls made after tracing was on is in the file: its own
# pairs are counted (other tasks on CPU 1 add theirs to the total), and a loss would be
# counted, never hidden. (A failure here under load, 0 pairs for SIGTERM, was the test's:
# start_record found the previous recorder's "recording" line; lib.sh now removes it.)
for sig in INT TERM HUP QUIT; do
	start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o "$sig.vmt"
	"$HELPERS/syscall_loop" 1 20000 >loop.txt
	kill -s "$sig" "$rec_pid"
	wait "$rec_pid"
	rc=$?
	[ "$rc" = 0 ] || { cat rec.err; fail "SIG$sig: exit $rc"; }
	no_instance_left "$rec_pid"
	unfold rec.err | grep -q "SIG$sig: stopping" || fail "SIG$sig: not reported"
	run vmtrace-report --json "$sig.vmt"
	expect_rc 0 "SIG$sig recording"
	mv out.txt "$sig.json"
	[ "$(json "$sig.json" 'd["finished"]')" = True ] || fail "SIG$sig: not finished"
	lost=$(json "$sig.json" 'd["lost_events"]')
	[ "$lost" = 0 ] || fail "SIG$sig: $lost events lost at 20000 calls"
	loop=$(json "$sig.json" "sum(t['pairs'] for t in d['vcpus'] if t['pid'] == $(awk '{print $2}' loop.txt))")
	[ "$loop" -ge 20000 ] || fail "SIG$sig: $loop pairs of the loop's 20000 calls"
done

# A second Ctrl-C during the final drain: the file is finished with what was read and says
# how many events the drain left in the ring buffer, as lost events (drain_cut, the report's
# warning, the recorder's own). Independent figures: the entries of the end statistics in
# the file's END block (read here, not by vmtrace), and the loop's own count of calls: each
# of them is a pair in the file or counted lost. The second signal goes once the first was
# taken (two at once would be one pending signal); a drain that ends before it comes is the
# honest "complete" recording, nothing left unread: then up to 3 tries for a cut one.
end_keys() {
	python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off = 16
while off + 32 <= len(b):
    kind, hsize, psize = struct.unpack_from("<4sIQ", b, off)
    pay = b[off + hsize:off + hsize + psize]
    if kind == b"END\0":
        p = 0
        while p + 8 <= len(pay):
            kl, vl = struct.unpack_from("<II", pay, p)
            k, v = pay[p + 8:p + 8 + kl], pay[p + 8 + kl:p + 8 + kl + vl]
            p += 8 + kl + vl
            if k == b"drain":
                print("drain", v.decode())
            elif k.startswith(b"stats.end.cpu"):
                print("entries", v.decode().split("entries:")[1].split()[0])
    off += hsize + psize
PY
}
for try in 1 2 3; do
	start_record -p 1 -c 0 -b 64M -e "$SYSCALL_EVENTS" -o twice.vmt
	"$HELPERS/syscall_loop" 1 300000 >loop.txt
	kill -INT "$rec_pid"
	for _ in $(seq 500); do unfold rec.err | grep -q "SIGINT: stopping" && break; sleep 0.01; done
	kill -INT "$rec_pid" 2>/dev/null
	wait "$rec_pid"
	rc=$?
	[ "$rc" = 0 ] || { cat rec.err; fail "double Ctrl-C: exit $rc"; }
	no_instance_left "$rec_pid"
	unfold rec.err | grep -q "SIGINT during the final drain" && cut=True || cut=False
	end_keys twice.vmt >end.txt
	unread=$(awk '$1 == "entries" { n += $2 } END { print n + 0 }' end.txt)
	echo "double Ctrl-C, try $try: drain cut $cut, $unread events left unread"
	run vmtrace-report --json twice.vmt
	expect_rc 0 "double Ctrl-C"
	mv out.txt twice.json
	[ "$(json twice.json 'd["finished"]')" = True ] || fail "double Ctrl-C: not finished"
	[ "$(json twice.json 'd["drain_cut"]')" = $cut ] || fail "double Ctrl-C: drain_cut not $cut"
	grep -qx "drain $([ $cut = True ] && echo aborted || echo complete)" end.txt ||
		{ cat end.txt; fail "double Ctrl-C: END's drain key"; }
	[ "$(json twice.json 'd["lost_events_unread"]')" = "$unread" ] ||
		fail "double Ctrl-C: lost_events_unread is not the end stats' $unread entries"
	[ "$(json twice.json 'd["lost_events_exact"]')" = True ] || fail "double Ctrl-C: not exact"
	lost=$(json twice.json 'd["lost_events"]')
	[ "$lost" -ge "$unread" ] || fail "double Ctrl-C: $lost lost, fewer than $unread unread"
	loop=$(json twice.json "sum(t['pairs'] for t in d['vcpus'] if t['pid'] == $(awk '{print $2}' loop.txt))")
	[ $((loop + lost)) -ge 300000 ] ||
		fail "double Ctrl-C: $loop pairs of the loop's 300000 calls, and only $lost lost"
	if [ "$unread" -gt 0 ]; then
		[ $cut = True ] || fail "$unread events left unread by a complete drain"
		unfold rec.err | grep -q "^vmtrace-record: warning: events were lost: $unread left unread in the ring buffer (the final drain was cut short)\$" ||
			{ cat rec.err; fail "double Ctrl-C: the recorder did not say what it left unread"; }
		unfold err.txt | grep -q "^vmtrace-report: warning: twice.vmt: $lost events were lost, $unread of them unread (the drain was cut short); figures may be incomplete\$" ||
			{ cat err.txt; fail "double Ctrl-C: no warning in the report"; }
		vmtrace-report twice.vmt 2>/dev/null | grep -q "^Lost events = $lost ($unread unread: drain cut short; " ||
			fail "double Ctrl-C: the text report's lost events"
		break
	fi
	# nothing left unread, and no word of it
	! { unfold rec.err; unfold err.txt; } | grep -q "unread" || fail "double Ctrl-C: unread events said, none left"
done
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
unfold err.txt | grep -q "^vmtrace-report: warning: $part: the recording was not finished (no end record after its last block); figures cover its [0-9]* chunks\?\$" ||
	{ cat err.txt; fail "partial file: no warning, or not this one"; }
[ "$(json out.txt 'd["pairs"] > 0')" = True ] || fail "partial file: no pairs read back"
c=$(json out.txt 'd["chunks"]')
[ "$c" = 1 ] && words="1 chunk" || words="$c chunks"
unfold err.txt | grep -q "figures cover its $words\$" || { cat err.txt; fail "partial file: not 'its $words'"; }
mv out.txt killed.json
# its .vmt copy: unfinished too (no END block), every pair kept
run vmtrace-convert --to-vmt -o copy.vmt "$part"
[ "$rc" = 2 ] || { cat err.txt; fail "--to-vmt of the partial file: exit $rc, expected 2"; }
run vmtrace-report --json copy.vmt
[ "$rc" = 2 ] || { cat err.txt; fail "copy of the partial file: exit $rc, expected 2"; }
unfold err.txt | grep -q "^vmtrace-report: warning: copy.vmt: the recording was not finished" ||
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
