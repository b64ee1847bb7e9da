#!/usr/bin/env python3
"""report_check.py: what tests/cli/cli_report_browser.sh holds an `lfa report` page to.

  report_check.py html PAGE.html            well-formed, self-contained, under 5 MB
  report_check.py links DOM.html            every in-page link has its target, every finding a link
  report_check.py page PAGE.html...         html and links of each page, in one process
  report_check.py cells DOM.html DUMP.json  the grid's cells against `lfa dump --json`
  report_check.py png SHOT.png              the screenshot is not blank
  report_check.py console CHROMIUM.log      the browser logged no console message

Each prints one line and exits 1 when the page fails. Nothing here is taken
from the report code: the expected cells come from `lfa dump --json`, the
DOM from the browser.
"""
import html.entities
import html.parser
import json
import os
import re
import struct
import sys
import zlib

SIZE_MAX = 5 * 1024 * 1024
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# Elements an HTML parser closes by itself; a page written by lfa closes all of them.
SVG_SELF_CLOSING = {"path", "rect", "line", "circle", "stop", "use"}
# A link to a page in the same folder (lfa conformance --html): a plain file name.
SIBLING = re.compile(r"^[A-Za-z0-9_.-]+\.html(#[A-Za-z0-9_-]*)?$")


class Strict(html.parser.HTMLParser):
    """A parse that refuses what browsers would silently repair."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.stack, self.errors, self.ids, self.elements = [], [], {}, []
        self.doctype = False
        self.siblings = []

    def where(self):
        return "line %d col %d" % self.getpos()

    def handle_decl(self, decl):
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        self.record(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.record(tag, attrs)
        if tag not in VOID and tag not in SVG_SELF_CLOSING:
            self.errors.append("%s: <%s/> is not a void element" % (self.where(), tag))

    def record(self, tag, attrs):
        names = [a for a, _ in attrs]
        if len(names) != len(set(names)):
            self.errors.append("%s: <%s> repeats an attribute" % (self.where(), tag))
        d = dict(attrs)
        self.elements.append((tag, d))
        if "id" in d:
            if d["id"] in self.ids:
                self.errors.append("%s: id %r twice" % (self.where(), d["id"]))
            self.ids[d["id"]] = tag
        for a in ("src", "href", "xlink:href", "action"):
            v = d.get(a)
            if tag == "a" and a == "href" and v is not None and SIBLING.match(v):
                self.siblings.append(v.split("#")[0])  # another page beside this one
            elif v is not None and not v.startswith("#"):
                self.errors.append("%s: <%s %s=%r> leaves the page" % (self.where(), tag, a, v))
        if tag in ("script", "link", "iframe", "object", "img"):
            self.errors.append("%s: <%s> in a self-contained page" % (self.where(), tag))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("%s: </%s> closes <%s>" % (self.where(), tag, self.stack[-1] if self.stack else "nothing"))
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_entityref(self, name):
        if name + ";" not in html.entities.html5:
            self.errors.append("%s: unknown entity &%s;" % (self.where(), name))

    def handle_data(self, data):
        if "<" in data:
            self.errors.append("%s: a bare '<' in text" % self.where())


def parse(path):
    p = Strict()
    with open(path, encoding="utf-8") as f:  # not UTF-8: an exception, so a failure
        text = f.read()
    p.feed(text)
    p.close()
    return p, text


def fail(msg):
    print("report_check: FAIL: " + msg)
    sys.exit(1)


def check_html(path):
    p, text = parse(path)
    if len(text.encode("utf-8")) > SIZE_MAX:
        fail("%s: %d bytes, over 5 MB" % (path, len(text.encode("utf-8"))))
    if not p.doctype:
        fail("%s: no <!DOCTYPE html>" % path)
    if p.stack:
        p.errors.append("end of file: <%s> never closed" % ">, <".join(p.stack))
    if re.search(r"url\((?!#)|@import|@font-face", text):
        p.errors.append("a style reaches outside the page")
    if p.errors:
        fail("%s: %d problems, first: %s" % (path, len(p.errors), p.errors[0]))
    print("report_check: %s: valid, self-contained, %d bytes, %d elements" % (path, len(text.encode()), len(p.elements)))


def check_links(path):
    p, _ = parse(path)
    links = [(t, d["href"][1:]) for t, d in p.elements if t == "a" and d.get("href", "").startswith("#")]
    missing = [target for _, target in links if target not in p.ids]
    folder = os.path.dirname(path) or "."
    missing += [s for s in p.siblings if not os.path.isfile(os.path.join(folder, s))]
    if missing:
        fail("%s: %d links without a target, first #%s" % (path, len(missing), missing[0]))
    findings = [d["id"] for t, d in p.elements if t == "li" and d.get("id", "").startswith("f-")]
    # each finding's item holds its link: the first <a> after its <li>
    order = [(t, d) for t, d in p.elements]
    for i, (t, d) in enumerate(order):
        if t == "li" and d.get("id", "").startswith("f-"):
            nxt = next(((tt, dd) for tt, dd in order[i + 1:] if tt in ("a", "li")), None)
            if nxt is None or nxt[0] != "a" or nxt[1].get("href", "")[1:] not in p.ids:
                fail("%s: finding %s has no working link" % (path, d["id"]))
    print("report_check: %s: %d links, all with targets; %d findings, each linked" % (path, len(links), len(findings)))
    return len(findings)


def expected_cells(dump):
    """Per tracked field: the (version, fragment) pairs of the dataset, and the
    state the dump gives each ("all", "partial", or None: no entry)."""
    fields = {}
    for v in dump["versions"]:
        if "error" in v:
            continue
        live = {f["id"]: f["live_rows"] for f in v["fragments"]}
        for t in v["tracked"]:
            states = {e["id"]: e["state"] for e in t["fragments"]}
            pairs = fields.setdefault(t["field_id"], {})
            for fid, n in live.items():
                pairs[(v["version"], fid)] = (states.get(fid), n)
    return fields


def check_cells(path, dump_path):
    p, _ = parse(path)
    with open(dump_path) as f:
        fields = expected_cells(json.load(f))
    drawn, field = {}, None
    for t, d in p.elements:
        if t == "div" and "data-field" in d:
            field = int(d["data-field"])
            drawn.setdefault(field, [])
        elif t == "rect" and field is not None and "data-p" in d:
            drawn[field].append(d)
    if sorted(drawn) != sorted(fields):
        fail("%s: grids for fields %s, the dataset tracks %s" % (path, sorted(drawn), sorted(fields)))
    total = 0
    for fid, pairs in fields.items():
        n = sum(int(d["data-p"]) for d in drawn[fid])
        if n != len(pairs):
            fail("%s: field %d: the grid holds %d fragment-versions, the dataset %d" % (path, fid, n, len(pairs)))
        total += n
        exact = [d for d in drawn[fid] if "data-v" in d]
        for d in exact:  # full resolution: each cell's mark against the dump
            state, live = pairs.get((int(d["data-v"]), int(d["data-f"])), ("?", 0))
            cls = d.get("class", "").split()[0]
            want = {"all": "m-all", None: "m-none"}.get(state) if live > 0 else "m-deleted"
            if state == "?" or (want is not None and cls != want):
                fail("%s: field %d version %s fragment %s drawn %s, the dump says %s with %d live rows"
                     % (path, fid, d["data-v"], d["data-f"], cls, state, live))
    print("report_check: %s: %d cells over %d fields, as the dump counts them" % (path, total, len(fields)))


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: not a PNG" % path)
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, colour = head[0], head[1], head[2], head[3]
    if depth != 8 or colour not in (2, 6):
        fail("%s: PNG depth %d colour type %d not read here" % (path, depth, colour))
    bpp = 3 if colour == 2 else 4
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1: line[i] = (line[i] + a) & 255
            elif kind == 2: line[i] = (line[i] + b) & 255
            elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def check_png(path):
    w, h, bpp, rows = png_pixels(path)
    colours = {}
    for line in rows:
        for x in range(0, len(line), bpp * 3):  # every third pixel: enough to see content
            px = line[x:x + 3]
            colours[px] = colours.get(px, 0) + 1
    seen = sum(colours.values())
    top = max(colours.values())
    if len(colours) < 8 or top > 0.995 * seen:
        fail("%s: blank: %d colours, the commonest covers %.1f%%" % (path, len(colours), 100.0 * top / seen))
    print("report_check: %s: %dx%d, %d colours, background %.1f%%" % (path, w, h, len(colours), 100.0 * top / seen))


def check_console(path):
    lines = [l for l in open(path, errors="replace") if ":CONSOLE" in l]
    if lines:
        fail("%s: %d console messages, first: %s" % (path, len(lines), lines[0].strip()))
    print("report_check: %s: no console message" % path)


def check_pages(*paths):
    for path in paths:
        check_html(path)
        check_links(path)


def main(argv):
    checks = {"html": check_html, "links": check_links, "cells": check_cells, "png": check_png,
              "console": check_console, "page": check_pages}
    if len(argv) < 3 or argv[1] not in checks:
        print(__doc__)
        return 2
    checks[argv[1]](*argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
