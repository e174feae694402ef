"""Runs from Python through the library's run API (kladder-run.h): kl_run
with kl_options, its report read through the field table, written by the
library's writers; its HTML page (kl_report_write_html), two results files
compared (kl_compare) and the results history (kl_history_*), the same
code the command runs."""
import ctypes
import html
import json
import os
import shutil
import signal
import sys
import tempfile
import threading

from . import _lib
from ._lib import lib

_libc = ctypes.CDLL(None)
_libc.open_memstream.restype = ctypes.c_void_p
_libc.open_memstream.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                 ctypes.POINTER(ctypes.c_size_t)]
_libc.fclose.argtypes = [ctypes.c_void_p]
_libc.free.argtypes = [ctypes.c_void_p]


def fields():
    """The library's description of a result's fields (kl_field_describe),
    in the JSON writer's order: name, csv column, kind, unit, per_run,
    group."""
    out = []
    for i in range(lib.kl_field_count()):
        f = _lib.FieldInfo(size=ctypes.sizeof(_lib.FieldInfo))
        _lib.check(lib.kl_field_describe(i, ctypes.byref(f)))
        out.append({"name": _lib.text(f.name), "csv": _lib.text(f.csv),
                    "kind": _lib.FIELD_KINDS[f.kind],
                    "unit": _lib.text(f.unit), "per_run": bool(f.per_run),
                    "group": _lib.text(f.group)})
    return out


