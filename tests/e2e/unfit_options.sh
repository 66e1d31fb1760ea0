#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An option the input has no use for (README's exit statuses): vmtrace-report and
# vmtrace-convert refuse it with exit status 64 and one line naming the file, the option and
# why, with no --help hint (the command line is well formed; the file is what it does not
# fit), and write nothing: --vcpu on events without a vCPU id, --vm on a recording without
# a VM map, --format-dir and --pair on a .vmt; single reports, merges and comparisons alike;
# vmtrace-convert --legacy on an input a trace.bin cannot hold.
. "$(dirname "$0")/lib.sh"

S="$DATA/sample-syscalls.vmt"
K="$DATA/sample-kvm.vmt"
W="$DATA/why/sample/kvm.vmt"

# unfit LINE PROG ARGS...: exit 64, exactly LINE on stderr, nothing on stdout
unfit() {
	line=$1
	shift
	run "$@"
	expect_rc 64 "$*"
	[ "$(unfold err.txt)" = "$line" ] || { cat err.txt >&2; fail "$*: not the line '$line'"; }
	[ ! -s out.txt ] || fail "$*: wrote to standard output"
}

# The begin event's own format, as the .vmt stores it (its META is plain text): whether it
# has a vcpu_id field, read here without the programs.
format_has_vcpu_id() {	# FILE EVENT
	tr -c '[:print:]\n\t' '\n' <"$1" |
		awk -v ev="name: $2\$" '$0 ~ ev { on = 1; next } on && /^print fmt/ { exit }
			on && /field:.* vcpu_id;/ { found = 1 } END { exit !found }'
}
! format_has_vcpu_id "$S" sys_enter || fail "sample-syscalls.vmt: sys_enter has a vcpu_id"
format_has_vcpu_id "$K" kvm_exit || fail "sample-kvm.vmt: kvm_exit has no vcpu_id"

for p in vmtrace-report vmtrace-convert; do
	out=
	[ $p = vmtrace-convert ] && out="--csv -o $scratch/out.csv"
	# shellcheck disable=SC2086 # convert's output options
	{
	unfit "$p: $S: --vcpu 0: raw_syscalls:sys_enter events carry no vCPU id (their format has no vcpu_id field); --cpu selects by CPU" \
		$p $out --vcpu 0 "$S"
	unfit "$p: $S: --vcpu 0,2-3: raw_syscalls:sys_enter events carry no vCPU id (their format has no vcpu_id field); --cpu selects by CPU" \
		$p $out --vcpu 0,2-3 "$S"
	unfit "$p: $W: --vm web1: this recording has no VM map (it was not made with vmtrace-record --vm)" \
		$p $out --vm web1 "$W"
	unfit "$p: $K: --format-dir does not apply: a .vmt file carries its own event formats" \
		$p $out --format-dir "$scratch" "$K"
	unfit "$p: $K: --pair does not apply: a .vmt file names its own event pair" \
		$p $out --pair kvm:kvm_exit,kvm:kvm_entry "$K"
	}
	[ ! -e out.csv ] || fail "$p: an output file was left"
	# where the events do carry one, --vcpu selects (the same option, a file it fits)
	# shellcheck disable=SC2086
	run $p $out --vcpu 0 "$K"
	expect_rc 0 "$p --vcpu 0 on a recording of kvm_exit"
done
rm -f out.csv

# Several recordings merged, and a comparison: the same line and status for the file that
# does not fit, whichever side it is on.
unfit "vmtrace-report: $S: --vcpu 1: raw_syscalls:sys_enter events carry no vCPU id (their format has no vcpu_id field); --cpu selects by CPU" \
	vmtrace-report --vcpu 1 "$S" "$DATA/small-syscalls.vmt"
unfit "vmtrace-report: $W: --vm web1: this recording has no VM map (it was not made with vmtrace-record --vm)" \
	vmtrace-report --compare --vm web1 "$W" "$K"
cp "$K" k.vmt
unfit "vmtrace-report: $W: --vm web1: this recording has no VM map (it was not made with vmtrace-record --vm)" \
	vmtrace-report --vm web1 "$W" k.vmt

# vmtrace-convert --legacy on an input a trace.bin cannot hold (README: 64, an option the
# input does not fit): another pair, several CPUs without --cpu, sub-buffers other than the
# original's 64-bit 4 KiB ones. One line, exit 64, no trace.bin left.
F618="$DATA/formats/linux-6.18-x86_64"
printf 'exit 0 1000 5 0x72 0\nentry 0 1100 5 0\nexit 1 2000 6 0x72 1\nentry 1 2300 6 1\n' >two.txt
"$HELPERS/mkvmt" "$F618" two.vmt <two.txt || fail "mkvmt two.vmt"
mkdir -p f16/kvm/kvm_exit f16/kvm/kvm_entry
cp "$DATA/formats/header_page_16k" f16/header_page
cp "$F618/kvm/kvm_exit/format" f16/kvm/kvm_exit/
cp "$F618/kvm/kvm_entry/format" f16/kvm/kvm_entry/
head -2 two.txt | "$HELPERS/mkvmt" f16 p16.vmt || fail "mkvmt p16.vmt"
cp "$DATA/tracedat/syscalls-extract.dat" .
legacy_unfit() {	# legacy_unfit LINE ARGS...
	line=$1
	shift
	unfit "$line" vmtrace-convert --legacy -o "$scratch/t.bin" "$@"
	[ ! -e t.bin ] && ! ls ./*.part 2>/dev/null || fail "--legacy $*: an output file was left"
}
legacy_unfit "vmtrace-convert: $S: a trace.bin holds kvm_exit/kvm_entry pairs only, not raw_syscalls:sys_enter/raw_syscalls:sys_exit (vmtrace-report reads this .vmt as it is)" \
	"$S"
legacy_unfit "vmtrace-convert: syscalls-extract.dat: a trace.bin holds kvm_exit/kvm_entry pairs only, not raw_syscalls:sys_enter/raw_syscalls:sys_exit: use --to-vmt for a .vmt" \
	--pair raw_syscalls:sys_enter,raw_syscalls:sys_exit syscalls-extract.dat
legacy_unfit "vmtrace-convert: two.vmt: the recording has several CPUs and trace.bin holds one: choose with --cpu" \
	two.vmt
legacy_unfit "vmtrace-convert: p16.vmt: the original trace.bin holds 64-bit 4 KiB sub-buffers only" \
	p16.vmt
# the same inputs where they fit: one CPU chosen
run vmtrace-convert --legacy --cpu 1 -o t.bin two.vmt
expect_rc 0 "--legacy --cpu 1 of two CPUs"
[ -s t.bin ] || fail "--legacy --cpu 1: no trace.bin"
finish
