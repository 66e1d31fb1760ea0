#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The shape the code keeps (doc/architecture.md): no include cycle between the modules of
# common/ (a module is name.c with name.h; an edge is an #include "other.h"), programs
# stay thin (every file under record/, report/ and convert/ at most 400 lines, main() at
# most 80), and no comment cites a file that is not in the repository.
. "$(dirname "$0")/lib.sh"

python3 - "$top_srcdir" <<'PY' || fail "structure check"
import os, re, sys
top = sys.argv[1]
bad = []

# 1. The include graph of common/.
common = os.path.join(top, "common")
# a module's internal header (name_impl.h) belongs to the module
def module(f):
    m = f.rsplit(".", 1)[0]
    return m[:-5] if m.endswith("_impl") else m
mods = {module(f) for f in os.listdir(common) if f.endswith((".c", ".h"))}
edges = {m: set() for m in mods}
for f in sorted(os.listdir(common)):
    if not f.endswith((".c", ".h")):
        continue
    m = module(f)
    for inc in re.findall(r'^#include "([^"]+)\.h"', open(os.path.join(common, f)).read(), re.M):
        inc = module(inc + ".h")
        if inc in mods and inc != m:
            edges[m].add(inc)
state = {}
def visit(m, path):
    state[m] = 1
    for n in sorted(edges[m]):
        if state.get(n) == 1:
            bad.append("include cycle: " + " -> ".join(path[path.index(n):] + [n]))
        elif n not in state:
            visit(n, path + [n])
    state[m] = 2
for m in sorted(mods):
    if m not in state:
        visit(m, [m])

# 2. Thin programs.
for d in ("record", "report", "convert"):
    for f in sorted(os.listdir(os.path.join(top, d))):
        if not f.endswith((".c", ".h")):
            continue
        text = open(os.path.join(top, d, f)).read()
        n = text.count("\n")
        if n > 400:
            bad.append("%s/%s: %d lines (at most 400)" % (d, f, n))
        m = re.search(r"^int main\(.*?\n\{\n(.*?)^\}", text, re.M | re.S)
        if m and m.group(1).count("\n") > 80:
            bad.append("%s/%s: main() has %d lines (at most 80)" % (d, f, m.group(1).count("\n")))

# 3. Comments cite only what the repository holds.
for d in ("common", "record", "report", "convert", "tests"):
    for root, _, files in os.walk(os.path.join(top, d)):
        for f in files:
            if f.endswith((".c", ".h", ".sh", ".py", ".am")):
                text = open(os.path.join(root, f), errors="replace").read()
                if re.search(r"FACTS\.md|shared/guide", text) and f != "structure.sh":
                    bad.append("%s: cites a file outside the repository" % os.path.join(root, f)[len(top) + 1:])

for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
exit 0
