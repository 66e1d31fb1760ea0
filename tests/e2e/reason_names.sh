#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --reason names match the recording's own ISA, ignoring case: on a real AMD SVM recording
# HLT and CPUID select what hlt and cpuid do, counted against a recount of the unfiltered
# CSV by reason code; on an Intel VMX recording (generated) hlt selects HLT, counted against
# the script that made it. A name of the other ISA, an unknown name and a name for a pair
# without names (system calls) are refused in one line that says why; numbers still work.
. "$(dirname "$0")/lib.sh"

# count FILE CODE...: rows of the unfiltered CSV whose reason_code is one of CODE
count() {
	python3 - "$@" <<'PY'
import csv, sys
codes = {int(c, 0) for c in sys.argv[2:]}
print(sum(1 for r in csv.DictReader(open(sys.argv[1], newline="")) if int(r["reason_code"]) in codes))
PY
}
# selected FILE: the report's per-reason counts as "code:count" words, by code
selected() {
	json "$1" '" ".join("%d:%d" % (r["code"], r["count"]) for r in sorted(d["reasons"], key=lambda r: r["code"]))'
}

# A real AMD SVM recording (sample-kvm.vmt: a KVM host under QEMU).
K="$DATA/sample-kvm.vmt"
vmtrace-convert --csv -o all.csv "$K" || fail "CSV of $K"
hlt=$(count all.csv 0x78)
cpuid=$(count all.csv 0x72)
[ "$hlt" -gt 0 ] && [ "$cpuid" -gt 0 ] || fail "the sample has no hlt or cpuid exits?"
for names in hlt HLT Hlt 0x78 120; do
	run vmtrace-report --json --reason "$names" "$K"
	expect_rc 0 "--reason $names"
	[ "$(selected out.txt)" = "120:$hlt" ] ||
		fail "--reason $names on AMD SVM: $(selected out.txt), expected 120:$hlt"
done
run vmtrace-report --json --reason CPUID,HLT "$K"
expect_rc 0 "--reason CPUID,HLT"
[ "$(selected out.txt)" = "114:$cpuid 120:$hlt" ] || fail "--reason CPUID,HLT: $(selected out.txt)"
# the rows of convert follow the same resolution
vmtrace-convert --csv --reason HLT -o hlt.csv "$K" || fail "convert --reason HLT"
[ "$(count hlt.csv 0x78)" = "$hlt" ] && [ "$(($(wc -l <hlt.csv) - 1))" = "$hlt" ] ||
	fail "convert --reason HLT: $(($(wc -l <hlt.csv) - 1)) rows, expected $hlt"

run vmtrace-report --reason EXTERNAL_INTERRUPT "$K"
expect_rc 64 "a VMX name on an SVM recording"
expect_one_line_error vmtrace-report "EXTERNAL_INTERRUPT is an Intel VMX exit reason; this recording is AMD SVM, whose name is interrupt\$"
[ "$(unfold err.txt | wc -l)" = 1 ] && widths_ok err.txt || fail "more than one message, or over 120 columns"
run vmtrace-convert --csv --reason EPT_VIOLATION "$K"
expect_one_line_error vmtrace-convert "EPT_VIOLATION is an Intel VMX exit reason; this recording is AMD SVM, whose name is npf\$"
run vmtrace-report --reason hltt "$K"
expect_rc 64 "an unknown name"
expect_one_line_error vmtrace-report "unknown exit reason 'hltt' in this AMD SVM recording (did you mean hlt?); give a number or one of: interrupt, nmi, vintr, cpuid, pause, hlt, io, msr, npf, read_cr0, "
[ "$(unfold err.txt | wc -l)" = 1 ] && widths_ok err.txt || fail "more than one message, or over 120 columns"
# only a close name is suggested (man: two edits at most, one per three letters): the
# suggestions written out by hand, "-" for none
for t in hltt:hlt mrs:msr cpuld:cpuid intr:vintr nmii:nmi read_cr9:read_cr0 iox:io \
	foo:- in:- xyz:- bogus:- hlt_exit:-; do
	run vmtrace-report --reason "${t%%:*}" "$K"
	expect_rc 64 "--reason ${t%%:*}"
	got=$(unfold err.txt | sed -n 's/.* recording (did you mean \([^?]*\)?);.*/\1/p')
	[ "${got:--}" = "${t#*:}" ] || fail "--reason ${t%%:*}: suggested '$got', not ${t#*:}"
done

# An Intel VMX recording: HLT (12) three times, CPUID (10) once, EPT_VIOLATION (48) once.
cat >vmx.txt <<'S'
isa 1
exit 0 1000 7 12 0
entry 0 1300 7 0
exit 0 5000 7 12 0
entry 0 9000 7 0
exit 0 10000 7 10 0
entry 0 10100 7 0
exit 0 11000 7 12 0
entry 0 11500 7 0
exit 0 12000 7 48 0
entry 0 14000 7 0
S
"$HELPERS/mkvmt" "$DATA/formats/linux-6.1-x86_64" vmx.vmt <vmx.txt || fail mkvmt
for names in hlt HLT 12; do
	run vmtrace-report --json --reason "$names" vmx.vmt
	expect_rc 0 "--reason $names on VMX"
	[ "$(selected out.txt)" = "12:3" ] || fail "--reason $names on Intel VMX: $(selected out.txt)"
done
run vmtrace-report --json --reason cpuid,ept_violation vmx.vmt
[ "$(selected out.txt)" = "10:1 48:1" ] || fail "--reason cpuid,ept_violation: $(selected out.txt)"
run vmtrace-report --reason npf vmx.vmt
expect_one_line_error vmtrace-report "npf is an AMD SVM exit reason; this recording is Intel VMX, whose name is EPT_VIOLATION\$"
run vmtrace-report --reason bogus vmx.vmt
expect_one_line_error vmtrace-report "unknown exit reason 'bogus' in this Intel VMX recording; give a number or one of: EXCEPTION_NMI, EXTERNAL_INTERRUPT, CPUID, HLT, IO_INSTRUCTION, EPT_VIOLATION\$"

