"""Calibration (fit a server profile to measured traces) and validation (simulate what was measured
and compare), as ``poolsim calibrate`` and ``poolsim validate`` do."""

from __future__ import annotations

import json
import numbers
import os
from typing import Iterable

from . import _poolsim
from .scenario import _fs
from .sweep import checked_jobs

__all__ = ["Calibration", "Validation", "calibrate", "validate", "validate_table"]


def _paths(items, argument: str = "traces") -> list[str]:
    if isinstance(items, (str, bytes, os.PathLike)):
        items = [items]
    if items is None or not hasattr(items, "__iter__") or isinstance(items, dict):
        raise TypeError(f"poolsim: {argument} must be a path or a list of paths, got {type(items).__name__}")
    for p in items:
        if not isinstance(p, (str, bytes, os.PathLike)):
            raise TypeError(f"poolsim: {argument} must be a path or a list of paths, got a {type(p).__name__} among them")
    return [os.fspath(p) for p in items]


def _fs_paths(items, argument: str) -> list[bytes]:
    """Paths as the native layer takes them: bytes, so that a name that is not UTF-8 reaches the
    library's check (the CLI's words) instead of failing pybind's conversion; one with a NUL
    character is refused naming ``argument``."""
    return [_fs(p, argument) for p in _paths(items, argument)]


def _duration(duration) -> float:
    """Seconds as a float, or TypeError naming the argument (the native layer checks the value)."""
    if isinstance(duration, bool) or not isinstance(duration, numbers.Real):
        raise TypeError(f"poolsim: duration must be a number of seconds, got {duration!r}")
    try:
        return float(duration)
    except OverflowError:
        raise ValueError(f"poolsim: duration {duration!r} is too large a number of seconds") from None


class Calibration:
    """A fitted profile: ``profile_yaml`` (scenarios/profiles format), ``devices_yaml`` (a device
    catalogue fitted from the traces' fio jobs) and the fit ``report`` (residuals, uncertainties)."""

    def __init__(self, profile_yaml: str, devices_yaml: str, report: str, traces: Iterable = (),
                 background: Iterable = ()):
        self.profile_yaml = profile_yaml
        self.devices_yaml = devices_yaml
        self.report = report
        # The trace directories it was fitted on: save() refuses to write over their files.
        self.traces = _paths(traces)
        self.background = _paths(background)

    @staticmethod
    def devices_path_for(profile_path: str | os.PathLike) -> str:
        """Where the devices go beside a profile: <dir>/<stem>-devices.yaml (as the CLI writes them)."""
        p = os.fspath(profile_path)
        stem = os.path.splitext(os.path.basename(p))[0]
        return os.path.join(os.path.dirname(p), stem + "-devices.yaml")

    def save(self, profile_path: str | os.PathLike) -> tuple[str, str]:
        """Writes the profile and, beside it, its devices; returns both paths. As ``poolsim calibrate
        -o``: refused (poolsim.InputError) when either is a directory, is in a directory that is not
        there, or is a file of a trace it was fitted on; both are written beside their targets before
        either replaces its target (never a mismatched pair); a device or FIFO is written directly."""
        profile_path = os.fspath(profile_path)
        devices_path = self.devices_path_for(profile_path)
        inputs = [("the trace", p, True) for p in _fs_paths(self.traces, "traces")]
        inputs += [("the background trace", p, True) for p in _fs_paths(self.background, "background")]
        for path in (profile_path, devices_path):
            _poolsim.check_output(_fs(path, "output"), "output", inputs)
        _poolsim.write_outputs([(_fs(profile_path, "output"), self.profile_yaml), (_fs(devices_path, "output"), self.devices_yaml)])
        return profile_path, devices_path

    def __repr__(self) -> str:
        return self.report

    def _repr_pretty_(self, p, cycle):
        p.text(self.report)


