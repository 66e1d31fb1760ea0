#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-report --compare BEFORE AFTER against an independent recount: Python reads both
# recordings' exit rows (vmtrace-convert --csv, same filters) and recomputes per reason and
# overall the counts, the rates (over the duration vmtrace-report --json gives), the
# percentiles (nearest rank: exact up to 1024 exits, else within the histogram's bucket), the
# max, and the Kolmogorov-Smirnov D and p-value (its own implementation: scipy is not
# installed): D over the values when both sides are small, else over the same log-linear
# buckets. The worst windows equal the single report's (per reason with --reason). Then
# --fail-if: its verdicts and exit status against conditions evaluated in Python, its
# grammar errors, and a comparison of a recording with itself (no change, D 0, p 1).
. "$(dirname "$0")/lib.sh"

cat >recount.py <<'PY'
import csv, json, math, sys
from fractions import Fraction   # exact ranks: 99.9 / 100 * 1000 is not 999 in floats
cmp_json, csv_a, csv_b, rep_a, rep_b = sys.argv[1:6]
c = json.load(open(cmp_json))["compare"]
reps = [json.load(open(rep_a)), json.load(open(rep_b))]

def rows(path):
    out = {}
    for r in csv.DictReader(open(path, newline="")):
        code = int(r["reason_code"]) if r["reason_code"] else 0
        out.setdefault(code, []).append(int(r["latency_ns"]))
    return out

sides = [rows(csv_a), rows(csv_b)]

def bucket(v):                      # common/latstat.h, written again
    if v < 128:
        return v
    e = v.bit_length() - 1
    return ((e - 7 + 1) << 7) + ((v >> (e - 7)) & 127)

def bucket_low(i):
    if i < 128:
        return i
    e = (i >> 7) + 6
    return (128 + (i & 127)) << (e - 7)

def pct(vals, p):                   # nearest rank
    s = sorted(vals)
    rank = min(max(math.ceil(Fraction(str(p)) / 100 * len(s)), 1), len(s))
    return s[rank - 1]

def close(got, exact, n, p):
    if n <= 1024 or p in (0, 100):
        return got == exact
    # the middle of the exact value's bucket, or a neighbour's (rank on an edge)
    lo = bucket_low(bucket(exact))
    hi = bucket_low(bucket(exact) + 1)
    return abs(got - exact) <= max(hi - lo, 1)

def ks(a, b):
    na, nb = len(a), len(b)
    if len(a) <= 1024 and len(b) <= 1024:
        pts = sorted(set(a) | set(b))
        sa, sb = sorted(a), sorted(b)
        import bisect
        d = max(abs(bisect.bisect_right(sa, v) / na - bisect.bisect_right(sb, v) / nb)
                for v in pts)
    else:
        ca, cb = {}, {}
        for v in a:
            ca[bucket(v)] = ca.get(bucket(v), 0) + 1
        for v in b:
            cb[bucket(v)] = cb.get(bucket(v), 0) + 1
        d, xa, xb = 0.0, 0, 0
        for k in sorted(set(ca) | set(cb)):
            xa += ca.get(k, 0)
            xb += cb.get(k, 0)
            d = max(d, abs(xa / na - xb / nb))
    ne = na * nb / (na + nb)
    lam = (math.sqrt(ne) + 0.12 + 0.11 / math.sqrt(ne)) * d
    # Q_KS by its series (Numerical Recipes' probks)
    s, fac, prev = 0.0, 2.0, 0.0
    for j in range(1, 101):
        term = fac * math.exp(-2 * j * j * lam * lam)
        s += term
        if abs(term) <= 0.001 * prev or abs(term) <= 1e-8 * s:
            return d, min(max(s, 0.0), 1.0)
        fac, prev = -fac, abs(term)
    return d, 1.0

