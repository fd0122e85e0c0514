"""Running points: locally (child processes of this one) or spread over a dask.distributed cluster.

Every point runs in a process of its own (SimGrid allows one engine per process): locally the native
layer forks a supervisor that forks one child per point, ``jobs`` at a time; on Dask each point is a
task, and the task forks the same way on its worker. Nothing is simulated in the calling process,
and nothing is left running or open after a call returns or is interrupted.
"""

from __future__ import annotations

import json
import operator
import os
import sys
from typing import Any, Mapping, Sequence

from . import _poolsim
from .result import Result, SimulationError
from .scenario import Scenario

__all__ = ["run", "sweep", "run_point_task"]


def _as_scenario(scenario: Any) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else Scenario(scenario)


# As the CLI's --jobs: CLI::Range(1, 1024).
MAX_JOBS = 1024


def checked_jobs(jobs: Any) -> int:
    """``jobs`` as the native layer takes it (0: one per core, for None), or ValueError / TypeError
    naming the argument: a bool, a fraction (0.5 ran on every core), text, NaN, or a number outside
    1..1024 (10**10 gave pybind's argument dump)."""
    if jobs is None:
        return 0
    if isinstance(jobs, bool):
        raise TypeError(f"poolsim: jobs must be a whole number from 1 to {MAX_JOBS} (None: one per core), got {jobs!r}")
    try:
        count = operator.index(jobs)  # int and numpy integers, not floats or text
    except TypeError:
        if isinstance(jobs, float) and jobs.is_integer():
            count = int(jobs)
        else:
            raise TypeError(f"poolsim: jobs must be a whole number from 1 to {MAX_JOBS} (None: one per core), "
                            f"got {jobs!r}") from None
    if not 1 <= count <= MAX_JOBS:
        raise ValueError(f"poolsim: jobs must be a whole number from 1 to {MAX_JOBS} (None: one per core), got {jobs!r}")
    return count


def _default_jobs(jobs: Any) -> int:
    return checked_jobs(jobs) or os.cpu_count() or 1


class _Progress:
    """progress=None: a bar when there is more than one point; True: always; False: never; a
    callable: called as progress(done, total). The bar is tqdm's (python3-tqdm), on stderr."""

    def __init__(self, progress, total: int, description: str):
        self.callback = None
        self.bar = None
        if callable(progress) and not isinstance(progress, bool):
            self.callback = progress
        elif progress or (progress is None and total > 1):
            try:
                from tqdm import tqdm
            except ImportError:  # no bar without python3-tqdm
                return
            self.bar = tqdm(total=total, desc=description, unit="point", file=sys.stderr, mininterval=0.5,
                            dynamic_ncols=True)

    def __call__(self, done: int, total: int) -> None:
        if self.callback is not None:
            self.callback(done, total)
        if self.bar is not None:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _name(points: list[dict]) -> str:
    return (points[0].get("name") if points else None) or "poolsim"


def _finish(raw: list[dict], scenario: Scenario, errors: str) -> Result:
    result = Result(raw, scenario)
    failed = result.errors
    if failed and errors == "raise":
        lines = [f"{json.dumps(p.get('params', {}))}: {p['error']}" for p in failed[:5]]
        more = f" (and {len(failed) - 5} more)" if len(failed) > 5 else ""
        raise SimulationError(f"{len(failed)} of {len(raw)} points failed{more}:\n  " + "\n  ".join(lines), result)
    return result


def _check_errors_arg(errors: str) -> None:
    if errors not in ("raise", "keep"):
        raise ValueError("errors must be 'raise' or 'keep'")


def run(scenario: Any, jobs: int | None = None, *, progress=None, errors: str = "raise") -> Result:
    """Simulates every point of ``scenario`` (its own ``sweep:`` expanded), each in a child process,
    ``jobs`` at a time (default: one per core). ``scenario`` is a Scenario, a path, YAML text or a
    dict. Bad input raises poolsim.InputError before anything runs; failed simulations raise
    poolsim.SimulationError (``errors="keep"`` returns them as rows with ``error``)."""
    _check_errors_arg(errors)
    jobs = _default_jobs(jobs)
    s = _as_scenario(scenario)
    points = s.points()  # validates; InputError here
    bar = _Progress(progress, len(points), _name(points))
    try:
        raw = json.loads(_poolsim.run_many([s.spec()], jobs, bar))
    finally:
        bar.close()
    return _finish(raw, s, errors)


def run_point_task(spec: tuple) -> list[dict]:
    """A Dask task: simulates one (pinned) scenario spec in a child process of the worker."""
    return json.loads(_poolsim.run_many([tuple(spec)], 1, None))


def sweep(scenario: Any, axes: Mapping[str, Sequence[Any]] | None = None, *, client=None, jobs: int | None = None,
          progress=True, errors: str = "raise") -> Result:
    """The cartesian product of ``axes`` ({"workload.threads": [8, 16], "storage.kind": ["local",
    "pool"]}) over ``scenario`` (combined with the scenario's own sweep; the last axis varies
    fastest).

    Without ``client`` the points run as local child processes, ``jobs`` at a time. With a
    ``dask.distributed.Client`` each point is a task on the cluster (its worker forks a process for
    it); poolsim must be importable on the workers. ``progress``: a tqdm bar (True), none (False), or
    a callable progress(done, total)."""
    _check_errors_arg(errors)
    jobs = _default_jobs(jobs)
    s = _as_scenario(scenario)
    if client is not None and not callable(getattr(client, "map", None)):
        raise TypeError(f"poolsim: client must be a dask.distributed.Client (or None: local processes), got {type(client).__name__}")
    if axes:
        s = s.with_sweep(axes)
    points = s.points()  # validates everything here, before any task is sent
    bar = _Progress(progress, len(points), _name(points))
    try:
        if client is None:
            raw = json.loads(_poolsim.run_many([s.spec()], jobs, bar))
        else:
            raw = _run_on_dask(client, s, points, bar)
    finally:
        bar.close()
    return _finish(raw, s, errors)


def _run_on_dask(client, s: Scenario, points: list[dict], bar: _Progress) -> list[dict]:
    from distributed import as_completed  # python3-distributed

    # Each point pinned by its params (a list or mapping a set() gave is set again, not swept).
    specs = [s.pinned(p.get("params", {})).spec() for p in points]
    futures = client.map(run_point_task, specs, pure=False)
    index = {f.key: i for i, f in enumerate(futures)}
    raw: list[Any] = [None] * len(futures)
    done = 0
    try:
        for future in as_completed(futures):
            i = index[future.key]
            try:
                got = future.result()
            except Exception as e:  # the task itself failed (worker lost, import error, ...)
                got = [{"params": points[i].get("params", {}), "error": f"dask task failed: {e!r}"}]
            raw[i] = got[0] if len(got) == 1 else {"params": points[i].get("params", {}),
                                                     "error": f"expected one point, the task ran {len(got)}"}
            done += 1
            bar(done, len(futures))
    except BaseException:
        client.cancel(futures)
        raise
    return raw
