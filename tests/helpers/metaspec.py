#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Whether every META and END key of a .vmt file is one that man/vmtrace-file.5 lists.

Usage: metaspec.py MANPAGE FILE.vmt: prints each key of FILE that no heading of the man
page's META block (or END block, for END's keys) matches, and exits 1 when there is one.
The headings are the lines after .TP: bold words are a key's fixed text, italic ones
(vm.\\fIN\\fR.name, stats.start.cpu\\fIN\\fR, format.ctx.\\fIsystem\\fR:\\fIevent\\fR) stand
for any text, roman ones (", ") separate keys. The keys are read with vmtmeta.py, which
knows nothing of vmtrace's code.
"""
import json
import os
import re
import shlex
import subprocess
import sys


def fonts(line):
    """A heading line as (text, font) runs: its macro's alternation, or \\fB, \\fI, \\fR."""
    macro, _, rest = line.partition(" ")
    alt = {".B": "BB", ".I": "II", ".BR": "BR", ".BI": "BI", ".IR": "IR", ".RB": "RB"}
    if macro in alt:
        words = shlex.split(rest)
        line = "".join("\\f%s%s" % (alt[macro][k % 2], w) for k, w in enumerate(words))
    elif line.startswith("."):
        return []
    runs, font = [], "R"
    for piece in re.split(r"(\\f[BIRP])", "\\fR" + line):
        if re.fullmatch(r"\\f[BIRP]", piece):
            font = "R" if piece[2] == "P" else piece[2]
        elif piece:
            runs.append((piece.replace("\\-", "-").replace("\\ ", " "), font))
    return runs


def headings(text, start, end):
    body = text[text.index(start):]
    body = body[:body.index(end, len(start))]
    lines = body.split("\n")
    pats = []
    for i, line in enumerate(lines[:-1]):
        if line != ".TP":
            continue
        key = ""
        # roman text (", ") separates keys; italic stands for any text
        for w, font in fonts(lines[i + 1]) + [(", ", "R")]:
            if font == "R":
                if key:
                    pats.append(re.compile(key + "$"))
                key = ""
            elif font == "I":
                key += ".+"
            else:
                key += re.escape(w)
    return pats


def main(man, path):
    text = open(man).read()
    meta = headings(text, ".SS META block", ".SS ")
    end = headings(text, ".SS END block", ".SS ")
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, os.path.join(here, "vmtmeta.py"), path],
                         check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    bad = 0
    for block, pats in (("meta", meta), ("end", end)):
        for k in sorted(d[block] or {}):
            if not any(p.match(k) for p in pats):
                print("%s: %s key %s is not in %s" % (path, block.upper(), k, man))
                bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