# a trace.dat has no recorded duration: its rates are over its events' span, and then the
# other side's too (the same kind of time on both sides)
if all(r["duration_ns"] for r in reps):
    durs = [r["duration_ns"] for r in reps]
else:
    durs = [r["span_ns"] for r in reps]
for i, side in enumerate(("before", "after")):
    # what the rates are over: the recording's duration, as its own report gives it
    dur = durs[i]
    assert c[side]["duration_ns"] == dur, (side, c[side], dur)
groups = {g["reason_code"]: g for g in c["groups"]}
codes = set(sides[0]) | set(sides[1])
assert set(groups) == codes | {None}, (sorted(groups, key=str), sorted(codes))
checked = 0
for code in [None] + sorted(codes):
    g = groups[code]
    vals = [sum(s.values(), []) if code is None else s.get(code, []) for s in sides]
    for i, side in enumerate(("before", "after")):
        f, v = g[side], vals[i]
        assert f["count"] == len(v), (code, side, f["count"], len(v))
        dur = durs[i]
        # cut to the thousandth: never above the rate, less than 0.001 below it
        exact = len(v) * 1e9 / dur
        assert -1e-9 * exact <= exact - f["rate_per_s"] < 0.001 + 1e-9 * exact, \
            (code, side, f["rate_per_s"], len(v), dur)
        if not v:
            assert f["p50_ns"] is None and f["max_ns"] is None, f
            continue
        assert f["max_ns"] == max(v), (code, side)
        for key, p in (("p50_ns", 50), ("p90_ns", 90), ("p99_ns", 99), ("p99_9_ns", 99.9),
                       ("p99_99_ns", 99.99)):
            assert close(f[key], pct(v, p), len(v), p), (code, side, key, f[key], pct(v, p))
        assert f["mean_ns"] == sum(v) // len(v), (code, side)
    if vals[0] and vals[1]:
        d, p = ks(vals[0], vals[1])
        assert abs(g["ks_d"] - d) <= 1e-5, (code, g["ks_d"], d)
        assert abs(g["ks_p"] - p) <= 1e-5 * max(p, 1e-300) or abs(g["ks_p"] - p) < 1e-12, \
            (code, g["ks_p"], p)
        assert g["beyond_noise"] == (p < 0.01), (code, g)
    else:
        assert g["ks_p"] is None and g["beyond_noise"] is None, g
    checked += 1
# the worst window of all exits is the single report's
for i, side in enumerate(("before", "after")):
    assert groups[None][side]["max_window_ns"] == reps[i]["max_window_sum_ns"], side
print(f"{checked} groups recounted")
PY

# compare NAME [FILTERS...] BEFORE AFTER: the comparison against the recount.
compare() {
	name=$1
	shift
	n=$#
	eval "a=\${$((n - 1))} b=\${$n}"
	set -- "$@"
	filters=
	i=0
	for x in "$@"; do
		i=$((i + 1))
		[ $i -lt $((n - 1)) ] && filters="$filters $x"
	done
	vmtrace-report --compare --json $filters "$a" "$b" >"$name.json" ||
		fail "$name: --compare"
	vmtrace-convert --csv $filters "$a" >"$name.a.csv" || fail "$name: csv a"
	vmtrace-convert --csv $filters "$b" >"$name.b.csv" || fail "$name: csv b"
	vmtrace-report --json $filters "$a" >"$name.a.rep" || fail "$name: report a"
	vmtrace-report --json $filters "$b" >"$name.b.rep" || fail "$name: report b"
	python3 recount.py "$name.json" "$name.a.csv" "$name.b.csv" "$name.a.rep" "$name.b.rep" \
		>r.out 2>&1 || fail "$name: $(cat r.out)"
	echo "$name: $(cat r.out)"
}

