# SPDX-License-Identifier: GPL-2.0-or-later
"""Display columns of text as a terminal shows it, from Python's own Unicode tables
(unicodedata), independent of vmtrace's C rule: East Asian wide and fullwidth characters
are 2 columns, combining marks 0, any other character 1, and each byte that is no part of
valid UTF-8 1 (read with surrogateescape, each such byte is one surrogate).

As a program: textcols.py MAX FILE... prints the lines of more than MAX columns and exits
1 when there is one (the tests' widths_ok)."""
import sys
import unicodedata


def cols(s):
    """The display columns of str s (bytes decoded with surrogateescape)."""
    n = 0
    for c in s:
        if "\udc80" <= c <= "\udcff":
            n += 1          # a byte of no valid sequence, printed as it is
        elif unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me"):
            continue
        elif unicodedata.east_asian_width(c) in ("W", "F"):
            n += 2
        else:
            n += 1
    return n


def read_lines(path):
    """The lines of a file as str, undecodable bytes kept as surrogates."""
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape").split("\n")


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