def calibrate(traces: Iterable[str | os.PathLike], name: str | None = None,
              output: str | os.PathLike | None = None,
              background: Iterable[str | os.PathLike] = (), duration: float = 20.0,
              jobs: int | None = None) -> Calibration:
    """Fits a server profile (and device models) to trace directories (traces/README.md).
    ``name`` is the profile's name (default: the stem of ``output``, else "calibrated"); with
    ``output`` the profile and its devices are written as ``poolsim calibrate -o`` does.
    ``background``: traces whose perf_sched_timehist.tsv splits the server's CPU by thread
    (``poolsim calibrate --background``). A device the traces did not measure (no fio jobs) gets its
    flush latency fitted by simulating the traces that fsync, and a device fitted from fio jobs its
    write buffer's size on the diskstats write await of the traces that write pages, ``duration``
    simulated seconds each (0: each trace's own window), ``jobs`` at a time (``poolsim calibrate
    --duration --jobs``)."""
    dirs, background = _paths(traces, "traces"), _paths(background, "background")
    if name is None:
        name = os.fsdecode(os.path.splitext(os.path.basename(os.fspath(output)))[0]) if output else "calibrated"
    if not isinstance(name, str):
        raise TypeError(f"poolsim: name must be a str (the profile's name), got {type(name).__name__}")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"poolsim: name {name!r} is not UTF-8 text") from None
    # The native layer checks the traces (given twice, names not UTF-8) and the output (over a trace's
    # files, in a directory that is not there) as the CLI does, before any fit.
    output_path = _fs(output, "output") if output is not None else b""  # an empty path or a NUL refused before the fit
    out = _poolsim.calibrate(_fs_paths(dirs, "traces"), name, _fs_paths(background, "background"), _duration(duration),
                             checked_jobs(jobs), output_path)
    result = Calibration(out["profile_yaml"], out["devices_yaml"], out["report"], dirs, background)
    if output is not None:
        result.save(output)
    return result


class Validation:
    """Measured against predicted: ``raw`` ({"rows": [...], "summary": {...}}), ``rows`` (a
    DataFrame with ``measured_tps``, ``predicted_tps``, ``error_pct_tps``, ... columns, nested keys
    joined with "_"), ``summary`` (median and max absolute errors) and ``table`` (the CLI's text)."""

    def __init__(self, raw: dict):
        self.raw = raw

    @property
    def rows(self):
        import pandas as pd

        rows = self.raw.get("rows", [])
        if not rows:
            return pd.DataFrame()
        df = pd.json_normalize(rows, sep="_")
        if "trace" in df:
            df.insert(0, "name", df["trace"].map(lambda t: os.path.basename(os.path.normpath(str(t)))))
        return df

    @property
    def summary(self) -> dict:
        return self.raw.get("summary", {})

    @property
    def table(self) -> str:
        return _poolsim.render_validation_table(json.dumps(self.raw))

    def __repr__(self) -> str:
        try:
            return self.table
        except Exception:  # a build without validation tables
            return f"<poolsim.Validation: {len(self.raw.get('rows', []))} rows; summary {self.summary}>"

    def _repr_html_(self):
        return self.rows._repr_html_()


def _check_validation():
    if not _poolsim.has_validation:
        raise NotImplementedError("this build of poolsim has no validation (calibrate/src/validation.cpp was not built)")


def validate(traces: Iterable[str | os.PathLike], profile: str | os.PathLike, devices: str | os.PathLike | None = None,
             duration: float = 0.0, jobs: int | None = None) -> Validation:
    """Simulates the configuration of each trace directory (its meta.yaml) with ``profile`` and
    compares with what was measured (``poolsim validate``). ``devices`` defaults to the profile's
    <stem>-devices.yaml; each trace is simulated over its own measured window, which ``duration``
    (seconds, 0: none) caps."""
    _check_validation()
    if profile is None:
        raise TypeError("poolsim: validate needs a profile (the profile's path)")
    raw = _poolsim.validate(_fs_paths(traces, "traces"), _fs(profile, "profile"), _fs(devices, "devices") if devices else b"",
                            _duration(duration), checked_jobs(jobs))
    return Validation(json.loads(raw))


def validate_table(scenario: str | os.PathLike, table_csv: str | os.PathLike, profile: str | os.PathLike | None = None,
                   devices: str | os.PathLike | None = None, duration: float = 0.0,
                   jobs: int | None = None) -> Validation:
    """Validation against a published table: each CSV row becomes one point of ``scenario`` (a file
    with a ``validation:`` section mapping the table's columns); ``duration`` (seconds, 0: none) caps
    the scenario's max_duration. A table's devices are the scenario's catalogue: ``devices`` must be
    None (``poolsim validate --table`` refuses ``--devices`` too; it was ignored without a word)."""
    _check_validation()
    if devices:
        raise ValueError("poolsim: validate_table takes its devices from the scenario's catalogue; "
                         f"devices={os.fspath(devices)!r} would be ignored")
    raw = _poolsim.validate_table(_fs(scenario, "scenario"), _fs(table_csv, "table_csv"), _fs(profile, "profile") if profile else b"",
                                  b"", _duration(duration), checked_jobs(jobs))
    return Validation(json.loads(raw))