compare syscalls "$DATA/sample-syscalls.vmt" "$DATA/small-syscalls.vmt"
compare mixed "$DATA/sample-kvm.vmt" "$DATA/tracedat/kvm.v7zstd.dat"
compare filtered --reason hlt,io "$DATA/sample-kvm.vmt" "$DATA/tracedat/kvm.v7zstd.dat"
compare self "$DATA/sample-kvm.vmt" "$DATA/sample-kvm.vmt"
python3 - self.json <<'PY' || fail "a recording against itself"
import json, sys
for g in json.load(open(sys.argv[1]))["compare"]["groups"]:
    assert g["ks_d"] == 0 and g["ks_p"] == 1 and g["beyond_noise"] is False, g
    assert all(v in (0, None) for v in g["change_pct"].values()), g
PY

# Per reason, the worst window is the single report's with --reason.
for r in hlt io; do
	vmtrace-report --json --reason $r "$DATA/sample-kvm.vmt" >w.json || fail "report $r"
	python3 - w.json mixed.json $r <<'PY' || fail "worst window of $r"
import json, sys
w = json.load(open(sys.argv[1]))["max_window_sum_ns"]
g = [g for g in json.load(open(sys.argv[2]))["compare"]["groups"] if g["reason"] == sys.argv[3]]
assert g[0]["before"]["max_window_ns"] == w, (g[0]["before"], w)
PY
done

# --fail-if's lines say the relation as it is ("N not < 10" when it does not hold), with
# the rate cut to a tenth as the table shows it (never rounded up), from the JSON's figures.
run vmtrace-report --compare --fail-if 'count<10,rate>1' "$DATA/sample-syscalls.vmt" "$DATA/small-syscalls.vmt"
expect_rc 1 "--fail-if 'count<10,rate>1'"
mv out.txt verdicts.txt
vmtrace-report --compare --json "$DATA/sample-syscalls.vmt" "$DATA/small-syscalls.vmt" >v.json ||
	fail "--compare --json"
python3 - verdicts.txt v.json <<'PY' || fail "--fail-if lines"
import json, sys
from decimal import Decimal, ROUND_DOWN
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.startswith("--fail-if")]
g = [g for g in json.load(open(sys.argv[2]))["compare"]["groups"] if g["reason_code"] is None][0]
n, rate = g["after"]["count"], g["after"]["rate_per_s"]
cut = str(Decimal(str(rate)).quantize(Decimal("0.1"), rounding=ROUND_DOWN))
want = ["--fail-if: does not hold: count<10: all count %d not < 10" % n,
        "--fail-if: holds: rate>1: all rate %s > 1" % cut]
assert lines == want, (lines, want)
PY

# The same exits from a .vmt (a recorded duration) and from its trace.bin turned back into
# a .vmt (none: its events' span): rates over the same kind of time on both sides, so no
# change, with a warning; the JSON's durations are the events' spans of the report's JSON.
K="$DATA/sample-kvm.vmt"
vmtrace-convert --legacy -o k.bin "$K" 2>/dev/null || fail "--legacy"
vmtrace-convert --to-vmt --format-dir "$DATA/formats/linux-6.1-kvmhost" -o k2.vmt k.bin ||
	fail "--to-vmt of the trace.bin"
# --format-dir goes to both: on the .vmt it does not apply, and the line says the way out
for v in --compare ""; do
	# shellcheck disable=SC2086 # merge without --compare
	run vmtrace-report $v --format-dir "$DATA/formats/linux-6.1-kvmhost" "$K" k.bin
	expect_rc 64 "${v:-merge} of a .vmt and a trace.bin with --format-dir"
	[ "$(unfold err.txt)" = "vmtrace-report: $K: --format-dir does not apply: a .vmt file carries its own event formats (they go to every recording: convert the one that needs them first, vmtrace-convert --to-vmt)" ] ||
		fail "${v:-merge} with --format-dir: $(cat err.txt)"
