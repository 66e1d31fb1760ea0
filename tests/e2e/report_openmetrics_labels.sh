#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Two expositions of one host in one textfile directory must be different series, or
# node_exporter serves one file and logs "was collected before with the same name and
# label values". Two ways apart, on the two-VM recording of tests/helpers/twovms.py:
# - --label NAME=VALUE (repeatable) adds a label to every sample: two files of one
#   recording with --label recorder=a and =b share no series, and each sample equals the
#   unlabelled file's (the same recording without --label gives the same series twice:
#   the collision); a value with '"', '\' and a newline reads back as given through
#   prometheus_client's parser;
# - --vm NAME: every sample carries vm="NAME" (not only the per-task families), so the
#   files of --vm web1 and --vm db share no series; their exits per VM are twovms.py's.
# node_exporter (when installed) then reads both pairs from one directory: no error, and
# every sample of the four files served with its value. Bad --label input: one line, 64.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
$PY -c 'import prometheus_client.parser' 2>/dev/null ||
	skip "python3-prometheus-client is not installed (scripts/setup-debian12.sh --tests)"

$PY "$top_srcdir/tests/helpers/twovms.py" vms.txt truth.json || fail "twovms.py"
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" vms.vmt <vms.txt || fail "mkvmt"

mkdir tf
value='a"b\c
d'
for x in "plain.prom" "tf/a.prom --label recorder=a --label site=fra1" \
	 "tf/b.prom --label recorder=b --label site=fra1" "esc.prom --label note=$value" \
	 "tf/web1.prom --vm web1" "tf/db.prom --vm db" "all.prom"; do
	f=${x%% *}
	[ "$f" = "$x" ] && opts= || opts=${x#* }
	case $f in esc.prom) set -- --label "note=$value" ;; *) set -- $opts ;; esac
	run vmtrace-report --openmetrics="$f" "$@" vms.vmt
	expect_rc 0 "--openmetrics=$f $*"
	[ ! -s out.txt ] && [ ! -s err.txt ] || { cat out.txt err.txt >&2; fail "$f: output"; }
done
# the OpenMetrics text (standard output) carries the labels too
run vmtrace-report --openmetrics --label recorder=a vms.vmt
expect_rc 0 "--openmetrics --label"
grep -v '^#' out.txt | grep -v -q 'recorder="a"' && fail "--openmetrics --label: a sample without it"

$PY - "$value" truth.json <<'PY' || fail "the labelled files (above)"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
value, truth = sys.argv[1], json.load(open(sys.argv[2]))

def series(path):
    """{(name, labels without extra): value}, and the set of extra labels' values seen"""
    out = {}
    for fam in text_string_to_metric_families(open(path).read()):
        for s in fam.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out

def strip(d, names):
    return {(n, frozenset((k, v) for k, v in l if k not in names)): x for (n, l), x in d.items()}

plain, a, b = series("plain.prom"), series("tf/a.prom"), series("tf/b.prom")
assert series("all.prom").keys() == plain.keys(), "two unlabelled files: not the same series"
assert not a.keys() & b.keys(), ("--label a and b share series", sorted(a.keys() & b.keys())[:3])
for d, rec in ((a, "a"), (b, "b")):
    for (n, l), x in d.items():
        l = dict(l)
        assert l.get("recorder") == rec and l.get("site") == "fra1", (n, l)
    assert strip(d, ("recorder", "site")) == plain, "--label %s: values differ" % rec
esc = series("esc.prom")
assert {dict(l)["note"] for _, l in esc} == {value}, {dict(l)["note"] for _, l in esc}
assert strip(esc, ("note",)) == plain
print("--label: %d series each, none shared; values as without it; note=%r read back"
      % (len(a), value))

web1, db = series("tf/web1.prom"), series("tf/db.prom")
assert not web1.keys() & db.keys(), "--vm web1 and --vm db share series"
for vm, d in (("web1", web1), ("db", db)):
    assert all(dict(l).get("vm") == vm for _, l in d), (vm, [k for k in d if dict(k[1]).get("vm") != vm][:2])
    exits = sum(x for (n, _), x in d.items() if n == "vmtrace_exits_total")
    vexits = sum(x for (n, _), x in d.items() if n == "vmtrace_vcpu_exits_total")
    assert exits == vexits == truth["per_vm"][vm]["count"], (vm, exits, vexits, truth["per_vm"][vm])
print("--vm: every sample of web1's and db's files has its vm; exits as twovms.py counted")
PY

# Bad input: one line (and argp's hint), exit 64
for bad in "1x=y:not starting with a digit" "a-b=y:letters, digits and '_'" \
	   "__x=y:Prometheus's own" "host=y:sets that label itself" "vm=y:sets that label itself" \
	   "noequals:a label is NAME=VALUE" "=y:a label is NAME=VALUE"; do
	run vmtrace-report --openmetrics --label "${bad%%:*}" vms.vmt
	expect_rc 64 "--label ${bad%%:*}"
	expect_one_line_error vmtrace-report "--label .*${bad#*:}"
done
run vmtrace-report --openmetrics --label a=1 --label a=2 vms.vmt
expect_rc 64 "--label twice"
expect_one_line_error vmtrace-report "'a': that label is given twice"
run vmtrace-report --openmetrics --label "$(printf 'a=x\ty')" vms.vmt
expect_rc 64 "--label with a tab"
expect_one_line_error vmtrace-report "holds a control character"
run vmtrace-report --label a=1 vms.vmt
expect_rc 64 "--label without --openmetrics"
expect_one_line_error vmtrace-report "--label goes with --openmetrics"

NODE=$(command -v prometheus-node-exporter) || {
	skip_part "no prometheus-node-exporter (Debian package prometheus-node-exporter)"
	finish
}
port=$($PY -c 'import socket
a = socket.socket(); a.bind(("127.0.0.1", 0)); print(a.getsockname()[1])')
"$NODE" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$scratch/tf" >node.log 2>&1 &
node_pid=$!
cleanup_hooks="$cleanup_hooks; kill $node_pid 2>/dev/null; wait $node_pid 2>/dev/null"
$PY - "http://127.0.0.1:$port/metrics" tf/a.prom tf/b.prom tf/web1.prom tf/db.prom <<'PY' ||
import sys, time, urllib.request
from prometheus_client.parser import text_string_to_metric_families
url, files = sys.argv[1], sys.argv[2:]
for _ in range(300):
    try:
        text = urllib.request.urlopen(url, timeout=10).read().decode()
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("node_exporter did not answer")
def key(s):	# le as a number: node_exporter writes 6.3e-08 for 0.000000063
    return (s.name, frozenset((k, float(v) if k == "le" else v) for k, v in s.labels.items()))
served = {}
for fam in text_string_to_metric_families(text):
    for s in fam.samples:
        served[key(s)] = s.value
assert served.get(("node_textfile_scrape_error", frozenset())) == 0, "textfile scrape error"
n = 0
for f in files:
    for fam in text_string_to_metric_families(open(f).read()):
        for s in fam.samples:
            assert served.get(key(s)) == s.value, (f, key(s), served.get(key(s)))
            n += 1
print("node_exporter serves all %d samples of the 4 files" % n)
PY
	{ cat node.log >&2; fail "node_exporter with the labelled files (above)"; }
kill "$node_pid"
wait "$node_pid" 2>/dev/null
grep -i -e 'level=error' -e 'collected before' node.log && fail "node_exporter complained"
finish
