"""The results history's tests' helper (tests/cli/history.sh): what the
shell cannot do alone, through Python's own sqlite3 module (not kladder's
code), so that what kladder wrote is read by another reader.

  history_db.py sum FILE          a digest of the database's content (its
                                  SQL dump; a file that is not a database:
                                  its bytes), to show a file unchanged
  history_db.py verify FILE RUNS REPS
                                  integrity_check ok, RUNS runs, each with
                                  its results and each result with REPS
                                  timed runs (all or nothing per run)
  history_db.py whole FILE        integrity_check ok, every run whole
                                  (each run as many results as its file)
  history_db.py runs FILE         the number of runs
  history_db.py hold FILE SECONDS an exclusive lock held that long
                                  (prints "held" once it has it)
  history_db.py foreign FILE      a database of another program
  history_db.py newer FILE        kladder's, of a schema newer than any
  history_db.py planted DIR N AT  N results files of synthetic runs, one a
                                  commit: map serial at 1 ms (2% noise),
                                  20% slower from run AT on; reduce
                                  serial at 2 ms all along (a control)
  history_db.py variants SRC DIR N
                                  N copies of the results file SRC, each
                                  started a second apart (distinct runs)
"""
import hashlib
import json
import random
import sqlite3
import sys
import time


def connect(path):
    return sqlite3.connect(path, timeout=30, isolation_level=None)


def digest(path):
    data = open(path, "rb").read()
    if not data.startswith(b"SQLite format 3\0"):
        return hashlib.sha256(data).hexdigest()
    db = connect(path)
    h = hashlib.sha256()
    for line in db.iterdump():
        h.update(line.encode())
    h.update(str(db.execute("PRAGMA user_version").fetchone()[0]).encode())
    db.close()
    return h.hexdigest()