done
run vmtrace-report --compare --json --fail-if 'rate>+1%,rate<-1%' "$K" k2.vmt
expect_rc 0 "the same exits with and without a recorded duration"
unfold err.txt | grep -q "k2.vmt has no recorded duration" || { cat err.txt; fail "no warning on the rates"; }
vmtrace-report --json "$K" >k.json || fail "--json"
python3 - out.txt k.json <<'PY' || fail "rates of a .vmt against its converted trace.bin"
import json, sys
c, k = json.load(open(sys.argv[1]))["compare"], json.load(open(sys.argv[2]))
assert k["duration_ns"] > k["span_ns"] * 2, k["duration_ns"]    # the recorder's time is longer
for side in ("before", "after"):
    assert c[side]["duration_ns"] == k["span_ns"], (side, c[side]["duration_ns"], k["span_ns"])
g = [g for g in c["groups"] if g["reason_code"] is None][0]
assert g["before"]["rate_per_s"] == g["after"]["rate_per_s"], g
PY

# --fail-if: each condition's verdict as Python evaluates it from the JSON, and the status.
A="$DATA/sample-syscalls.vmt" B="$DATA/small-syscalls.vmt"
for cond in 'p99>+10%' 'p99<-10%' 'max>100us' 'max>=1s' 'count<1000' 'rate>2000' \
	'p99.9>+1000%' 'ks_p<0.01' 'ks_d>0.95' '0x6e:max>+100%' '110:p50<=-10%' 'all:window<1ms' \
	'p50 > +0%, max < 2ms'; do
	run vmtrace-report --compare --json --fail-if "$cond" "$A" "$B"
	python3 - out.txt "$cond" "$rc" <<'PY' || fail "--fail-if '$cond'"
import json, re, sys
c = json.load(open(sys.argv[1]))["compare"]
cond, rc = sys.argv[2], int(sys.argv[3])
units = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
keys = {"count": "count", "rate": "rate_per_s", "p50": "p50_ns", "p99": "p99_ns",
        "p99.9": "p99_9_ns", "max": "max_ns", "window": "max_window_ns"}
ops = {">": float.__gt__, ">=": float.__ge__, "<": float.__lt__, "<=": float.__le__}
want = []
for part in cond.replace(" ", "").split(","):
    m = re.fullmatch(r"(?:([\w]+):)?([a-z0-9._]+)(>=|<=|>|<)(.*)", part)
    reason, fig, op, val = m.groups()
    g = [g for g in c["groups"] if reason in (None, "all") and g["reason_code"] is None or
         reason and (g["reason"] == reason or str(g["reason_code"]) == reason or
                     hex(g["reason_code"] or 0) == reason)][0]
    if fig in ("ks_p", "ks_d"):
        x, y = float(g[fig]), float(val)
    elif val.endswith("%"):
        b, a = g["before"][keys[fig]], g["after"][keys[fig]]
        x, y = (a - b) / b * 100, float(val[:-1])
    else:
        u = re.fullmatch(r"([\d.]+)([a-z]*)", val)
        x, y = float(g["after"][keys[fig]]), float(u.group(1)) * units.get(u.group(2), 1)
    want.append(ops[op](float(x), y))
got = [f["holds"] for f in c["fail_if"]]
assert got == want, (got, want)
assert rc == (1 if any(want) else 0), (rc, want)
print(cond, want)
PY
done

# Grammar errors and a reason neither has: status 64, one line naming the problem.
for bad in 'p99' 'p98>+10%' 'max>2' 'max>2furlongs' 'p99>+x%' 'ks_p<1%' 'hlt:p99>+10%' ''; do
	run vmtrace-report --compare --fail-if "$bad" "$A" "$B"
	expect_rc 64 "--fail-if '$bad'"
	expect_one_line_error vmtrace-report "fail-if"
