#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Recordings of different kinds load into one SQLite table: a system-call pair without a VM
# map, a --vm recording (tests/helpers/twovms.py) and a KVM one with intr_info and
# error_code have the same CSV columns for each kind of rows (per exit, --why, --events,
# --series), and their JSON lines the same keys. Each file's rows, imported one after the
# other into one table (sqlite3 .import --csv, the header skipped after the first), must
# give that file's own report JSON: per exit reason, the count and the latency total; the
# events and pairs; the series' exits; and per VM the counts twovms.py computed itself.
# Skips where sqlite3 is missing (scripts/setup-debian12.sh --tests installs it).
. "$(dirname "$0")/lib.sh"

command -v sqlite3 >/dev/null || skip "no sqlite3"

python3 "$top_srcdir/tests/helpers/twovms.py" vms.txt truth.json || fail "twovms.py"
"$HELPERS/mkvmt" "$DATA/formats/linux-6.18-x86_64" vm.vmt <vms.txt || fail "mkvmt"
# the trial's order: a recording without a VM map first, so its header makes the table
files="$DATA/sample-syscalls.vmt vm.vmt $DATA/sample-kvm.vmt"

i=0
for f in $files; do
	i=$((i + 1))
	vmtrace-report --json "$f" >"r$i.json" || fail "report --json $f"
	vmtrace-report --json --interval 100ms "$f" >"s$i.json" || fail "report --interval $f"
	for kind in exits why events series; do
		case $kind in
		exits) opt= ;;
		why) opt=--why ;;
		events) opt=--events ;;
		series) opt=--series=100ms ;;
		esac
		# --why on a recording without context events warns: its cells stay empty
		vmtrace-convert --csv $opt -o "$kind$i.csv" "$f" 2>err.txt ||
			{ cat err.txt; fail "convert --csv $opt $f"; }
		vmtrace-convert --jsonl $opt -o "$kind$i.jsonl" "$f" 2>err.txt ||
			{ cat err.txt; fail "convert --jsonl $opt $f"; }
		# one table per kind; the rowid after each import marks where that file's rows end
		if [ $i = 1 ]; then
			sqlite3 t.db ".import --csv $kind$i.csv $kind" || fail "import $kind$i.csv"
		else
			sqlite3 t.db ".import --csv --skip 1 $kind$i.csv $kind" 2>err.txt ||
				fail "import $kind$i.csv"
			# sqlite3 says when a row's cells do not match the table's columns
			[ ! -s err.txt ] || { cat err.txt; fail "$kind$i.csv does not fit the table"; }
		fi
		sqlite3 t.db "select max(rowid) from $kind" >"$kind$i.end" || fail "rowid"
	done
done

# per file and kind, what SQLite makes of that file's part of the table
i=0
last_exits=0 last_why=0 last_events=0 last_series=0
for f in $files; do
	i=$((i + 1))
	for kind in exits why events series; do
		eval "lo=\$last_$kind"
		hi=$(cat "$kind$i.end")
		where="rowid > $lo and rowid <= $hi"
		case $kind in
		exits | why)
			q="select reason_code, count(*), sum(cast(latency_ns as integer)),
			   count(nullif(intr_info, '')), count(nullif(vm, '')) from $kind
			   where $where group by reason_code order by reason_code" ;;
		events)
			q="select count(*), count(nullif(latency_ns, '')),
			   sum(cast(nullif(latency_ns, '') as integer)), count(nullif(vm, '')) from $kind
			   where $where" ;;
		series)
			q="select vm, sum(cast(exits as integer)), count(*) from $kind where $where
			   group by vm order by vm" ;;
		esac
		sqlite3 -separator ' ' t.db "$q" >"$kind$i.sql" || fail "query $kind$i"
		[ "$kind" != exits ] || sqlite3 -separator ' ' t.db "select vm, count(*),
		    sum(cast(latency_ns as integer)) from $kind where $where group by vm
		    order by vm" >"vm$i.sql" || fail "query vm$i"
		eval "last_$kind=$hi"
	done
done

