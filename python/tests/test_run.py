"""Runs through the library's run API: the Report, its writers, the field
table, Ctrl-C through the stop flag, and what the command gives
(compare, history, the HTML page), through the library."""
import ctypes
import json
import os
import signal
import subprocess
import sys
import threading

import pytest

import kladder
from kladder import _lib


@pytest.fixture(scope="module")
def report():
    return kladder.run(workloads="reduce", backends="serial", size=1000,
                       reps=3)


def test_options_layout():
    """kl_options as ctypes declares it reads the library's defaults
    (kladder-run.h: seed 20261121, 2 warm-up, 30 s, precision 0.5%)."""
    o = _lib.Options()
    _lib.lib.kl_options_init_sized(ctypes.byref(o), ctypes.sizeof(o))
    assert o.size == ctypes.sizeof(o)
    assert (o.seed, o.warmup, o.reps, o.n) == (20261121, 2, 0, 0)
    assert (o.max_seconds, o.precision, o.cache) == (30.0, 0.005, 0)
    assert o.type == _lib.TYPE_DEFAULT and not o.stop


def test_run_report(report):
    assert report.passed and not report.interrupted
    rows = report.records()
    assert len(rows) == len(report) >= 2
    rungs = [r["rung"] for r in rows if r["workload"] == "reduce"]
    assert rungs and all(r["backend"] == "serial" for r in rows)
    for r in rows:
        assert r["check"] == "PASS" and r["median_s"] > 0 and r["n"] >= 1000
    assert "reduce" in str(report) and "serial" in report.table(wide=True)
    assert report.started.endswith("Z")


def test_fields_from_the_library(report):
    fields = kladder.fields()
    names = [f["name"] for f in fields]
    assert "median_s" in names and "workload" in names
    kinds = {f["name"]: f["kind"] for f in fields}
    assert kinds["median_s"] == "seconds" and kinds["times_s"] == "list"
    pandas = pytest.importorskip("pandas")
    df = report.to_pandas()
    assert isinstance(df, pandas.DataFrame) and len(df) == len(report)
    want = [f["name"] for f in fields if not f["per_run"]
            and f["kind"] in ("text", "number", "seconds")]
    assert list(df.columns) == want
    assert "cpu" in df.attrs["run"]


def test_to_json_and_csv(report, tmp_path):
    path = tmp_path / "run.json"
    report.to_json(path)
    doc = json.loads(path.read_text())
    assert doc["format"].startswith("kladder-results-")
    assert len(doc["results"]) == len(report)
    assert all(len(r["times_s"]) == 3 for r in doc["results"])
    report.to_csv(tmp_path / "run.csv")
    lines = (tmp_path / "run.csv").read_text().splitlines()
    assert len(lines) == len(report) + 1 and lines[0].startswith("workload,")
    with pytest.raises(kladder.UsageError):
        report.to_json(tmp_path / "no" / "such" / "folder.json")
    assert sorted(os.listdir(tmp_path)) == ["run.csv", "run.json"]


def test_repr_html(report):
    page = report._repr_html_()
    assert page.startswith("<iframe") and "srcdoc=" in page
    assert "&lt;svg" in page or "&lt;table" in page


def test_compare(report, tmp_path):
    report.to_json(tmp_path / "base.json")
    c = kladder.compare(tmp_path / "base.json", report)
    assert c["format"] == "kladder-compare-1" and not c.regression
    assert not c.regressed and len(c.pairs) == len(report)
    assert len(c["pairs"]) == len(report) and "reduce" in c.table
    p = c.pairs[0]
    assert p["workload"] and p["verdict"] in (
        "same", "faster", "slower", "machine")
    assert p["base"] > 0 and p["new"] > 0
    assert c._repr_html_().startswith("<iframe")
    with pytest.raises(kladder.UsageError):
        kladder.compare(tmp_path / "missing.json", report)
    f = kladder.compare(tmp_path / "base.json", report, field="bytes")
    assert all(q["verdict"] == "same" for q in f.pairs) and not f.regressed
    assert "bytes" in f.table
    with pytest.raises(kladder.UsageError):
        kladder.compare(tmp_path / "base.json", report, field="rung")


def test_compare_to_pandas(report, tmp_path):
    pandas = pytest.importorskip("pandas")
    report.to_json(tmp_path / "base.json")
    frame = kladder.compare(tmp_path / "base.json", report).to_pandas()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == len(report)


def test_history(report, tmp_path):
    db = tmp_path / "history.db"
    h = kladder.history(db)
    try:
        assert h.append(report) == 1
    except kladder.UnavailableError:
        pytest.skip("this kladder was built without SQLite")
    report.to_json(tmp_path / "run.json")
    assert h.append([tmp_path / "run.json"]) == 0  # the same run, kept once
    h = kladder.history(db, workloads="reduce")
    assert h["format"] == "kladder-history-1" and h["points"]
    records = h.query(rungs="no-such-rung")
    assert records == [] and h.query()[0]["workload"] == "reduce"
    found, text = h.check()
    assert not found and "no regression" in text
    with pytest.raises(kladder.UsageError):
        kladder.history(tmp_path / "run.json")


def test_run_options_and_errors():
    r = kladder.run(workloads=["reduce"], backends=["serial"], size="1K,2K",
                    reps=2, params={"op": "max"}, dtype="float32",
                    skip_ceiling=True)
    rows = r.records()
    assert sorted({row["n"] for row in rows}) == [1024, 2048]
    assert {row["type"] for row in rows} == {"f32"}
    assert {row["op"] for row in rows} == {"max"}
    with pytest.raises(kladder.UsageError) as e:
        kladder.run(workloads="nosuchworkload", backends="serial")
    assert "nosuchworkload" in str(e.value)
    lines = []
    kladder.run(workloads="reduce", backends="serial", size=64, reps=1,
                skip_ceiling=True, progress=lines.append)
    assert lines


def test_ctrl_c_stops_the_run_and_restores_the_handler():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread alone")
    before = signal.getsignal(signal.SIGINT)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(kladder.Interrupted) as e:
            kladder.run(workloads="map,reduce,stream", backends="serial",
                        size="1K..4M:x2", reps=200)
    finally:
        timer.cancel()
    assert isinstance(e.value, KeyboardInterrupt)
    assert e.value.report is not None and e.value.report.interrupted
    assert signal.getsignal(signal.SIGINT) is before


def test_command_entry_point():
    out = subprocess.run([sys.executable, "-m", "kladder", "list"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "reduce" in out.stdout