done
# an empty condition (a ',' too many) too, in one line that says so
for bad in 'p99>1ms,' 'p99>1ms,,max>2ms' ',p99>1ms' 'p99>1ms, ' ','; do
	run vmtrace-report --compare --fail-if "$bad" "$A" "$B"
	expect_rc 64 "--fail-if '$bad'"
	expect_one_line_error vmtrace-report "fail-if: '$bad': condition [0-9] is empty"
	[ "$(unfold err.txt | wc -l)" = 1 ] && [ ! -s out.txt ] || fail "--fail-if '$bad': not one line alone"
done
# A condition on a reason the --reason filter leaves out: said as the filter's doing, not as
# if the recordings lacked it (both kvm samples have io exits: counted in their CSV rows);
# a reason the filter keeps but neither has is still the recordings'.
K="$DATA/sample-kvm.vmt" S="$DATA/why/sample/kvm.vmt"
for f in "$K" "$S"; do
	vmtrace-convert --csv "$f" >io.csv || fail "convert $f"
	[ "$(python3 -c 'import csv,sys; print(sum(r["reason"] == "io" for r in csv.DictReader(open(sys.argv[1]))))' io.csv)" -gt 0 ] ||
		fail "$f has no io exits to leave out"
done
for reasons in hlt 0x78; do
	for cond in 'io:p99>+10%' 'IO:max>1ms' '0x7b:count>1'; do
		run vmtrace-report --compare --reason $reasons --fail-if "$cond" "$K" "$S"
		[ "$rc" = 64 ] && [ ! -s out.txt ] &&
			[ "$(unfold err.txt)" = "vmtrace-report: --fail-if $cond: the --reason filter ($reasons) leaves exits of reason '${cond%%:*}' out" ] ||
			fail "--reason $reasons --fail-if $cond: exit $rc: $(cat err.txt)"
	done
done
run vmtrace-report --compare --reason hlt,io --fail-if 'io:count<0' "$K" "$S"
expect_rc 0 "--reason hlt,io --fail-if io:count<0"
# msr: a reason both tables name, without exits in either (not misspelt): checked on no
# exits (it was refused as a misspelt name, exit 64): no change from none to none, and a
# figure below a bound cannot be told; nosuch is
python3 - "$K" "$S" <<'PY' || fail "msr exits in $K or $S: not the case tested"
import subprocess, sys
for f in sys.argv[1:]:
    rows = subprocess.run(["vmtrace-convert", "--csv", f], capture_output=True, text=True).stdout
    sys.exit(any(l.split(",")[8] == "msr" for l in rows.splitlines()[1:]))
PY
run vmtrace-report --compare --reason hlt,msr --fail-if 'msr:p99>1%' "$K" "$S"
[ "$rc" = 0 ] && [ "$(unfold err.txt)" = "vmtrace-report: --fail-if does not hold: msr:p99>1%: msr p99 none -> none (no change) not > +1 % (no exits of reason 'msr' in either recording's exits --reason keeps)" ] ||
	fail "--reason hlt,msr --fail-if msr: exit $rc: $(cat err.txt)"
run vmtrace-report --compare --reason hlt,msr --fail-if 'msr:p99<1ms' "$K" "$S"
[ "$rc" = 1 ] && [ "$(unfold err.txt)" = "vmtrace-report: warning: --fail-if cannot tell, counted as holding: msr:p99<1ms: msr p99 none < 1.000 ms (no exits of reason 'msr' in either recording's exits --reason keeps)" ] ||
	fail "--reason hlt,msr --fail-if msr:p99<1ms: exit $rc: $(cat err.txt)"
run vmtrace-report --compare --fail-if 'nosuch:count>+1%' "$K" "$S"
expect_one_line_error vmtrace-report "--fail-if nosuch:count>+1%: .*unknown exit reason 'nosuch'"
run vmtrace-report --fail-if 'p99>+10%' "$A"
expect_rc 64 "--fail-if without --compare"
run vmtrace-report --compare "$A"
expect_rc 64 "--compare with one recording"
run vmtrace-report --compare --histogram "$A" "$B"
expect_rc 64 "--compare with --histogram"
run vmtrace-report --compare "$A" "$B" "$A"
expect_rc 64 "--compare with three recordings"