python3 - "$files" truth.json <<'PY' || fail "the one table does not give each file's report"
import csv, json, sys
files = sys.argv[1].split()
truth = json.load(open(sys.argv[2]))

def lines(path):
    return [l.split(" ") for l in open(path).read().splitlines()]

layouts = {}
for kind in ("exits", "why", "events", "series"):
    heads = [next(csv.reader(open("%s%d.csv" % (kind, i + 1), newline="")))
             for i in range(len(files))]
    assert all(h == heads[0] for h in heads), (kind, heads)
    keys = [set(k for l in open("%s%d.jsonl" % (kind, i + 1)) for k in json.loads(l))
            for i in range(len(files))]
    for i, k in enumerate(keys):
        for l in open("%s%d.jsonl" % (kind, i + 1)):
            assert set(json.loads(l)) == keys[0], (kind, files[i], set(json.loads(l)) ^ keys[0])
    assert set(heads[0]) == keys[0], (kind, set(heads[0]) ^ keys[0])
    layouts[kind] = len(heads[0])

for i, f in enumerate(files, 1):
    rep = json.load(open("r%d.json" % i))
    want = sorted((str(r["code"]) if r["code"] is not None else "", r["count"], r["total_ns"])
                  for r in rep["reasons"])
    kvm = rep["begin_event"] == "kvm:kvm_exit"
    for kind in ("exits", "why"):
        got = lines("%s%d.sql" % (kind, i))
        assert sorted((c, int(n), int(s)) for c, n, s, _, _ in got) == want, (f, kind, got, want)
        n = sum(int(x[1]) for x in got)
        # every kvm_exit of these layouts has its intr_info, no system call has one
        intr = sum(int(x[3]) for x in got)
        assert intr == (n if kvm else 0), (f, kind, intr, n)
        vm = sum(int(x[4]) for x in got)
        want_vm = sum(v["count"] for k, v in truth["per_vm"].items() if k) if f == "vm.vmt" else 0
        assert vm == want_vm, (f, kind, vm, want_vm)
    total, with_lat, lat_sum, vm_rows = lines("events%d.sql" % i)[0]
    assert int(total) == rep["events"], (f, total, rep["events"])
    assert int(with_lat) == rep["pairs"] and int(lat_sum) == rep["total_ns"], (f, with_lat, lat_sum)
    if f == "vm.vmt":
        got = {vm: (int(n), int(s)) for vm, n, s in lines("vm%d.sql" % i)}
        want = {k: (v["count"], v["total_ns"]) for k, v in truth["per_vm"].items()}
        assert got == want, (f, got, want)
        assert int(vm_rows) == 2 * sum(v["count"] for k, v in truth["per_vm"].items() if k)
    else:
        assert int(vm_rows) == 0, (f, vm_rows)
    series = json.load(open("s%d.json" % i))["series"]
    want = {}
    for r in series:
        want.setdefault(r["vm"] or "", [0, 0])
        want[r["vm"] or ""][0] += r["exits"]
        want[r["vm"] or ""][1] += 1
    got = {vm: [int(n), int(c)] for vm, n, c in lines("series%d.sql" % i)}
    assert got == want, (f, got, want)
    assert sum(v[0] for v in got.values()) == rep["pairs"], (f, got, rep["pairs"])
    print(f.rsplit("/", 1)[-1], ": reasons", len(rep["reasons"]), "pairs", rep["pairs"], "as its report")
print("columns per kind:", layouts)
PY

# --help names every column --why adds (it once left out before_exit_ns)
vmtrace-convert --help >help.txt || fail "convert --help"
python3 - why1.csv exits1.csv help.txt <<'PY' || fail "--help's --why columns"
import re, sys
head = lambda f: open(f).readline().strip().split(",")
extra = [c for c in head(sys.argv[1]) if c not in head(sys.argv[2])]
text = " ".join(open(sys.argv[3]).read().split())
said = text[text.index("--why"):].split("--series")[0]
missing = [c for c in extra if not re.search(r"\b%s\b" % re.escape(c), said)]
assert extra and not missing, ("not in --help", missing)
PY
exit 0
