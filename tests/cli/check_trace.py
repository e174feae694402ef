#!/usr/bin/env python3
"""check_trace.py TRACE CSV [--ranks P]: the trace kladder wrote (--trace)
beside the results of the same run (--csv). Checks that the trace is JSON
in Chrome's trace-event format, that every process and track is named,
that events on a result's track never overlap, and that each rung's
overlap, recomputed from its events, is the one the CSV reports.

A trace written over several ranks has a process per rank ("rank K"),
after the results': its track holds each timed run of each result, and
inside a run its phases. There the runs never overlap, every phase event
lies inside a run (the nesting is consistent: two events are apart or one
holds the other), a run's phases add up to no more than it, each rank has
the same runs of each result, as many as the CSV's timed_runs, and each
run's args give its phases. With --ranks P: there are P rank processes,
each with phase events. Exit 0 when all hold, 1 otherwise."""
import csv
import json
import re
import sys
from collections import defaultdict

ROUNDING_US = 2e-4  # ts and dur are written to 0.1 ns
RANK = re.compile(r"rank (\d+)$")


def union(spans):
    """Time covered by at least one span."""
    total, reached = 0.0, None
    for start, end in sorted(spans):
        frm = start if reached is None or start > reached else reached
        if end > frm:
            total += end - frm
            reached = end
    return total


def check_rank(name, events, problems):
    """One rank's track: runs apart, phases nested in them, their sum no
    more than the run. Returns (runs by result, phase events)."""
    runs, phases = [], []
    for e in events:
        (runs if e["cat"] == "run" else phases).append(e)
    runs.sort(key=lambda e: e["ts"])
    for a, b in zip(runs, runs[1:]):
        if b["ts"] < a["ts"] + a["dur"] - ROUNDING_US:
            problems.append(f"{name}: runs at {a['ts']} and {b['ts']} "
                            "overlap")
    # Nesting: sorted by start and longest first, each event lies inside
    # the innermost one still open, or after it.
    stack = []
    for e in sorted(events, key=lambda e: (e["ts"], -e["dur"])):
        start, end = e["ts"], e["ts"] + e["dur"]
        while stack and start >= stack[-1][1] - ROUNDING_US:
            stack.pop()
        if stack and end > stack[-1][1] + ROUNDING_US:
            problems.append(f"{name}: {e['name']} at {start}-{end} crosses "
                            f"the end of the event at {stack[-1][0]}-"
                            f"{stack[-1][1]}")
        if e["cat"] != "run" and (not stack or stack[-1][2] != "run"):
            problems.append(f"{name}: phase {e['name']} at {start} is not "
                            "inside a run")
        stack.append((start, end, e["cat"]))
    by_result = defaultdict(set)
    for r in runs:
        args = r.get("args", {})
        if "result" not in args or "run" not in args:
            problems.append(f"{name}: a run without result and run args")
            continue
        by_result[args["result"]].add(args["run"])
        start, end = r["ts"], r["ts"] + r["dur"]
        inside = [p for p in phases
                  if p["ts"] >= start - ROUNDING_US and
                  p["ts"] + p["dur"] <= end + ROUNDING_US]
        total = sum(p["dur"] for p in inside)
        if total > r["dur"] + ROUNDING_US * (1 + len(inside)):
            problems.append(f"{name}: {r['name']} run {args['run']}: phases "
                            f"{total} us in a run of {r['dur']} us")
        # Each phase event is written in whole nanoseconds, the last one
        # cut at the run's end: within a nanosecond each of the args.
        named = sum(v for k, v in args.items()
                    if k not in ("result", "run")) * 1e6
        if inside and abs(named - total) > 1e-3 * (1 + len(inside)) + \
                1e-6 * named:
            problems.append(f"{name}: {r['name']} run {args['run']}: its "
                            f"phase events make {total} us, its args "
                            f"{named} us")
    return by_result, phases


