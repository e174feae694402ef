#!/usr/bin/env python3
"""check_report.py REPORT.html RESULTS.json [MORE.json ...]

Checks a page of `kladder report` against the results files it was drawn
from: every SVG chart parses as XML; every result of the files appears
(its rung by name, and its median time where it has one); every number
the page shows with its JSON text beside it (data-v, data-r, data-k) is
that result's number, and is shown as kladder shows numbers (at least
three significant digits: the rules of src/results/report-html.c, written
again here); every computed number (data-c) is shown by the same rules.
Exit 0 when all hold, 1 with a line per problem."""
import html.parser
import json
import math
import re
import sys
import xml.etree.ElementTree as ET


def sig3(v):
    v = float("%.12g" % v)
    a = abs(v)
    if a >= 1e15:
        return "%.3e" % v
    if a >= 100:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    if a >= 1:
        return "%.2f" % v
    if a > 0:
        # C's %#.3g: three significant digits, trailing zeros kept.
        s = "%#.3g" % v
        return s
    return "0"


def time_text(s):
    units = [("ns", 1e9), ("\u00b5s", 1e6), ("ms", 1e3), ("s", 1)]
    u = 3
    while u > 0 and abs(s) * units[u][1] < 1:
        u -= 1
    return "%s %s" % (sig3(s * units[u][1]), units[u][0])


def shown(v, kind, unit):
    if kind == "time":
        return time_text(v)
    if kind == "pct":
        return sig3(v) + "%"
    if kind == "times":
        return sig3(v) + "\u00d7"
    return sig3(v) + (" " + unit if unit else "")


class Cells(html.parser.HTMLParser):
    """The elements that carry data-v or data-c, with their text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cells, self.stack, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "data-v" in a or "data-c" in a:
            self.stack.append((tag, a, len(self.text)))

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1][0] == tag:
            t, a, start = self.stack.pop()
            self.cells.append((a, "".join(self.text[start:])))

    def handle_data(self, data):
        self.text.append(data)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    page = open(sys.argv[1], encoding="utf-8").read()
    files = [json.load(open(p, encoding="utf-8")) for p in sys.argv[2:]]
    problems = []
    charts = re.findall(r'<svg class="chart".*?</svg>', page, re.S)
    for i, svg in enumerate(charts):
        try:
            ET.fromstring(svg)
        except ET.ParseError as e:
            problems.append("chart %d is not well-formed XML: %s" % (i, e))
    parser = Cells()
    parser.feed(page)
    seen = set()
    checked = 0
    for a, text in parser.cells:
        if "data-c" in a:
            want = shown(float(a["data-c"]), a["data-f"], "")
            if text != want:
                problems.append("computed %s shown as %r, not %r" % (a["data-c"], text, want))
            checked += 1
            continue
        f, i = (int(x) for x in a["data-r"].split("."))
        key = a["data-k"]
        value = files[f]["results"][i].get(key)
        if not isinstance(value, (int, float)) or float(a["data-v"]) != float(value):
            problems.append("result %s %s: the page has %s, the file %r" % (a["data-r"], key, a["data-v"], value))
        want = shown(float(a["data-v"]), a["data-f"], a.get("data-u", ""))
        if text != want:
            problems.append("result %s %s: shown as %r, not %r" % (a["data-r"], key, text, want))
        seen.add((f, i, key))
        checked += 1
    for f, doc in enumerate(files):
        for i, r in enumerate(doc["results"]):
            if r.get("rung") and r["rung"] not in page:
                problems.append("result %d.%d (%s) is not on the page" % (f, i, r["rung"]))
            if isinstance(r.get("median_s"), (int, float)) and (f, i, "median_s") not in seen:
                problems.append("result %d.%d (%s %s) has no median on the page" % (f, i, r.get("workload"), r.get("rung")))
    for p in problems[:40]:
        print(p)
    print("%d charts, %d numbers checked, %d problems" % (len(charts), checked, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
