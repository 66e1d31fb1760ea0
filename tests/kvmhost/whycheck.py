#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks a recording of the KVM host harness's "why" scenario (tests/kvmhost/run.sh):
two kvmload VMs whose vCPU threads share one CPU, each with an in-kernel irqchip (HLTs sleep
in the host kernel until the guest's APIC timer wakes them) and USEC of user-space work per
I/O exit. The truth is what each kvmload printed for itself (kvmload-a.txt, kvmload-b.txt):
its vCPU thread's id, its own counts of I/O exits, HLTs, interrupts and rounds.

  whycheck.py counts CSV A.txt B.txt
      CSV: `vmtrace-convert --csv` of the recording. Each vCPU thread's exits per reason
      equal its workload's own counts (cpuid, io, hlt exactly; npf from the workload's
      MMIO writes, APIC timer writes and EOIs, plus a few first touches of guest memory).

  whycheck.py why --csv CSV --json JSON --tick-ns N [--require-context] A.txt B.txt
      CSV: `vmtrace-convert --csv --why`; JSON: `vmtrace-report --json --threshold N`.
      The attribution (tests/e2e/kvmhost_why.sh says what it checks and why).
      Exit 77 when there is no attribution to check: the tools do not produce it yet, or
      the file has no context events (then 1 with --require-context).

Exit status: 0 all checks pass, 1 a check failed (each failure on one line), 77 skipped.
"""
import csv
import json
import sys

KINDS = ["kvm", "userspace", "preempted", "blocked", "wakeup", "irq", "softirq", "nmi"]
ROUND_CPUIDS = 200
# Pages of guest memory the first round touches (code, vector table and flag, stack): each
# first touch is one nested page fault more than the workload's own MMIO writes.
FIRST_TOUCH_MAX = 6


class Skip(Exception):
    pass


class Checker:
    def __init__(self):
        self.failures = []
        self.notes = []

    def check(self, cond, what):
        if not cond:
            self.failures.append(what)
        return cond

    def note(self, what):
        self.notes.append(what)

    def finish(self):
        for n in self.notes:
            print("whycheck:", n)
        for f in self.failures:
            print("whycheck: FAIL:", f)
        if not self.failures:
            print("whycheck: all checks pass")
        return 1 if self.failures else 0



def stalls_allowed(n):
    """How many of n exits may show a stall of QEMU's emulated CPU: 1 in 10, and at least
    one (a 3 s run has 10 to 60 long HLTs, and one stall lands where it lands). Under
    `make -j4 check` the emulator is starved more: 3 of 54 long HLTs were seen stalled. A
    wrong attribution gets most of them wrong, not one in ten."""
    return max(1, n // 10)

def workload(path):
    """kvmload's line of "key value" pairs; numbers as ints."""
    words = open(path).read().split()
    w = {}
    for k, v in zip(words[::2], words[1::2]):
        w[k] = int(v) if v.isdigit() else v
    for k in ("rounds", "io", "hlt", "pid", "tid"):
        if k not in w:
            raise SystemExit("whycheck: %s: no '%s' (not a kvmload result)" % (path, k))
    return w


def read_csv(path):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        return r.fieldnames or [], list(r)


def by_task(rows):
    t = {}
    for r in rows:
        t.setdefault(int(r["task"]), []).append(r)
    return t


