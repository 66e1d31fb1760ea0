#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The report analysed in time slices on several threads (--jobs, common/slicepass.h) must
# print exactly what one pass prints: on generated four-CPU recordings whose slices have
# hard edges (tasks migrating between exit and entry, exits spanning many chunks, 1 ms
# windows across edges, equal latencies, lost-events gaps while exits are open, orphans,
# idle tasks), cut into 2 to 40 slices, with every view the slices serve; on the bundled
# samples and a trace.bin. Recordings the slices cannot stand for (a CPU's time going
# back, a damaged chunk, a trace.dat) must be analysed in one pass instead, with the same
# output. VMTRACE_TEST_SLICES makes the report say how many slices it used.
# shellcheck disable=SC3045 # ulimit -s and -v: dash and bash have them (checked below)
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
command -v python3 >/dev/null || skip "python3 missing"

# same FILE SLICES OPTIONS...: --jobs 1 and --jobs 3 in SLICES slices print the same
same() {
	file=$1 slices=$2
	shift 2
	vmtrace-report --jobs 1 "$@" "$file" >one.txt 2>one.err
	rc1=$?
	VMTRACE_TEST_SLICES=$slices vmtrace-report --jobs 3 "$@" "$file" >many.txt 2>many.err
	rc2=$?
	[ "$rc1" = "$rc2" ] || fail "$file $*: exit $rc1 in one pass, $rc2 in slices"
	cmp -s one.txt many.txt || {
		diff one.txt many.txt | head -20 >&2
		fail "$file in $slices slices $*: the output differs from one pass"
	}
	grep -v '^vmtrace-report: [0-9]* time slices$' many.err >many.rest
	cmp -s one.err many.rest || fail "$file $*: standard error differs"
	used=$(sed -n 's/^vmtrace-report: \([0-9]*\) time slices$/\1/p' many.err)
}

n=0
for seed in 1 2 3; do
	python3 "$top_srcdir/tests/helpers/mkslices.py" $seed 6 4 2500 >s$seed.txt ||
		fail "mkslices $seed"
	"$HELPERS/mkvmt" "$F618" s$seed.vmt <s$seed.txt || fail "mkvmt s$seed"
	for slices in 2 5 13 40; do
		for opts in "--json" "" "--histogram --top 40" "--log --buckets 30 --json" \
			    "--window 20us --json" "--window 100ms" "--cpu 1,2 --json" \
			    "--from 5ms --to 200ms --json" "--vcpu 0,3 --json" "--legacy" \
			    "--openmetrics" "--top 0 --json"; do
			# shellcheck disable=SC2086
			same s$seed.vmt $slices $opts
			[ "$used" = "$slices" ] ||
				fail "s$seed.vmt: asked for $slices slices, the report used '$used'"
			n=$((n + 1))
		done
	done
done
# and one pass's figures are the recording's: pairs, gaps and orphans recounted here
vmtrace-report --jobs 1 --json s1.vmt >one.json 2>/dev/null
python3 - s1.txt one.json <<'EOF' || fail "s1: the pairing differs from a recount"
import json, sys
opened, gap = {}, {}
epoch = pairs = dropped = orphan_begins = orphan_ends = 0
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "page" and len(f) > 2:
        epoch += 1
        gap[int(f[1])] = epoch
    if f[0] not in ("exit", "entry"):
        continue
    cpu, ts, pid = int(f[1]), int(f[2]), int(f[3])
    key = ("idle", cpu) if pid == 0 else pid
    if f[0] == "exit":
        orphan_begins += key in opened
        opened[key] = (cpu, epoch)
    elif key not in opened:
        orphan_ends += 1
    else:
        bcpu, e = opened.pop(key)
        if gap.get(bcpu, 0) > e or gap.get(cpu, 0) > e:
            dropped += 1
        else:
            pairs += 1
