#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Losses provoked on purpose (a tiny buffer, a slow collector, a fast loop) are counted
# from the page flags and the ring-buffer stats, stored, printed and never hidden.
. "$(dirname "$0")/lib.sh"
need_tracefs

# The pair only: with context events' records of other sizes among them, a page can fill
# to within 8 bytes of its end, and the kernel then flags the loss without storing its
# count (RB_MISSED_STORED clear), so the pages' sum is only a lower bound of the stats'.
start_record -p 1 -c 0 -s 2 -b 16K --poll-interval 500ms -e "$SYSCALL_EVENTS" --context none \
	-o lost.vmt
"$HELPERS/syscall_loop" 1 300000 >/dev/null
wait "$rec_pid"
rc=$?
[ "$rc" = 0 ] || { cat rec.err; fail "vmtrace-record exited $rc"; }
grep -q "events were lost" rec.err || fail "the recorder did not warn about losses"
run vmtrace-report --json lost.vmt
expect_rc 0 "report"
mv out.txt l.json
[ "$(json l.json 'd["lost_events"] > 0')" = True ] || fail "no lost events reported"
[ "$(json l.json 'd["missed_pages"] > 0')" = True ] || fail "no pages flagged"
# Overwrite mode: the stats' overrun and the counts stored in the pages agree.
[ "$(json l.json 'd["lost_events_stats"] == d["lost_events_pages"]')" = True ] ||
	fail "stats and page counts disagree: $(json l.json '(d["lost_events_stats"], d["lost_events_pages"])')"
run vmtrace-report lost.vmt
grep -q "events were lost" err.txt || fail "the report did not warn about losses"
exit 0
