#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One recording given twice, by the same path, a symlink, a hard link, another spelling or
# as standard input: merging refuses it (exit 64, one line naming both), since each exit
# would count twice; --compare warns and compares (every change 0, the counts those of the
# single report). A copy (another inode, the same time.start, monotonic.start_ns and traced
# CPUs) is the same recording: refused as well (the adversarial tester's `cp S copy.vmt;
# vmtrace-report S copy.vmt` counted every exit twice); copies of different CPUs of it
# (vmtrace-convert --to-vmt --cpu) hold different exits: merged, the whole's count.
. "$(dirname "$0")/lib.sh"

cp "$DATA/sample-kvm.vmt" k.vmt
cp k.vmt copy.vmt
ln -s k.vmt sym.vmt
ln k.vmt hard.vmt
run vmtrace-report --json k.vmt
expect_rc 0 "single"
n=$(json out.txt 'd["pairs"]')

refused() {	# refused A B [stdin]: exit 64, one line naming both
	if [ $# = 3 ]; then
		vmtrace-report "$1" "$2" <"$3" >out.txt 2>err.txt
		rc=$?
	else
		run vmtrace-report "$@"
	fi
	expect_rc 64 "$1 $2"
	expect_one_line_error vmtrace-report "same file"
	[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "$1 $2: not one line"; }
	b=$2
	[ "$b" = - ] && b="standard input"
	unfold err.txt | grep -qF "$1 and $b are" || { cat err.txt; fail "$1 $2: names"; }
	[ ! -s out.txt ] || fail "$1 $2: printed a report"
}
refused k.vmt k.vmt
refused k.vmt sym.vmt
refused hard.vmt ./k.vmt
refused "$PWD/k.vmt" hard.vmt
refused k.vmt - k.vmt
run vmtrace-report copy.vmt k.vmt sym.vmt
expect_rc 64 "three files, two the same"
unfold err.txt | grep -qF "k.vmt and sym.vmt are the same file" || fail "third and fourth"

run vmtrace-report --json k.vmt copy.vmt
expect_rc 64 "a copy"
[ "$(unfold err.txt)" = "vmtrace-report: k.vmt and copy.vmt are one recording (the same time.start and monotonic.start_ns): merged, each exit would count twice" ] ||
	{ cat err.txt; fail "a copy: not refused in one line naming both"; }
[ ! -s out.txt ] || fail "a copy: printed a report"
vmtrace-convert --to-vmt -o conv.vmt k.vmt || fail "--to-vmt"
run vmtrace-report --json conv.vmt copy.vmt
expect_rc 64 "a converted copy"
# two CPUs' exits, with the start keys of a recorder's file (a copy's check reads them)
python3 - <<'PY' >two.txt || fail "writing the script"
print("cpus 0-1")
print("meta time.start 2026-12-07T01:02:03.000000004Z")
print("meta monotonic.start_ns 5000000")
for cpu in (0, 1):
    for i in range(300 + 200 * cpu):
        t = 1000000 + i * 3000
        print(f"exit {cpu} {t} {500 + cpu} {30 + i % 3} {cpu}")
        print(f"entry {cpu} {t + 700 + (i * 37) % 900} {500 + cpu} {cpu}")
PY
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" two.vmt <two.txt || fail mkvmt
cp two.vmt twocopy.vmt
run vmtrace-report two.vmt twocopy.vmt
expect_rc 64 "a copy of a generated recording"
vmtrace-convert --to-vmt --cpu 0 -o cpu0.vmt two.vmt || fail "--to-vmt --cpu 0"
vmtrace-convert --to-vmt --cpu 1 -o cpu1.vmt two.vmt || fail "--to-vmt --cpu 1"
run vmtrace-report --json cpu0.vmt cpu1.vmt
expect_rc 0 "copies of CPU 0 and CPU 1"
# 300 exits on CPU 0 and 500 on CPU 1, each with its entry: the script's 800
[ "$(json out.txt '[g["count"] for g in d["merged"]["groups"] if g["reason_code"] is None][0]')" \
	= 800 ] || fail "copies of two CPUs merged: not 300 + 500"

run vmtrace-report --compare --json k.vmt sym.vmt
expect_rc 0 "--compare with itself"
unfold err.txt | grep -q "warning: k.vmt and sym.vmt are the same file" || fail "--compare: no warning"
[ "$(json out.txt 'all(v in (0, None) for g in d["compare"]["groups"] for v in g["change_pct"].values())')" \
	= True ] || fail "--compare with itself: a change"
[ "$(json out.txt '[g["before"]["count"] for g in d["compare"]["groups"] if g["reason_code"] is None][0]')" \
	= "$n" ] || fail "--compare with itself: count"
finish
