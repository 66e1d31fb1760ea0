#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vmtrace-convert's CSV imported by LibreOffice Calc itself (headless, the import dialog's
# choices for a comma-separated UTF-8 file), cell by cell: numbers become numbers with
# their exact value, hexadecimal fields and names stay the text we wrote, quoted names
# keep their comma, empty fields stay empty. Integers up to 2^53 are exact in Calc; above
# that it keeps 15 significant digits, so an absolute timestamp after 104 days of trace
# clock is rounded there (the man page says so; start_ns stays exact). Skips where soffice is missing; scripts/setup-debian12.sh --tests installs it.
. "$(dirname "$0")/lib.sh"

command -v soffice >/dev/null || skip "no soffice (LibreOffice Calc)"
F618="$DATA/formats/linux-6.18-x86_64"

# Calc's own check: each CSV file given is imported, saved as flat ODF and compared with
# what Python's csv reads from the same file.
calc_matches() {	# calc_matches FILE.csv...
	soffice -env:UserInstallation="file://$scratch/profile" --headless \
		--infilter="CSV:44,34,76,1" --convert-to fods --outdir "$scratch/calc" "$@" \
		>calc.log 2>&1 || { cat calc.log >&2; return 1; }
	python3 - "$@" <<'PY'
import csv, os, re, sys
import xml.etree.ElementTree as ET

T = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
O = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"

def calc_rows(path):
    """The first sheet's rows as lists of (type, value, text), trailing empties dropped."""
    for _, el in ET.iterparse(path):
        if el.tag != T + "table-row":
            continue
        cells = []
        for c in el.findall(T + "table-cell"):
            n = int(c.get(T + "number-columns-repeated", "1"))
            text = "\n".join("".join(p.itertext()) for p in c)
            cells += [(c.get(O + "value-type"), c.get(O + "value"), text)] * min(n, 64)
        while cells and cells[-1][0] is None:
            cells.pop()
        el.clear()
        if cells:
            yield cells

for src in sys.argv[1:]:
    want = list(csv.reader(open(src, newline="", encoding="utf-8")))
    fods = os.path.join("calc", os.path.basename(src)[:-4] + ".fods")
    got = list(calc_rows(fods))
    assert len(got) == len(want), f"{src}: Calc has {len(got)} rows, the CSV {len(want)}"
    rounded = 0
    for i, (w, g) in enumerate(zip(want, got)):
        g += [(None, None, "")] * (len(w) - len(g))
        assert len(g) == len(w), f"{src} row {i + 1}: {len(g)} cells, {len(w)} fields"
        for col, field, (typ, val, text) in zip(want[0], w, g):
            where = f"{src} row {i + 1} {col}"
            if field == "":
                assert typ is None, f"{where}: empty field became {typ} {val}"
            elif re.fullmatch(r"-?[0-9]+", field) and i > 0:
                assert typ == "float", f"{where}: {field} became {typ} {text!r}"
                if abs(int(field)) <= 2**53:
                    assert float(val) == int(field), f"{where}: {field} became {val}"
                else:
                    assert col in ("start_ts_ns", "ts_ns"), f"{where}: {field} is too large"
                    assert float(val) == float("%.15g" % int(field)), f"{where}: {val}"
                    rounded += 1
            else:
                assert typ == "string" and text == field, \
                    f"{where}: {field!r} became {typ} {val} {text!r}"
    print(f"{src}: {len(want) - 1} rows x {len(want[0])} columns equal "
          f"({rounded} timestamps above 2^53 rounded to 15 digits)")
    assert rounded == int(os.environ.get("ROUNDED_" + os.path.basename(src)[:-4].replace("-", "_"), "0"))
PY
}

# The bundled real recording (SVM), per exit and per event.
vmtrace-convert --csv -o sample.csv "$DATA/sample-kvm.vmt" || fail "csv of the sample"
vmtrace-convert --csv --events --to 20ms -o sample-events.csv "$DATA/sample-kvm.vmt" ||
	fail "event csv of the sample"

# Generated: a reason name that needs quoting, an unknown reason (empty name), a loss
# (near_gap), 64-bit hex fields, and absolute times below and above 2^53 ns.
cp -r "$F618" fq
sed -i 's/"hlt"/"hlt, idle"/' fq/kvm/kvm_exit/format
cat >s.txt <<'S'
exit 0 9007199254730001 7 0x78 0
entry 0 9007199254730301 7 0
page 0 missed 5
exit 0 9007199254750001 7 0x4242 0
entry 0 9007199254750123 7 0
S
"$HELPERS/mkvmt" fq q.vmt <s.txt || fail mkvmt
vmtrace-convert --csv -o quoted.csv q.vmt || fail "csv of the generated file"
vmtrace-convert --csv --events -o quoted-events.csv q.vmt || fail "event csv"
grep -q '"hlt, idle"' quoted.csv || fail "the name with a comma is not quoted"

ROUNDED_quoted=1 ROUNDED_quoted_events=2 calc_matches sample.csv sample-events.csv quoted.csv quoted-events.csv ||
	fail "LibreOffice Calc reads the CSV differently"
