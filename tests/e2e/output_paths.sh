#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Where outputs go, checked with readlink, stat and cmp against a direct run's bytes: a
# symbolic link is followed (its target replaced, the link kept), /proc/self/fd/1 and
# /dev/fd/1 write into the descriptor (a pipe or the shell's file), /dev/null stays a device,
# a replaced file keeps its mode and group; an output that is standard output's file while
# the report goes there is refused (64) with its old content intact; piped input that is no
# recording (yes, /dev/zero) is refused at once (exit 1, not the timeout's 124).
. "$(dirname "$0")/lib.sh"

K="$DATA/why/sample/kvm.vmt"
vmtrace-convert --csv "$K" >direct.csv 2>/dev/null || fail "direct CSV"
vmtrace-report --openmetrics=direct.prom "$K" 2>/dev/null || fail "direct metrics"
vmtrace-report --html direct.html "$K" >/dev/null 2>/dev/null || fail "direct page"
[ -s direct.csv ] && [ -s direct.prom ] && [ -s direct.html ] || fail "direct outputs empty"

no_part() {	# no temporary file left behind
	! ls ./*.part ./*/*.part 2>/dev/null || fail "$1: a temporary file was left"
}

# A link to a regular file: the target gets the new bytes, the link stays a link to it.
for ext in csv prom html; do
	echo old >"tgt.$ext"
	ln -s "tgt.$ext" "lnk.$ext"
	case $ext in
	csv) run vmtrace-convert --csv -o lnk.csv "$K" ;;
	prom) run vmtrace-report --openmetrics=lnk.prom "$K" ;;
	html) run vmtrace-report --html lnk.html "$K" ;;
	esac
	expect_rc 0 "output through a link ($ext)"
	[ "$(readlink "lnk.$ext")" = "tgt.$ext" ] || fail "$ext: the link was replaced"
	cmp -s "tgt.$ext" "direct.$ext" || fail "$ext: the target is not the direct run's output"
	no_part "link ($ext)"
done
# a link in another directory, relative to that directory, and a dangling one
mkdir sub
echo old >sub/t.csv
ln -s t.csv sub/l.csv
ln -s sub/l.csv chain.csv
ln -s sub/later.csv dangling.csv
for o in chain.csv dangling.csv; do
	run vmtrace-convert --csv -o $o "$K"
	expect_rc 0 "-o $o"
	[ -L $o ] || fail "$o: the link was replaced"
done
cmp -s sub/t.csv direct.csv || fail "a chain of links: the last target is not the output"
cmp -s sub/later.csv direct.csv || fail "a dangling link: its target was not created"
[ -L sub/l.csv ] || fail "the link in sub/ was replaced"
no_part "links in another directory"

# /proc/self/fd/1 through a link, and /dev/fd/1, /dev/stdout: into the pipe or the file
ln -s /proc/self/fd/1 so
{ vmtrace-convert --csv -o so "$K" 2>err.txt; echo $? >rc.txt; } | cat >piped.csv
[ "$(cat rc.txt)" = 0 ] || { cat err.txt; fail "-o so (a pipe): exit $(cat rc.txt)"; }
cmp -s piped.csv direct.csv || fail "-o so: the pipe did not get the CSV"
[ -L so ] && [ "$(readlink so)" = /proc/self/fd/1 ] || fail "-o so: the link was replaced"
{ vmtrace-report --openmetrics=so "$K" 2>err.txt; echo $? >rc.txt; } | cat >piped.prom
[ "$(cat rc.txt)" = 0 ] || { cat err.txt; fail "--openmetrics=so (a pipe)"; }
cmp -s piped.prom direct.prom || fail "--openmetrics=so: the pipe did not get the metrics"
for o in so /dev/fd/1 /dev/stdout; do
	rm -f got.csv
	vmtrace-convert --csv -o $o "$K" >got.csv 2>err.txt || { cat err.txt; fail "-o $o >file"; }
	cmp -s got.csv direct.csv || fail "-o $o >got.csv: not the CSV"
	# appended as the shell opened it
	echo head >app.csv
	vmtrace-convert --csv -o $o "$K" >>app.csv 2>err.txt || fail "-o $o >>file"
	{ echo head; cat direct.csv; } | cmp -s - app.csv || fail "-o $o >>app.csv: not appended"