def integrity(db):
    ok = db.execute("PRAGMA integrity_check").fetchone()[0]
    assert ok == "ok", "integrity_check: %s" % ok
    fk = db.execute("PRAGMA foreign_key_check").fetchall()
    assert not fk, "foreign_key_check: %r" % fk[:3]


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "sum":
        print(digest(path))
    elif cmd == "verify":
        runs, reps = int(sys.argv[3]), int(sys.argv[4])
        db = connect(path)
        integrity(db)
        n = db.execute("SELECT count(*) FROM runs").fetchone()[0]
        assert n == runs, "%d runs in the history, not %d" % (n, runs)
        per_run = db.execute(
            "SELECT u.id, count(r.id) FROM runs u LEFT JOIN results r ON "
            "r.run_id = u.id GROUP BY u.id").fetchall()
        bad = [p for p in per_run if p[1] != 1]
        assert not bad, "runs without exactly their one result: %r" % bad[:5]
        times = db.execute(
            "SELECT r.id, count(t.ord) FROM results r LEFT JOIN times t ON "
            "t.result_id = r.id GROUP BY r.id").fetchall()
        bad = [t for t in times if t[1] != reps]
        assert not bad, "results without their %d times: %r" % (reps, bad[:5])
        distinct = db.execute("SELECT count(DISTINCT digest) FROM runs").fetchone()[0]
        assert distinct == runs
        print("%d runs, each whole; integrity_check ok" % n)
    elif cmd == "whole":
        db = connect(path)
        integrity(db)
        for run_id, source in db.execute("SELECT id, source FROM runs").fetchall():
            want = len(json.load(open(source))["results"])
            got = db.execute("SELECT count(*) FROM results WHERE run_id = ?",
                             (run_id,)).fetchone()[0]
            assert got == want, "run %d: %d results, its file %d" % (run_id, got, want)
        print("every run whole; integrity_check ok")
    elif cmd == "runs":
        print(connect(path).execute("SELECT count(*) FROM runs").fetchone()[0])
    elif cmd == "hold":
        db = connect(path)
        db.execute("BEGIN EXCLUSIVE")
        print("held", flush=True)
        time.sleep(float(sys.argv[3]))
        db.execute("ROLLBACK")
    elif cmd == "foreign":
        db = connect(path)
        db.execute("CREATE TABLE orders(id INTEGER PRIMARY KEY, item TEXT)")
        db.execute("INSERT INTO orders(item) VALUES ('a book')")
        db.close()
    elif cmd == "newer":
        db = connect(path)
        db.execute("PRAGMA application_id=%d" % 0x4b4c6472)
        db.execute("PRAGMA user_version=99")
        db.execute("CREATE TABLE runs(id INTEGER PRIMARY KEY)")
        db.close()
    elif cmd == "planted":
        n, at = int(sys.argv[3]), int(sys.argv[4])
        rnd = random.Random(20261126)
        for i in range(1, n + 1):
            results = []
            for rung, wl, base, slow in (("serial", "map", 1e-3, i >= at),
                                         ("serial", "reduce", 2e-3, False)):
                t = base * (1.2 if slow else 1.0)
                times = [t * (1 + rnd.uniform(-0.02, 0.02)) for _ in range(5)]
                med = sorted(times)[2]
                results.append({
                    "workload": wl, "rung": rung, "backend": "serial",
                    "flags": "", "op": "", "inputs": "", "type": "f32",
                    "n": 1000000, "shape": "1000000", "params": "",
                    "median_s": med, "min_s": min(times), "max_s": max(times),
                    "times_s": times, "unit": "GB/s", "rate": 8e-3 / med,
                    "ceiling": 20.0, "percent_ceiling": 100 * 8e-3 / med / 20,
                    "check": "PASS", "status": "success", "step": 1,
                    "timed_runs": 5, "device_name": "test CPU"})
            doc = {"format": "kladder-results-2",
                   "started": "2026-11-%02dT%02d:00:00Z" % (1 + i // 24, i % 24),
                   "command_line": "kladder run (planted %d)" % i,
                   "kladder": "0.2.0", "interrupted": False,
                   "machine": {"cpu": "Test CPU", "cpu_threads": 2,
                               "omp_threads": 2, "gpu": None,
                               "driver": None, "host": "ci"},
                   "options": {"seed": 1, "reps": 5, "warmup": 1},
                   "build": {"version": "0.2.0", "commit": "c%03d" % i,
                             "build_type": "Release"},
                   "results": results}
            json.dump(doc, open("%s/run-%03d.json" % (path, i), "w"))
    elif cmd == "gpus":
        # One results file per GPU named after path, the same run on the
        # same host and CPU: only the GPU's name differs.
        for i, gpu in enumerate(sys.argv[3:]):
            doc = {"format": "kladder-results-2",
                   "started": "2026-11-20T0%d:00:00Z" % i,
                   "command_line": "kladder run -w map -b cuda",
                   "kladder": "0.2.0", "interrupted": False,
                   "machine": {"cpu": "Intel(R) Xeon(R) Platinum 8480+",
                               "cpu_threads": 224, "omp_threads": 224,
                               "gpu": gpu, "driver": "CUDA driver 12.8",
                               "host": "vm"},
                   "options": {"seed": 1, "reps": 5, "warmup": 1},
                   "build": {"version": "0.2.0", "commit": "c001",
                             "build_type": "Release"},
                   "results": [{
                       "workload": "map", "rung": "cuda-vector",
                       "backend": "cuda", "flags": "", "op": "",
                       "inputs": "", "type": "f32", "n": 1000000,
                       "shape": "1000000", "params": "", "median_s": 1e-5,
                       "min_s": 1e-5, "max_s": 1e-5, "times_s": [1e-5] * 5,
                       "unit": "GB/s", "rate": 800.0, "ceiling": 3000.0,
                       "percent_ceiling": 26.7, "check": "PASS",
                       "status": "success", "step": 2, "timed_runs": 5,
                       "device_name": gpu.split(" (")[0]}]}
            json.dump(doc, open("%s-%d.json" % (path, i), "w"))
    elif cmd == "variants":
        out, n = sys.argv[3], int(sys.argv[4])
        doc = json.load(open(path))
        for i in range(n):
            doc["started"] = "2026-11-20T00:%02d:%02dZ" % (i // 60, i % 60)
            json.dump(doc, open("%s/variant-%03d.json" % (out, i), "w"))
    elif cmd == "columns":
        # Every text or number field of `kladder list --fields` (its
        # lines in argv[3]) a column: a run's in runs, a result's in
        # results; check and commit by the first schema's names.
        db = connect(path)
        have = {t: {row[1] for row in db.execute("PRAGMA table_info(%s)" % t)}
                for t in ("runs", "results")}
        renamed = {("results", "check"): "verdict",
                   ("runs", "commit"): "commit_id"}
        count = 0
        for line in open(sys.argv[3]).read().splitlines()[1:]:
            cells = line.split()
            if len(cells) < 5 or cells[1] not in ("text", "number", "seconds"):
                continue
            table = "results" if cells[-1] == "-" else "runs"
            column = renamed.get((table, cells[0]), cells[0])
            assert column in have[table], "no column %s in %s" % (column, table)
            count += 1
        assert count > 40, "only %d fields read" % count
    elif cmd == "drop":
        db = connect(path)
        db.execute("ALTER TABLE results DROP COLUMN %s" % sys.argv[3])
    elif cmd == "filled":
        db = connect(path)
        v = db.execute("SELECT %s FROM results ORDER BY id DESC LIMIT 1"
                       % sys.argv[3]).fetchone()[0]
        assert v is not None, "the newest result's %s is null" % sys.argv[3]
    else:
        sys.exit("history_db.py: unknown command " + cmd)


if __name__ == "__main__":
    main()
