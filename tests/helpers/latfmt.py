# SPDX-License-Identifier: GPL-2.0-or-later
"""A latency as the text views print it (common/timefmt.c, written again): four
significant digits, cut rather than rounded, in ns, us, ms or s; from 10^6 s a mantissa
and its exponent."""


def lat(ns):
    if ns < 1000:
        return "%d ns" % ns
    scale, u = 1, 0
    while ns // scale >= 1000 and u < 3:
        scale *= 1000
        u += 1
    whole = ns // scale
    if whole >= 10**6:	# damaged timestamps: a cut mantissa, "1.844e10 s"
        e = len(str(whole)) - 1
        m = str(whole)[:4]
        return "%s.%se%d s" % (m[0], m[1:], e)
    dec = 1 if whole >= 100 else 2 if whole >= 10 else 3
    div = scale // (10 ** dec) or 1
    return "%d.%0*d %s" % (whole, dec, (ns % scale) // div, ["ns", "us", "ms", "s"][u])