# The text: three lines per group, within 120 columns, the verdict printed.
run vmtrace-report --compare --fail-if 'p99<-10%' "$A" "$B"
expect_rc 1 "text with a holding condition"
grep -q '^--fail-if: holds: p99<-10%: all p99 271 ns -> 141 ns' out.txt || fail "text verdict"
unfold err.txt | grep -q 'fail-if holds' || fail "no warning on stderr"
widths_ok out.txt || fail "lines over 120 columns"
[ "$(grep -c '^  [^ ].* before ' out.txt)" = "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["compare"]["groups"]))' syscalls.json)" ] ||
	fail "a block per group"
echo "text: $(wc -l <out.txt) lines"

# --html: a well-formed page whose distributions are the CSV rows' counts per display bin
# (four per doubling, recounted here), in Chromium without an error.
vmtrace-report --compare --html page.html "$DATA/sample-kvm.vmt" \
	"$DATA/tracedat/kvm.v7zstd.dat" >/dev/null || fail "--compare --html"
python3 - page.html mixed.json mixed.a.csv mixed.b.csv <<'PY' || fail "the page's distributions"
import csv, json, re, sys
from html.parser import HTMLParser
page, cmp_json, ca, cb = sys.argv[1:5]
text = open(page, encoding="utf-8").read()

class Check(HTMLParser):
    VOID = {"meta", "br", "path"}
    def __init__(self):
        super().__init__()
        self.stack, self.ids, self.paths, self.errors = [], set(), [], []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            if a["id"] in self.ids:
                self.errors.append("id twice: " + a["id"])
            self.ids.add(a["id"])
        if tag == "svg":
            self.svg = a
        if tag == "path" and "data-bins" in a:
            self.paths.append((self.svg["data-reason"], a))
        if tag not in self.VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack.pop() != tag:
            self.errors.append("</%s> out of order" % tag)

c = Check()
c.feed(text)
assert not c.errors and not c.stack, (c.errors, c.stack)
for bad in ("http://", "https://", "<link", "src="):
    assert bad not in text.replace('xmlns="http://www.w3.org/2000/svg"', ""), bad

def dbin(v):
    if v < 8:
        return v
    e = v.bit_length() - 1
    return 4 * (e - 1) + ((v >> (e - 2)) & 3)

