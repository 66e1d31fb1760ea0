#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A recording of a long path (a symlink in a deep directory): every line of every text view
# fits 120 columns, and the path stays whole and readable: on the label's line when it
# fits, else on lines of its own after it, broken after a '/', the lines without their
# indent joined giving the path back (read back here from each view).
. "$(dirname "$0")/lib.sh"

S="$DATA/sample-kvm.vmt"
# 130 columns (the trial's) and 250 (two breaks), both from the scratch directory's name
for len in 130 250; do
	d=$(python3 -c "import sys; p = sys.argv[1]; n = $len - len(p) - len('/rec.vmt');
parts = []
while n > 0:
    k = min(n - 1, 40) if n > 41 else n - 1
    parts.append('d' * max(k, 1)); n -= max(k, 1) + 1
print(p + '/' + '/'.join(parts))" "$scratch")
	mkdir -p "$d" || fail "mkdir"
	ln -s "$S" "$d/rec.vmt" || fail "ln"
	cp "$DATA/why/sample/kvm.vmt" "$d/rec2.vmt" || fail "cp"	# another recording: a copy is not merged
	a="$d/rec.vmt"
	b="$d/rec2.vmt"
	[ ${#a} = $len ] || fail "the path is ${#a} long, not $len"

	cat >back.py <<'PY'
import sys
text = open(sys.argv[1]).read().splitlines()
label, path, cont, tail = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
for i, l in enumerate(text):
    if l == label + path + tail:
        sys.exit(0)
    if l == label.rstrip():
        got = ""
        for m in text[i + 1:]:
            if not m.startswith(cont):
                break
            got += m[len(cont):]
            if got.startswith(path) and got[len(path):] in (tail, ""):
                sys.exit(0)
        sys.exit("the path's lines after %r give %r" % (label, got))
sys.exit("no line %r" % label)
PY
	view() {	# view NAME LABEL PATH CONT TAIL -- ARGS...: run, widths, the path read back
		name=$1 label=$2 path=$3 cont=$4 tail=$5
		shift 6
		run vmtrace-report "$@"
		expect_rc 0 "$len $name"
		widths_ok out.txt || fail "$len $name: lines over 120 columns"
		python3 back.py out.txt "$label" "$path" "$cont" "$tail" ||
			{ cat out.txt; fail "$len $name: the path not read back"; }
	}
	view report "File: " "$a" "  " "" -- "$a"
	view verbose "File: " "$a" "  " "" -- -v "$a"
	view histogram "File: " "$a" "  " "" -- --histogram "$a"
	view log "File: " "$a" "  " "" -- --histogram --log "$a"
	view lists "File: " "$a" "  " "" -- --threshold 1ms --top 30 "$a"
	view series "File: " "$a" "  " "" -- --interval 1s "$a"
	view cyclictest "# vmtrace-report: " "$a" "#   " ": kvm:kvm_exit -> kvm:kvm_entry, 48653 pairs" \
		-- --hist-format cyclictest "$a"
	view before "Before: " "$a" "  " "" -- --compare "$a" "$b"
	view after "After:  " "$b" "  " "" -- --compare "$a" "$b"
	view merged1 "  [1] " "$a" "      " "" -- "$a" "$b"
	view merged2 "  [2] " "$b" "      " "" -- "$a" "$b"
done
# a short path stays on its label's line
run vmtrace-report "$S"
grep -qx "File: $S" out.txt || fail "a short path: not on the File line"
# a trace.bin read with a long --format-dir: the Format line's directory on lines of its own
vmtrace-convert --legacy -o t.bin "$S" 2>/dev/null || fail "--legacy"
fd="$d/$(python3 -c 'print("f" * 60)')"
mkdir -p "$fd" && cp -r "$DATA/formats/linux-6.1-kvmhost/." "$fd/" || fail "copy the formats"
run vmtrace-report --format-dir "$fd" t.bin
expect_rc 0 "a trace.bin with a long --format-dir"
awk 'length > 120 { print; bad = 1 } END { exit bad }' out.txt || fail "the Format line passes 120 columns"
python3 - out.txt "$fd" <<'PY' || fail "the Format line's directory"
import sys
lines, fd = open(sys.argv[1]).read().splitlines(), sys.argv[2]
i = lines.index("Format: the original vm-trace trace.bin, one CPU, not named, formats from")
got = ""
for m in lines[i + 1:]:
    if not m.startswith("  "):
        break
    got += m[2:]
assert got == fd, got
PY
exit 0
