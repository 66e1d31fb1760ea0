#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The metrics of a host of many VMs and reasons stream in constant memory: a recording with
# the map of 256 VMs (one vCPU thread each), every VM with exits of 40 reasons, gives 10 240
# series of a histogram each, 30 MB of text; built in memory first it peaked at 46 MB. On
# standard output (OpenMetrics) and into a file (Prometheus's text format) peak memory stays
# under 24 MiB (12 MiB seen), and every series' count and sum are those this script wrote.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3

$PY - big.txt truth.json <<'PY' || fail "writing the script"
import json, sys
NVM, NREASON = 256, 40
lines = ["cpus 0-1", "meta vm.count %d" % NVM]
for v in range(NVM):
    lines += ["meta vm.%d.name vm%03d" % (v, v), "meta vm.%d.pid %d" % (v, 5000 + v),
              "meta vm.%d.vcpus %d:0" % (v, 10000 + v)]
truth, ts = {}, 1000
for r in range(NREASON):
    for v in range(NVM):
        tid, cpu = 10000 + v, v % 2
        for k in range(2):
            lat = 200 + (v * 131 + r * 17 + k * 7) % 90000
            lines += ["exit %d %d %d %#x 0" % (cpu, ts, tid, r),
                      "entry %d %d %d 0" % (cpu, ts + lat, tid)]
            ts += lat + 100
            t = truth.setdefault("vm%03d/%d" % (v, r), [0, 0])
            t[0] += 1
            t[1] += lat
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
json.dump(truth, open(sys.argv[2], "w"))
PY
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" big.vmt <big.txt || fail "mkvmt"

# rss COMMAND...: run it, its peak resident memory (KiB, the kernel's account) into rss.txt
rss() {
	$PY -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:]).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=open("rss.txt", "w"))
sys.exit(rc)' "$@"
}
rss vmtrace-report --openmetrics big.vmt >big.om 2>err.txt || fail "--openmetrics: $(cat err.txt)"
om_rss=$(cat rss.txt)
rss vmtrace-report --openmetrics=big.prom big.vmt >/dev/null 2>err.txt ||
	fail "--openmetrics=FILE: $(cat err.txt)"
prom_rss=$(cat rss.txt)
rss vmtrace-report --json big.vmt >/dev/null 2>err.txt || fail "--json: $(cat err.txt)"
json_rss=$(cat rss.txt)
echo "peak RSS: --openmetrics $om_rss KiB, --openmetrics=FILE $prom_rss KiB, --json $json_rss KiB"
echo "text: $(wc -c <big.om) bytes on stdout, $(wc -c <big.prom) bytes in the file"

# every series: the vm and reason this script wrote, its count and its sum (exact ns); the
# reasons' names are the report's own, mapped back to the codes written by its JSON
vmtrace-report --json big.vmt >big.json || fail "--json"
$PY - big.om big.prom truth.json big.json <<'PY' || fail "the metrics are not what was written"
import json, re, sys
from fractions import Fraction
truth = json.load(open(sys.argv[3]))
# (a code without a name: the label is the code in hex, the JSON's name null)
code_of = {r["name"] or "%#x" % r["code"]: r["code"] for r in json.load(open(sys.argv[4]))["reasons"]}
want = {tuple(k.split("/")): tuple(v) for k, v in truth.items()}
for path in sys.argv[1:3]:
    got = {}
    text = open(path).read()
    assert text.endswith("# EOF\n") == path.endswith(".om"), path
    pat = re.compile(r'^vmtrace_exit_latency_seconds_(count|sum)\{host="mkvmt",'
                     r'vm="(vm\d{3})",reason="([^"]*)"\} (\S+)$', re.M)
    for kind, vm, reason, value in pat.findall(text):
        g = got.setdefault((vm, str(code_of[reason])), [None, None])
        if kind == "count":
            g[0] = int(value)
        else:
            g[1] = int(Fraction(value) * 10**9)
    got = {k: tuple(v) for k, v in got.items()}
    assert got == want, (path, len(got), len(want),
                         sorted(k for k in want if got.get(k) != want[k])[:3])
    exits = re.findall(r'^vmtrace_exits_total\{host="mkvmt",vm="vm\d{3}",reason="[^"]*"\} (\d+)$',
                       text, re.M)
    assert exits == ["2"] * len(want), (path, len(exits))
print("%d series, their counts and sums as written, in both forms" % len(want))
PY
[ "$(wc -c <big.om)" -gt 20000000 ] || fail "the text is not the size this test is about"
# AddressSanitizer's shadow and quarantine add to every allocation: the bound is the plain
# build's
if ldd "$(command -v vmtrace-report)" | grep -q libasan; then
	skip_part "the peak memory bound (built with AddressSanitizer)"
else
	[ "$om_rss" -lt 24576 ] || fail "--openmetrics peaked at $om_rss KiB: not streamed"
	[ "$prom_rss" -lt 24576 ] || fail "--openmetrics=FILE peaked at $prom_rss KiB: not streamed"
fi
finish