d = json.load(open(sys.argv[2]))
got = (d["pairs"], d["gap_dropped"], d["orphan_entries"], d["open_at_stop"])
want = (pairs, dropped, orphan_ends, len(opened))
assert got == want, (got, want)
assert d["orphan_exits"] in (orphan_begins, orphan_begins + len(opened)), d["orphan_exits"]
EOF
# and each vCPU's time in the guest, less the time its events may have been lost in the gaps
# (tests/helpers/gaporacle.py), in one pass and in slices: the slices' edges carry it
for seed in 1 2 3; do
	python3 "$top_srcdir/tests/helpers/gaporacle.py" s$seed.txt >want.json ||
		fail "the gap oracle on s$seed"
	for slices in 0 13; do
		VMTRACE_TEST_SLICES=$slices vmtrace-report --jobs $((slices ? 3 : 1)) --json \
			s$seed.vmt >got.json 2>/dev/null
		python3 "$top_srcdir/tests/helpers/gaporacle.py" --check got.json want.json ||
			fail "s$seed, $slices slices: in guest"
		[ "$(json want.json 'any(v["gap_ns"] for v in d)')" = True ] ||
			fail "s$seed: no gap in a task's span: nothing tested"
	done
done

# no thread can be made (its 2 GB stack does not fit in 1.5 GB of address space): one
# pass, not an error; one thread (1 GB stacks): the slices on it. Not under the sanitizers,
# whose shadow memory does not fit either.
limits=yes
(ulimit -s 256 && ulimit -v 4000000) 2>/dev/null || limits=
ldd "$(command -v vmtrace-report)" | grep -q 'lib[at]san' && limits=
if [ "$limits" ]; then
	for stack in 2000000 1000000; do
		(ulimit -s $stack && ulimit -v 1500000 && same s1.vmt 5 --json) ||
			fail "s1.vmt with thread stacks of $stack KiB"
		n=$((n + 1))
	done
fi

# the bundled samples and a trace.bin: as many slices as they have chunks for
for f in "$DATA/sample-kvm.vmt" "$DATA/sample-syscalls.vmt"; do
	same "$f" 8 --json
	same "$f" 8
	n=$((n + 2))
done
"$HELPERS/mkvmt" --legacy --random 300000 1 "$F618" r.bin || fail "mkvmt r.bin"
"$HELPERS/mkvmt" --random 300000 4 "$F618" r4.vmt || fail "mkvmt r4.vmt"
for f in r.bin r4.vmt; do
	fmt=
	[ $f = r.bin ] && fmt="--format-dir $F618"
	# shellcheck disable=SC2086
	same $f 6 --json $fmt
	[ "$used" = 6 ] || fail "$f: not cut into 6 slices ('$used')"
	# shellcheck disable=SC2086
	same $f 6 --histogram $fmt
	n=$((n + 2))
done

# one CPU whose chunks meet at a time shared by the last record of one and the first of the
# next: a slice ends its stream at that time, and the walk must end with it (it once went
# on through the next slice's records, counting them twice)
python3 - >tie.txt <<'EOF'
print("cpus 0")
t = 1000
for chunk in range(16):
    for i in range(50):
        print(f"exit 0 {t} 100 0x1e 0")
        t += 100
        print(f"entry 0 {t} 100 0")
    print("chunk 0")
EOF
"$HELPERS/mkvmt" "$F618" tie.vmt <tie.txt || fail "mkvmt tie"
for slices in 2 3 4; do
	same tie.vmt $slices --json
	[ "$used" = "$slices" ] || fail "tie.vmt: not cut into $slices slices ('$used')"
	grep -q '"events":1600,' many.txt || fail "tie.vmt in $slices slices: not 1600 events"
	n=$((n + 1))
done

# out of memory in the slices (they hold more at once than one pass): one pass instead.
# v0, the least address space (in steps of 1 MB) one pass prints r4.vmt's report in; from
# 2 MB above it (the slices' threads leave their arenas behind), the report in slices
# must print it too
if [ "$limits" ]; then
	v0=8000
	while [ $v0 -lt 200000 ] &&
	      ! (ulimit -s 256 && ulimit -v $v0 && vmtrace-report --jobs 1 --json r4.vmt) \
		>/dev/null 2>&1; do
		v0=$((v0 + 1000))
	done
	[ $v0 -lt 200000 ] || fail "r4.vmt: no address space limit fits one pass"
	vmtrace-report --jobs 1 --json r4.vmt >one.txt 2>/dev/null
	for v in $((v0 + 2000)) $((v0 + 4000)) $((v0 + 6000)); do
		(ulimit -s 256 && ulimit -v $v &&
		 VMTRACE_TEST_SLICES=9 vmtrace-report --jobs 3 --json r4.vmt >many.txt) ||
			fail "r4.vmt in $v KiB: one pass fits in $v0 KiB, the slices fail"
		cmp -s one.txt many.txt || fail "r4.vmt in $v KiB: the output differs"
		n=$((n + 1))
	done
