#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-report --html in a real browser: Debian's headless Chromium opens the page with no
# network (its own empty network namespace where unshare works, and the flags that stop its
# background connections), runs its script without a console message or an uncaught error,
# and the DOM it built is checked chart by chart against the JSON report of the same run
# and a recount of vmtrace-convert --csv's exit rows: the facts and summary figures, every
# histogram bar's count, the percentile markers, the lines over time, every heatmap cell,
# the longest exits and the worst windows. The file itself must be well-formed (Python's
# html.parser: every tag closed in order, ids unique) and self-contained; a screenshot must
# not be blank (pixel variance, PNG decoded with zlib), and the print layout is A4.
# Exit 77 without chromium (scripts/setup-debian12.sh --tests installs it).
. "$(dirname "$0")/lib.sh"

command -v chromium >/dev/null || skip "no chromium (Debian's chromium package)"

# Chromium as root needs --no-sandbox; a fresh profile each time, nothing fetched.
browser() {
	profile=$(mktemp -d "$scratch/profile.XXXXXX")
	net=""
	unshare -n true 2>/dev/null && net="unshare -n"
	$net timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
}

cat >validate.py <<'PY'
# Well-formed and self-contained: html.parser sees every element closed in order.
import re, sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}

class Check(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.ids, self.errors, self.tags = [], set(), [], 0

    def where(self):
        return "line %d col %d" % self.getpos()

    def note_id(self, attrs):
        for k, v in attrs:
            if k == "id":
                if v in self.ids:
                    self.errors.append(f"{self.where()}: id {v!r} twice")
                self.ids.add(v)
            if k in ("src", "href") or (k == "xlink:href"):
                self.errors.append(f"{self.where()}: {k}={v!r}: an outside reference")

    def handle_starttag(self, tag, attrs):
        self.tags += 1
        self.note_id(attrs)
        if tag not in VOID:
            self.stack.append((tag, self.where()))

    def handle_startendtag(self, tag, attrs):
        self.tags += 1
        self.note_id(attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            top = self.stack[-1] if self.stack else ("nothing", "")
            self.errors.append(f"{self.where()}: </{tag}> closes <{top[0]}> of {top[1]}")
            return
        self.stack.pop()

text = open(sys.argv[1], encoding="utf-8").read()
c = Check()
c.feed(text)
c.close()
c.errors += [f"<{t}> of {w} never closed" for t, w in c.stack]
if not text.startswith("<!DOCTYPE html>"):
    c.errors.append("no doctype")
for bad in ("<link", "@import", "url(", "http://", "https://"):
    # the SVG namespace is a name, not a fetch
    if bad in text.replace('xmlns="http://www.w3.org/2000/svg"', ""):
        c.errors.append(f"{bad!r} in the page")
scripts = re.findall(r"<script[^>]*>", text)
if any("src" in s for s in scripts) or len(scripts) != 2:
    c.errors.append(f"scripts: {scripts}")
if c.errors:
    sys.exit("FAIL: " + "; ".join(c.errors[:10]))
print(f"{c.tags} elements, {len(c.ids)} ids")
PY

cat >dom.py <<'PY'
# The DOM Chromium built, against the JSON report and the exit rows.
import bisect, csv, json, sys
from collections import defaultdict

from htmltree import Build, Node

dom_file, report, exits_csv = sys.argv[1:4]
r = json.load(open(report))
exits = [(int(e["start_ns"]), int(e["latency_ns"]), e["reason_code"])
         for e in csv.DictReader(open(exits_csv, newline=""))]

def fail(msg):
    sys.exit("FAIL: " + msg)

def one(self, tag=None, cls=None, **want):
    found = list(self.all(tag, cls, **want))
    if len(found) != 1:
        fail(f"{len(found)} <{tag} class={cls} {want}>")
    return found[0]

Node.one = one
b = Build()
b.feed(open(dom_file, encoding="utf-8").read())
root = b.root
html = root.one("html")
if html.a.get("data-ready") != "1":
    fail("the page's script did not finish (no data-ready)")
if "data-error" in html.a:
    fail("script error: " + html.a["data-error"])

# Facts and figures.
facts = {d.a["data-key"]: d.alltext() for d in root.one(id="facts").all("dd")}
for key in ("file", "host", "kernel", "clock", "cpus", "duration", "lost_events"):
    if key not in facts:
        fail(f"fact {key} missing")
if not facts["lost_events"].startswith(str(r["lost_events"])):
    fail(f"lost events {facts['lost_events']!r}, JSON {r['lost_events']}")
if not facts["clock"].startswith(r["clock"]):
    fail(f"clock {facts['clock']!r}")
cards = {c.a["data-key"]: int(c.a["data-v"]) for c in root.one(id="figures").all(cls="card")}
want = {"events": r["events"], "pairs": r["pairs"], "lost_events": r["lost_events"],
        "orphans": r["orphans"], "min_ns": r["latency_ns"]["min"],
        "avg_ns": r["latency_ns"]["avg"], "max_ns": r["latency_ns"]["max"],
        "stddev_ns": r["stddev_ns"], "total_ns": r["total_ns"],
        "max_window_sum_ns": r["max_window_sum_ns"], **r["percentiles_ns"]}
for k, v in want.items():
    if cards.get(k) != v:
        fail(f"figure {k}: page {cards.get(k)}, JSON {v}")

def axes(svg, label):
    for ax in ("x", "y"):
        g = list(svg.all("g", "axis", data_axis=ax))
        if not g or len(list(g[0].all("g", "tick"))) < 2 or not list(g[0].all("line", "base")):
            fail(f"{label}: no {ax} axis with ticks")

# Histograms: all exits first, then the reasons in the JSON's order.
pairs = sum(v["pairs"] for v in r["vcpus"])
lats = defaultdict(list)
for _, lat, rc in exits:
    lats[None].append(lat)
    lats[rc].append(lat)
for v in lats.values():
    v.sort()
groups = [(None, pairs)] + [((g["code"], g["isa"]), g["count"]) for g in r["reasons"][:8]]
for i, (code, count) in enumerate(groups):
    svg = root.one("svg", id=f"hist-{i}")
    axes(svg, f"hist-{i}")
    if code and (int(svg.a["data-code"]), int(svg.a["data-isa"])) != code:
        fail(f"hist-{i}: reason {svg.a.get('data-code')}, JSON {code}")
    if int(svg.a["data-count"]) != count:
        fail(f"hist-{i}: {svg.a['data-count']} exits, JSON {count}")
    bars = list(svg.all("rect", "bar"))
    if sum(int(x.a["data-n"]) for x in bars) != count:
        fail(f"hist-{i}: bars hold {sum(int(x.a['data-n']) for x in bars)}, JSON {count}")
    for x in bars:
        lo, hi, n = int(x.a["data-lo"]), int(x.a["data-hi"]), int(x.a["data-n"])
        pop = lats[None if code is None else str(code[0])]
        got = bisect.bisect_left(pop, hi) - bisect.bisect_left(pop, lo)
        if got != n:
            fail(f"hist-{i}: bar {lo}..{hi} holds {n}, the CSV has {got}")
if list(root.all("svg", id=f"hist-{len(groups)}")):
    fail("a histogram too many")

# Percentile markers equal the JSON's percentiles.
pct = root.one("svg", id="pct")
axes(pct, "pct")
sets = list(pct.all("g", "curve-set"))
if len(sets) != len(groups):
    fail(f"{len(sets)} percentile curves, expected {len(groups)}")
for s, g in zip(sets, [r] + r["reasons"][:8]):
    pts = {p.a["data-p"]: int(p.a["data-ns"]) for p in s.all("path", "pt")}
    if len(pts) != 6:
        fail(f"curve {s.a['data-name']}: {len(pts)} markers")
    for k, v in g["percentiles_ns"].items():
        if pts[k] != v:
            fail(f"curve {s.a['data-name']} {k}: page {v}, JSON {pts[k]}")
    if pts["p99.999"] > g.get("max_ns", r["latency_ns"]["max"]):
        fail(f"curve {s.a['data-name']}: p99.999 above the maximum")

# Over time: one chart per vCPU task in the report's order, its lines the series' values.
series = r.get("series")
for i, v in enumerate(r["vcpus"][:8]):
    svg = root.one("svg", id=f"ts-{i}")
    axes(svg, f"ts-{i}")
    if int(svg.a["data-pid"]) != v["pid"]:
        fail(f"ts-{i}: pid {svg.a['data-pid']}, JSON {v['pid']}")
    if series is None:
        continue
    rows = [x for x in series if x["pid"] == v["pid"]]
    if int(svg.a["data-merged"]) != 1 or int(svg.a["data-dt"]) != rows[0]["end_ns"]:
        fail(f"ts-{i}: interval {svg.a['data-dt']} merged {svg.a['data-merged']}")
    lines = {p.a["data-name"]: p.a["data-values"].split(",") for p in svg.all("path", "line")}
    for name, key in (("out", "out_ns"), ("max", "max_ns"), ("p99", "p99_ns")):
        # no out value where the task was not traced (before its first exit, after its last)
        want = ["" if x[key] is None or (name == "out" and not x["seen_ns"]) else str(x[key])
                for x in rows]
        if lines.get(name) != want:
            fail(f"ts-{i}: line {name} differs from the series' {key}")
    if sum(int(x) for x in lines["out"] if x) != v["total_ns"]:
        fail(f"ts-{i}: out of guest sums to {sum(int(x) for x in lines['out'] if x)}")

# The heatmap: every cell a recount of the exits in its column and latency bin.
heat = root.one("svg", id="heat")
axes(heat, "heat")
col_ns = int(heat.a["data-col-ns"])

def heat_row(ns):
    if ns < 2:
        return ns
    e = ns.bit_length() - 1
    return 2 * e + ((ns >> (e - 1)) & 1)

want = defaultdict(int)
for start, lat, _ in exits:
    want[(start // col_ns, heat_row(lat))] += 1
cells = {(int(c.a["data-c"]), int(c.a["data-r"])): int(c.a["data-n"])
         for c in heat.all("rect") if "data-n" in c.a}
if cells != dict(want):
    diff = set(cells.items()) ^ set(want.items())
    fail(f"heatmap: {len(diff)} cells differ from the recount, e.g. {sorted(diff)[:3]}")
if series is not None:
    per_col = defaultdict(int)
    for x in series:
        per_col[x["start_ns"] // col_ns] += x["exits"]
    for (c, _), n in cells.items():
        per_col[c] -= n
    if any(per_col.values()):
        fail("heatmap columns do not add up to the series' exits")

# Tables.
rows = list(root.one("table", id="longest").all("tr"))[1:]
if [(int(x.a["data-time-ns"]), int(x.a["data-lat-ns"])) for x in rows] != \
        [(t["time_ns"], t["latency_ns"]) for t in r["top"]]:
    fail("the longest exits differ from the JSON's top")
win = {int(x.a["data-pid"]): int(x.a["data-window-ns"])
       for x in root.one("table", id="worst-windows").all("tr") if "data-pid" in x.a}
if win != {v["pid"]: v["max_window_sum_ns"] for v in r["vcpus"]}:
    fail("worst windows differ from the JSON's vcpus")
best = [int(x.a["data-window-ns"]) for x in root.one("table", id="worst-intervals").all("tr")
        if "data-window-ns" in x.a]
if best != sorted(best, reverse=True) or (best and best[0] != r["max_window_sum_ns"]):
    fail(f"worst intervals {best[:3]}, worst window {r['max_window_sum_ns']}")
# the ten: the series' rows with exits, the worst window first, ties by the time out of the
# guest, then the longest exit, then time (windows full of exits are many)
if series is not None:
    got = [(int(x.a["data-start-ns"]), int(x.a["data-window-ns"]), int(x.a["data-out-ns"]),
            int(x.a["data-max-ns"]))
           for x in root.one("table", id="worst-intervals").all("tr") if "data-window-ns" in x.a]
    top = sorted((x for x in series if x["exits"]),
                 key=lambda x: (-x["max_window_ns"], -x["out_ns"], -x["max_ns"], x["start_ns"]))
    want = [(x["start_ns"], x["max_window_ns"], x["out_ns"], x["max_ns"]) for x in top[:10]]
    if got != want:
        fail(f"worst intervals {got[:3]}, the series' {want[:3]}")

# Causes: each reason's bar has the JSON's time per kind, the culprits are the JSON's.
causes = root.one("section", id="causes")
KINDS = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]
nbars = 0
if r["why_by_reason"] is None:
    if list(causes.all("svg")) or "no context events" not in causes.alltext():
        fail("causes: a recording without context events gets a note, no chart")
elif r["pairs"] - r["filtered_out"]:
    bars = list(causes.one("svg", id="why-bars").all("g", cls="row"))
    want = [dict(w, label="%s(0x%x)" % (w["name"], w["code"]) if w["name"] else str(w["code"]))
            for w in r["why_by_reason"]][:12]
    total = {k + "_ns": sum(w[k + "_ns"] or 0 for w in r["why_by_reason"]) for k in KINDS}
    want.append(dict(total, label="all exits"))
    if len(bars) != len(want):
        fail(f"causes: {len(bars)} bars, JSON {len(want)} reasons and all")
    for g, w in zip(bars, want):
        if g.a["data-reason"] != w["label"]:
            fail(f"causes: bar {g.a['data-reason']!r}, JSON {w['label']!r}")
        segs = {x.a["data-kind"]: int(x.a["data-ns"]) for x in g.all("rect", "seg")}
        wk = {k: w[k + "_ns"] for k in KINDS if w[k + "_ns"]}
        if segs != wk:
            fail(f"causes: {w['label']}: page {segs}, JSON {wk}")
        if sum(segs.values()) != int(g.a["data-total-ns"]):
            fail(f"causes: {w['label']}: the parts do not add up to the bar's total")
    nbars = len(bars)
    got = [(x.a["data-kind"], int(x.a["data-pid"]), int(x.a["data-count"]),
            int(x.a["data-total-ns"]), int(x.a["data-max-ns"]))
           for x in causes.one("table", id="culprits").all("tr") if "data-kind" in x.a]
    wc = [(c["kind"], -1 if c["pid"] is None else c["pid"], c["count"], c["total_ns"],
           c["max_ns"]) for c in r["culprits"]
          if c["name"] != "other" or c["pid"] is not None][:15]   # "other": not ranked
    if got != wc:
        fail(f"causes: culprits {got[:2]}, JSON {wc[:2]}")
print(f"{len(groups)} histograms, {len(sets)} curves, {len(cells)} heatmap cells, "
      f"{len(rows)} longest exits, {nbars} cause bars")
PY

cat >png.py <<'PY'
# Not blank: decode the screenshot (zlib, PNG filters) and measure its pixels.
import struct, sys, zlib
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
off, idat = 8, b""
while off < len(b):
    n, t = struct.unpack(">I4s", b[off:off + 8])
    if t == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", b[off + 8:off + 18])
    elif t == b"IDAT":
        idat += b[off + 8:off + 8 + n]
    off += 12 + n
assert depth == 8 and ctype in (2, 6), f"PNG depth {depth} type {ctype}"
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, i, grey = bytearray(stride), 0, []
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        c = prev[x - bpp] if x >= bpp else 0
        u = prev[x]
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + u) & 255
        elif f == 3: line[x] = (line[x] + (a + u) // 2) & 255
        elif f == 4:
            p = a + u - c
            pa, pb, pc = abs(p - a), abs(p - u), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else u if pb <= pc else c)) & 255
    prev = line
    if y % 2 == 0:
        grey += [(line[x] + line[x + 1] + line[x + 2]) // 3 for x in range(0, stride, bpp * 2)]
mean = sum(grey) / len(grey)
var = sum((g - mean) ** 2 for g in grey) / len(grey)
ink = sum(1 for g in grey if g < 200) / len(grey)
levels = len(set(grey))
print(f"{w}x{h}: mean {mean:.1f}, variance {var:.0f}, {100 * ink:.1f} % ink, {levels} levels")
assert var > 200 and ink > 0.02 and levels > 32, "the screenshot is (nearly) blank"
PY

# console LOG: the page's console messages, but for Chromium's own note that the machine is
# slow ("Slow network is detected", an intervention it prints under load: the page loads
# nothing from a network)
console() {
	grep ":CONSOLE" "$1" | grep -v "Slow network is detected"
}

# page NAME INTERVAL [FILTERS...] FILE: the page and the JSON report of one run (with the
# series of that interval; - for none), then every check.
page() {
	name=$1 iv=$2
	shift 2
	if [ "$iv" = - ]; then
		vmtrace-report --html "$name.html" --json "$@" >"$name.json"
	else
		vmtrace-report --html "$name.html" --json --interval "$iv" "$@" >"$name.json"
	fi || fail "$name: vmtrace-report --html"
	vmtrace-convert --csv "$@" >"$name.csv" || fail "$name: vmtrace-convert --csv"
	python3 validate.py "$name.html" >v.out 2>&1 || fail "$name: $(cat v.out)"
	browser --dump-dom "file://$scratch/$name.html" >"$name.dom" 2>"$name.log" ||
		{ tail -5 "$name.log" >&2; fail "$name: chromium --dump-dom"; }
	! console "$name.log" || fail "$name: console messages"
	PYTHONPATH="$top_srcdir/tests/helpers" python3 dom.py "$name.dom" "$name.json" "$name.csv" >d.out 2>&1 || fail "$name: $(cat d.out)"
	echo "$name: $(cat v.out); $(cat d.out)"
}

page kvm 10ms "$DATA/sample-kvm.vmt"
page syscalls 20ms "$DATA/sample-syscalls.vmt"
page filtered 100ms --reason hlt,io "$DATA/sample-kvm.vmt"
page tracedat - "$DATA/tracedat/kvm.v7zstd.dat"
page why 100ms "$DATA/why/sample/kvm.vmt"

# Over time in intervals shorter than the time before a task's first exit: no share drawn
# (and no value carried) where the task was not traced, before its first exit and after
# its last entry (from the CSV), a value in every interval between; the values and that
# span give the text report's in-guest share; each panel's legend above its top edge.
page why5 5ms "$DATA/why/sample/kvm.vmt"
vmtrace-report "$DATA/why/sample/kvm.vmt" >why5.txt || fail "why5: text report"
python3 - why5.html why5.csv why5.txt <<'PY' || fail "why5: the curve over time"
import csv, re, sys
page, rows, text = open(sys.argv[1]).read(), sys.argv[2], open(sys.argv[3]).read()
span = {}
for r in csv.DictReader(open(rows, newline="")):
    a, pid = int(r["start_ns"]), int(r["task"])
    b = a + int(r["latency_ns"])
    lo, hi = span.get(pid, (a, b))
    span[pid] = (min(lo, a), max(hi, b))
guest = {int(m[1]): float(m[2]) for m in re.finditer(r"^ +\d+ \((\d+)\) +([\d.]+)%", text, re.M)}
svgs = re.findall(r'<svg [^>]*id="ts-\d+".*?</svg>', page, re.S)
assert len(svgs) == len(span) == len(guest) == 2, (len(svgs), span, guest)
for svg in svgs:
    pid, dt = (int(re.search(r' %s="(\d+)"' % k, svg)[1]) for k in ("data-pid", "data-dt"))
    first, last = span[pid]
    line = re.search(r'<path class="line out" data-name="out" data-values="([^"]*)" d="([^"]*)"', svg)
    vals = line[1].split(",")
    want = [i * dt < last and (i + 1) * dt > first for i in range(len(vals))]
    assert [v != "" for v in vals] == want, pid
    assert first > 10 * dt and not vals[0], (pid, first)  # a gap there to leave out
    assert line[2].count("M") == 1, pid   # one run: the task was traced throughout
    out = sum(int(v) for v in vals if v)
    share = 100.0 * (1 - out / (last - first))
    assert abs(share - guest[pid]) < 0.001, (pid, share, guest[pid])
    # the legends: above the top of their panel (the highest grid line of its y axis)
    axes = re.findall(r'<g class="axis" data-axis="y">(.*?)<line class="base"', svg, re.S)
    tops = [min(float(y) for y in re.findall(r'<line class="grid" x1="[\d.]+" y1="([\d.]+)"', a))
            for a in axes]
    labels = [float(m[1]) for m in re.finditer(r'<text class="label" x="[\d.]+" y="([\d.]+)" text-anchor="end">', svg)]
    assert len(tops) == len(labels) == 2 and all(l + 3 < t for l, t in zip(labels, tops)), (tops, labels)
    print("pid %d: values from %d of %d intervals, in guest %.3f %%" %
          (pid, want.index(True), len(vals), share))
PY

# The hover script: pointer moves over a heatmap cell and over a chart over time, sent by a
# script added to a copy of the page; the tip's text ends up in the DOM.
sed 's|</body>|<script>(function(){var d=document.documentElement,t=document.getElementById("tip"),c=document.querySelector("#heat rect[data-n]"),b=c.getBoundingClientRect();c.dispatchEvent(new MouseEvent("mousemove",{bubbles:true,clientX:b.left+b.width/2,clientY:b.top+b.height/2}));d.setAttribute("data-tip-heat",t.textContent+" / "+c.getAttribute("data-n"));var s=document.getElementById("ts-0"),m=s.getScreenCTM(),p=s.createSVGPoint();p.x=+s.getAttribute("data-x0")+1;p.y=60;p=p.matrixTransform(m);s.dispatchEvent(new MouseEvent("mousemove",{bubbles:true,clientX:p.x,clientY:p.y}));d.setAttribute("data-tip-ts",t.textContent);})();</script></body>|' \
	kvm.html >hover.html
browser --dump-dom "file://$scratch/hover.html" >hover.dom 2>hover.log || fail "hover: chromium"
! console hover.log || fail "hover: console messages"
python3 - hover.dom kvm.json <<'PY' || fail "hover values"
import json, re, sys
dom, r = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
heat = re.search(r'data-tip-heat="([^"]*)"', dom).group(1)
tip, n = heat.rsplit(" / ", 1)
assert re.search(r"latency .* to .*: %s exits$" % n, tip), heat
ts = re.search(r'data-tip-ts="([^"]*)"', dom).group(1)
first = r["series"][0]
want = "0 ns to %s ms:" % format(first["end_ns"] / 1e6, "#.3g")
assert ts.startswith(want) and " out " in ts and " max " in ts, (ts, want)
print(heat, "|", ts)
PY

# No two labels of an axis overlap as Chromium lays them out (their bounding boxes): an
# axis over eight decades read "10 ms100 ms". The labels left out keep their ticks.
overlaps='<script>(function(){var bad=[],n=0,t=0;document.querySelectorAll("g.axis").forEach(function(g){var r=[];g.querySelectorAll(":scope > g.tick").forEach(function(k){t++;var x=k.querySelector("text");if(!x)return;var b=x.getBoundingClientRect();n++;r.push([b.left,b.right,b.top,b.bottom,x.textContent]);});for(var i=0;i<r.length;i++)for(var j=i+1;j<r.length;j++){var a=r[i],c=r[j];if(a[0]<c[1]&&c[0]<a[1]&&a[2]<c[3]&&c[2]<a[3])bad.push((g.closest("svg").id||"?")+": "+a[4]+" | "+c[4]);}});var d=document.documentElement;d.setAttribute("data-overlaps",bad.join("; "));d.setAttribute("data-labels",n+"/"+t);})();</script></body>'
python3 -c '
t = 1000
print("page 0")
for l in (100, 10**3, 10**4, 10**5, 10**6, 10**7, 10**8, 10**9, 5 * 10**9):
    print("exit 0 %d 7 30 0\nentry 0 %d 7 0" % (t, t + l))
    t += l + 1000' | "$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" wide.vmt || fail "mkvmt wide"
vmtrace-report --html wide.html wide.vmt >/dev/null || fail "wide: report"
for name in kvm why wide; do
	python3 -c 'import sys; s = open(sys.argv[1]).read(); print(s.replace("</body>", sys.argv[2]), end="")' \
		"$name.html" "$overlaps" >"$name-o.html"
	browser --dump-dom "file://$scratch/$name-o.html" >"$name-o.dom" 2>"$name-o.log" ||
		fail "$name: chromium (labels)"
	python3 - "$name-o.dom" "$name" <<'PY' || fail "$name: axis labels overlap"
import re, sys
dom = open(sys.argv[1]).read()
bad = re.search(r'data-overlaps="([^"]*)"', dom).group(1)
shown, ticks = map(int, re.search(r'data-labels="(\d+)/(\d+)"', dom).group(1, 2))
assert not bad, bad
assert shown > 0 and ticks >= shown, (shown, ticks)
if sys.argv[2] == "wide":	# ten decades in a panel: some labels left out, none lost at once
    assert shown < ticks, (shown, ticks)
print(sys.argv[2], ": %d of %d tick labels shown, none overlapping" % (shown, ticks))
PY
done

# No pairs at all (two exits without an entry): a page that says so, still well-formed.
printf 'exit 0 1000 100 30 0\nexit 0 2000 100 30 0\n' |
	"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" empty.vmt || fail "mkvmt"
vmtrace-report --html empty.html empty.vmt >/dev/null || fail "empty: report"
python3 validate.py empty.html >v.out 2>&1 || fail "empty: $(cat v.out)"
browser --dump-dom "file://$scratch/empty.html" >empty.dom 2>empty.log || fail "empty: chromium"
! console empty.log || fail "empty: console messages"
grep -q '<html lang="en" data-ready="1">' empty.dom || fail "empty: the script did not run"
grep -q 'No exit-entry pairs' empty.dom || fail "empty: no word about the missing pairs"

# Without --interval: 100 to 1000 intervals, the same length vmtrace-convert --series picks.
vmtrace-report --html auto.html "$DATA/sample-kvm.vmt" >/dev/null || fail "auto: report"
vmtrace-convert --series --csv "$DATA/sample-kvm.vmt" >auto.csv || fail "auto: --series"
python3 - auto.html auto.csv <<'PY' || fail "automatic interval"
import csv, re, sys
page = open(sys.argv[1]).read()
dt = int(re.search(r'id="ts-0"[^>]* data-dt="(\d+)"', page).group(1))
n = int(re.search(r'id="ts-0"[^>]* data-n="(\d+)"', page).group(1))
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
assert dt == int(rows[0]["end_ns"]) and n == len(rows) and 100 <= n <= 1000, (dt, n)
PY

# A screenshot that is not blank, and the print layout on A4 pages.
browser --hide-scrollbars --window-size=1024,1400 --screenshot="$scratch/shot.png" \
	"file://$scratch/kvm.html" >shot.log 2>&1 || { tail -5 shot.log >&2; fail "screenshot"; }
python3 png.py shot.png >png.out 2>&1 || fail "$(cat png.out)"
echo "screenshot: $(cat png.out)"
browser --no-pdf-header-footer --print-to-pdf="$scratch/kvm.pdf" "file://$scratch/kvm.html" \
	>pdf.log 2>&1 || { tail -5 pdf.log >&2; fail "print to PDF"; }
boxes=$(grep -a -o '/MediaBox \[[^]]*\]' kvm.pdf | sort -u)
echo "$boxes" | grep -q '^/MediaBox \[0 0 59[45][.0-9]* 84[12][.0-9]*\]$' ||
	fail "print layout: $boxes (not A4)"
[ "$(echo "$boxes" | wc -l)" = 1 ] || fail "pages of several sizes: $boxes"

# Size grows with bins, not exits: a million exits still make a small page.
"$HELPERS/mkvmt" --random 1000000 2 "$DATA/formats/linux-6.18-x86_64" big.vmt >/dev/null ||
	fail "mkvmt"
vmtrace-report --html big.html big.vmt >/dev/null || fail "big: report"
size=$(stat -c %s big.html)
echo "1000000 exits: $size bytes"
[ "$size" -lt 1000000 ] || fail "a page of $size bytes for a million exits"
python3 validate.py big.html >v.out 2>&1 || fail "big: $(cat v.out)"

# Standard output, and never over the recording.
vmtrace-report --html - "$DATA/sample-kvm.vmt" >stdout.html || fail "--html -"
head -c 15 stdout.html | grep -q '<!DOCTYPE html>' || fail "--html - did not write the page"
# a standard output that cannot take it is named so, as the other outputs name it
vmtrace-report --html - "$DATA/sample-kvm.vmt" >/dev/full 2>err.txt
rc=$?
[ "$rc" = 1 ] && [ "$(cat err.txt)" = "vmtrace-report: standard output: cannot write the HTML report: No space left on device" ] ||
	fail "--html - >/dev/full: exit $rc, $(cat err.txt)"
# the page is all of standard output: a second view there is refused, never dropped
cp "$DATA/sample-kvm.vmt" b.vmt
for args in "--json" "--legacy" "-v" "--around 1s" "--threshold 1ms" "--histogram" "--bucket 2us" \
	    "--wide" "--compare --json b.vmt"; do
	run vmtrace-report --html - $args "$DATA/sample-kvm.vmt"
	expect_rc 64 "--html - $args"
	expect_one_line_error vmtrace-report \
		"--html - is the page alone on standard output: no --json, --legacy, -v, lists, histogram or --wide"
	[ ! -s out.txt ] || fail "--html - $args: wrote to standard output"
done
# with a file name, both: the page in the file, the JSON on standard output, the same figures
vmtrace-report --html both.html --json "$DATA/sample-kvm.vmt" >both.json || fail "--html FILE --json"
cmp -s both.html stdout.html || fail "--html FILE --json: not the page --html - wrote"
[ "$(json both.json 'd["pairs"]')" -gt 0 ] || fail "--html FILE --json: no JSON report"
# --interval and --top shape the page: taken with --html -
vmtrace-report --html - --interval 100ms --top 3 "$DATA/sample-kvm.vmt" >shaped.html ||
	fail "--html - --interval --top"
head -c 15 shaped.html | grep -q '<!DOCTYPE html>' || fail "--html - --interval: no page"
# a usage error (64, as vmtrace-convert's), one line, before anything is read or written
cp "$DATA/sample-kvm.vmt" copy.vmt
run vmtrace-report --html copy.vmt copy.vmt
expect_rc 64 "--html over the recording"
expect_one_line_error vmtrace-report "copy.vmt: the --html page is the input file: refusing"
[ "$(wc -l <err.txt)" = 1 ] && [ ! -s out.txt ] || fail "--html over the recording: not one line"
cmp -s copy.vmt "$DATA/sample-kvm.vmt" || fail "the recording was overwritten"
# The causes' bars: each share (title and in-bar label) is cut as the text's are, from the
# bar's own data-ns (the trial found 73.5 % in the page for the text's 73.4 %)
vmtrace-report --html why.html "$DATA/why/sample/kvm.vmt" >/dev/null || fail "--html, why sample"
python3 - why.html <<'EOF' || fail "why bars: a share not cut from data-ns"
import math, re, sys
page = open(sys.argv[1]).read()
segs = re.findall(r'<rect class="seg k\d+" data-kind="[a-z]+" data-ns="(\d+)" x="([\d.]+)" '
                  r'y="([\d.]+)"[^>]*><title>[^<(]*\(([\d.]+)%\)', page)
labels = re.findall(r'<text class="in k\d+" x="([\d.]+)" y="([\d.]+)">(\d+)%</text>', page)
bars, errs = {}, []
for ns, x, y, pct in segs:
    bars.setdefault(y, []).append((int(ns), float(x), float(pct)))
for y, bar in bars.items():
    total = sum(ns for ns, _, _ in bar)
    for ns, x, pct in bar:
        want = math.floor(1000.0 * ns / total + 1e-9) / 10
        if abs(pct - want) > 1e-9:
            errs.append("bar y=%s: %.1f%% for %d of %d ns, want %.1f%%" % (y, pct, ns, total, want))
        for lx, ly, lp in labels:
            if abs(float(lx) - x - 3) < 0.05 and abs(float(ly) - float(y) - 14) < 0.05 and \
               int(lp) != math.floor(100.0 * ns / total + 1e-9):
                errs.append("bar y=%s: label %s%% for %d of %d ns" % (y, lp, ns, total))
if len(segs) < 4 or not labels:
    errs.append("only %d bar segments, %d labels found" % (len(segs), len(labels)))
# each in-bar label sits on a patch of its kind's fill, drawn after the stripes: a stripe
# beside a digit read as a minus sign ("-73%")
chips = re.findall(r'<rect class="chip (k\d+)" x="([\d.]+)" y="([\d.]+)" width="30" '
                   r'height="14"/><text class="in (k\d+)" x="([\d.]+)" y="([\d.]+)">', page)
if len(chips) != len(labels) or any(k != lk or abs(float(lx) - float(x) - 2) > 0.05 or
                                    abs(float(ly) - float(y) - 11) > 0.05
                                    for k, x, y, lk, lx, ly in chips):
    errs.append("%d labels, %d on their patch" % (len(labels), len(chips)))
print("\n".join(errs), file=sys.stderr)
sys.exit(1 if errs else 0)
EOF
exit 0
