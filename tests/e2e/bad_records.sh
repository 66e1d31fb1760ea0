#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A record too short to be any event's (a broken writer's, in pages whose checksum holds)
# is damage every view says: a note naming the file and the count, the File line's
# "(damaged)", exit status 2; in one pass and in time slices, in a merge and a comparison,
# and in vmtrace-convert. Before, only the JSON's bad_records counted it.
. "$(dirname "$0")/lib.sh"

F618="$DATA/formats/linux-6.18-x86_64"
command -v python3 >/dev/null || skip "python3 missing"

# Two CPUs, six chunks each, 40 pairs a chunk; short records between pairs, some of
# them between an exit and its entry. The script's own counts are the oracle.
python3 - <<'PY' >b.txt || fail "writing the script"
print("cpus 0-1")
pairs = short = 0
for cpu in (0, 1):
    t = 1000000 + cpu * 300
    for chunk in range(6):
        for i in range(40):
            print(f"exit {cpu} {t} {500 + cpu} {30 + i % 3} {cpu}")
            if (chunk * 40 + i) % 17 == 5:
                print(f"short {cpu} {t + 100}")
                short += 1
            print(f"entry {cpu} {t + 400} {500 + cpu} {cpu}")
            pairs += 1
            t += 1000
        print(f"chunk {cpu}")
open("want", "w").write(f"{pairs} {short}\n")
PY
read -r pairs short <want
"$HELPERS/mkvmt" "$F618" b.vmt <b.txt || fail "mkvmt b.vmt"
grep -v '^short' b.txt >g.txt
"$HELPERS/mkvmt" "$F618" g.vmt <g.txt || fail "mkvmt g.vmt"

note="b.vmt: damaged data skipped: $short records too short to be any event's"
# said (folded at 120 columns: the note's start is on its first line)
said() {	# said FILE.err WHAT
	grep -qF "$note" "$1" || { cat "$1" >&2; fail "$2: no note of the $short short records"; }
}

# the clean file: no note, exit 0, no bad records (the check below can fail)
vmtrace-report --json g.vmt >g.json 2>g.err || fail "g.vmt: exit $?"
[ "$(json g.json 'd["bad_records"]')" = 0 ] || fail "g.vmt: bad records counted"
grep -q "too short" g.err && fail "g.vmt: a note of short records"

# one pass and time slices: the same count, the same note, exit 2, every pair kept
for mode in one slices; do
	if [ $mode = one ]; then
		vmtrace-report --jobs 1 --json b.vmt >b.json 2>b.err
	else
		VMTRACE_TEST_SLICES=3 vmtrace-report --jobs 2 --json b.vmt >b.json 2>b.err
	fi
	rc=$?
	[ $rc = 2 ] || fail "b.vmt ($mode): exit status $rc, not 2"
	[ "$(json b.json 'd["bad_records"]')" = "$short" ] ||
		fail "b.vmt ($mode): bad_records $(json b.json 'd["bad_records"]'), not $short"
	[ "$(json b.json 'd["pairs"]')" = "$pairs" ] || fail "b.vmt ($mode): not $pairs pairs"
	said b.err "report --json ($mode)"
done
grep -q "^vmtrace-report: 3 time slices$" b.err || fail "b.vmt: not analysed in slices"

# the text report: the File line says so
vmtrace-report b.vmt >b.txt 2>b.err
[ $? = 2 ] || fail "b.vmt: the text report's exit status is not 2"
grep -q "^File: b.vmt (damaged)$" b.txt || fail "b.vmt: the File line does not say damaged"
said b.err "report"

# several recordings merged, and compared: the damaged one's note
vmtrace-report g.vmt b.vmt >m.txt 2>m.err
[ $? = 2 ] || fail "merge: exit status not 2"
said m.err "merge"
grep -q "g.vmt: damaged" m.err && fail "merge: the clean file named as damaged"
vmtrace-report --compare g.vmt b.vmt >c.txt 2>c.err
[ $? = 2 ] || fail "compare: exit status not 2"
said c.err "compare"

# vmtrace-convert: every pair's row, the note, exit 2
vmtrace-convert --csv b.vmt -o b.csv 2>v.err
[ $? = 2 ] || fail "convert --csv: exit status not 2"
said v.err "convert --csv"
[ "$(($(wc -l <b.csv) - 1))" = "$pairs" ] || fail "convert --csv: not $pairs rows"
vmtrace-convert --series=1ms --csv b.vmt -o s.csv 2>s.err
[ $? = 2 ] || fail "convert --series: exit status not 2"
said s.err "convert --series"
exit 0