fi

# an empty page says nothing of its time (a zeroed one has 0): a trace.bin with one in its
# 31st chunk of 34 counts it in its pages all the same
python3 - r.bin rz.bin <<'EOF' || fail "rz.bin"
import sys
d = open(sys.argv[1], "rb").read()
at = 8 + (30 * 256 + 100) * 4096
open(sys.argv[2], "wb").write(d[:at] + bytes(4096) + d[at:])
EOF
for slices in 2 6; do
	same rz.bin $slices --json --format-dir "$F618"
	[ "$used" = "$slices" ] || fail "rz.bin: not cut into $slices slices ('$used')"
	n=$((n + 1))
done
grep -q '"pages":8573,' one.txt || fail "rz.bin: the zeroed page is not counted"

# times within a window of 2^64 (hostile ones): a window after a slice's first exit does
# not fit in 64 bits, and the windows reaching back before it must still be recomputed
python3 - >hi.txt <<'EOF'
base = 2**64 - 1552000
print("cpus 0-1")
for i in range(3000):
    for c in (0, 1):
        t = base + i * 500 + c * 7
        print(f"exit {c} {t} {100 + c} 0x1e {c}")
        print(f"entry {c} {t + 100 + (i % 7) * 30} {100 + c} {c}")
    if i % 50 == 49:
        print("chunk 0\nchunk 1")
print("exit 0 %d 100 0x1e 0\nentry 0 %d 100 0" % (2**64 - 600, 2**64 - 1))
EOF
"$HELPERS/mkvmt" "$F618" hi.vmt <hi.txt || fail "mkvmt hi"
for slices in 2 13; do
	same hi.vmt $slices --json
	[ "$used" = "$slices" ] || fail "hi.vmt: not cut into $slices slices ('$used')"
	n=$((n + 1))
done
grep -q '"pairs":6001,' one.txt || fail "hi.vmt: the exit that ends at 2^64 - 1 is not counted"

# one exit code under both ISAs with equal totals (a hostile recording): the reasons are
# listed in the same order whether the SVM one's first pair spans the cut or not
python3 - >isa.txt <<'EOF'
ev = []
for i in range(2000):
    for c in (0, 1):
        t = i * 10000 + c * 10
        ev.append((t, 2, f"exit {c} {t} {100 + c} 0x0c {c}"))
        ev.append((t + 3000, 2, f"entry {c} {t + 3000} {100 + c} {c}"))
ev += [(9990000, 2, "exit 0 9990000 300 0x1e 2"), (10005000, 2, "entry 0 10005000 300 2"),
       (10000500, 1, "exit 1 10000500 301 0x1e 3"), (10001500, 1, "entry 1 10001500 301 3"),
       (10100000, 1, "exit 1 10100000 301 0x1e 3"), (10114000, 1, "entry 1 10114000 301 3")]
ev.sort()
print("cpus 0-1")
isa, n = None, [0, 0]
for t, a, line in ev:
    c = int(line.split()[1])
    if line.startswith("exit") and a != isa:
        print(f"isa {a}")
        isa = a
    print(line)
    n[c] += 1
    if n[c] % 200 == 0:
        print(f"chunk {c}")
EOF
"$HELPERS/mkvmt" "$F618" isa.vmt <isa.txt || fail "mkvmt isa"
for slices in 2 5; do
	same isa.vmt $slices --json
	[ "$used" = "$slices" ] || fail "isa.vmt: not cut into $slices slices ('$used')"
	same isa.vmt "$slices"
	n=$((n + 2))
done

# a CPU whose time goes back inside a chunk: the slices would mix it up, so one pass
cat >back.txt <<'S'
cpus 0-1
S
i=0
while [ $i -lt 400 ]; do
	t=$((i * 10000))
	echo "exit 0 $t 7 0x1e 0" >>back.txt
	echo "entry 0 $((t + 3000)) 7 0" >>back.txt
	echo "exit 1 $t 8 0x1e 1" >>back.txt
	echo "entry 1 $((t + 2000)) 8 1" >>back.txt
	[ $((i % 20)) = 19 ] && printf 'chunk 0\nchunk 1\n' >>back.txt
	[ $i = 250 ] && echo "exit 1 1000 8 0x30 1" >>back.txt
	i=$((i + 1))
