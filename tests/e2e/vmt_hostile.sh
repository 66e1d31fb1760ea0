#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A .vmt whose blocks are sound (their checksums fixed) but whose chunk headers, chunk
# order or end record contradict the file: each is read as damage (a warning that names
# the file and the problem, exit status 2), and the figures are those of what is left,
# counted here from the pages themselves (tests/helpers/vmtedit.py decodes them).
. "$(dirname "$0")/lib.sh"

edit="python3 $top_srcdir/tests/helpers/vmtedit.py"
"$HELPERS/mkvmt" --chunk-pages 4 --context --random 20000 4 "$DATA/formats/linux-6.1-kvmhost" \
	r.vmt || fail mkvmt
$edit r.vmt records >records.txt || fail "vmtedit records"
total=$(awk '{ n += $3 } END { print n }' records.txt)
[ "$total" = 40000 ] || fail "the pages hold $total pair events, not 40000"

# damaged FILE PATTERN [OPTION...]: the events (the JSON's count) of FILE, reported with
# exit status 2 and a one-line warning that names the file and contains PATTERN
damaged() {
	local f=$1 pattern=$2
	shift 2
	run vmtrace-report --json "$@" "$f"
	expect_rc 2 "$f"
	unfold err.txt | grep -q "^vmtrace-report: warning: $f: .*$pattern" ||
		{ cat err.txt; fail "$f: no '$pattern'"; }
	python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])' <out.txt
}

# 1. A chunk of a CPU that cpus.traced (0-3) does not list is skipped as damage, whatever
# its number; so is one whose CPU differs from the end record's chunk index.
n5=$(awk '$1 == 5 { print $3 }' records.txt)
cpu5=$(awk '$1 == 5 { print $2 }' records.txt)
other=$(( (cpu5 + 1) % 4 ))
for cpu in 7 65535 1048575; do
	$edit r.vmt cpu$cpu.vmt chunk:5:cpu=$cpu || fail vmtedit
	got=$(damaged cpu$cpu.vmt "a chunk of CPU $cpu, which the recording did not trace") || exit 1
	[ "$got" = $((total - n5)) ] || fail "CPU $cpu: $got events, expected $((total - n5))"
	run vmtrace-report cpu$cpu.vmt
	grep -q "^  $cpu " out.txt && fail "CPU $cpu is in the per-pCPU table"
done
$edit r.vmt index.vmt chunk:5:cpu=$other || fail vmtedit
got=$(damaged index.vmt "differs from the end record's index") || exit 1
[ "$got" = $((total - n5)) ] || fail "index: $got events, expected $((total - n5))"

# Without cpus.traced (a recording that does not list its CPUs), a CPU number above
# Linux's largest (8191) is damage; 8191 itself is a CPU, read with its events, in bounded
# memory (the per-CPU tables follow the largest number).
$edit r.vmt nolist.vmt meta:-cpus.traced chunk:5:cpu=1048575 || fail vmtedit
got=$(damaged nolist.vmt "a chunk of CPU 1048575, above any Linux CPU number (8191)") || exit 1
[ "$got" = $((total - n5)) ] || fail "no cpus.traced: $got events, expected $((total - n5))"
$edit r.vmt cpu8192.vmt meta:-cpus.traced chunk:5:cpu=8192 || fail vmtedit
got=$(damaged cpu8192.vmt "a chunk of CPU 8192, above any Linux CPU number (8191)") || exit 1
[ "$got" = $((total - n5)) ] || fail "CPU 8192: $got events, expected $((total - n5))"
$edit r.vmt cpu8191.vmt meta:-cpus.traced chunk:5:cpu=8191 || fail vmtedit
/usr/bin/env time -f %M -o mem.txt vmtrace-report --json cpu8191.vmt >out.txt 2>err.txt ||
	fail "CPU 8191 without cpus.traced: exit $?: $(cat err.txt)"
