#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Causes across the edge of the traced CPUs, on real system calls: a reader on traced CPU 1
# blocks in read() on a pipe whose writer, pinned to CPU 0, sleeps first. With CPU 1 alone
# traced, the wake-up is not in the file: the read is blocked "by a CPU not traced" (not
# kvm, not incomplete); with both CPUs traced, by the writer, whose pid the command says.
. "$(dirname "$0")/lib.sh"
need_tracefs

# The writer prints its pid then sleeps; the reader's read() waits for the next line.
cmd='taskset -c 0 sh -c "echo \$\$ >writer.pid; sleep 0.3; echo x" | taskset -c 1 sh -c "read -r l; echo \$\$ >reader.pid"'

check() {	# check LABEL CPUS: record the pipe, then judge the reader's longest read
	label=$1
	rm -f r.vmt writer.pid reader.pid
	run vmtrace-record -q -p "$2" -e "$SYSCALL_EVENTS" -o r.vmt -- sh -c "$cmd"
	expect_rc 0 "$label: record"
	run vmtrace-report --json --top 100 r.vmt
	expect_rc 0 "$label: report"
	python3 - out.txt "$(cat writer.pid)" "$(cat reader.pid)" "$label" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
writer, reader, label = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
if d["lost_events"] or d["lost_events_stats"]:
    sys.exit(77)    # the wake-up may be among the lost events
# the reader's read (id 0 on x86_64) waited for the writer's 0.3 s sleep
reads = [t for t in d["top"] if t["pid"] == reader and t["code"] == 0
         and t["latency_ns"] >= 200_000_000]
assert reads, f"no long read of the reader {reader} among the longest pairs"
w = reads[0]["why"]
assert not w["incomplete"], w
assert w["kvm_ns"] < reads[0]["latency_ns"] // 10, w
c = w["culprit"]
assert c["kind"] == "blocked", c
if label == "untraced":
    assert c["name"] == "a CPU not traced" and c["pid"] is None, c
else:
    assert c["pid"] == writer, (c, writer)
print(label, "read", reads[0]["latency_ns"], "ns: blocked", c["ns"], "by", c["name"], c["pid"])
PY
	{
		rc=$?
		[ $rc = 77 ] && skip "$label: events were lost, the test needs them all"
		fail "$label: the read's causes"
	}
}

check untraced 1
check traced 0-1