class Report:
    """The results of kladder.run(): one row per rung measured (ceilings
    first), read through the library's field table. Read-only; any thread
    may read it."""

    def __init__(self, handle, status):
        self._handle = ctypes.c_void_p(handle)
        self.status = status
        self._fields = [(i, f) for i, f in enumerate(fields())
                        if f["kind"] in ("text", "number", "seconds")]

    def __del__(self):
        self.close()

    def close(self):
        """Free the library's report now (it is freed when collected)."""
        if getattr(self, "_handle", None) and self._handle.value:
            lib.kl_report_free(self._handle)
            self._handle = ctypes.c_void_p()

    def _h(self):
        if not self._handle.value:
            raise ValueError("kladder: the report was closed")
        return self._handle

    def __len__(self):
        return lib.kl_report_count(self._h())

    @property
    def passed(self):
        """True where every check passed (the run's status KL_OK)."""
        return self.status == _lib.OK

    @property
    def interrupted(self):
        return bool(lib.kl_report_interrupted(self._h()))

    @property
    def notes(self):
        return _lib.text(lib.kl_report_notes(self._h()))

    @property
    def started(self):
        return _lib.text(lib.kl_report_started(self._h()))

    def _value(self, i, index, kind):
        if kind == "text":
            buf = ctypes.create_string_buffer(4096)
            st = lib.kl_result_text(self._h(), i, index, buf, len(buf))
            value = _lib.text(buf.value)
        else:
            d = ctypes.c_double()
            st = lib.kl_result_number(self._h(), i, index, ctypes.byref(d))
            value = d.value
        if st == _lib.UNAVAILABLE:
            return None
        _lib.check(st)
        return value

    def records(self):
        """Each result as a dict of its fields (text, number and seconds
        fields: those kl_result_text and kl_result_number give; lists such
        as times_s are in to_json's file). A value not measured is None."""
        return [{f["name"]: self._value(i, index, f["kind"])
                 for index, f in self._fields if not f["per_run"]}
                for i in range(len(self))]

    def run_fields(self):
        """The fields of the run (machine, options, build): one value per
        run."""
        if not len(self):
            return {}
        return {f["name"]: self._value(0, index, f["kind"])
                for index, f in self._fields if f["per_run"]}

    def to_pandas(self):
        """A pandas DataFrame, a row per result and a column per field of
        the library's table; the run's fields in df.attrs["run"]. Needs
        pandas (pip install pandas)."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("kladder: Report.to_pandas needs pandas "
                              "(pip install pandas)") from e
        columns = [f["name"] for _, f in self._fields if not f["per_run"]]
        df = pandas.DataFrame.from_records(self.records(), columns=columns)
        df.attrs["run"] = self.run_fields()
        return df

    def _write(self, path, fmt):
        out = ctypes.c_void_p()
        _lib.check(lib.kl_output_open(os.fsencode(path), fmt,
                                      ctypes.byref(out)))
        _lib.check(lib.kl_output_write(out, self._h()))

    def to_json(self, path):
        """The results file (format kladder-results-N), as `kladder run
        --json` writes it: whole, or not at all."""
        self._write(path, _lib.FORMAT_JSON)

    def to_csv(self, path):
        self._write(path, _lib.FORMAT_CSV)

    def table(self, wide=False):
        """The table `kladder run` prints (wide: `kladder run -v`'s)."""
        buf, size = ctypes.c_void_p(), ctypes.c_size_t()
        f = _libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
        if not f:
            raise OSError(ctypes.get_errno(), "open_memstream failed")
        try:
            fn = lib.kl_report_print_wide if wide else lib.kl_report_print
            st = fn(self._h(), f)
        finally:
            _libc.fclose(f)
            text = ctypes.string_at(buf, size.value).decode("utf-8",
                                                            "replace")
            _libc.free(buf)
        _lib.check(st)
        return text

    def __str__(self):
        return self.table()

    def __repr__(self):
        return "<kladder.Report: %d results, %s>" % (
            len(self), "passed" if self.passed else
            _lib.text(lib.kl_status_name(self.status)))

    def html(self):
        """The page `kladder report` draws of this run, by the library's
        HTML writer (kl_report_write_html)."""
        tmp = tempfile.mkdtemp(prefix="kladder-py.")
        try:
            path = os.path.join(tmp, "run.json")
            self.to_json(path)
            return _report_html([path])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _repr_html_(self):
        try:
            page = self.html()
        except Exception:  # the table, where the command cannot draw it
            return "<pre>%s</pre>" % html.escape(self.table())
        # A page of its own (style and script), apart from the notebook's.
        return ('<iframe style="width:100%%;height:40em;border:0" '
                'srcdoc="%s"></iframe>' % html.escape(page, quote=True))


def _join(value):
    if value is None or isinstance(value, str):
        return value
    return ",".join(str(v) for v in value)


def _enc(value):
    return None if value is None else str(value).encode()


def run(workloads=None, backends=None, size=None, reps=None, *, rungs=None,
        dtype=None, params=None, seed=None, warmup=None, max_seconds=None,
        precision=None, full=False, skip_ceiling=False, cache=None,
        host_data=False, energy=False, progress=None):
    """Run the ladders as `kladder run` does and return a Report.

    workloads, backends, rungs: selection patterns (a string, "reduce,map",
    or a list); backends names devices ("openmp", "cuda:1"). size: the main
    size, an int, or text as -n takes it ("1M", a sweep "1K..1M:x4").
    reps: timed runs (None: by noise, to `precision`). params: "k=v,..." or
    a dict. progress: True prints the library's progress lines to stderr,
    or a callable takes each line. A failed check is in the report
    (report.passed False), not an exception. Ctrl-C stops the run after
    the repetition in progress (the library's stop flag) and raises
    kladder.Interrupted, whose .report holds the rungs that finished."""
    opt = _lib.Options()
    lib.kl_options_init_sized(ctypes.byref(opt), ctypes.sizeof(opt))
    keep = []  # what the options point to, alive for the run

    def s(value):
        b = _enc(value)
        keep.append(b)
        return b

    opt.workloads, opt.backends = s(_join(workloads)), s(_join(backends))
    opt.rungs = s(_join(rungs))
    if isinstance(size, int):
        opt.n = size
    elif size is not None:
        opt.sizes = s(size)
    if dtype is not None:
        from ._arrays import _NUMPY_NAMES
        import numpy as np
        name = dtype if dtype in _lib.TYPES else next(
            (k for k, v in _NUMPY_NAMES.items() if v == np.dtype(dtype).name),
            None)
        if name is None:
            raise _lib.DTypeError("kladder.run: no kladder type for %r"
                                  % (dtype,), _lib.USAGE)
        opt.type = _lib.TYPES.index(name)
    if isinstance(params, dict):
        params = ",".join("%s=%s" % (k, _join(v)) for k, v in params.items())
    opt.params = s(params)
    if reps is not None:
        opt.reps = int(reps)
    if warmup is not None:
        opt.warmup = int(warmup)
    if seed is not None:
        opt.seed = int(seed)
    if max_seconds is not None:
        opt.max_seconds = float(max_seconds)
    if precision is not None:
        opt.precision = float(precision)
    if cache is not None:
        opt.cache = {"warm": 0, "cold": 1}[cache]
    opt.full, opt.skip_ceiling = int(bool(full)), int(bool(skip_ceiling))
    opt.host_data, opt.energy = int(bool(host_data)), int(bool(energy))
    opt.command_line = s("kladder.run(%s)" % ", ".join(
        "%s=%r" % kv for kv in (("workloads", workloads),
                                ("backends", backends), ("size", size),
                                ("reps", reps)) if kv[1] is not None))
    if progress:
        say = progress if callable(progress) else (
            lambda line: print(line, file=sys.stderr, flush=True))
        callback = _lib.PROGRESS_FN(lambda _ctx, line: say(_lib.text(line)))
        keep.append(callback)
        opt.progress = callback
    stop = ctypes.c_int(0)
    opt.stop = ctypes.pointer(stop)

    handle, box = ctypes.c_void_p(), {}

    def go():
        box["status"] = lib.kl_run(ctypes.byref(opt), ctypes.byref(handle))
        if box["status"] not in (_lib.OK, _lib.CHECK_FAILED):
            box["error"] = _lib.error(box["status"])  # this thread's line

    _with_stop_flag(go, stop)
    status = box["status"]
    report = Report(handle.value, status) if handle.value else None
    if status == _lib.INTERRUPTED:
        raise _lib.Interrupted(report)
    if "error" in box:
        box["error"].report = report
        raise box["error"]
    return report


def _with_stop_flag(fn, stop):
    """fn() in a thread of its own while the main thread waits, a SIGINT
    handler of this call setting the library's stop flag; the handler
    before it is put back when fn returns. Off the main thread (where
    Python takes no signal handler) fn runs there, and Ctrl-C reaches
    the main thread alone."""
    if threading.current_thread() is not threading.main_thread():
        fn()
        return

    def on_sigint(_signum, _frame):
        stop.value = 1

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        worker = threading.Thread(target=fn, name="kladder.run", daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
    finally:
        signal.signal(signal.SIGINT, previous)


# ---- results compared, kept and drawn (the library's) ---------------------------
def _printed(fn):
    """What fn(FILE *) writes, as text; fn returns a kl_status."""
    buf, size = ctypes.c_void_p(), ctypes.c_size_t()
    f = _libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
    if not f:
        raise OSError(ctypes.get_errno(), "open_memstream failed")
    try:
        st = fn(f)
    finally:
        _libc.fclose(f)
        text = ctypes.string_at(buf, size.value).decode("utf-8", "replace")
        _libc.free(buf)
    _lib.check(st)
    return text


def _paths(paths):
    encoded = [os.fsencode(os.fspath(p)) for p in paths]
    return (ctypes.c_char_p * max(1, len(encoded)))(*encoded), len(encoded)


def _report_html(paths, db=None):
    tmp = tempfile.mkdtemp(prefix="kladder-py.")
    try:
        out = os.path.join(tmp, "report.html")
        arr, n = _paths(paths)
        _lib.check(lib.kl_report_write_html(out.encode(), arr, n, db))
        with open(out, encoding="utf-8") as f:
            return f.read()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _iframe(page):
    # A page of its own (style and script), apart from the notebook's.
    return ('<iframe style="width:100%%;height:40em;border:0" '
            'srcdoc="%s"></iframe>' % html.escape(page, quote=True))


def _results_path(x, tmp, name):
    if isinstance(x, Report):
        path = os.path.join(tmp, name)
        x.to_json(path)
        return path
    return os.fspath(x)


def _nan(v):
    return None if v != v else v


class Comparison(dict):
    """Two runs compared by the library (kl_compare): the JSON `kladder
    compare --json` writes (format kladder-compare-1) as a dict, its
    pairs (.pairs, one dict each), its table (.table) and whether anything
    regressed (.regressed, the command's exit code 1)."""

    def __init__(self, handle):
        self._handle = handle
        field = None
        try:
            self.pairs = [self._pair(i) for i in
                          range(lib.kl_comparison_count(handle))]
            self.table = _printed(lambda f: lib.kl_comparison_print(
                handle, _lib.FORMAT_TABLE, f))
            self.regressed = bool(lib.kl_comparison_regressed(handle))
            self.warning = _lib.text(lib.kl_comparison_warning(handle))
            try:
                doc = _printed(lambda f: lib.kl_comparison_print(
                    handle, _lib.FORMAT_JSON, f))
            except _lib.UsageError:  # a field's comparison: its table alone
                doc, field = None, True
            super().__init__(json.loads(doc) if doc else {})
            self._html = None if field else _printed(
                lambda f: lib.kl_comparison_print(handle, _lib.FORMAT_HTML, f))
        finally:
            lib.kl_comparison_free(handle)
            self._handle = None

    def _pair(self, i):
        p = _lib.ComparePair()
        p.size = ctypes.sizeof(p)
        _lib.check(lib.kl_comparison_pair(self._handle, i, ctypes.byref(p)))
        out = {}
        for name, kind in _lib.ComparePair._fields_[1:]:
            v = getattr(p, name)
            out[name] = (_lib.text(v) if kind is ctypes.c_char_p
                         else _nan(v) if kind is ctypes.c_double else v)
        out["regression"] = bool(out["regression"])
        out["ceiling"] = bool(out["ceiling"])
        return out

    @property
    def regression(self):
        return self.regressed

    def to_pandas(self):
        import pandas
        return pandas.DataFrame.from_records(self.pairs)

    def _repr_html_(self):
        if self._html is None:
            return "<pre>%s</pre>" % html.escape(self.table)
        return _iframe(self._html)

    def __str__(self):
        return self.table


def compare(base, new, *, threshold=0.05, alpha=0.05, field=None):
    """Compare two runs (Reports or results files) as `kladder compare
    BASE NEW` does, by the library's kl_compare: each pair's times, their
    ratio, the U test and a verdict; with field, one numeric field of the
    results instead (`kladder compare --field`)."""
    tmp = tempfile.mkdtemp(prefix="kladder-py.")
    try:
        o = _lib.CompareOptions(ctypes.sizeof(_lib.CompareOptions),
                                float(threshold), float(alpha), _enc(field))
        handle = ctypes.c_void_p()
        _lib.check(lib.kl_compare(
            os.fsencode(_results_path(base, tmp, "base.json")),
            os.fsencode(_results_path(new, tmp, "new.json")),
            ctypes.byref(o), ctypes.byref(handle)))
        return Comparison(handle.value)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class History(dict):
    """A results history (an SQLite database, `kladder run --db`), through
    the library (kl_history_*). As a dict: the JSON `kladder history
    --json` writes (format kladder-history-1) of the runs the filters given
    to history() select; append() adds results files (or Reports),
    query() selects runs as records, check() is `kladder history
    --check`."""

    def __init__(self, path, filters):
        self.path = os.fspath(path)
        self.filters = filters
        super().__init__(self._json(filters) if os.path.exists(self.path)
                         else {"format": "kladder-history-1", "points": []})

    def _open(self, write):
        handle = ctypes.c_void_p()
        _lib.check(lib.kl_history_open(os.fsencode(self.path), int(write),
                                       ctypes.byref(handle)))
        return handle.value

    def _query(self, filters):
        keep = {k: _enc(_join(v)) for k, v in filters.items()}
        return _lib.HistoryQuery(ctypes.sizeof(_lib.HistoryQuery), **keep)

    def _json(self, filters):
        h, q = self._open(False), self._query(filters)
        try:
            return json.loads(_printed(lambda f: lib.kl_history_print(
                h, ctypes.byref(q), _lib.FORMAT_JSON, f)))
        finally:
            lib.kl_history_close(h)

    def append(self, paths):
        """Add results files or Reports, in one transaction; returns how
        many runs were new (a file already there is skipped)."""
        if isinstance(paths, (str, os.PathLike, Report)):
            paths = [paths]
        tmp = tempfile.mkdtemp(prefix="kladder-py.")
        try:
            files = [_results_path(p, tmp, "run%d.json" % i)
                     for i, p in enumerate(paths)]
            arr, n = _paths(files)
            added, h = ctypes.c_size_t(), self._open(True)
            try:
                _lib.check(lib.kl_history_append(h, arr, n,
                                                 ctypes.byref(added)))
            finally:
                lib.kl_history_close(h)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self.clear()
        self.update(self._json(self.filters))
        return added.value

    def query(self, **filters):
        """The runs selected (workloads, rungs, backends, machine, since;
        None: the filters given to history()) as records, one dict each."""
        return self._json(filters or self.filters)["points"]

    def check(self, threshold=0.05):
        """The regression check: (found, its text)."""
        h, q = self._open(False), self._query(self.filters)
        found = ctypes.c_int()
        try:
            text = _printed(lambda f: lib.kl_history_check(
                h, ctypes.byref(q), float(threshold), _lib.FORMAT_TABLE, f,
                ctypes.byref(found)))
        finally:
            lib.kl_history_close(h)
        return bool(found.value), text

    def to_pandas(self, **filters):
        import pandas
        return pandas.DataFrame.from_records(
            self.query(**filters) if filters else self.get("points", []))


def history(db, *, workloads=None, rungs=None, backends=None, machine=None,
            since=None):
    """A results history (`kladder run --db`) through the library: its
    runs that the filters select, as `kladder history --db DB --json` gives
    them, and append(), query(), check()."""
    filters = {k: v for k, v in (("workloads", workloads), ("rungs", rungs),
                                 ("backends", backends), ("machine", machine),
                                 ("since", since)) if v is not None}
    return History(db, filters)
