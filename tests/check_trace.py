#!/usr/bin/env python3
"""check_trace.py TRACE CSV: the trace kladder wrote (--trace) beside the
results of the same run (--csv). Checks that the trace is JSON in Chrome's
trace-event format, that every process and track is named, that events on
one track never overlap, and that each rung's overlap, recomputed from its
events, is the one the CSV reports. Exit 0 when all hold, 1 otherwise."""
import csv
import json
import sys
from collections import defaultdict

ROUNDING_US = 2e-4  # ts and dur are written to 0.1 ns


def union(spans):
    """Time covered by at least one span."""
    total, reached = 0.0, None
    for start, end in sorted(spans):
        frm = start if reached is None or start > reached else reached
        if end > frm:
            total += end - frm
            reached = end
    return total


def main(trace_path, csv_path):
    problems = []
    doc = json.load(open(trace_path))
    events = doc["traceEvents"]
    names, tracks = {}, set()
    spans = defaultdict(list)          # (pid, tid) -> [(ts, end)]
    phases = defaultdict(lambda: defaultdict(list))  # pid -> cat -> spans
    everything = defaultdict(list)     # pid -> spans
    for e in events:
        if e["ph"] == "M":
            if e["name"] == "process_name":
                names[e["pid"]] = e["args"]["name"]
            elif e["name"] == "thread_name":
                tracks.add((e["pid"], e["tid"]))
            continue
        if e["ph"] != "X":
            problems.append(f"event of kind {e['ph']!r}: only X and M are written")
            continue
        span = (e["ts"], e["ts"] + e["dur"])
        if e["dur"] < 0:
            problems.append(f"negative duration: {e}")
        spans[(e["pid"], e["tid"])].append(span)
        everything[e["pid"]].append(span)
        if e["cat"] != "run":
            phases[e["pid"]][e["cat"]].append(span)
    for (pid, tid), s in spans.items():
        if pid not in names:
            problems.append(f"process {pid} has events and no name")
        if (pid, tid) not in tracks:
            problems.append(f"track {tid} of {names.get(pid)} has no name")
        s.sort()
        for (a0, a1), (b0, b1) in zip(s, s[1:]):
            if b0 < a1 - ROUNDING_US:
                problems.append(f"{names.get(pid)} track {tid}: events at "
                                f"{a0}-{a1} and {b0}-{b1} overlap")
    reported = {}
    for row in csv.DictReader(open(csv_path)):
        reported[f"{row['workload']} {row['rung']}"] = row["overlap"]
    checked = 0
    for pid, name in names.items():
        if name not in reported:
            if pid != 0:
                problems.append(f"{name!r} is in the trace, not in the CSV")
            continue
        want = reported[name]
        if not phases[pid]:
            if want:
                problems.append(f"{name}: overlap {want} without phase events")
            continue
        s = everything[pid]
        wall = max(e for _, e in s) - min(b for b, _ in s)
        slowest = max(union(p) for p in phases[pid].values())
        got = wall / slowest
        if not want or abs(got - float(want)) > 1e-3 * float(want):
            problems.append(f"{name}: the trace gives overlap {got:.6g}, "
                            f"the CSV {want or 'none'}")
        checked += 1
    if checked == 0:
        problems.append("no rung with phase events to check")
    for p in problems:
        print(f"check_trace: {p}")
    print(f"check_trace: {len(names)} processes, {len(events)} events, "
          f"{checked} overlaps checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
