#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# No line of a text view ends in a blank: a row without further fields (a syscall pair's
# exit lists have no RIP) ended with the space that separates them (diff and editors show
# it, a golden file keeps it). The bundled recordings, every text view that lists exits.
. "$(dirname "$0")/lib.sh"

for f in "$DATA/sample-kvm.vmt" "$DATA/sample-syscalls.vmt" "$DATA/why/sample/kvm.vmt"; do
	for args in "" "--wide" "--threshold 100us" "--threshold 1us --wide" "--top 40" \
		    "--around 1s" "--around 5ms,1ms --why" "-v" "-v --why" "-v --wide" \
		    "--histogram" "--hist-format cyclictest" "--interval 500ms"; do
		# --why takes a recording with context events (the others: exit 64, unfit_options.sh)
		case "$args:$f" in *--why*:*/why/*) ;; *--why*) continue ;; esac
		# shellcheck disable=SC2086 # the options are words
		run vmtrace-report $args "$f"
		expect_rc 0 "$f $args"
		[ -s out.txt ] || fail "$f $args: no output"
		if grep -n ' $' out.txt >blanks.txt; then
			head -3 blanks.txt | cat -A >&2
			fail "$f $args: $(wc -l <blanks.txt) lines end in a blank"
		fi
	done
done
# the rows that ended so: a syscall pair's longest and listed exits have no fields
run vmtrace-report --threshold 100us "$DATA/sample-syscalls.vmt"
grep -q '^     0\.006887890    1          18607 execve(0x3b)             861\.1 us$' out.txt ||
	fail "a syscall exit's row: $(grep -m1 0.006887890 out.txt)"
exit 0