def dbin_low(b):
    return b if b < 8 else (4 + (b & 3)) << (b // 4 - 1)

def bins(path, code):
    out = {}
    for r in csv.DictReader(open(path, newline="")):
        if code is None or int(r["reason_code"]) == code:
            lo = dbin_low(dbin(int(r["latency_ns"])))
            out[lo] = out.get(lo, 0) + 1
    return out

groups = {g["reason"]: g for g in json.load(open(cmp_json))["compare"]["groups"]}
assert len(c.paths) == sum(bool(g["before"]["count"]) + bool(g["after"]["count"])
                           for g in list(groups.values())[:9]), len(c.paths)
for reason, a in c.paths:
    g = groups[reason]
    side = a["data-side"]
    got = {int(k): int(v) for k, v in (x.split(":") for x in a["data-bins"].split(";"))}
    want = bins(ca if side == "before" else cb, g["reason_code"])
    assert got == want, (reason, side, got, want)
    assert int(a["data-count"]) == g[side]["count"] == sum(got.values()), (reason, side)
print(f"{len(c.paths)} distributions drawn as recounted")
PY
# the page's figures are the JSON's, cut to four digits as the text's (they were rounded to
# three: 10190848 ns read "10.2 ms")
python3 - page.html mixed.json <<'PY' || fail "the page's figures"
import json, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
groups = json.load(open(sys.argv[2]))["compare"]["groups"]
unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
keys = ["p50_ns", "p99_ns", "p99_9_ns", "max_ns", "max_window_ns"]
n = 0
for m in re.finditer(r'<tr data-group="(\d+)" data-row="(before|after)">(.*?)</tr>', text):
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", m.group(3))[4:9]	# p50 .. worst window
    g = groups[int(m.group(1))][m.group(2)]
    for key, cell in zip(keys, cells):
        if g["count"] == 0:
            continue
        v, u = cell.split()
        shown, want = float(v) * unit[u], g[key]
        digits = len(v.replace(".", "").lstrip("0"))
        assert shown <= want + 1e-6 and want - shown < 10 ** (len(str(int(float(v)))) - digits) * unit[u] + 1e-6, \
            (m.group(1), m.group(2), key, cell, want)
        n += 1
assert n >= 20, n
print(n, "figures of the page as the JSON's, cut")
PY
if command -v chromium >/dev/null; then
	profile=$(mktemp -d "$scratch/profile.XXXXXX")
	net=""
	unshare -n true 2>/dev/null && net="unshare -n"
	$net timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$profile" --enable-logging=stderr --v=0 \
		--dump-dom "file://$scratch/page.html" >page.dom 2>page.log ||
		{ tail -5 page.log >&2; fail "chromium --dump-dom"; }
	! grep -q 'data-error="' page.dom || fail "a script error in the page"
	! grep ":CONSOLE" page.log || fail "console messages"
	[ "$(grep -o '<path class="dist ' page.dom | wc -l)" -gt 4 ] || fail "chromium's DOM"
	echo "chromium: the page loads without an error"
else
	skip_part "no chromium (Debian's chromium package)"
fi
# --html over either recording (a copy: the test data must survive a failure here) is a
# usage error, said in one line before anything is read or written
cp "$B" after.vmt
ln -s after.vmt after-link.vmt
for out in after.vmt after-link.vmt; do
	run vmtrace-report --compare --html $out "$A" after.vmt
	expect_rc 64 "--html $out over a recording"
	expect_one_line_error vmtrace-report "$out: the --html page is the input file"
	[ "$(unfold err.txt | wc -l)" = 1 ] && [ ! -s out.txt ] || fail "--html $out: not one line alone"
	cmp -s after.vmt "$B" || fail "--html $out: the recording was overwritten"
done
# a reason the before recording has and the after one does not: its latency in the after
# recording is longer than no bound (a gate on its worst case passes), as on one recording
# or on two without it; below a bound, and all exits without one, cannot be told
F618="$DATA/formats/linux-6.18-x86_64"
printf 'exit 0 1000 100 0x78 0\nentry 0 3000000 100 0\nexit 0 4000000 100 0x72 0\nentry 0 4000500 100 0\n' |
	"$HELPERS/mkvmt" "$F618" withhlt.vmt || fail "mkvmt withhlt.vmt"
printf 'exit 0 1000 100 0x72 0\nentry 0 1500 100 0\n' | "$HELPERS/mkvmt" "$F618" nohlt.vmt ||
	fail "mkvmt nohlt.vmt"
run vmtrace-report --compare --fail-if 'hlt:max>1ms' withhlt.vmt nohlt.vmt
[ "$rc" = 0 ] && grep -qxF -- "--fail-if: does not hold: hlt:max>1ms: hlt max none, no exit longer: not > 1.000 ms" out.txt ||
	{ cat err.txt; fail "hlt:max>1ms, after without hlt: exit $rc"; }
run vmtrace-report --compare --fail-if 'hlt:max>1ms' nohlt.vmt withhlt.vmt
[ "$rc" = 1 ] || fail "hlt:max>1ms, after with a 3 ms hlt exit: exit $rc"
run vmtrace-report --compare --fail-if 'hlt:max<1ms' withhlt.vmt nohlt.vmt
[ "$rc" = 1 ] && grep -q "cannot tell" err.txt || fail "hlt:max<1ms, after without hlt: exit $rc"
finish