done
"$HELPERS/mkvmt" "$F618" back.vmt <back.txt || fail "mkvmt back"
same back.vmt 8 --json
[ "$used" = 0 ] || fail "back.vmt: a CPU's time went back, yet $used slices were used"

# thirteen CPUs in small chunks: the slice readers' chunks fit, so slices
python3 "$top_srcdir/tests/helpers/mkslices.py" 4 26 13 300 >wide.txt || fail "mkslices wide"
"$HELPERS/mkvmt" "$F618" wide.vmt <wide.txt || fail "mkvmt wide"
same wide.vmt 8 --json
[ "$used" = 8 ] || fail "wide.vmt: 13 CPUs in small chunks, yet $used slices, not 8"
# the slice readers hold a chunk of every CPU each, 32 MiB at most in all: 64 CPUs in
# chunks of 32 KiB, and 16 in 1 MiB, on two threads fit; 64 in vmtrace-record's 512 KiB
# chunks do not, so one pass
"$HELPERS/mkvmt" --chunk-pages 8 --random 100000 64 "$F618" m64.vmt || fail "mkvmt m64"
same m64.vmt 6 --json --top 30
[ "$used" = 6 ] || fail "m64.vmt: 64 CPUs in small chunks, $used slices, not 6"
same m64.vmt 6 --histogram --window 100us
"$HELPERS/mkvmt" --chunk-pages 256 --random 150000 16 "$F618" m16.vmt || fail "mkvmt m16"
same m16.vmt 4 --json
[ "$used" = 4 ] || fail "m16.vmt: 16 CPUs in 1 MiB chunks, $used slices, not 4"
[ "$(json one.txt 'd["pages"] > 16 * 256')" = True ] || fail "m16.vmt: no full 1 MiB chunks"
"$HELPERS/mkvmt" --random 300000 64 "$F618" m64big.vmt || fail "mkvmt m64big"
same m64big.vmt 6 --json
[ "$used" = 0 ] || fail "m64big.vmt: 64 CPUs in 512 KiB chunks, yet $used slices were used"
# unless asked, a slice starts at least 4 chunks per CPU: m16.vmt's 2 to 3 per CPU, none
VMTRACE_TEST_SLICES= vmtrace-report --jobs 2 --json m16.vmt 2>&1 >/dev/null |
	grep -qx 'vmtrace-report: 0 time slices' || fail "m16.vmt: sliced with 2 chunks per CPU"
# a chunk header that says the chunk begins later than its records do (CPU 0's third
# chunk: 2.5 ms, its records from 2 ms): the slices that end before 2.5 ms do not read
# it, so one pass
cat >late.txt <<'S'
cpus 0-1
S
i=0
while [ $i -lt 2000 ]; do
	t=$((i * 10000))
	echo "exit 0 $t 100 0x1e 0" >>late.txt
	echo "entry 0 $((t + 3000)) 100 0" >>late.txt
	echo "exit 1 $((t + 10)) 101 0x1e 1" >>late.txt
	echo "entry 1 $((t + 3011)) 101 1" >>late.txt
	[ $i = 250 ] && echo "firstts 0 2500000" >>late.txt
	[ $((i % 100)) = 99 ] && printf 'chunk 0\nchunk 1\n' >>late.txt
	i=$((i + 1))
done
"$HELPERS/mkvmt" "$F618" late.vmt <late.txt || fail "mkvmt late"
for slices in 2 10 40; do
	same late.vmt $slices --json
	n=$((n + 1))
done
[ "$used" = 0 ] || fail "late.vmt: records before their chunk's first time, yet $used slices"
grep -q '"pairs":4000,' one.txt || fail "late.vmt: one pass lost pairs"

# a trace.dat has no chunk times: one pass
for f in "$DATA"/tracedat/*.dat; do
	[ -f "$f" ] || continue
	same "$f" 4 --json
	[ "$used" = 0 ] || fail "$f: cut into $used slices"
	break
done
echo "$n outputs identical in slices and in one pass"
finish
