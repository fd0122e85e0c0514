"""poolsim: simulate MySQL/InnoDB on local and pooled (NVMe-oF) NVMe storage, from Python.

    import poolsim
    s = poolsim.Scenario("scenarios/examples/fio-randread.yaml").set("simulation.max_duration", "0.5s")
    r = poolsim.run(s)                      # every point in its own child process
    r.points                                # DataFrame: params, figures, *_ci95
    r = poolsim.sweep(s, {"workload.fio.iodepth": [1, 8, 64]}, client=None)   # or a dask Client
    poolsim.plots.tps_p99_vs_threads(r)     # matplotlib Figures

See bindings/README.md. Bad input raises poolsim.InputError (a ValueError naming file:line:column);
failed simulations raise poolsim.SimulationError.
"""

from . import _poolsim
from ._poolsim import InputError
from . import frames, plots
from .result import Result, SimulationError
from .scenario import Scenario
from .sweep import run, sweep
from .validation import Calibration, Validation, calibrate, validate, validate_table

__all__ = ["InputError", "SimulationError", "Scenario", "Result", "Calibration", "Validation", "run", "sweep",
           "calibrate", "validate", "validate_table", "load", "schema", "frames", "plots", "source_dir"]

__version__ = "0.1.0"

#: The poolsim source tree this module was built from (scenarios/, traces/).
source_dir = _poolsim.source_dir


def load(source, **overrides) -> Scenario:
    """A Scenario from a path, YAML text or a dict; keyword overrides use "__" for dots
    (``load(path, workload__threads=64)``)."""
    s = Scenario(source)
    for key, value in overrides.items():
        s = s.set(key.replace("__", "."), value)
    return s


def schema() -> dict:
    """The JSON Schema of scenario files."""
    import json

    return json.loads(_poolsim.scenario_schema())
