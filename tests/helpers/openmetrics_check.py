#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check vmtrace-report --openmetrics against the same recording's JSON report and CSV.

Usage: openmetrics_check.py METRICS REPORT.json PAIRS.csv [HOST [LABELS.json]]
       (HOST -: no host label; LABELS.json: "label_of" tid -> the task's vm label, for VMs
       the JSON's vm name does not tell apart, as tests/helpers/twovms.py writes it)

METRICS is parsed by python3-prometheus-client's OpenMetrics parser (an implementation
independent of ours, strict about the format). Every counter and gauge must equal the JSON
report's figure; every histogram bucket must equal a recount of the exits' latencies from
vmtrace-convert --csv; the bucket that holds each reason's p99 (per the JSON) is the one
where the cumulative count first reaches the p99's rank. With a VM map in the recording, the
per-task samples' vm label must be the JSON's vm of the task; per-reason samples of several
vm labels are per VM and reason, each histogram a recount of the CSV's rows of that vm and
reason. In every family no two samples have the same name and label set (OpenMetrics
forbids it and a parser keeps one of the two: checked on the text itself, before any
parser). Prints one line per check group and exits 1 on the first mismatch.
"""
import csv
import json
import math
import re
from fractions import Fraction   # exact ranks
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def reason_label(r):
    return r["name"] if r["name"] is not None else "0x%x" % r["code"]


LABEL_OF = {}    # tid -> vm label, from LABELS.json


def vm_label(v, per_vm):
    """The vm label of a task's samples: its VM's name, "" when unknown; None: no label."""
    if not per_vm:
        return None
    return LABEL_OF.get(v["pid"], v["vm"] or "") if v["vm"] is not None else ""


SAMPLE = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+( \S+)?$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def unique_label_sets(text):
    """Every sample line's name and label set, read here: each must be there once."""
    seen = set()
    n = 0
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            fail("cannot read the sample line %r" % line)
        labels, pos = [], 0
        body = m.group(2) or ""
        while pos < len(body):
            lm = LABEL.match(body, pos)
            if not lm:
                fail("cannot read the labels of %r" % line)
            labels.append((lm.group(1), lm.group(2)))
            pos = lm.end()
        key = (m.group(1), frozenset(labels))
        if len(key[1]) != len(labels) or key in seen:
            fail("the same name and labels twice: %r" % line)
        seen.add(key)
        n += 1
    print("%d samples, each name and label set once" % n)


def vcpu_label(v, tasks, per_vm):
    """Unique among the tasks of the same vm label (two VMs' vCPU 0 need no pid)."""
    if v["vcpu"] is None:
        return "pid %d" % v["pid"]
    if sum(1 for t in tasks if t["vcpu"] == v["vcpu"] and
           vm_label(t, per_vm) == vm_label(v, per_vm)) > 1:
        return "%d (pid %d)" % (v["vcpu"], v["pid"])
    return "%d" % v["vcpu"]


def ns(seconds):
    return round(seconds * 1e9)


