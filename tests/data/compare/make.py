#!/usr/bin/env python3
"""Makes the fixtures of `kladder compare`'s tests from base.json.

base.json is a real results file: `kladder run -w reduce,map -b
serial,openmp -n 64K --reps 7 --json base.json` on the 2-core test machine
(its ceilings included). Every other file here is derived from it by this
script, so that the verdicts the tests expect are fixed; run it again
after replacing base.json:

    cd tests/data/compare && python3 make.py
"""
import copy
import json

BASE = json.load(open("base.json"))


def write(name, doc):
    """One result a line, as kladder run writes them."""
    with open(name, "w") as f:
        f.write("{\n")
        items = [(k, v) for k, v in doc.items() if k != "results"]
        for k, v in items:
            f.write("  %s: %s,\n" % (json.dumps(k), json.dumps(v)))
        f.write('  "results": [')
        for i, r in enumerate(doc.get("results", [])):
            f.write("%s\n    %s" % ("," if i else "", json.dumps(r)))
        f.write("\n  ]\n}\n" if doc.get("results") else "]\n}\n")


def doc():
    return copy.deepcopy(BASE)


def find(d, workload, rung):
    for r in d["results"]:
        if r["workload"] == workload and r["rung"] == rung:
            return r
    raise KeyError(rung)


def scale(r, factor):
    """A rung that ran factor times as long: every time, and the rates."""
    for k in ("median_s", "min_s", "max_s", "stddev_s"):
        r[k] *= factor
    r["times_s"] = [t * factor for t in r["times_s"]]
    r["rate"] /= factor
    if r["percent_ceiling"] is not None:
        r["percent_ceiling"] /= factor


# The machine 8% slower: the rung and the ceiling timed beside it alike
# (its rate the ceiling's, its share of it unchanged).
d = doc()
r = find(d, "reduce", "openmp-partials")
scale(r, 1.08)
r["ceiling"] /= 1.08
if r["percent_ceiling"] is not None:
    r["percent_ceiling"] *= 1.08
write("machine.json", d)

# 1.5 times slower, 3% slower, twice as fast.
d = doc()
scale(find(d, "reduce", "openmp-partials"), 1.5)
write("slower.json", d)
d = doc()
scale(find(d, "reduce", "openmp-partials"), 1.03)
write("within.json", d)
d = doc()
scale(find(d, "reduce", "openmp-clause"), 0.5)
write("faster.json", d)

# A rung gone, and one that BASE does not have.
d = doc()
d["results"] = [r for r in d["results"]
                if not (r["workload"] == "map" and r["rung"] == "openmp")]
extra = copy.deepcopy(find(d, "reduce", "openmp-partials"))
extra["rung"] = "openmp-newer"
d["results"].append(extra)
write("unmatched.json", d)

# A check that fails; a rung that stands aside.
d = doc()
r = find(d, "reduce", "openmp-clause")
r["check"] = "FAIL"
r["bad_elements"] = 1
write("failure.json", d)
d = doc()
r = find(d, "reduce", "openmp-clause")
r.update(check="ASIDE", status="backend or rung not available here",
         median_s=None, min_s=None, max_s=None, stddev_s=None, times_s=[],
         rate=None, percent_ceiling=None)
write("aside.json", d)

# Two timed runs a rung: too few for the test; the ratio decides.
d = doc()
for r in d["results"]:
    r["times_s"] = r["times_s"][:2]
    r["timed_runs"] = 2
scale(find(d, "reduce", "openmp-partials"), 1.5)
write("few-reps.json", d)

# A run on two devices: each key twice, matched in order.
d = doc()
second = copy.deepcopy(find(d, "reduce", "openmp-partials"))
second.update(device=1, device_name="second device")
d["results"].append(second)
write("two-devices.json", d)
scale(d["results"][-1], 1.5)
write("two-devices-slower.json", d)

# Formats: -2 (a coming version with added fields) read silently; -9 read
# with a warning where the fields compare needs are there, else refused.
d = doc()
d["format"] = "kladder-results-2"
for r in d["results"]:
    r["energy_j"] = None
write("format-2.json", d)
d["format"] = "kladder-results-9"
write("format-9.json", d)
for r in d["results"]:
    r["median_ns"] = r.pop("median_s")
write("format-9-lacking.json", d)

# Bad input.
write("foreign.json", {"format": "kladder-compare-1", "pairs": []})
write("no-format.json", {"results": BASE["results"][:1]})
d = doc()
d["results"] = []
write("no-results.json", d)
d = doc()
del d["results"][2]["rung"]
write("missing-rung.json", d)
text = open("base.json").read()
open("truncated.json", "w").write(text[: len(text) // 2])
open("malformed.json", "w").write(
    '{\n  "format": "kladder-results-1"\n  "results": []\n}\n')
