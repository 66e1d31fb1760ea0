#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The real components: Debian's node_exporter with its textfile collector and a Prometheus
# server scraping it, both on localhost (free ports, a temporary data directory, stopped at
# the end). vmtrace-report --openmetrics=FILE publishes the bundled KVM sample, a file of two
# VMs with vm labels (tests/helpers/twovms.py) and a real syscall recording into the
# textfile directory; then Prometheus's HTTP API must give the JSON report's counters (and
# sum by (host, vm) each VM's, and the README's alert on a vCPU stuck in an exit that means
# a hang: the JSON's open exits), and histogram_quantile(0.99, ...) must lie in the bucket
# of the report's p99 (tests/helpers/prometheus_check.py). Skips (77) without the packages
# (scripts/setup-debian12.sh --tests installs them).
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
PROM=$(command -v prometheus) || skip "no prometheus (Debian package prometheus)"
NODE=$(command -v prometheus-node-exporter) ||
	skip "no prometheus-node-exporter (Debian package prometheus-node-exporter)"
[ -x "$PY" ] || skip "no $PY"

# Two free ports on localhost, chosen by the kernel.
set -- $($PY -c 'import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
node_port=$1 prom_port=$2

mkdir tf data
run vmtrace-report --openmetrics=tf/kvm.prom "$DATA/sample-kvm.vmt"
expect_rc 0 "--openmetrics=FILE"
[ ! -s out.txt ] || fail "--openmetrics=FILE printed on stdout"
vmtrace-report --json "$DATA/sample-kvm.vmt" >kvm.json || fail "--json"
hosts="(none)=kvm.json"
# two VMs of vmtrace-record --vm, each with a vCPU 0 (host: mkvmt): series with a vm label
# beside the other files' without one, summed by vm
$PY "$top_srcdir/tests/helpers/twovms.py" vms.txt truth.json || fail "twovms.py"
# a vCPU of db stuck in an io exit at the stop (and web1's idle in hlt): the README's alert
printf 'exit 1 69800000 2000 0x7b 0\nexit 0 69810000 1001 0x78 1\n' >>vms.txt
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" vms.vmt <vms.txt || fail "mkvmt"
vmtrace-report --openmetrics=tf/vms.prom vms.vmt || fail "--openmetrics=FILE vms.vmt"
vmtrace-report --json vms.vmt >vms.json || fail "--json vms.vmt"
hosts="$hosts mkvmt=vms.json"

# A real recording: the syscall loop on CPU 1 (host: this machine's name).
if [ "$(id -u)" = 0 ] && { [ -e /sys/kernel/tracing/events/raw_syscalls/sys_enter ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; }; then
	need_tracefs
	start_record -p 1 -c 0 -e "$SYSCALL_EVENTS" -o run.vmt
	"$HELPERS/syscall_loop" 1 100000 >loop.txt || fail "syscall_loop"
	kill -INT "$rec_pid"
	wait "$rec_pid" || { cat rec.err >&2; fail "vmtrace-record failed"; }
	exec 9>&-	# the recording is done: let other tests record
	vmtrace-report --openmetrics=tf/run.prom run.vmt || fail "--openmetrics=FILE run.vmt"
	vmtrace-report --json run.vmt >run.json || fail "--json run.vmt"
	hosts="$hosts $(uname -n)=run.json"
else
	skip_part "the real recording (needs root and tracefs)"
fi
ls tf/*.part 2>/dev/null && fail "temporary file left in the textfile directory"

cat >prometheus.yml <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$node_port']
EOF
"$NODE" --web.listen-address="127.0.0.1:$node_port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$scratch/tf" >node.log 2>&1 &
node_pid=$!
cleanup_hooks="$cleanup_hooks; kill $node_pid 2>/dev/null; wait $node_pid 2>/dev/null"
"$PROM" --config.file=prometheus.yml --storage.tsdb.path="$scratch/data" \
	--web.listen-address="127.0.0.1:$prom_port" >prom.log 2>&1 &
prom_pid=$!
cleanup_hooks="$cleanup_hooks; kill $prom_pid 2>/dev/null; wait $prom_pid 2>/dev/null"

# shellcheck disable=SC2086
if ! $PY "$top_srcdir/tests/helpers/prometheus_check.py" "http://127.0.0.1:$prom_port" 90 \
	$hosts; then
	tail -n 5 node.log prom.log >&2
	grep -i 'error' node.log >&2
	fail "Prometheus disagrees with the JSON (above)"
fi
kill "$node_pid" "$prom_pid"
wait "$node_pid" "$prom_pid" 2>/dev/null
grep -qi 'level=error' node.log && { cat node.log >&2; fail "node_exporter reported errors"; }
finish