def main():
    text = open(sys.argv[1]).read()
    rep = json.load(open(sys.argv[2]))
    host = sys.argv[4] if len(sys.argv) > 4 else None   # "-": no host label at all
    if len(sys.argv) > 5:
        LABEL_OF.update({int(k): v for k, v in json.load(open(sys.argv[5]))["label_of"].items()})
    unique_label_sets(text)
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    want = {"vmtrace_exits": "counter", "vmtrace_exit_latency_seconds": "histogram",
            "vmtrace_vcpu_exits": "counter", "vmtrace_out_of_guest_seconds": "counter",
            "vmtrace_worst_window_seconds": "gauge", "vmtrace_window_seconds": "gauge",
            "vmtrace_lost_events": "counter", "vmtrace_lost_uncounted": "counter",
            "vmtrace_orphans": "counter", "vmtrace_open_exits": "gauge",
            "vmtrace_open_exit_seconds": "gauge"}
    for name, typ in want.items():
        if name not in fams or fams[name].type != typ:
            fail("family %s (%s) missing or of another type" % (name, typ))
    if set(fams) != set(want):
        fail("unexpected families %s" % sorted(set(fams) - set(want)))
    for f in fams.values():
        for s in f.samples:
            if host is not None and s.labels.get("host") != (None if host == "-" else host):
                fail("%s: host label %r, expected %r" % (s.name, s.labels.get("host"), host))

    def samples(fam, suffix=""):
        return [s for s in fams[fam].samples if s.name == fam + suffix]

    # exits per reason and the histogram's count and sum: a series per reason, or with a VM
    # map one per VM and reason (vm "" for the tasks the map lacks), summed here per reason
    def by_reason(fam, suffix):
        out, seen = {}, set()
        for s in samples(fam, suffix):
            key = (s.labels.get("vm"), s.labels["reason"], s.labels.get("le"))
            if key in seen:
                fail("%s: %r twice" % (s.name, key))
            seen.add(key)
            out[s.labels["reason"]] = out.get(s.labels["reason"], 0) + s.value
        return out
    exits = by_reason("vmtrace_exits", "_total")
    if len(exits) != len(rep["reasons"]):
        fail("%d reasons in the metrics, %d in the JSON" % (len(exits), len(rep["reasons"])))
    counts = by_reason("vmtrace_exit_latency_seconds", "_count")
    sums = by_reason("vmtrace_exit_latency_seconds", "_sum")
    for r in rep["reasons"]:
        lab = reason_label(r)
        if exits.get(lab) != r["count"] or counts.get(lab) != r["count"]:
            fail("reason %s: exits %s, count %s, JSON %d" % (lab, exits.get(lab), counts.get(lab),
                                                             r["count"]))
        if ns(sums[lab]) != r["total_ns"]:
            fail("reason %s: sum %r s, JSON %d ns" % (lab, sums[lab], r["total_ns"]))
    # the pairs the filters kept (--reason, --vm, ...): all of them without filters
    kept = rep["pairs"] - rep["filtered_out"]
    if sum(exits.values()) != kept:
        fail("exits add up to %d, JSON pairs %d (%d filtered out)"
             % (sum(exits.values()), rep["pairs"], rep["filtered_out"]))
    print("exits per reason: %d reasons, %d pairs, counts and sums equal the JSON"
          % (len(exits), kept))

    # buckets: against a recount of the CSV's latencies, per VM and reason when the samples
    # carry several vm labels (the CSV's vm column: "" for a task of no VM), else per reason
    # (one vm label: the exposition's, of a recording or a report of one VM)
    by_vm = len({s.labels.get("vm") for s in samples("vmtrace_exits", "_total")}) > 1
    lats = {}
    with open(sys.argv[3]) as f:
        for row in csv.DictReader(f):
            lab = row["reason"] if row["reason"] else "0x%x" % int(row["reason_code"])
            vm = LABEL_OF.get(int(row["task"]), row["vm"]) if row["vm"] else ""
            lats.setdefault((vm if by_vm else None, lab), []).append(int(row["latency_ns"]))
    buckets, per_reason = {}, {}
    for s in samples("vmtrace_exit_latency_seconds", "_bucket"):
        key = (s.labels.get("vm") if by_vm else None, s.labels["reason"])
        buckets.setdefault(key, []).append((float(s.labels["le"]), s.value))
        le = float(s.labels["le"])
        bs = per_reason.setdefault(s.labels["reason"], {})
        bs[le] = bs.get(le, 0) + s.value
    if set(buckets) != set(lats):
        fail("histograms of %s, the CSV has %s" % (sorted(buckets), sorted(lats)))
    nb = 0
    for key, bs in buckets.items():
        bs.sort()
        vals = lats[key]
        if not math.isinf(bs[-1][0]) or bs[-1][1] != len(vals):
            fail("%r: +Inf bucket %r, the CSV %d" % (key, bs[-1], len(vals)))
        for le, c in bs[:-1]:
            bound = ns(le)
            if bound != 2 ** round(math.log2(bound + 1)) - 1:
                fail("bound %r is not 2^k-1 ns" % le)
            n = sum(1 for v in vals if v <= bound)
            if c != n:
                fail("%r: bucket le=%r holds %d, the CSV %d" % (key, le, c, n))
            nb += 1
    for r in rep["reasons"]:
        lab = reason_label(r)
        bs = sorted(per_reason[lab].items())
        if bs[-1][1] != r["count"]:
            fail("reason %s: %d exits in its buckets, %d in the JSON" % (lab, bs[-1][1], r["count"]))
        # the bucket of the p99: where the cumulative count first reaches its rank
        if r["count"]:
            p99 = r["p99_ns"]
            rank = math.ceil(Fraction(99, 100) * r["count"])
            first = next(i for i, (le, c) in enumerate(bs) if c >= rank)
            mine = next(i for i, (le, c) in enumerate(bs) if math.isinf(le) or p99 <= ns(le))
            if first != mine:
                fail("reason %s: p99 %d ns in bucket %d, the ranks say %d" % (lab, p99, mine,
                                                                              first))
    print("buckets: %d bounds equal a recount of the CSV; each p99 in its bucket" % nb)

    # per vCPU task: with a VM map (vmtrace-record --vm), every sample of the three
    # families has a vm label, the JSON's vm of the task ("" for null); without, none
    tasks = rep["vcpus"]
    fam3 = (samples("vmtrace_vcpu_exits", "_total") +
            samples("vmtrace_out_of_guest_seconds", "_total") +
            samples("vmtrace_worst_window_seconds"))
    per_vm = any("vm" in s.labels for s in fam3)
    if per_vm and not all("vm" in s.labels for s in fam3):
        fail("some per-task samples have a vm label, others not")
    if not per_vm and any(t["vm"] is not None for t in tasks):
        fail("the JSON names tasks' VMs, the metrics have no vm label")

    def key(s):
        return (s.labels.get("vm"), s.labels["vcpu"])
    vex = {key(s): s.value for s in samples("vmtrace_vcpu_exits", "_total")}
    oog = {key(s): s.value for s in samples("vmtrace_out_of_guest_seconds", "_total")}
    win = {key(s): s.value for s in samples("vmtrace_worst_window_seconds")}
    if len(vex) != len(tasks) or len(oog) != len(tasks) or len(win) != len(tasks):
        fail("%d vCPU tasks in the metrics, %d in the JSON" % (len(vex), len(tasks)))
    for t in tasks:
        lab = (vm_label(t, per_vm), vcpu_label(t, tasks, per_vm))
        if vex.get(lab) != t["pairs"]:
            fail("vcpu %s: exits %s, JSON %d" % (lab, vex.get(lab), t["pairs"]))
        if ns(oog[lab]) != t["total_ns"]:
            fail("vcpu %s: out of guest %r s, JSON %d ns" % (lab, oog[lab], t["total_ns"]))
        if ns(win[lab]) != t["max_window_sum_ns"]:
            fail("vcpu %s: worst window %r s, JSON %d ns" % (lab, win[lab],
                                                           t["max_window_sum_ns"]))
    print("vCPU tasks: %d%s, exits, out-of-guest time and worst window equal the JSON"
          % (len(tasks), " (vm labels: the JSON's vm)" if per_vm else ""))

    one = {n: samples(n, sfx)[0].value for n, sfx in
           (("vmtrace_window_seconds", ""), ("vmtrace_lost_events", "_total"),
            ("vmtrace_lost_uncounted", "_total"), ("vmtrace_orphans", "_total"))}
    if ns(one["vmtrace_window_seconds"]) != rep["window_ns"]:
        fail("window %r, JSON %d ns" % (one["vmtrace_window_seconds"], rep["window_ns"]))
    if one["vmtrace_lost_events"] != rep["lost_events"]:
        fail("lost events %r, JSON %d" % (one["vmtrace_lost_events"], rep["lost_events"]))
    # losses nobody counted: none exactly when the JSON calls lost_events exact, and at
    # least one per damaged block, chunk or page
    unc = one["vmtrace_lost_uncounted"]
    if (unc == 0) != rep["lost_events_exact"] or \
            unc < rep["bad_blocks"] + rep["bad_chunks"] + rep["bad_pages"]:
        fail("uncounted losses %r, JSON exact %r" % (unc, rep["lost_events_exact"]))
    if one["vmtrace_orphans"] != rep["orphans"]:
        fail("orphans %r, JSON %d" % (one["vmtrace_orphans"], rep["orphans"]))
    print("window, lost events, orphans equal the JSON")

    # the exits open at the stop: how many, and per reason (per VM and reason when the
    # per-reason samples carry vm labels) the longest open, from the JSON's open_exits
    opens = rep["open_exits"]
    if samples("vmtrace_open_exits")[0].value != len(opens):
        fail("open exits %r, JSON %d" % (samples("vmtrace_open_exits")[0].value, len(opens)))
    reason_vm = any("vm" in s.labels for s in samples("vmtrace_exits", "_total"))
    want_open = {}
    for o in opens:
        lab = o["reason"].split("(")[0] if o["reason"] else "unknown"
        vm = (LABEL_OF.get(o["pid"], o["vm"] or "") if o["vm"] is not None else "") \
            if reason_vm else None
        want_open[(vm, lab)] = max(want_open.get((vm, lab), 0), o["open_ns"])
    got_open = {}
    for s in samples("vmtrace_open_exit_seconds"):
        if ("vm" in s.labels) != reason_vm:
            fail("open exit seconds: a vm label %s, the per-reason samples %s"
                 % ("vm" in s.labels, reason_vm))
        got_open[(s.labels.get("vm"), s.labels["reason"])] = ns(s.value)
    if got_open != want_open:
        fail("open exits' longest per reason %r, JSON %r" % (got_open, want_open))
    print("open exits: %d, the longest of %d reasons equal the JSON" % (len(opens), len(got_open)))


main()