done
[ -L /dev/stdout ] || fail "/dev/stdout is no longer a link"
no_part "descriptors"
# a descriptor given by the shell (3>file) is an output; one the program opened itself (a
# piped input's copy is fd 3 when no 3 was given) is not: refused, the input not written
vmtrace-convert --csv -o /dev/fd/3 "$K" 3>fd3.csv 2>err.txt || { cat err.txt; fail "-o /dev/fd/3 3>file"; }
cmp -s fd3.csv direct.csv || fail "-o /dev/fd/3 3>fd3.csv: not the CSV"
for prog in "vmtrace-convert --csv -o" "vmtrace-report --html"; do
	cat "$K" | $prog /dev/fd/3 - >out.txt 2>err.txt
	rc=$?
	expect_rc 1 "$prog /dev/fd/3 with a piped input"
	expect_one_line_error "${prog%% *}" "/dev/fd/3: .*Bad file descriptor"
done

# Another user's link in a sticky, world-writable directory (/tmp's kind) is not followed,
# whatever fs.protected_symlinks says: refused, the file it names untouched; the owner's
# own link there is followed (the kernel's rule, kept by the program)
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir sticky && chmod 1777 sticky && echo victim >victim.txt
	ln -s "$scratch/victim.txt" sticky/theirs.csv && chown -h nobody sticky/theirs.csv
	ln -s /proc/self/fd/2 sticky/fd.csv && chown -h nobody sticky/fd.csv
	for o in sticky/theirs.csv sticky/fd.csv; do
		run vmtrace-convert --csv -o $o "$K"
		expect_rc 1 "-o $o (nobody's link in a sticky directory)"
		expect_one_line_error vmtrace-convert "$o: .*Permission denied"
	done
	[ "$(cat victim.txt)" = victim ] || fail "nobody's link: the file it names was written"
	ln -s "$scratch/victim.txt" sticky/mine.csv
	vmtrace-convert --csv -o sticky/mine.csv "$K" 2>err.txt || { cat err.txt; fail "root's own link"; }
	cmp -s victim.txt direct.csv || fail "root's own link in a sticky directory: not followed"
else
	skip_part "not root: another user's link in a sticky directory"
fi

# /dev/null: written, still the device
run vmtrace-convert --csv -o /dev/null "$K"
expect_rc 0 "-o /dev/null"
run vmtrace-report --openmetrics=/dev/null "$K"
expect_rc 0 "--openmetrics=/dev/null"
[ "$(stat -c %F /dev/null)" = "character special file" ] || fail "/dev/null is not a device"
[ ! -e /dev/null.old ] || fail "/dev/null.old appeared"

# A replaced file keeps its mode and group (node_exporter's collector reads through them)
echo old >p.prom
chmod 640 p.prom
group=$(id -gn)
if [ "$(id -u)" = 0 ] && getent group nogroup >/dev/null; then
	chgrp nogroup p.prom && group=nogroup
else
	skip_part "not root: the group is not changed"
fi
run vmtrace-report --openmetrics=p.prom "$K"
expect_rc 0 "--openmetrics over a 640 file"
[ "$(stat -c '%a %G' p.prom)" = "640 $group" ] || fail "p.prom: $(stat -c '%a %G' p.prom), not 640 $group"
cmp -s p.prom direct.prom || fail "p.prom: not the metrics"
echo old >c.csv
chmod 604 c.csv
run vmtrace-convert --csv -o c.csv "$K"
[ "$(stat -c %a c.csv)" = 604 ] || fail "c.csv: mode $(stat -c %a c.csv), not 604"
# as another user the owner cannot be kept: written all the same, with a warning
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	mkdir open && chmod 777 open && cp direct.prom open/n.prom && chmod 664 open/n.prom
	# nobody may not reach the build tree (CI builds under a 0700 mktemp directory)
	cp "$K" "$(command -v vmtrace-report)" open/ && chmod 444 open/kvm.vmt
	chmod 755 "$scratch"
	setpriv --reuid=nobody --regid=nogroup --clear-groups open/vmtrace-report \
		--openmetrics=open/n.prom open/kvm.vmt >out.txt 2>err.txt
	rc=$?
	expect_rc 0 "--openmetrics as nobody over root's file"
	unfold err.txt | grep -q "warning: open/n.prom: owner:group $(id -u nobody):.*, not the replaced file's 0:" ||
		{ cat err.txt; fail "as nobody: no warning on the owner"; }
	[ "$(stat -c %a open/n.prom)" = 664 ] || fail "as nobody: mode not kept"
	cmp -s open/n.prom direct.prom || fail "as nobody: not the metrics"
else
	skip_part "no root, setpriv or nobody: the owner that cannot be kept"
fi

