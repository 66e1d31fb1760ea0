#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The report's threads fit the CPUs it may run on (common/cpus.h): under taskset -c 0 the
# chunks are read without a read-ahead thread (one would only take turns with the merge
# and flush caches no other core holds), with two CPUs or more one thread decompresses
# ahead; the output is the same either way. The threads are counted in /proc once the
# report has written -v into a pipe nobody reads. VMTRACE_NO_THREADS keeps every program
# on one thread, the time slices too; and CSV with no thread to be had (pthread_create
# refused under a memory limit) is formatted on the pass's thread, the same bytes.
# shellcheck disable=SC3045 # ulimit -s and -v: dash and bash have them (checked below)
. "$(dirname "$0")/lib.sh"

command -v taskset >/dev/null || skip "taskset missing"
command -v python3 >/dev/null || skip "python3 missing"
taskset -c 0 true 2>/dev/null || skip "taskset cannot pin to CPU 0 here"
"$HELPERS/mkvmt" --random 400000 1 "$DATA/formats/linux-6.18-x86_64" r.vmt ||
	fail "mkvmt"

# threads CMD...: its threads once it has written output (it read its first chunk by
# then, and made any read-ahead thread before that), while blocked on the full pipe
threads() {
	python3 - "$@" <<'PY'
import os, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def wrote():
    with open("/proc/%d/io" % p.pid) as f:
        return any(l.startswith("wchar:") and int(l.split()[1]) > 0 for l in f)
end = time.time() + 120
while not wrote() and time.time() < end and p.poll() is None:
    time.sleep(0.01)
most = 0
for _ in range(20):
    most = max(most, len(os.listdir("/proc/%d/task" % p.pid)))
    time.sleep(0.01)
p.kill()
p.wait()
print(most)
PY
}
n=$(threads taskset -c 0 vmtrace-report -v r.vmt)
[ "$n" = 1 ] || fail "under taskset -c 0 the report ran $n threads, not 1"
cpus=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
if [ "$cpus" -ge 2 ]; then
	n=$(threads vmtrace-report -v r.vmt)
	[ "$n" -ge 2 ] || fail "on $cpus CPUs the report read ahead with no thread ($n in all)"
else
	skip_part "one CPU here: the read-ahead thread of several is not checked"
fi

taskset -c 0 vmtrace-report --json r.vmt >one.json || fail "report on one CPU"
vmtrace-report --json r.vmt >all.json || fail "report on every CPU"
cmp -s one.json all.json || fail "the report on one CPU differs from the one on every CPU"
VMTRACE_NO_THREADS=1 vmtrace-convert --csv r.vmt >plain.csv || fail "csv without threads"
taskset -c 0 vmtrace-convert --csv r.vmt >one.csv || fail "csv on one CPU"
cmp -s plain.csv one.csv || fail "CSV on one CPU differs from CSV without threads"

n=$(VMTRACE_NO_THREADS=1 threads vmtrace-report -v r.vmt)
[ "$n" = 1 ] || fail "with VMTRACE_NO_THREADS the report ran $n threads, not 1"
# The slices are cut only where there are CPUs to analyse them on.
if [ "$cpus" -ge 2 ]; then
	VMTRACE_TEST_SLICES=4 vmtrace-report --json r.vmt >/dev/null 2>sl.err || fail "report in slices"
	grep -qx 'vmtrace-report: 4 time slices' sl.err ||
		fail "r.vmt not cut into 4 slices: $(cat sl.err)"
else
	skip_part "one CPU here: the report is not cut into slices, so that is not checked"
fi
VMTRACE_NO_THREADS=1 VMTRACE_TEST_SLICES=4 vmtrace-report --json r.vmt >nt.json 2>sl.err ||
	fail "report with VMTRACE_NO_THREADS"
grep -qx 'vmtrace-report: 0 time slices' sl.err ||
	fail "with VMTRACE_NO_THREADS the report still cut slices: $(cat sl.err)"
cmp -s nt.json all.json || fail "the report with VMTRACE_NO_THREADS differs"

# A default thread stack of 4 GB in 3 GB of address space: no thread can start, the
# process itself runs. Checked with python's threads first, and with the tool on one thread.
nothread() { (ulimit -s 4000000 && ulimit -v 3000000 && "$@"); }
if ! nothread python3 -c 'import threading; threading.Thread(target=id, args=(0,)).start()' \
	2>/dev/null && VMTRACE_NO_THREADS=1 nothread vmtrace-convert --csv r.vmt >/dev/null 2>&1
then
	for m in --csv "--csv --events"; do
		# shellcheck disable=SC2086 # $m is two words
		nothread vmtrace-convert $m -o limited.csv r.vmt 2>limited.err ||
			fail "convert $m with no thread to be had: $(cat limited.err)"
		[ ! -s limited.err ] || fail "convert $m with no thread to be had said: $(cat limited.err)"
		# shellcheck disable=SC2086
		VMTRACE_NO_THREADS=1 vmtrace-convert $m -o plain.csv r.vmt ||
			fail "convert $m without threads"
		cmp -s limited.csv plain.csv || fail "convert $m with no thread to be had differs"
	done
else
	skip_part "threads not refused under ulimit -s/-v here (or the build cannot run so)"
fi
finish
