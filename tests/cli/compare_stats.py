#!/usr/bin/env python3
"""compare_stats.py KLADDER: `kladder compare`'s Mann-Whitney U test
against a reference written apart from it.

Results files of synthetic rungs, each with chosen times in BASE and NEW,
are compared with `--json -`, and every pair's U, p, test and few_reps is
checked against:
  - exact p without ties: the distribution of U counted by the recursion
    f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u) (Mann and Whitney
    1947), where kladder multiplies out the Gaussian binomial, and for
    small samples by enumerating every arrangement;
  - with ties or more than 50 runs: the normal approximation with the tie
    correction and a continuity correction of 1/2 (as SciPy's
    mannwhitneyu, which google/benchmark's compare.py calls);
  - few reps: fewer than 3 runs on a side, or 2 / C(m + n, m) >= alpha.
"""
import functools
import itertools
import json
import math
import os
import random
import subprocess
import sys
import tempfile

kladder = sys.argv[1]


@functools.lru_cache(maxsize=None)
def count(m, n, u):
    """Arrangements of m BASE and n NEW runs whose U (NEW over BASE) is u."""
    if u < 0:
        return 0
    if m == 0 or n == 0:
        return 1 if u == 0 else 0
    # The largest run is NEW's (it beats all m BASE runs) or BASE's.
    return count(m, n - 1, u - m) + count(m - 1, n, u)


def u_of(base, new):
    return sum(1.0 if y > x else 0.5 if y == x else 0.0
               for x in base for y in new)


def exact_p(m, n, u):
    total = math.comb(m + n, m)
    below = sum(count(m, n, k) for k in range(0, int(u) + 1))
    above = sum(count(m, n, k) for k in range(int(math.ceil(u)), m * n + 1))
    return min(1.0, 2 * min(below, above) / total)


def enumerated_p(base, new):
    """Every split of the pooled runs: the share at least as extreme."""
    pooled = base + new
    m, n = len(base), len(new)
    u0 = u_of(base, new)
    centre = m * n / 2
    low = high = total = 0
    for idx in itertools.combinations(range(m + n), n):
        chosen = set(idx)
        ys = [pooled[i] for i in idx]
        xs = [pooled[i] for i in range(m + n) if i not in chosen]
        u = u_of(xs, ys)
        total += 1
        low += u <= u0
        high += u >= u0
    del centre
    return min(1.0, 2 * min(low, high) / total)


def normal_p(base, new):
    m, n = len(base), len(new)
    N = m + n
    u = u_of(base, new)
    ties = 0
    pooled = sorted(base + new)
    for _, group in itertools.groupby(pooled):
        t = len(list(group))
        ties += t ** 3 - t
    var = m * n / 12 * ((N + 1) - ties / (N * (N - 1)))
    if var <= 0:
        return 1.0
    z = max(0.0, abs(u - m * n / 2) - 0.5) / math.sqrt(var)
    return min(1.0, math.erfc(z / math.sqrt(2)))


rng = random.Random(30)


def draw(k, centre, spread=0.05, grid=None):
    xs = [centre * (1 + rng.uniform(-spread, spread)) for _ in range(k)]
    if grid:  # times on a timer's grid: ties
        xs = [round(x / grid) * grid for x in xs]
    return xs


cases = [
    # name, base times, new times
    ("textbook-4-4", [1e-6, 2e-6, 3e-6, 4e-6], [5e-6, 6e-6, 7e-6, 8e-6]),
    ("overlap-5-6", draw(5, 1e-3), draw(6, 1.02e-3)),
    ("apart-7-7", draw(7, 1e-3, 0.01), draw(7, 1.5e-3, 0.01)),
    ("mixed-8-8", draw(8, 2e-3), draw(8, 2e-3)),
    ("uneven-3-9", draw(3, 1e-3), draw(9, 1.1e-3)),
    ("big-25-25", draw(25, 1e-3), draw(25, 1.01e-3)),
    ("normal-30-30", draw(30, 1e-3), draw(30, 1.01e-3)),
    ("ties-7-7", draw(7, 1e-5, 0.1, grid=1e-6), draw(7, 1.1e-5, 0.1, grid=1e-6)),
    ("ties-10-12", draw(10, 1e-5, 0.1, grid=1e-6), draw(12, 1e-5, 0.1, grid=1e-6)),
    ("all-equal-5-5", [1e-3] * 5, [1e-3] * 5),
    ("few-3-3", draw(3, 1e-3), draw(3, 2e-3)),
    ("few-3-4", draw(3, 1e-3), draw(4, 2e-3)),
    ("enough-3-5", draw(3, 1e-3, 0.01), draw(5, 2e-3, 0.01)),
    ("few-2-12", draw(2, 1e-3), draw(12, 2e-3)),
]


def results(which):
    out = []
    for name, base, new in cases:
        times = base if which == 0 else new
        s = sorted(times)
        med = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
        out.append({"workload": "map", "rung": name, "backend": "serial",
                    "flags": "", "op": "", "inputs": "", "type": "f32",
                    "n": 1000, "shape": "1000", "median_s": med,
                    "times_s": times, "percent_ceiling": 50.0,
                    "check": "PASS", "status": "success", "params": "",
                    "device": 0, "device_name": "cpu"})
    return {"format": "kladder-results-1", "results": out}


with tempfile.TemporaryDirectory() as tmp:
    paths = []
    for which in (0, 1):
        path = os.path.join(tmp, "%d.json" % which)
        json.dump(results(which), open(path, "w"))
        paths.append(path)
    run = subprocess.run([kladder, "compare", "--json", "-"] + paths,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if run.returncode not in (0, 1):
        print(run.stderr.decode())
        sys.exit("FAIL: exit code %d" % run.returncode)
    doc = json.loads(run.stdout)

failed = 0
pairs = {p["rung"]: p for p in doc["pairs"]}
for name, base, new in cases:
    p = pairs[name]
    m, n = len(base), len(new)
    u = u_of(base, new)
    has_ties = len(set(base + new)) < m + n
    if not has_ties and m + n <= 50:
        test, want = "exact", exact_p(m, n, u)
        if math.comb(m + n, m) <= 20000:
            assert abs(enumerated_p(base, new) - want) < 1e-12, name
    else:
        test, want = "normal", normal_p(base, new)
    few = m < 3 or n < 3 or 2 / math.comb(m + n, m) >= 0.05
    ok = (p["test"] == test and abs(p["u"] - u) < 1e-9 and
          abs(p["p_value"] - want) <= 1e-9 * max(1.0, want) and
          p["few_reps"] == few)
    print("%-14s %s U %5.1f  p %.6g (want %s %.6g)%s  %s" %
          (name, p["test"], p["u"], p["p_value"], test, want,
           "  few reps" if few else "", "ok" if ok else "WRONG"))
    failed += not ok

# The textbook case: 4 runs each, fully apart: p = 2 / C(8, 4).
assert abs(pairs["textbook-4-4"]["p_value"] - 2 / 70) < 1e-12
if failed:
    sys.exit("FAIL: %d pairs differ from the reference" % failed)
print("ok: %d pairs as the reference has them" % len(cases))
