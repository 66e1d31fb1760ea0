#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Query a Prometheus server that scrapes node_exporter's textfile collector holding our
metrics, and compare with vmtrace-report --json on the same recordings.

Usage: prometheus_check.py URL TIMEOUT_S HOST=REPORT.json [HOST=REPORT.json ...]

Waits (up to TIMEOUT_S) until every host's series are in Prometheus, then: every counter,
count and sum equals the JSON; histogram_quantile(0.99, ...) per reason and per host (all
reasons) lies in the same bucket (between the same 2^k-1 ns bounds) as the report's p99;
the README's "worst 1 ms window" query names the JSON's worst window per host; with a VM
map, the per-task series carry the JSON's vm and sum by (host, vm) adds up each VM's, and
the per-reason series are those of the JSON's tasks' VMs (summed per reason above).
"""
import json
import math
import sys
import time
import urllib.parse
import urllib.request


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def query(url, q):
    with urllib.request.urlopen(url + "/api/v1/query?" + urllib.parse.urlencode({"query": q}),
                                timeout=10) as r:
        d = json.load(r)
    if d.get("status") != "success":
        fail("query %s: %s" % (q, d))
    return [(m["metric"], float(m["value"][1])) for m in d["data"]["result"]]


def ns(seconds):
    return round(seconds * 1e9)


BOUNDS = [2 ** k - 1 for k in range(6, 33)]


def bucket_of(v_ns):
    """Index of the bucket (le bound) holding a latency of v_ns: len(BOUNDS) is +Inf."""
    return next((i for i, b in enumerate(BOUNDS) if v_ns <= b), len(BOUNDS))


def quantile_bucket(q_s):
    """The bucket histogram_quantile's answer lies in: (lower bound, upper bound]."""
    v = q_s * 1e9
    if v > BOUNDS[-1] * (1 + 1e-9):
        fail("histogram_quantile %r s beyond the last bound" % q_s)
    # The +Inf bucket answers its lower bound, the largest finite one.
    return next(i for i, b in enumerate(BOUNDS) if v <= b * (1 + 1e-9))


def check_quantile(what, q, p99_ns):
    want = bucket_of(p99_ns)
    got = quantile_bucket(q)
    if want == len(BOUNDS):
        ok = math.isclose(q * 1e9, BOUNDS[-1], rel_tol=1e-9)
    else:
        lo = BOUNDS[want - 1] if want else 0
        ok = got == want and q * 1e9 > lo * (1 - 1e-9)
    if not ok:
        fail("%s: histogram_quantile(0.99) = %r s, the report's p99 %d ns is in (%s, %s]"
             % (what, q, p99_ns, BOUNDS[want - 1] if want else 0,
                BOUNDS[want] if want < len(BOUNDS) else "+Inf"))


def reason_label(r):
    return r["name"] if r["name"] is not None else "0x%x" % r["code"]


def vcpu_label(v, tasks):
    """Unique among the tasks of the same VM (vm; Prometheus drops an empty vm label)."""
    if v["vcpu"] is None:
        return "pid %d" % v["pid"]
    if sum(1 for t in tasks if t["vcpu"] == v["vcpu"] and t["vm"] == v["vm"]) > 1:
        return "%d (pid %d)" % (v["vcpu"], v["pid"])
    return "%d" % v["vcpu"]


def by(results, *labels):
    if len(labels) == 1:
        return {m.get(labels[0]): v for m, v in results}
    return {tuple(m.get(k) for k in labels): v for m, v in results}


