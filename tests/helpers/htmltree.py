# SPDX-License-Identifier: GPL-2.0-or-later
"""A page's element tree, for the tests that read vmtrace-report's HTML (the page as
written, or the DOM Chromium dumps): Python's own HTMLParser, nothing of the program's."""
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.a, self.kids, self.text, self.parent = tag, dict(attrs), [], "", parent

    def walk(self):
        yield self
        for k in self.kids:
            yield from k.walk()

    def all(self, tag=None, cls=None, **want):
        """Descendants by tag, class and attributes (data_ready= is data-ready)."""
        for k in self.kids:
            if (tag is None or k.tag == tag) and \
               (cls is None or cls in k.a.get("class", "").split()) and \
               all(k.a.get(a.replace("_", "-")) == v for a, v in want.items()):
                yield k
            yield from k.all(tag, cls, **want)

    def alltext(self):
        return self.text + "".join(k.alltext() for k in self.kids)


class Build(HTMLParser):
    """feed() the page; root is its tree. sep goes after each run of text."""

    def __init__(self, sep=""):
        super().__init__(convert_charrefs=True)
        self.sep = sep
        self.root = self.cur = Node("#root", [], None)

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.kids.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text += data + self.sep