def counts(argv):
    c = Checker()
    _, rows = read_csv(argv[0])
    loads = [workload(p) for p in argv[1:3]]
    tasks = by_task(rows)
    c.check(loads[0]["tid"] != loads[1]["tid"], "both workloads report tid %d" % loads[0]["tid"])
    for w in loads:
        name = w.get("name", w["tid"])
        mine = tasks.get(w["tid"], [])
        got = {}
        for r in mine:
            got[r["reason"]] = got.get(r["reason"], 0) + 1
        c.note("%s (tid %d): workload %s; recorded %s" % (name, w["tid"], w, got))
        if not c.check(mine, "%s: no exits of its vCPU thread %d in the file" % (name, w["tid"])):
            continue
        c.check(w["rounds"] > 0, "%s: no whole round" % name)
        c.check(got.get("cpuid", 0) == w["cpuid"] == ROUND_CPUIDS * w["rounds"],
                "%s: cpuid exits %d, workload %d" % (name, got.get("cpuid", 0), w["cpuid"]))
        c.check(got.get("io", 0) == w["io"],
                "%s: io exits %d, workload %d" % (name, got.get("io", 0), w["io"]))
        if "irqs" not in w:
            # no irqchip: every HLT returns to user space; the last stopped the run (open
            # at stop, not a pair); each MMIO write faults, first touches add a few
            c.check(got.get("hlt", 0) == w["hlt"] - 1,
                    "%s: hlt exits %d, workload %d and the last open" %
                    (name, got.get("hlt", 0), w["hlt"]))
            npf = got.get("npf", got.get("PF excp", 0))
            c.check(w["mmio"] <= npf <= w["mmio"] + 4, "%s: %d nested page faults for %d "
                    "MMIO writes" % (name, npf, w["mmio"]))
        else:
            # irqchip: every HLT is an exit the kernel handles and returns from; the run
            # stopped at its last MMIO exit (open at stop, not a pair)
            c.check(got.get("hlt", 0) == w["hlt"],
                    "%s: hlt exits %d, the guest counted %d" % (name, got.get("hlt", 0), w["hlt"]))
            base = (w["mmio"] - 1) + (w["rounds"] - 1) + w["irqs"]
            npf = got.get("npf", 0)
            c.check(base <= npf <= base + FIRST_TOUCH_MAX,
                    "%s: npf exits %d, expected %d MMIO writes + APIC timer writes + EOIs "
                    "and at most %d first touches" % (name, npf, base, FIRST_TOUCH_MAX))
    others = set(tasks) - {w["tid"] for w in loads}
    c.check(not others, "exits of other tasks in the file: %s" % sorted(others))
    return c.finish()


def num(r, k):
    v = r.get(k)
    if v is None or v == "":
        return None
    return int(v)


def brief(r):
    """One exit's row in a line: when, who, what, how long, its non-zero kinds, culprit."""
    kinds = " ".join("%s %s" % (k, r[k + "_ns"]) for k in KINDS if num(r, k + "_ns"))
    return "%s exit of task %s at %s ns, %s ns: %s; culprit %s %s (pid %s)%s" % (
        r["reason"], r["task"], r["start_ns"], r["latency_ns"], kinds, r.get("culprit_kind"),
        r.get("culprit"), r.get("culprit_pid"),
        ", incomplete" if truthy(r.get("incomplete")) else "")


def truthy(v):
    return str(v).lower() in ("1", "true", "yes")