def main(trace_path, csv_path, want_ranks=None):
    problems = []
    doc = json.load(open(trace_path))
    events = doc["traceEvents"]
    names, tracks = {}, set()
    spans = defaultdict(list)          # (pid, tid) -> [(ts, end)]
    phases = defaultdict(lambda: defaultdict(list))  # pid -> cat -> spans
    everything = defaultdict(list)     # pid -> spans
    on_rank = defaultdict(list)        # pid -> events, for rank processes
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
        if e["dur"] < 0:
            problems.append(f"negative duration: {e}")
        on_rank[e["pid"]].append(e)
        span = (e["ts"], e["ts"] + e["dur"])
        spans[(e["pid"], e["tid"])].append(span)
        everything[e["pid"]].append(span)
        if e["cat"] != "run":
            phases[e["pid"]][e["cat"]].append(span)
    rank_pids = {pid: int(RANK.match(n).group(1))
                 for pid, n in names.items() if RANK.match(n)}
    for (pid, tid), s in spans.items():
        if pid not in names:
            problems.append(f"process {pid} has events and no name")
        if (pid, tid) not in tracks:
            problems.append(f"track {tid} of {names.get(pid)} has no name")
        if pid in rank_pids:
            continue
        s.sort()
        for (a0, a1), (b0, b1) in zip(s, s[1:]):
            if b0 < a1 - ROUNDING_US:
                problems.append(f"{names.get(pid)} track {tid}: events at "
                                f"{a0}-{a1} and {b0}-{b1} overlap")
    reported, timed_runs = {}, {}
    for row in csv.DictReader(open(csv_path)):
        reported[f"{row['workload']} {row['rung']}"] = row["overlap"]
        timed_runs[f"{row['workload']} {row['rung']}"] = row["timed_runs"]
    checked = 0
    for pid, name in names.items():
        if pid in rank_pids:
            continue
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
    # The ranks' processes: each one's track, and the same runs on each.
    runs_of = {}
    with_phases = 0
    for pid, rank in sorted(rank_pids.items(), key=lambda x: x[1]):
        name = names[pid]
        by_result, phase_events = check_rank(name, on_rank[pid], problems)
        with_phases += bool(phase_events)
        for result, runs in by_result.items():
            if runs != set(range(len(runs))):
                problems.append(f"{name}: result {result}'s runs are "
                                f"{sorted(runs)}, not 0 to {len(runs) - 1}")
            first = runs_of.setdefault(result, (rank, len(runs)))
            if first[1] != len(runs):
                problems.append(f"result {result}: {len(runs)} runs on "
                                f"rank {rank}, {first[1]} on rank {first[0]}")
            rung = names.get(result)
            if rung in timed_runs and timed_runs[rung] and \
                    int(timed_runs[rung]) != len(runs):
                problems.append(f"{name}: {rung}: {len(runs)} runs, the CSV "
                                f"says {timed_runs[rung]} timed runs")
    if sorted(rank_pids.values()) != list(range(len(rank_pids))):
        problems.append(f"rank processes {sorted(rank_pids.values())}: not "
                        "0 to P - 1")
    if want_ranks is not None:
        if len(rank_pids) != want_ranks:
            problems.append(f"{len(rank_pids)} rank processes, not "
                            f"{want_ranks}")
        if with_phases != len(rank_pids):
            problems.append(f"{len(rank_pids) - with_phases} rank processes "
                            "without phase events")
    if checked == 0 and with_phases == 0:
        problems.append("no rung with phase events to check")
    for p in problems:
        print(f"check_trace: {p}")
    print(f"check_trace: {len(names)} processes ({len(rank_pids)} ranks), "
          f"{len(events)} events, {checked} overlaps checked, "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    ranks = None
    if "--ranks" in args:
        i = args.index("--ranks")
        ranks = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit("usage: check_trace.py TRACE CSV [--ranks P]")
    sys.exit(main(args[0], args[1], ranks))