# The same file as standard output while the report goes there: refused before writing
echo keep >same.out
ln -s same.out same.lnk
for args in "--html same.out $K" "--html same.lnk $K" "--html /dev/stdout $K" \
	"--compare --html same.out $K $K"; do
	# shellcheck disable=SC2086
	vmtrace-report $args >>same.out 2>err.txt
	rc=$?
	expect_rc 64 "report $args >>same.out"
	unfold err.txt | grep -v "warning: .* are the same file" >err1.txt
	mv err1.txt err.txt
	expect_one_line_error vmtrace-report "is the same file as standard output (the report)"
	[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "$args: not one line"; }
	[ "$(cat same.out)" = keep ] || fail "report $args: same.out was written"
done
# into a pipe: the page and the report would mix
{ vmtrace-report --html /dev/stdout "$K" 2>err.txt; echo $? >rc.txt; } | cat >mixed.out
[ "$(cat rc.txt)" = 64 ] || fail "--html /dev/stdout into a pipe: exit $(cat rc.txt)"
[ ! -s mixed.out ] || fail "--html /dev/stdout into a pipe: something was written"
# --html - is the page alone; /dev/null takes both
run vmtrace-report --html /dev/null "$K"
expect_rc 0 "--html /dev/null"
vmtrace-report --html /dev/null "$K" >/dev/null 2>err.txt || fail "--html /dev/null >/dev/null"
# convert writes nothing else on standard output: -o FILE >FILE is the CSV
vmtrace-convert --csv -o same.csv "$K" >same.csv 2>err.txt || fail "convert -o same.csv >same.csv"
cmp -s same.csv direct.csv || fail "convert -o same.csv >same.csv: not the CSV"
no_part "refusals"

# Piped input no loader takes: refused at once, not copied until killed
for prog in "vmtrace-report -" "vmtrace-convert --csv -"; do
	# shellcheck disable=SC2086
	yes | { timeout 20 $prog >out.txt 2>err.txt; echo $? >rc.txt; }
	rc=$(cat rc.txt)
	expect_rc 1 "yes | $prog (124: still copying when killed)"
	expect_one_line_error "${prog%% *}" "-: not a vmtrace recording, a trace.dat or a trace.bin (it starts with 'y')"
done
run timeout 20 vmtrace-report /dev/zero
expect_rc 1 "/dev/zero"
expect_one_line_error vmtrace-report "/dev/zero: not a vmtrace recording, .* (it starts with '.x00"
# a recording through the pipe is still read whole
cat "$K" | vmtrace-convert --csv - >piped2.csv 2>err.txt || { cat err.txt; fail "a recording piped"; }
cmp -s piped2.csv direct.csv || fail "a recording piped: not the file's CSV"

# No room in TMPDIR for a piped recording: one line naming the directory and the problem
mkdir tiny
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$1"' sh "$scratch/tiny" 2>/dev/null; then
	unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$1" && shift &&
		cat "$1" | TMPDIR="$2" vmtrace-report - >out.txt 2>err.txt; echo $? >rc.txt' \
		sh "$scratch/tiny" "$K" "$scratch/tiny"
	rc=$(cat rc.txt)
	expect_rc 1 "a full TMPDIR"
	expect_one_line_error vmtrace-report "-: cannot copy standard input to a temporary file in $scratch/tiny: No space left on device (TMPDIR"
	[ "$(unfold err.txt | wc -l)" = 1 ] || { cat err.txt; fail "a full TMPDIR: not one line"; }
	# A .vmt appended (>>) through a descriptor to a file that fills up: the recording's
	# failed block is not cut off at its own offset, which would cut what the file held
	# before it (the review: 150000 bytes became 54076)
	head -c 150000 /dev/urandom >before.bin
	unshare -m sh -c 'mount -t tmpfs -o size=200k tmpfs "$1" && cp "$2" "$1/log" &&
		vmtrace-convert --to-vmt -o /dev/fd/3 "$3" 3>>"$1/log" 2>"$4/err.txt"; echo $? >"$4/rc.txt";
		head -c 150000 "$1/log" >"$4/kept.bin"' sh "$scratch/tiny" before.bin "$K" "$scratch"
	rc=$(cat rc.txt)
	expect_rc 1 "a .vmt appended to a file that fills up"
	unfold err.txt | grep -q "No space left on device" || { cat err.txt; fail "a full file: not ENOSPC"; }
	cmp -s before.bin kept.bin || fail "a .vmt appended through a descriptor cut the file's earlier bytes"
else
	skip_part "no root or mount namespace: a full TMPDIR"
fi
finish
