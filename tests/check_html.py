#!/usr/bin/env python3
"""check_html.py PAGE: checks an HTML report of l2sim (advise --html,
compare --html) with real parsers, strictly.

- html.parser: a <!DOCTYPE html>, every element closed and properly
  nested (HTML void elements excepted), self-closing tags only inside
  <svg>, every '&' the start of an entity;
- xml.etree.ElementTree: each <svg> element is well-formed XML in the
  SVG namespace;
- self-contained: no <script, no src= or href=, no @import or url(, and
  no http:// or https:// reference but the SVG namespace.

Prints one line per <svg>: "svg ID bars=N" (N: its <rect> elements of
class "bar"); exits 1 with one line per problem otherwise.
"""
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SVG_NS = "http://www.w3.org/2000/svg"


class Strict(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.doctype = False

    def error_at(self, msg):
        line, col = self.getpos()
        self.errors.append("line %d col %d: %s" % (line, col + 1, msg))

    def handle_decl(self, decl):
        if decl.lower() == "doctype html":
            self.doctype = True
        else:
            self.error_at("unexpected declaration <!%s>" % decl)

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        if tag not in VOID and "svg" not in self.stack:
            self.error_at("self-closing <%s/> outside <svg>" % tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            self.error_at("end tag of the void element <%s>" % tag)
        elif not self.stack:
            self.error_at("</%s> closes nothing" % tag)
        elif self.stack[-1] != tag:
            self.error_at("</%s> while <%s> is open" % (tag, self.stack[-1]))
        else:
            self.stack.pop()


def main():
    page = open(sys.argv[1], encoding="utf-8").read()
    p = Strict()
    p.feed(page)
    p.close()
    errors = p.errors
    if not p.doctype:
        errors.append("no <!DOCTYPE html>")
    if p.stack:
        errors.append("unclosed at the end: %s" % " ".join("<%s>" % t for t in p.stack))
    for m in re.finditer(r"&(?!(?:amp|lt|gt|quot|#[0-9]+);)", page):
        errors.append("bare '&' at offset %d: %r" % (m.start(), page[m.start():m.start() + 12]))
    low = page.lower()
    for bad in ("<script", "src=", "href=", "@import", "url("):
        if bad in low:
            errors.append("found %r" % bad)
    for m in re.finditer(r"https?://[^\s\"'<>)]*", page):
        if m.group(0) != SVG_NS:
            errors.append("external reference %s" % m.group(0))
    lines = []
    svgs = re.findall(r"<svg\b.*?</svg>", page, re.S)
    if len(svgs) != low.count("<svg"):
        errors.append("an <svg> without </svg>")
    for i, text in enumerate(svgs):
        try:
            root = ET.fromstring(text)
        except ET.ParseError as e:
            errors.append("svg %d is not well-formed XML: %s" % (i + 1, e))
            continue
        if root.tag != "{%s}svg" % SVG_NS:
            errors.append("svg %d: root %s is not in the SVG namespace" % (i + 1, root.tag))
        bars = [r for r in root.iter("{%s}rect" % SVG_NS) if "bar" in r.get("class", "").split()]
        lines.append("svg %s bars=%d" % (root.get("id", "-"), len(bars)))
    if errors:
        for e in errors:
            print("%s: %s" % (sys.argv[1], e))
        sys.exit(1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