# System calls: the "reason" is the syscall number; names do not exist and numbers work.
S="$DATA/sample-syscalls.vmt"
vmtrace-convert --csv -o sys.csv "$S" || fail "CSV of $S"
code=$(python3 -c 'import csv,sys,collections
c = collections.Counter(r["reason_code"] for r in csv.DictReader(open(sys.argv[1], newline="")))
print("%s:%d" % c.most_common(1)[0])' sys.csv)
run vmtrace-report --json --reason "${code%%:*}" "$S"
expect_rc 0 "--reason NUMBER on system calls"
[ "$(selected out.txt)" = "$code" ] || fail "--reason ${code%%:*}: $(selected out.txt), expected $code"
# ... and names: the x86-64 numbering (the sample was recorded on x86-64), the name a
# reason's code has in the CSV selecting the same pairs as the code.
run vmtrace-report --json --reason getppid "$S"
expect_rc 0 "--reason getppid on system calls"
[ "$(selected out.txt)" = "110:$(python3 -c 'import csv,sys
print(sum(1 for r in csv.DictReader(open(sys.argv[1], newline="")) if r["reason"] == "getppid"
          and r["reason_code"] == "110"))' sys.csv)" ] || fail "--reason getppid: $(selected out.txt)"
run vmtrace-report --reason getpppid "$S"
expect_rc 64 "an unknown system call"
expect_one_line_error vmtrace-report "unknown system call 'getpppid' (did you mean getppid?); give a number or a name of syscalls(2)\$"
# A pair other than raw_syscalls and kvm has numbers only.
run vmtrace-report --pair sched:sched_switch,sched:sched_wakeup --reason read \
	"$DATA/tracedat/context.dat"
expect_rc 64 "a name for sched_switch"
expect_one_line_error vmtrace-report "'read': sched:sched_switch events have numbers, not names"
# A trace.dat of system calls names them too (its uname's last word is the machine).
run vmtrace-report --json --pair raw_syscalls:sys_enter,raw_syscalls:sys_exit \
	--reason getppid "$DATA/tracedat/syscalls-extract.dat"
expect_rc 0 "--reason getppid on a trace.dat"
[ "$(json out.txt '[r["name"] for r in d["reasons"]]')" = "['getppid']" ] ||
	fail "trace.dat: $(json out.txt '[r["name"] for r in d["reasons"]]')"
# Spaces around a list's items are not part of the names ("hlt, io" as a shell user types
# it): the same report as without them, for --reason of report and convert.
K="$DATA/sample-kvm.vmt"
vmtrace-report --json --reason hlt,io "$K" >tight.json || fail "--reason hlt,io"
run vmtrace-report --json --reason ' hlt , io' "$K"
expect_rc 0 "--reason ' hlt , io'"
cmp -s tight.json out.txt || fail "--reason ' hlt , io' is not --reason hlt,io"
[ "$(json tight.json 'sorted(r["name"] for r in d["reasons"])')" = "['hlt', 'io']" ] ||
	fail "--reason hlt,io: $(json tight.json '[r["name"] for r in d["reasons"]]')"
vmtrace-convert --csv --reason hlt,io "$K" >tight.csv || fail "convert --reason hlt,io"
run vmtrace-convert --csv --reason 'hlt,	io ' "$K"
cmp -s tight.csv out.txt || fail "convert --reason 'hlt, io ' is not --reason hlt,io"

# Numbers are decimal, or hexadecimal after 0x: a leading 0 is no octal prefix (0170 once
# selected hlt, 0x78; --cpu reads 010 as 10), and a number the 32-bit exit_reason field
# cannot hold is refused (4294967410 once selected nothing, exit 0).
vmtrace-convert --csv "$K" >all.csv || fail "CSV of $K"
for r in 120 0120 0x78 0X78 00120; do
	vmtrace-convert --csv --reason "$r" "$K" >num.csv 2>/dev/null || fail "--reason $r"
	[ "$(($(wc -l <num.csv) - 1))" = "$(count all.csv 120)" ] ||
		fail "--reason $r: $(($(wc -l <num.csv) - 1)) rows, not the $(count all.csv 120) of 120"
done
[ "$(count all.csv 170)" = 0 ] && [ "$(count all.csv 120)" -gt 0 ] || fail "the recount"
run vmtrace-report --json --reason 0170 "$K"
expect_rc 0 "--reason 0170"
[ "$(json out.txt 'd["reasons"]')" = "[]" ] || fail "--reason 0170 selected $(json out.txt 'd["reasons"]')"
run vmtrace-report --reason 4294967295 "$K"
expect_rc 0 "--reason 4294967295 (the field's largest)"
for r in 4294967410 0x100000000 99999999999999999999999; do
	run vmtrace-report --reason "$r" "$K"
	expect_rc 64 "--reason $r"
	[ "$(unfold err.txt)" = "vmtrace-report: $K: --reason $r: out of range: the exit_reason field of kvm:kvm_exit holds 32 bits (at most 4294967295)" ] ||
		{ cat err.txt; fail "--reason $r: the message"; }
	run vmtrace-convert --csv --reason "$r" "$K"
	expect_rc 64 "convert --reason $r"
done
for r in 0x 12a 0x7g; do
	run vmtrace-report --reason "$r" "$K"
	expect_rc 64 "--reason $r"
	grep -qx "vmtrace-report: $K: invalid exit reason '$r'" err.txt || { cat err.txt; fail "--reason $r"; }
done
exit 0
