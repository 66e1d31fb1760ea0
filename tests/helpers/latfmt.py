# SPDX-License-Identifier: GPL-2.0-or-later
"""A latency as the text views print it (common/timefmt.c, written again): four
significant digits, cut rather than rounded, in ns, us, ms or s."""


def lat(ns):
    if ns < 1000:
        return "%d ns" % ns
    scale, u = 1, 0
    while ns // scale >= 1000 and u < 3:
        scale *= 1000
        u += 1
    whole = ns // scale
    dec = 1 if whole >= 100 else 2 if whole >= 10 else 3
    div = scale // (10 ** dec) or 1
    return "%d.%0*d %s" % (whole, dec, (ns % scale) // div, ["ns", "us", "ms", "s"][u])