def why_csv_checks(c, rows, loads, tick_ns, io_work_ns, halt_poll_ns):
    """Per-exit checks on every row of the --why CSV; returns the rows by task."""
    tasks = by_task(rows)
    missing = sum(1 for r in rows if num(r, "kvm_ns") is None)
    c.check(missing == 0, "%d of %d exits have no breakdown (empty why cells)" %
            (missing, len(rows)))
    bad_sum = [r for r in rows if num(r, "kvm_ns") is not None and
               sum(num(r, k + "_ns") for k in KINDS) != int(r["latency_ns"])]
    c.check(not bad_sum, "%d exits whose parts do not add up to their latency, e.g. %s" %
            (len(bad_sum), brief(bad_sum[0]) if bad_sum else None))
    incomplete = [r for r in rows if truthy(r.get("incomplete"))]
    # nothing is lost in this scenario: an incomplete breakdown is an attribution fault,
    # except near the file's edges (a handful)
    c.check(len(incomplete) <= max(2, len(rows) // 1000),
            "%d of %d exits incomplete" % (len(incomplete), len(rows)))
    for w, o in ((loads[0], loads[1]), (loads[1], loads[0])):
        name = w.get("name", w["tid"])
        mine = [r for r in tasks.get(w["tid"], []) if num(r, "kvm_ns") is not None]
        complete = [r for r in mine if not truthy(r.get("incomplete"))]

        # I/O exits: the VMM's user-space handling, USEC of it at least, on every one
        io = [r for r in mine if r["reason"] == "io"]
        c.check(len(io) == w["io"], "%s: %d io exits with a breakdown, workload %d" %
                (name, len(io), w["io"]))
        no_user = [r for r in io if num(r, "userspace_ns") == 0]
        c.check(not no_user, "%s: %d of %d io exits without a userspace part, e.g. %s" %
                (name, len(no_user), len(io), brief(no_user[0]) if no_user else None))
        # the spin is user-space time, or time it was interrupted or preempted: never kvm
        short = [r for r in io if not truthy(r.get("incomplete")) and
                 int(r["latency_ns"]) - num(r, "kvm_ns") < io_work_ns]
        c.check(not short, "%s: %d io exits with less than %d ns outside kvm, e.g. %s" %
                (name, len(short), io_work_ns, brief(short[0]) if short else None))
        user = sorted(num(r, "userspace_ns") for r in io)
        if user:
            med = user[len(user) // 2]
            c.note("%s: io userspace part median %d ns (the workload spins %d ns)" %
                   (name, med, io_work_ns))
            c.check(med >= io_work_ns, "%s: median userspace part %d ns < the workload's %d"
                    % (name, med, io_work_ns))

        # HLT exits: the vCPU thread sleeps until the APIC timer's interrupt wakes it;
        # when the timer fired before it could sleep (it was preempted first), it never
        # slept and waited for the CPU instead
        hlt = [r for r in complete if r["reason"] == "hlt"]
        slept = [r for r in hlt if num(r, "blocked_ns") > 0]
        c.note("%s: %d hlt exits, %d blocked" % (name, len(hlt), len(slept)))
        c.check(len(slept) * 2 > len(hlt), "%s: only %d of %d hlt exits blocked" %
                (name, len(slept), len(hlt)))
        odd = []
        kicked = []
        behind = []
        for r in hlt:
            if num(r, "blocked_ns") > 0:
                c.check(num(r, "wakeup_ns") > 0,
                        "%s: a hlt exit blocked without a wake-up: %s" % (name, brief(r)))
                # the wait after the wake-up is named after whoever held the CPU: the
                # other VM's vCPU thread (or its process, tearing the VM down), or the
                # idle task ("idle"); anything else is noted, at most 1 in 10
                if r.get("culprit_kind") == "wakeup":
                    if r.get("culprit_pid") not in (str(o["tid"]), str(o["pid"])) and \
                            not (r.get("culprit") == "idle" and
                                 r.get("culprit_pid", "") in ("", "-1")):
                        behind.append(r)
                        c.note("%s: a hlt exit waited after its wake-up behind %s (pid %s), "
                               "not the other VM's vCPU thread %d: %s" %
                               (name, r.get("culprit"), r.get("culprit_pid"), o["tid"],
                                brief(r)))
                    continue
                # the sleep is named after what woke it: the APIC timer's interrupt
                if r.get("culprit_kind") != "blocked" or \
                        (r.get("culprit_pid", "") in ("", "-1") and r.get("culprit")):
                    continue
                # KVM also kicks every vCPU from a workqueue now and then (its kvmclock
                # update work): a kworker's wake-up is real, but rare (seen once in 114)
                if r.get("culprit", "").startswith("kworker/"):
                    kicked.append(r)
                    c.note("%s: a hlt exit woken by a kworker: %s" % (name, brief(r)))
                    continue
                c.check(False, "%s: a hlt exit woken by a task, not the timer interrupt: %s"
                        % (name, brief(r)))
            elif num(r, "preempted_ns") == 0 and int(r["latency_ns"]) > halt_poll_ns:
                # KVM polls up to halt_poll_ns for the interrupt before it puts the vCPU
                # thread to sleep: a timer that fires meanwhile ends the HLT awake, its
                # time the kernel's (kvm, and the interrupt's own irq part). Longer than
                # that without a sleep is the emulated host's CPU stalling
                # (tests/e2e/kvmhost_why.sh).
                odd.append(r)
                c.note("%s: a hlt exit longer than KVM's halt polling (%d ns) neither "
                       "blocked nor preempted: %s" % (name, halt_poll_ns, brief(r)))
        c.check(len(behind) <= stalls_allowed(len(hlt)), "%s: %d of %d hlt exits waited after "
                "their wake-up behind another task than the other VM's vCPU thread or idle "
                "(at most 1 in 10, or one)" % (name, len(behind), len(hlt)))
        c.check(len(kicked) <= stalls_allowed(len(hlt)), "%s: %d of %d hlt exits woken by "
                "a kworker (at most 1 in 10, or one)" % (name, len(kicked), len(hlt)))
        c.check(len(odd) <= stalls_allowed(len(hlt)), "%s: %d of %d hlt exits neither "
                "blocked, nor preempted, nor within KVM's halt polling (at most 1 in 10, or "
                "one, may stall)" %
                (name, len(odd), len(hlt)))

        # exits longer than a tick: the other VM's vCPU thread took the CPU
        longs = [r for r in complete if int(r["latency_ns"]) > tick_ns]
        slept = [r for r in longs if num(r, "blocked_ns") > 0]
        awake = [r for r in longs if num(r, "blocked_ns") == 0]
        mostly = [r for r in awake if num(r, "preempted_ns") * 2 > int(r["latency_ns"]) and
                  r.get("culprit_kind") == "preempted" and r.get("culprit_pid") == str(o["tid"])]
        c.note("%s: %d exits longer than a tick (%d ns): %d never slept, of which %d mostly "
               "preempted by the other VM; %d slept (HLT)" %
               (name, len(longs), tick_ns, len(awake), len(mostly), len(slept)))
        others = []
        for r in awake:
            if r not in mostly:
                c.note("%s: not mostly preempted by tid %d: %s" % (name, o["tid"], brief(r)))
            # whoever else ran, the other VM's vCPU thread ran longest; or, once that VM's
            # run is over, its main thread tearing the VM down (pid: the process). The
            # emulated host's own threads (a kworker) can win now and then, when its
            # emulated CPU stalls while they run: noted, at most 1 in 20.
            if r.get("culprit_kind") == "preempted" and \
                    r.get("culprit_pid") not in (str(o["tid"]), str(o["pid"])):
                others.append(r)
                c.note("%s: an exit of %s ns preempted most by %s (pid %s), not the other "
                       "VM's vCPU thread %d: %s" % (name, r["latency_ns"], r.get("culprit"),
                                                   r.get("culprit_pid"), o["tid"], brief(r)))
        c.check(len(others) * 20 <= len(awake), "%s: %d of %d exits longer than a tick "
                "preempted most by another task than the other VM's vCPU thread %d" %
                (name, len(others), len(awake), o["tid"]))
        # QEMU's emulated CPU stalls now and then (TCG not running it): that time lands in
        # whatever part was current, host kernel or interrupt handler, and no breakdown can
        # tell. Tolerated in a few exits, not the rule.
        c.check(len(awake) >= 3, "%s: only %d exits longer than a tick: the two VMs did not "
                "compete for the CPU" % (name, len(awake)))
        c.check(len(mostly) * 5 >= len(awake) * 4, "%s: only %d of %d exits longer than a "
                "tick mostly preempted by the other VM's vCPU thread (tid %d)" %
                (name, len(mostly), len(awake), o["tid"]))
        # a HLT that slept: its sleep and the wait after its wake-up (the other VM ran on);
        # a stall of the emulated CPU lands in kvm now and then: at most 1 in 10, or one
        odd_sleep = [r for r in slept if (num(r, "blocked_ns") + num(r, "wakeup_ns") +
                                          num(r, "preempted_ns")) * 2 <= int(r["latency_ns"])]
        for r in odd_sleep:
            c.note("%s: a long exit that slept, mostly something else: %s" % (name, brief(r)))
        c.check(len(odd_sleep) <= stalls_allowed(len(slept)), "%s: %d of %d long exits that slept were "
                "mostly something else than the sleep and the wait after it" %
                (name, len(odd_sleep), len(slept)))
    return tasks


def why_json_checks(c, d, loads, tick_ns, rows):
    tids = {w["tid"]: w for w in loads}
    other = {loads[0]["tid"]: loads[1]["tid"], loads[1]["tid"]: loads[0]["tid"]}
    ctx = d.get("context_events")
    c.check(isinstance(ctx, list) and "sched:sched_switch" in ctx and
            "kvm:kvm_userspace_exit" in ctx, "context_events: %r" % (ctx,))

    awake = {t: 0 for t in tids}
    mostly = {t: 0 for t in tids}
    entries = d.get("over_threshold")
    if entries is None:
        c.check(False, "no over_threshold list in the report run with --threshold")
        entries = []
    long_rows = [r for r in rows if int(r["latency_ns"]) > tick_ns]
    c.check(len([e for e in entries if e["latency_ns"] > tick_ns]) == len(long_rows),
            "over_threshold lists %d exits longer than a tick, the CSV %d" %
            (len([e for e in entries if e["latency_ns"] > tick_ns]), len(long_rows)))
    # the same exit in both outputs: the same breakdown (ns clocks: ts is in ns)
    csv_at = {(int(r["task"]), int(r["start_ts_ns"])): r for r in rows}
    for e in entries + d.get("top", []):
        w = e.get("why")
        if not c.check(isinstance(w, dict), "an exit without why: %s" % e):
            continue
        r = csv_at.get((e["pid"], e["ts"]))
        if c.check(r is not None, "a JSON exit not in the CSV: %s" % e):
            c.check(all(num(r, k + "_ns") == w[k + "_ns"] for k in KINDS) and
                    truthy(r.get("incomplete")) == bool(w["incomplete"]) and
                    (r.get("culprit_kind") or None) == (w["culprit"] or {}).get("kind"),
                    "the JSON and the CSV break the same exit down differently:\n  %s\n  %s"
                    % (e, brief(r)))
        c.check(sum(w[k + "_ns"] for k in KINDS) == e["latency_ns"],
                "why kinds do not add up to the latency: %s" % e)
        parts = w.get("parts", [])
        c.check(sum(p["ns"] for p in parts) == e["latency_ns"],
                "why parts do not add up to the latency: %s" % e)
        for k in KINDS:
            c.check(sum(p["ns"] for p in parts if p["kind"] == k) == w[k + "_ns"],
                    "parts of kind %s do not add up to %s_ns: %s" % (k, k, e))
        # the culprit: the largest part but kvm and the "other" parts (merged small ones)
        named = [p["ns"] for p in parts if p["kind"] != "kvm" and p.get("name") != "other"]
        cul = w.get("culprit")
        if cul is None:
            c.check(not named, "no culprit but parts other than kvm: %s" % e)
        else:
            c.check(cul["kind"] != "kvm" and cul["ns"] == max(named, default=-1),
                    "the culprit is not the largest part but kvm: %s" % e)
        if e["latency_ns"] <= tick_ns or e["pid"] not in tids or w["incomplete"]:
            continue
        if not w["blocked_ns"]:
            by_other = sum(p["ns"] for p in parts
                           if p["kind"] == "preempted" and p["pid"] == other[e["pid"]])
            awake[e["pid"]] += 1
            mostly[e["pid"]] += by_other * 2 > e["latency_ns"]
    for pid in tids:
        c.check(mostly[pid] * 5 >= awake[pid] * 4,
                "over_threshold: only %d of %d exits of tid %d longer than a tick that never "
                "slept have more than half their time preempted by tid %d" %
                (mostly[pid], awake[pid], pid, other[pid]))

    # the culprits: the two vCPU threads took the most time from each other
    cul = [r for r in d.get("culprits") or [] if r["kind"] == "preempted"]
    c.check(cul and cul[0]["pid"] in tids, "the largest preempting culprit is not a vCPU "
            "thread: %s" % cul[:3])
    c.check({r["pid"] for r in cul} >= set(tids),
            "not both vCPU threads among the preempting culprits: %s" % cul[:5])
    for r in d.get("culprits") or []:
        c.check(r["max_ns"] <= r["total_ns"] and r["count"] > 0, "culprit row: %s" % r)

    # per reason and per vCPU: the kinds add up to the totals the report has without why
    totals = {r["name"]: r["total_ns"] for r in d.get("reasons", [])}
    byr = d.get("why_by_reason")
    if c.check(isinstance(byr, list) and byr, "why_by_reason: %r" % (byr,)):
        for r in byr:
            c.check(sum(r[k + "_ns"] for k in KINDS) == totals.get(r["name"]),
                    "why_by_reason %s does not add up to the reason's total %s" %
                    (r, totals.get(r["name"])))
        io = [r for r in byr if r["name"] == "io"]
        c.check(io and io[0]["userspace_ns"] > 0, "why_by_reason: io has no userspace: %s"
                % io)
    for v in d.get("vcpus", []):
        ww = v.get("worst_window_why")
        if c.check(isinstance(ww, dict), "vcpu %s: no worst_window_why" % v.get("pid")):
            c.check(sum(ww[k + "_ns"] for k in KINDS) == v["max_window_sum_ns"],
                    "vcpu %s: worst_window_why does not add up to max_window_sum_ns %d: %s"
                    % (v.get("pid"), v["max_window_sum_ns"], ww))


def has_why(d):
    """None: the report knows nothing of attribution; False: no context; True: why."""
    exits = d.get("top", []) + d.get("over_threshold", [])
    if any(e.get("why") for e in exits):
        return True
    if "why_note" in d or any("why" in e for e in exits):
        return False
    return None


def why(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="whycheck.py why")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--tick-ns", type=int, required=True)
    ap.add_argument("--halt-poll-ns", type=int, default=200000,
                    help="the host's /sys/module/kvm/parameters/halt_poll_ns (x86 default)")
    ap.add_argument("--require-context", action="store_true")
    ap.add_argument("loads", nargs=2)
    a = ap.parse_args(argv)
    loads = [workload(p) for p in a.loads]
    d = json.load(open(a.json))
    fields, rows = read_csv(a.csv)
    state = has_why(d)
    if state is None:
        raise Skip("the report has no attribution yet (no why, no why_note)")
    if "kvm_ns" not in fields:
        raise Skip("the CSV has no why columns (kvm_ns)")
    if state is False:
        msg = "the recording has no context events: %s" % d.get("why_note")
        if a.require_context:
            print("whycheck: FAIL:", msg)
            return 1
        raise Skip(msg)
    io_work = {w.get("io_work_us") for w in loads}
    if len(io_work) != 1 or None in io_work:
        raise SystemExit("whycheck: the workloads' io_work_us differ or are missing")
    c = Checker()
    why_csv_checks(c, rows, loads, a.tick_ns, io_work.pop() * 1000, a.halt_poll_ns)
    why_json_checks(c, d, loads, a.tick_ns, rows)
    return c.finish()


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("counts", "why"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return counts(sys.argv[2:]) if sys.argv[1] == "counts" else why(sys.argv[2:])
    except Skip as s:
        print("whycheck: SKIP:", s)
        return 77


if __name__ == "__main__":
    sys.exit(main())