[ "$(json out.txt 'd["events"]')" = "$total" ] || fail "CPU 8191: not every event read"
[ "$(json out.txt '8191 in [c["cpu"] for c in d["cpus_detail"]]')" = True ] ||
	fail "CPU 8191 is not in the per-pCPU table"
[ "$(cat mem.txt)" -lt 65536 ] || fail "CPU 8191 took $(cat mem.txt) KB"

# 2. Two chunks of one CPU swapped: its time goes back once, from the last record of the
# later chunk to the first of the earlier one (seconds from the earliest chunk's start), in
# the sliced pass as in one pass; every event is still read.
set -- $(awk '$2 == prev_cpu && $1 == prev + 1 { print prev, $1; exit } { prev = $1; prev_cpu = $2 }' \
	records.txt)
[ $# = 2 ] || fail "no two consecutive chunks of one CPU"
a=$1 b=$2
$edit r.vmt swap.vmt swap:$a:$b || fail vmtedit
want=$(awk -v a=$a -v b=$b '
	NR == 1 || $4 < start { start = $4 }
	$1 == a { to = $4; cpu = $2 } $1 == b { from = $5 }
	END { printf "time goes back on CPU %d, from %.9f to %.9f s (1 time in all)", cpu,
	      (from - start) / 1e9, (to - start) / 1e9 }' records.txt)
for jobs in 1 2; do
	got=$(VMTRACE_TEST_SLICES=4 damaged swap.vmt "$want" --jobs $jobs) || exit 1
	[ "$got" = "$total" ] || fail "swap, --jobs $jobs: $got events, expected $total"
	cp err.txt err$jobs.txt
done
cmp -s err1.txt err2.txt || fail "swap: --jobs 2 warns otherwise than --jobs 1"

# 3. An end record that does not count the chunks the file holds says so: a copy of a
# chunk is skipped (its events read once, the file finished), a chunk more than the count
# and a count that is not a number are named as such, never as a missing end record.
$edit r.vmt dup.vmt dup:5 || fail vmtedit
$edit dup.vmt list >dup.txt || fail "vmtedit list"
orig=$(awk '$1 == 5 { print $2 }' dup.txt)
copy=$(awk '$1 == 6 { print $2 }' dup.txt)
got=$(damaged dup.vmt "the chunk at offset $copy repeats the one at offset $orig ") || exit 1
[ "$got" = "$total" ] || fail "dup: $got events, expected $total"
unfold err.txt | grep -q "no end record" && fail "dup: said to have no end record"
python3 -c 'import json,sys; sys.exit(json.load(sys.stdin)["finished"] is not True)' <out.txt ||
	fail "dup: not finished"
chunks=$(wc -l <records.txt)
for count in $((chunks - 1)) 0; do
	$edit r.vmt count.vmt end:chunk.count=$count || fail vmtedit
	got=$(damaged count.vmt "its end record counts $count chunks\{0,1\}, the file holds $chunks: $((chunks - count)) more than its recorder wrote") || exit 1
	[ "$got" = "$total" ] || fail "count $count: $got events, expected $total"
done
end_at=$(( $(stat -c %s r.vmt) - $(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
off = 16
while off + 32 <= len(b):
    kind, hsize, psize = struct.unpack_from("<4sIQ", b, off)
    if kind == b"END\0":
        print(len(b) - off)
    off += hsize + psize' r.vmt) ))
for count in -5 99999999999999999999 -; do
	if [ "$count" = - ]; then
		$edit r.vmt count.vmt end:-chunk.count || fail vmtedit
	else
		$edit r.vmt count.vmt end:chunk.count=$count || fail vmtedit
	fi
	got=$(damaged count.vmt "damaged end record at offset $end_at: its chunk count (chunk.count) is missing or not a number") || exit 1
	[ "$got" = "$total" ] || fail "count $count: $got events, expected $total"
	unfold err.txt | grep -q "no end record" && fail "count $count: said to have no end record"
done

# 4. Chunk headers whose first time is 0 (one a CPU's first chunk, one not): the
# recording's start is still its first page's, so the span (last record - first page,
# from the pages) and what --from/--to select are the sound file's; the damage is said.
span=$(awk 'NR == 1 || $4 < first { first = $4 } $5 > last { last = $5 } END { print last - first }' \
	records.txt)
$edit r.vmt ft0.vmt chunk:0:first_ts=0 chunk:5:first_ts=0 || fail vmtedit
ft0_at=$($edit r.vmt list | awk '$1 == 0 { print $2 }')
got=$(damaged ft0.vmt "the chunk at offset $ft0_at (CPU [0-9]*) says it begins at another time than its pages do (and 1 more)" --from 0 --to 5ms) || exit 1
[ "$got" = "$total" ] || fail "first time 0: $got events, expected $total"
[ "$(json out.txt 'd["span_ns"]')" = "$span" ] || fail "first time 0: span $(json out.txt 'd["span_ns"]'), not $span"
cp out.txt ft0.json
vmtrace-report --json --from 0 --to 5ms r.vmt >sound.json || fail "r.vmt --from 0 --to 5ms"
[ "$(json ft0.json 'd["filtered_out"]')" = "$(json sound.json 'd["filtered_out"]')" ] &&
	[ "$(json sound.json '0 < d["filtered_out"] < d["pairs"]')" = True ] ||
	fail "first time 0: --from 0 --to 5ms selects otherwise than on the sound file"

# 5. A chunk of pages of another size than the recording's sub-buffers (4096 bytes in its
# header_page): 8 pages of 2048 bytes, the same bytes, so that only that is wrong.
$edit r.vmt ps.vmt chunk:5:page_size=2048 chunk:5:pages=8 || fail vmtedit
got=$(damaged ps.vmt "a chunk of 2048-byte pages, where the recording's are 4096 bytes") || exit 1
[ "$got" = $((total - n5)) ] || fail "page size: $got events, expected $((total - n5))"

# 6. Values no recorder writes, which sums and differences would wrap: a monotonic end of
# 2^64 - 1 ns, a CPU's ring-buffer counter of 2^64 - 1, a page's stored lost-event count
# of 2^64 - 1. The sound file's figures are what its script says: 1 s recorded, 5 + 7
# events lost by the statistics, 3 by the page (whose pages' sum would wrap to less).
max=18446744073709551615
script() {	# script PAGE_COUNT CPU1_END_OVERRUN
	printf 'cpus 0-1\nmeta monotonic.start_ns 5000000000\nendmeta monotonic.end_ns 6000000000\n'
	printf 'stats 0 0 5\nstats 1 0 %s\n' "$2"
	i=0
	while [ $i -lt 50 ]; do
		[ $i = 20 ] && echo "page 0 missed $1"
		echo "exit 0 $((1000 + i * 1000)) 100 0x1e 0"
		echo "entry 0 $((1500 + i * 1000)) 100 0"
		echo "exit 1 $((1010 + i * 1000)) 101 0x1e 1"
		echo "entry 1 $((1600 + i * 1000)) 101 1"
		i=$((i + 1))
	done
}
script 3 7 | "$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" v.vmt || fail "mkvmt v.vmt"
run vmtrace-report --json v.vmt
expect_rc 0 v.vmt
[ "$(json out.txt '(d["duration_ns"], d["lost_events_stats"], d["lost_events_pages"])')" = \
	"(1000000000, 12, 3)" ] || fail "v.vmt: $(json out.txt '(d["duration_ns"], d["lost_events_stats"], d["lost_events_pages"])')"
$edit v.vmt mono.vmt end:monotonic.end_ns=$max || fail vmtedit
damaged mono.vmt "damaged file: an impossible value of monotonic.end_ns: taken as not known" >/dev/null ||
	exit 1
[ "$(json out.txt 'd["duration_ns"]')" = None ] || fail "mono.vmt: a duration of $(json out.txt 'd["duration_ns"]')"
script 3 $max | "$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" stats.vmt || fail "mkvmt stats.vmt"
damaged stats.vmt "damaged file: an impossible value of stats.end.cpu1: taken as not known" >/dev/null ||
	exit 1
[ "$(json out.txt '(d["lost_events_stats"], d["lost_events_exact"], d["lost_events"] < 2**63)')" = \
	"(None, False, True)" ] || fail "stats.vmt: lost events $(json out.txt 'd["lost_events"]')"
script $max 7 | "$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" page.vmt || fail "mkvmt page.vmt"
run vmtrace-report page.vmt
# the page's count is no count: the statistics (which count the kernel's losses) stand
grep -q "^Lost events = 12 (up to 6 exits may be missing" out.txt || { cat out.txt; fail "page.vmt: lost events"; }

# 7. Every chunk damaged: the first line says so, not that no guest ran or that the filters
# selected nothing; vmtrace-convert says the same.
$edit r.vmt allbad.vmt corrupt:all || fail vmtedit
for prog in vmtrace-report "vmtrace-convert --csv -o all.csv"; do
	run $prog allbad.vmt
	expect_rc 2 "$prog allbad.vmt"
	[ "$(head -n 1 err.txt)" = "${prog%% *}: allbad.vmt: nothing to report: all $chunks chunks of the \
recording are damaged, not one event could be read" ] || { cat err.txt; fail "$prog: all damaged"; }
	unfold err.txt | grep -q "no guest\|no exits" && fail "$prog: blames the guest or the filters"
done

# 8. A cut recording with a whole one after it (cat): read as the cut one up to the other's
# file header, which the warning names, whether the cut is inside a chunk or between two.
$edit r.vmt list >list.txt || fail "vmtedit list"
k=$(awk '$2 > 90000 { print $1; exit }' list.txt)
boundary=$(awk -v k=$k '$1 == k { print $2 }' list.txt)
want=$(awk -v k=$k '$1 < k { n += $3 } END { print n }' records.txt)
for cut in $((boundary + 1000)) $boundary; do
	head -c $cut r.vmt >joined.vmt
	cat r.vmt >>joined.vmt
	got=$(damaged joined.vmt "the recording was not finished, and another recording's file header \
follows it at offset $cut (files joined): that one is not read; figures cover the first one's $k complete \
chunks") || exit 1
	[ "$got" = "$want" ] || fail "joined at $cut: $got events, expected $want"
done

# 9. Chunk headers that contradict their payload or pages, with sound checksums. Pages
# stored raw are read as the compressed ones; a raw payload a page short of the size its
# header gives is damage (not read past its end). A CPU's first chunk whose header knows no
# first time (2^64 - 1, as a cut piece without records has) but whose pages hold records:
# its pages date it, the damage is said, the span and --from/--to are the sound file's.
n0=$(awk '$1 == 0 { print $3 }' records.txt)
$edit r.vmt raw.vmt raw:0 || fail vmtedit
run vmtrace-report --json raw.vmt
expect_rc 0 raw.vmt
cp r.vmt sound.vmt
vmtrace-report --json sound.vmt >sound_all.json || fail "sound.vmt --json"
sed 's/"raw\.vmt"/"sound.vmt"/' out.txt | cmp -s - sound_all.json ||
	fail "raw.vmt: a chunk stored raw is read otherwise"
$edit r.vmt short.vmt raw:0:short || fail vmtedit
got=$(damaged short.vmt "damaged data skipped: 1 block") || exit 1
[ "$got" = $((total - n0)) ] || fail "short raw payload: $got events, expected $((total - n0))"
$edit r.vmt undated.vmt chunk:0:first_ts=18446744073709551615 || fail vmtedit
got=$(damaged undated.vmt "the chunk at offset $ft0_at (CPU [0-9]*) says it begins at another time than its pages do" --from 0 --to 5ms) || exit 1
[ "$got" = "$total" ] || fail "undated: $got events, expected $total"
[ "$(json out.txt 'd["span_ns"]')" = "$span" ] || fail "undated: span $(json out.txt 'd["span_ns"]'), not $span"
[ "$(json out.txt 'd["filtered_out"]')" = "$(json sound.json 'd["filtered_out"]')" ] ||
	fail "undated: --from 0 --to 5ms selects otherwise than on the sound file"

# 10. Statistics and times in META and END that are not numbers, or past 2^64, are as
# impossible as a counter going back: said, taken as not known, never read as 0 or wrapped.
for change in "end:monotonic.end_ns=abc:monotonic.end_ns" "meta:monotonic.start_ns=-1:monotonic.start_ns"; do
	key=${change##*:}
	$edit v.vmt mono2.vmt "${change%:*}" || fail vmtedit
	damaged mono2.vmt "damaged file: an impossible value of $key: taken as not known" >/dev/null ||
		exit 1
	[ "$(json out.txt 'd["duration_ns"]')" = None ] ||
		fail "$change: a duration of $(json out.txt 'd["duration_ns"]')"
done
# (the recorder writes the start statistics in META, the end ones in END)
for over in -3 abc 99999999999999999999999; do
	for when in meta:start end:end; do
		$edit v.vmt stats2.vmt "${when%%:*}:stats.${when#*:}.cpu1=$(printf 'entries: 0\noverrun: %s' $over)" ||
			fail vmtedit
		damaged stats2.vmt "damaged file: an impossible value of stats.${when#*:}.cpu1: taken as not known" \
			>/dev/null || exit 1
		[ "$(json out.txt '(d["lost_events_stats"], d["lost_events_exact"])')" = "(None, False)" ] ||
			fail "overrun $over ($when): lost events $(json out.txt 'd["lost_events"]')"
	done
done

# 11. A page stamped after its CPU's end statistics were read ("now ts", plus a second for
# clocks not synchronised across CPUs) is damaged, as a trace.dat's is: left out, said,
# exit 2. One within the second is not. The sound file, with those statistics, reads clean.
set -- $(awk '$1 == 5 { print $2, $3, $5 }' records.txt)
cpu=$1 n5=$2 last=$3
now=$(awk -v t=$last 'BEGIN { printf "%d.%06d", t / 1e9, (t % 1e9) / 1e3 }')
stats="end:stats.end.cpu$cpu=$(printf 'entries: 0\noverrun: 0\nnow ts: %s' $now)"
$edit r.vmt now.vmt "$stats" || fail vmtedit
run vmtrace-report --json now.vmt
expect_rc 0 "now.vmt (its end statistics' now ts)"
$edit r.vmt late.vmt "$stats" pagets:5:0=$((last + 1500000000)) || fail vmtedit
got=$(damaged late.vmt "damaged data skipped: 1 page (a page stamped after its CPU's end statistics were read): page 0 of the chunk at offset") || exit 1
[ "$got" -lt "$total" ] && [ "$got" -gt $((total - n5)) ] ||
	fail "late page: $got events, expected fewer than $total, more than $((total - n5))"
$edit r.vmt skew.vmt "$stats" pagets:5:0=$((last + 500000000)) || fail vmtedit
run vmtrace-report --json skew.vmt
unfold err.txt | grep -q "stamped after" && fail "a page half a second after now ts is damage"

# 12. An unknown --reason lists every name of the recording's: one message, folded within
# 120 columns, that unfolds to the list whole (SVM's names from the first, over 40 of them).
run vmtrace-report --reason bogus r.vmt
expect_rc 64 "--reason bogus"
expect_one_line_error vmtrace-report "unknown exit reason 'bogus' in this"
[ "$(unfold err.txt | wc -l)" = 1 ] && widths_ok err.txt || fail "--reason bogus: not one message within 120 columns"
names=$(unfold err.txt | sed 's/.*one of: //; s/, / /g')
set -- $names
[ $# -gt 40 ] && [ "$1 $2" = "interrupt nmi" ] || fail "--reason bogus: names '$names'"

finish
