#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A tests/helpers/mkvmt script of two VMs, as vmtrace-record --vm maps them, and what it holds.

Usage: twovms.py [--one-name] SCRIPT_OUT TRUTH_OUT

VM web1 (pid 900) has threads 1000 (vCPU 0) and 1001 (vCPU 1); VM db (pid 901) has 2000
(vCPU 0) and 2001 (vCPU 1), so each vCPU index is in both VMs; task 3000 (vCPU 0 in its
events) is in neither. Exits of pseudo-random latency, a long one now and then, on two
CPUs. TRUTH_OUT (JSON) is computed here from the events as written, not by vmtrace:
"vm_of" tid -> VM name (null for 3000), "per_vm" name ("" for none) -> count and total_ns
of the pairs, "long_ns" the shortest of the long exits, "label_of" tid -> the vm label the
metrics give the task: its VM's name, "NAME (pid PID)" with the VMM's pid when two VMs of
the map share the name. --one-name names both VMs web (the two QEMUs of a local live
migration, both run with -name web); per_vm is then keyed by those labels.
"""
import json
import sys

VMS = [("web1", 900, [(1000, 0), (1001, 1)]), ("db", 901, [(2000, 0), (2001, 1)])]
OTHER = (3000, 0)
REASONS = [0x78, 0x7b, 0x72, 0x400]     # SVM: hlt, io, cpuid, npf
LONG_NS = 2000000


def main():
    global VMS
    if sys.argv[1:2] == ["--one-name"]:
        del sys.argv[1]
        VMS = [("web", pid, threads) for _, pid, threads in VMS]
    names = [name for name, _, _ in VMS]
    label_of = {OTHER[0]: ""}
    lines = ["cpus 0-1", "meta vm.count %d" % len(VMS)]
    vm_of = {}
    for i, (name, pid, threads) in enumerate(VMS):
        lines += ["meta vm.%d.name %s" % (i, name), "meta vm.%d.pid %d" % (i, pid),
                  "meta vm.%d.vcpus %s" % (i, ",".join("%d:%d" % t for t in threads))]
        for tid, _ in threads:
            vm_of[tid] = name
            label_of[tid] = name if names.count(name) == 1 else "%s (pid %d)" % (name, pid)
    tasks = [t for _, _, threads in VMS for t in threads] + [OTHER]
    vm_of[OTHER[0]] = None
    per_vm = {}
    ts = 1000
    for k in range(300):
        for n, (tid, vcpu) in enumerate(tasks):
            cpu = n % 2
            lat = 100 + (k * 7919 + tid * 31) % 50000
            if (k + n) % 97 == 0:
                lat = LONG_NS + k * 10 + n
            reason = REASONS[(k + n) % len(REASONS)]
            lines.append("exit %d %d %d %#x %d" % (cpu, ts, tid, reason, vcpu))
            lines.append("entry %d %d %d %d" % (cpu, ts + lat, tid, vcpu))
            ts += lat + 300
            v = per_vm.setdefault(label_of[tid], {"count": 0, "total_ns": 0})
            v["count"] += 1
            v["total_ns"] += lat
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(sys.argv[2], "w") as f:
        json.dump({"vm_of": {str(k): v for k, v in vm_of.items()}, "per_vm": per_vm,
                   "long_ns": LONG_NS,
                   "label_of": {str(k): v for k, v in label_of.items()}}, f)


main()
