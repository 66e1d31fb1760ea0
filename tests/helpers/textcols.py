# SPDX-License-Identifier: GPL-2.0-or-later
"""Display columns of text as a terminal shows it, from Python's own Unicode tables
(unicodedata), independent of vmtrace's C rule: East Asian wide and fullwidth characters
are 2 columns (and planes 2 and 3), combining marks and U+200B-U+200F 0, any other character 1, and each byte that is no part of
valid UTF-8 1 (read with surrogateescape, each such byte is one surrogate).

check_row() reads a row of a text table by these columns: its figures under the header's
titles, its name cell padded or cut as it should be.

As a program: textcols.py MAX FILE... prints the lines of more than MAX columns and exits
1 when there is one (the tests' widths_ok)."""
import re
import sys
import unicodedata


def cols(s):
    """The display columns of str s (bytes decoded with surrogateescape)."""
    n = 0
    for c in s:
        if "\udc80" <= c <= "\udcff":
            n += 1          # a byte of no valid sequence, printed as it is
        elif (unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me") or
              "\u200b" <= c <= "\u200f"):
            continue        # marks, and the zero-width space, joiners and marks
        elif "\U00020000" <= c <= "\U0002fffd" or "\U00030000" <= c <= "\U0003fffd" or (
                unicodedata.category(c) != "Cn" and unicodedata.east_asian_width(c) in ("W", "F")):
            n += 2          # unassigned code points elsewhere are 1 (Python calls them F)
        else:
            n += 1
    return n


def read_lines(path):
    """The lines of a file as str, undecodable bytes kept as surrogates."""
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape").split("\n")


def cells(line):
    """A line as its display columns: a wide character takes two cells (the second ""), a
    combining mark joins the cell before it."""
    out = []
    for c in line:
        w = cols(c)
        if w == 0 and out:
            out[-1] += c
        else:
            out.extend([c] + [""] * (w - 1))
    return out


def text(c):
    """The text of cells."""
    return "".join(c)


def ends(head, titles):
    """The display column after each title of the header (ASCII titles, right-aligned)."""
    h, at, out = text(cells(head)), 0, []
    for t in titles:
        at = h.index(t, at) + len(t)
        out.append(at)
    return out

# a figure of a cell: a number with its unit or %, "-", "<0.000001", "new", a change
FIGURE = re.compile(r"-?[0-9.]+( ?(ns|us|ms|s|%|ticks))?|-|<[0-9.]+|new|[+-]?[0-9.]+ ?%|"
                    r"[0-9]+/s")


def check_row(row, head, titles, first_w, name_at, names, what, gap=0, side=None):
    """row's figures end in the display columns where the header's titles end, each a
    figure whole; its name cell, from name_at to the first figure's field (first_w columns
    with its blank, after a column of gap for --compare's side), is a name of names padded
    to the cell, or one cut with '~' before its id, between two characters, as wide as the
    cell or one less (a wide character left out); names None takes any. Returns whether it
    was cut."""
    r, e = cells(row), ends(head, titles)
    name_end = e[0] - first_w - gap
    for k, end in enumerate(e):
        seg = text(r[e[k - 1] if k else name_end + gap:end])
        assert len(r) >= end and r[end - 1] not in ("", " ") and \
            (len(r) == end or r[end] == " "), \
            "%s: a figure does not end under %r:\n%s\n%s" % (what, titles[k], head, row)
        assert seg.startswith(" ") and FIGURE.fullmatch(seg.strip()), \
            "%s: %r under %r is no figure:\n%s\n%s" % (what, seg, titles[k], head, row)
    if gap:
        assert re.fullmatch(side, text(r[name_end:name_end + gap])), (what, row)
    padded = text(r[name_at:name_end])
    cell, width = padded.rstrip(" "), name_end - name_at
    if not cell:        # --compare's "after" and "change" rows, a name on a line of its own
        assert (not names or "" in names) and len(padded) == width, (what, row)
        return False
    assert cell and padded == cell + " " * (len(padded) - len(cell)), (what, row)
    assert cols(cell) <= width, "%s: %r passes its %d columns" % (what, cell, width)
    if names is None or cell in names:  # None: any name
        return False
    m = re.fullmatch(r"(.*)~((?:/\S+)? ?\(.*\))", cell)
    assert m, "%s: %r is no name of %s" % (what, cell, sorted(names))
    whole = [n for n in names if n.endswith(m.group(2)) and n.startswith(m.group(1))]
    assert whole, "%s: %r is no name cut" % (what, cell)
    # cut between characters: what follows the kept part in the name is a character's start
    rest = whole[0][len(m.group(1)):]
    assert rest and cols(rest[0]) > 0, "%s: %r cut a character" % (what, cell)
    assert cols(cell) in (width, width - 1), (what, cell, cols(cell), width)
    return True


def main(argv):
    width, bad = int(argv[1]), False
    for path in argv[2:]:
        for no, line in enumerate(read_lines(path), 1):
            if cols(line) > width:
                shown = line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                sys.stderr.write("%s:%d: %d columns: %s\n" % (path, no, cols(line), shown))
                bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