def main():
    url, timeout = sys.argv[1], float(sys.argv[2])
    reps = {}
    for a in sys.argv[3:]:
        host, path = a.split("=", 1)
        reps[host] = json.load(open(path))
    deadline = time.time() + timeout
    while True:
        try:
            hosts = set(by(query(url, "vmtrace_orphans_total"), "host"))
        except OSError:
            hosts = set()
        if set(reps) <= hosts:
            break
        if time.time() > deadline:
            fail("after %g s Prometheus has vmtrace series of %s, not of %s"
                 % (timeout, sorted(hosts), sorted(reps)))
        time.sleep(0.5)
    # the type node_exporter gave Prometheus: counters stay counters
    meta_url = url + "/api/v1/metadata?" + urllib.parse.urlencode({"metric": "vmtrace_exits_total"})
    with urllib.request.urlopen(meta_url, timeout=10) as r:
        meta = json.load(r)["data"].get("vmtrace_exits_total", [])
    if not meta or meta[0]["type"] != "counter":
        fail("vmtrace_exits_total's type in Prometheus: %s" % meta)

    for host, rep in reps.items():
        sel = '{host="%s"}' % host
        # with a VM map a series per VM and reason: summed per reason, the JSON's reasons
        exits = by(query(url, "sum by (reason) (vmtrace_exits_total%s)" % sel), "reason")
        counts = by(query(url, "sum by (reason) (vmtrace_exit_latency_seconds_count%s)" % sel),
                    "reason")
        sums = by(query(url, "sum by (reason) (vmtrace_exit_latency_seconds_sum%s)" % sel),
                  "reason")
        vms = by(query(url, "count by (vm) (vmtrace_exits_total%s)" % sel), "vm")
        want_vms = {t["vm"] for t in rep["vcpus"]}
        if set(vms) != want_vms:
            fail("%s: per-reason series of VMs %s, the JSON's tasks are of %s"
                 % (host, sorted(map(str, vms)), sorted(map(str, want_vms))))
        if len(exits) != len(rep["reasons"]):
            fail("%s: %d reasons in Prometheus, %d in the JSON" % (host, len(exits),
                                                                   len(rep["reasons"])))
        for r in rep["reasons"]:
            lab = reason_label(r)
            if exits.get(lab) != r["count"] or counts.get(lab) != r["count"]:
                fail("%s %s: exits %s, count %s, JSON %d" % (host, lab, exits.get(lab),
                                                             counts.get(lab), r["count"]))
            if ns(sums[lab]) != r["total_ns"]:
                fail("%s %s: sum %r s, JSON %d ns" % (host, lab, sums[lab], r["total_ns"]))
            q = query(url, 'histogram_quantile(0.99, sum by (le) '
                      '(vmtrace_exit_latency_seconds_bucket{host="%s",reason="%s"}))'
                      % (host, lab))
            check_quantile("%s %s" % (host, lab), q[0][1], r["p99_ns"])
        # the README's "p99 exit latency per host", over the whole recording
        q = by(query(url, "histogram_quantile(0.99, sum by (host, le) "
                     "(vmtrace_exit_latency_seconds_bucket))"), "host")
        check_quantile("%s, all reasons" % host, q[host], rep["percentiles_ns"]["p99"])
        tasks = rep["vcpus"]
        # a task's series: its VM's name (none when the map does not know it) and vCPU
        vex = by(query(url, "vmtrace_vcpu_exits_total" + sel), "vm", "vcpu")
        oog = by(query(url, "vmtrace_out_of_guest_seconds_total" + sel), "vm", "vcpu")
        win = by(query(url, "vmtrace_worst_window_seconds" + sel), "vm", "vcpu")
        if len(vex) != len(tasks):
            fail("%s: %d vCPU tasks in Prometheus, %d in the JSON" % (host, len(vex), len(tasks)))
        for t in tasks:
            lab = (t["vm"], vcpu_label(t, tasks))
            if (vex.get(lab) != t["pairs"] or ns(oog[lab]) != t["total_ns"] or
                    ns(win[lab]) != t["max_window_sum_ns"]):
                fail("%s vcpu %s: %s %s %s, JSON %d %d %d" % (host, lab, vex.get(lab),
                     oog.get(lab), win.get(lab), t["pairs"], t["total_ns"],
                     t["max_window_sum_ns"]))
        # the man page's out-of-guest time per VM: PromQL's sums against the JSON's vcpus
        per_vm = {}
        for t in tasks:
            if t["vm"] is not None:
                per_vm[t["vm"]] = per_vm.get(t["vm"], 0) + t["total_ns"]
        got = by(query(url, 'sum by (host, vm) (vmtrace_out_of_guest_seconds_total{vm!="",%s})'
                       % sel[1:-1]), "vm")
        if {vm: ns(v) for vm, v in got.items()} != per_vm:
            fail("%s: out-of-guest time per VM %s, JSON %s" % (host, got, per_vm))
        for name, key in (("vmtrace_lost_events_total", "lost_events"),
                          ("vmtrace_orphans_total", "orphans")):
            v = query(url, name + sel)[0][1]
            if v != rep[key]:
                fail("%s: %s %r, JSON %d" % (host, name, v, rep[key]))
        # the README's "hosts with the worst 1 ms window"
        w = by(query(url, "max by (host) (vmtrace_worst_window_seconds) and on (host) "
                     "(vmtrace_window_seconds == 0.001)"), "host")
        if rep["window_ns"] == 1000000 and ns(w[host]) != rep["max_window_sum_ns"]:
            fail("%s: worst 1 ms window %r s, JSON %d ns" % (host, w[host],
                                                            rep["max_window_sum_ns"]))
        # the README's alert on a vCPU stuck in an exit that means a hang, per VM: the
        # JSON's open exits of those reasons, the longest per VM
        stuck = {}
        for o in rep["open_exits"]:
            if o["reason"] and o["reason"].split("(")[0] in ("npf", "io", "EPT_VIOLATION",
                                                               "IO_INSTRUCTION"):
                stuck[o["vm"]] = max(stuck.get(o["vm"], 0), o["open_ns"])
        got = by(query(url, 'max by (host, vm) (vmtrace_open_exit_seconds{reason=~'
                       '"npf|io|EPT_VIOLATION|IO_INSTRUCTION",%s})' % sel[1:-1]), "vm")
        if {vm: ns(v) for vm, v in got.items()} != stuck:
            fail("%s: longest open exit of a hang's reasons per VM %s, JSON %s"
                 % (host, got, stuck))
        n_open = query(url, "vmtrace_open_exits" + sel)[0][1]
        if n_open != len(rep["open_exits"]):
            fail("%s: vmtrace_open_exits %r, JSON %d" % (host, n_open, len(rep["open_exits"])))
        print("%s: %d reasons, %d vCPU tasks (%d VMs), lost, orphans, worst window, open exits "
              "(%d, %d of a hang's reasons) equal the JSON; each p99 in its bucket"
              % (host, len(exits), len(tasks), len(per_vm), n_open, len(stuck)))


main()
