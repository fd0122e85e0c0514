"""Result: the point results of a run or sweep, with DataFrame views."""

from __future__ import annotations

import json
import os
from typing import Iterable, Sequence

from . import frames

__all__ = ["Result", "SimulationError"]


class SimulationError(RuntimeError):
    """Some points' simulations failed; ``result`` holds every point (failed ones have ``error``)."""

    def __init__(self, message: str, result: "Result | None" = None):
        super().__init__(message)
        self.result = result

    def __reduce__(self):
        return (SimulationError, (self.args[0], self.result))


# 256 Mi characters: some ten thousand points (about 25 KB each with their histograms and series).
MAX_JSON_CHARS = 256 << 20


class Result:
    """Point results, in the order of the sweep (the last axis varies fastest).

    ``raw`` is the list of point objects (as ``poolsim run --format json`` prints under "points");
    ``points``, ``series``, ``histogram``, ``breakdown``, ``utilisation`` and ``innodb`` are
    DataFrames built from it (see poolsim.frames).
    """

    def __init__(self, raw: Sequence[dict], scenario=None):
        self.raw = list(raw)
        self.scenario = scenario
        self._cache: dict = {}

    def _frame(self, name, build):
        if name not in self._cache:
            self._cache[name] = build(self.raw)
        return self._cache[name].copy()

    @property
    def points(self):
        return self._frame("points", frames.points_frame)

    @property
    def series(self):
        return self._frame("series", frames.series_frame)

    @property
    def histogram(self):
        return self._frame("histogram", frames.histogram_frame)

    @property
    def breakdown(self):
        return self._frame("breakdown", frames.breakdown_frame)

    @property
    def utilisation(self):
        return self._frame("utilisation", frames.utilisation_frame)

    @property
    def innodb(self):
        return self._frame("innodb", frames.innodb_frame)

    @property
    def params(self) -> list[str]:
        return frames.param_columns(self.raw)

    @property
    def errors(self) -> list[dict]:
        return [p for p in self.raw if "error" in p]

    def to_json(self, path=None, indent: int | None = 2) -> str:
        """The result as ``{"points": [...]}`` (the CLI's JSON format); written to ``path`` if given."""
        text = json.dumps({"points": self.raw}, indent=indent) + "\n"
        if path is not None:
            from .scenario import _write_whole

            _write_whole(path, text)
        return text

    @classmethod
    def from_json(cls, text_or_path) -> "Result":
        """A Result from the CLI's JSON output: its text, or a file's name (a str or a path)."""
        if isinstance(text_or_path, str) and text_or_path.lstrip().startswith(("{", "[")):
            text, where = text_or_path, "the JSON text"
        elif isinstance(text_or_path, (str, bytes, os.PathLike)):
            where = os.fsdecode(text_or_path)
            try:
                with open(text_or_path, encoding="utf-8") as f:
                    text = f.read(MAX_JSON_CHARS + 1)  # bounded: a device such as /dev/zero never ends
            except UnicodeDecodeError as e:
                raise ValueError(f"poolsim: {where}: not UTF-8 text (byte {e.start + 1})") from None
            if len(text) > MAX_JSON_CHARS:
                raise ValueError(f"poolsim: {where}: longer than {MAX_JSON_CHARS} characters: not a poolsim result "
                                 "(each point's JSON is some 25 KB)")
        else:
            raise TypeError(f"poolsim: Result.from_json takes JSON text or a file's path, got {type(text_or_path).__name__}")

        def no_constant(name):  # NaN and Infinity: Python's extension, not JSON, and not a poolsim figure
            raise ValueError(name)

        try:
            doc = json.loads(text, parse_constant=no_constant)
        except json.JSONDecodeError as e:
            raise ValueError(f"poolsim: {where}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None
        except ValueError as e:
            raise ValueError(f"poolsim: {where}: not JSON: {e} is no JSON number") from None
        shape = f"not a poolsim result ({{\"points\": [...]}}, as `poolsim run --format json` writes)"
        if not isinstance(doc, dict) or not isinstance(doc.get("points"), list):
            raise ValueError(f"poolsim: {where}: {shape}")
        # Each point a mapping, and what the frames read from it of the right kind: a bad one failed
        # later, in a frame or repr(), without saying where.
        for i, point in enumerate(doc["points"]):
            if not isinstance(point, dict):
                raise ValueError(f"poolsim: {where}: points[{i}] is not a mapping: {shape}")
            if not isinstance(point.get("params", {}), dict):
                raise ValueError(f"poolsim: {where}: points[{i}].params is not a mapping")
            for key in ("devices", "links", "cpus", "innodb", "series"):
                entries = point.get(key, [])
                if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
                    raise ValueError(f"poolsim: {where}: points[{i}].{key} is not a list of mappings")
            histogram = point.get("latency_histogram", [])
            if not isinstance(histogram, list) or not all(isinstance(b, list) and len(b) == 2 for b in histogram):
                raise ValueError(f"poolsim: {where}: points[{i}].latency_histogram is not a list of [latency, count] pairs")
        return cls(doc["points"])

    @classmethod
    def concat(cls, results: Iterable["Result"]) -> "Result":
        raw = []
        for r in results:
            if not isinstance(r, Result):
                raise TypeError(f"poolsim: Result.concat takes Results, got a {type(r).__name__}")
            raw.extend(r.raw)
        return cls(raw)

    def __len__(self) -> int:
        return len(self.raw)

    def __iter__(self):
        return iter(self.raw)

    def __getitem__(self, i):
        return self.raw[i]

    def __repr__(self) -> str:
        failed = len(self.errors)
        extra = f", {failed} failed" if failed else ""
        return f"<poolsim.Result: {len(self.raw)} points{extra}; params {self.params}>"

    def _repr_html_(self):
        return self.points._repr_html_()
