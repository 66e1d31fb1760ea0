#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""text2why's output (tests/kvmhost/text2why.c: the harness's evidence.txt through the
attribution engine) -> the files the tools are to write with attribution (issue 13):
the per-exit CSV of `vmtrace-convert --csv --why` and the JSON of `vmtrace-report --json
--threshold TICK`, with the columns and keys planned for them. So tests/kvmhost/whycheck.py
can be tried on a real KVM host's attribution before the tools produce it, and its
fixtures made from one.

  whyfixture.py TSV TICK_NS OUT.csv OUT.json [--trim]

--trim keeps only the exits whycheck.py looks at (io, hlt, the longer than a tick) and a
few others; the JSON's totals are then over the kept exits.
"""
import csv
import json
import sys

KINDS = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]
CONTEXT = ["sched:sched_switch", "sched:sched_waking", "irq:irq_handler_entry",
           "irq:irq_handler_exit", "irq:softirq_entry", "irq:softirq_exit",
           "irq_vectors:local_timer_entry", "irq_vectors:local_timer_exit",
           "nmi:nmi_handler", "kvm:kvm_userspace_exit", "kvm:kvm_vcpu_wakeup",
           "syscalls:sys_enter_ioctl"]
CSV_COLS = ["start_ns", "start_ts_ns", "pcpu", "entry_pcpu", "vcpu", "task", "reason_code",
            "reason", "latency_ns", "guest_rip", "info1", "info2", "near_gap"] + \
    [k + "_ns" for k in KINDS] + ["incomplete", "culprit_kind", "culprit", "culprit_pid"]


def parts_of(field):
    out = []
    for p in field.split(";") if field else []:
        kind, pid, rest = p.split("/", 2)
        name, ns = rest.rsplit("/", 1)
        pid = int(pid)
        out.append({"kind": kind, "name": "other" if pid == -2 else name,
                    "pid": pid if pid > 0 else None, "ns": int(ns)})
    return out


def main():
    tsv, tick, out_csv, out_json = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    trim = "--trim" in sys.argv[5:]
    exits, windows = [], []
    for line in open(tsv):
        f = line.rstrip("\n").split("\t")
        if f[0] == "X":
            e = {"start": int(f[1]), "pid": int(f[2]), "reason": f[3], "lat": int(f[4]),
                 "kinds": dict(zip(KINDS, map(int, f[5:13]))), "incomplete": f[13] == "1",
                 "ckind": f[14], "cname": f[15], "cpid": f[16], "parts": parts_of(f[17])}
            exits.append(e)
        elif f[0] == "W":
            windows.append((int(f[1]), int(f[2]), dict(zip(KINDS, map(int, f[3:11])))))
    t0 = exits[0]["start"] if exits else 0
    if trim:
        kept, others = [], 0
        for e in exits:
            if e["reason"] in ("io", "hlt") or e["lat"] > tick:
                kept.append(e)
            elif others < 20:
                kept.append(e)
                others += 1
        exits = kept

    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(CSV_COLS)
        for e in exits:
            w.writerow([e["start"] - t0, e["start"], 1, 1, 0, e["pid"], "", e["reason"],
                        e["lat"], "0x1000", "0x0", "0x0", 0] +
                       [e["kinds"][k] for k in KINDS] +
                       [int(e["incomplete"]), e["ckind"], e["cname"], e["cpid"]])

    def entry(e):
        cul = None
        named = [p for p in e["parts"] if p["kind"] != "kvm" and p["name"] != "other"]
        if named:
            best = max(named, key=lambda p: p["ns"])
            cul = dict(best)
        why = {k + "_ns": e["kinds"][k] for k in KINDS}
        why.update({"incomplete": e["incomplete"], "culprit": cul, "parts": e["parts"]})
        return {"time_ns": e["start"] - t0, "ts": e["start"], "cpu": 1, "pid": e["pid"],
                "latency_ns": e["lat"], "vcpu": 0, "reason": e["reason"], "why": why}

    reasons, byr, culprits = {}, {}, {}
    for e in exits:
        r = reasons.setdefault(e["reason"], {"name": e["reason"], "count": 0, "total_ns": 0})
        r["count"] += 1
        r["total_ns"] += e["lat"]
        b = byr.setdefault(e["reason"], dict({"name": e["reason"], "code": 0, "isa": 2},
                                             **{k + "_ns": 0 for k in KINDS}))
        for k in KINDS:
            b[k + "_ns"] += e["kinds"][k]
        for p in e["parts"]:
            if p["kind"] == "kvm":
                continue
            key = (p["kind"], p["pid"], p["name"] if p["pid"] is None else "")
            c = culprits.setdefault(key, {"kind": p["kind"], "name": p["name"],
                                          "pid": p["pid"], "count": 0, "total_ns": 0,
                                          "max_ns": 0})
            c["count"] += 1
            c["total_ns"] += p["ns"]
            c["max_ns"] = max(c["max_ns"], p["ns"])
    longest = sorted(exits, key=lambda e: -e["lat"])
    d = {
        "file": "kvm.vmt", "finished": True, "clock": "local", "unit": "ns",
        "context_events": CONTEXT, "lost_events": 0,
        "reasons": list(reasons.values()),
        "why_by_reason": list(byr.values()),
        "culprits": sorted(culprits.values(), key=lambda c: -c["total_ns"]),
        "vcpus": [{"pid": pid, "vcpu": 0, "max_window_sum_ns": s,
                   "worst_window_why": {k + "_ns": ww[k] for k in KINDS}}
                  for pid, s, ww in windows],
        "top": [entry(e) for e in longest[:10]],
        "over_threshold": [entry(e) for e in exits if e["lat"] >= tick],
    }
    with open(out_json, "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
