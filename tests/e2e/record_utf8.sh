#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-record's own tables keep their columns with tasks named in UTF-8: two system call
# loops on CPU 1, one after the other, run as "тестовый-цикл" (its comm the kernel's first
# 15 bytes, cut inside "й") and "中文循环测试程序" (its first 15 bytes: five wide
# characters), named by the recorder's context events. On a pseudo-terminal of 100x40, every --live frame's task rows
# have their figures under the header's titles and the label padded to its column in
# display columns (the loops' labels their names, when a frame has room for them: else that
# part is left out and the test skips), and so do the loops' rows of the summary's task
# table at the end; every line fits, in display columns computed with Python's unicodedata
# (tests/helpers/textcols.py).
. "$(dirname "$0")/lib.sh"
need_tracefs

ru=$(printf '\321\202\320\265\321\201\321\202\320\276\320\262\321\213\320\271-\321\206\320\270\320\272\320\273')
zh=$(printf '\344\270\255\346\226\207\345\276\252\347\216\257\346\265\213\350\257\225\347\250\213\345\272\217')
cp "$HELPERS/syscall_loop" "./$ru" && cp "$HELPERS/syscall_loop" "./$zh" || fail "copy the loop"

# one after the other, each at real-time priority: CPU 1 is theirs (as record_live_tty's
# loop), few other tasks take the live view's rows
rc=1
for _ in 1 2 3 4 5 6; do
	python3 "$top_srcdir/tests/helpers/ptyrun.py" tty.txt 100 40 -- vmtrace-record -p 1 -c 0 \
		-e "$SYSCALL_EVENTS" --live=300ms -o run.vmt -- \
		sh -c "./'$ru' -r 1 0 1.5; ./'$zh' -r 1 0 1.5"
	rc=$?
	grep -q 'another recorder' tty.txt || break
	sleep 2
done
[ "$rc" = 0 ] || { cat tty.txt; fail "vmtrace-record --live exited $rc"; }

PYTHONPATH="$top_srcdir/tests/helpers" python3 - tty.txt "$ru" "$zh" <<'PY'
import os, re, sys
from textcols import check_row, cols

raw = open(sys.argv[1], "rb").read().replace(b"\r", b"")
text = raw.decode("utf-8", "surrogateescape")
# the loops' comms: the first 15 bytes of their names, as the kernel keeps them, a byte of no
# valid sequence (the cut character's first) shown as '?' (common/ctxevent.c)
comm = {n: "".join("?" if "\udc80" <= c <= "\udcff" else c for c in
                   os.fsencode(n)[:15].decode("utf-8", "surrogateescape")) for n in sys.argv[2:4]}
assert comm[sys.argv[2]].endswith("\u044b?") and cols(comm[sys.argv[3]]) == 10, comm
# each loop says "pid PID calls N ..." at its end; which is which, its row's name tells
pids = [int(p) for p in re.findall(r"^pid (\d+) calls ", text, re.M)]
assert len(pids) == 2, pids
names = {"%s (%d)" % (c, p) for c in comm.values() for p in pids}
# a frame drawn between sh's fork and the loop's exec names the child "sh" (the recorder
# names a pid as the context events last named it): a loop's row may read so
names |= {"sh (%d)" % p for p in pids}

chunks = text.split("\033[H\033[2J")
frames, summary = chunks[1:-1], chunks[-1]
assert len(frames) >= 3, len(frames)
rows = loops = 0
for f in frames:
    lines = f.split("\n")
    for l in lines:
        assert cols(l) <= 100, "%d columns: %r" % (cols(l), l)
    head = [l for l in lines if "pairs/s" in l]
    assert len(head) == 1 and "task" in lines and "id" in lines, lines
    # the task rows, each the loops' names or any other task's (an open pair's line under)
    for l in lines[lines.index("task") + 1:lines.index("id")]:
        if not l.startswith("  ") or l.startswith(("    ", "  ... and")):
            continue
        loop = any(l.endswith(" (%d)" % p) or " (%d) " % p in l for p in pids)
        check_row(l, head[0], ["pairs/s", "in pairs", "p99", "max"], 13, 2,
                  names if loop else None, "--live")
        rows += 1
        loops += loop
assert rows, "no task rows"
# on a loaded machine, tasks asleep in a system call for a whole interval (100 %) may fill
# the 16 rows before the loops: the summary's rows are then checked, the frames' left out
# the summary: "Tasks (most pairs first...)", then "  task ... pairs avg max max/window"
lines = summary.split("\n")
at = [i for i, l in enumerate(lines) if l.startswith("Tasks (most pairs first")]
assert at, summary
head, n = lines[at[0] + 1], 0
for l in lines[at[0] + 2:]:
    if not l.startswith("  "):
        break
    assert cols(l) <= 120, l
    if any(re.search(r" \(%d\) " % p, l) for p in pids):
        check_row(l, head, ["pairs", "avg", "max", "max/window"], 13, 2, names, "summary")
        n += 1
assert n == 2, (n, summary)
print("%d frames, %d task rows, %d of the loops; the summary's rows of both" %
      (len(frames), rows, loops))
sys.exit(0 if loops else 3)
PY
case $? in
0) ;;
3) skip_part "no --live frame showed the loops (more time in other tasks' rows)" ;;
*) fail "the tables" ;;
esac
finish
