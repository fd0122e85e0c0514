"""Scenarios, runs, sweeps without a cluster, input errors."""

import json
import os
import signal
import threading
import time

import pytest

import poolsim
from conftest import TINY_FIO, child_pids, open_fds


def test_load_set_run_tiny_fio(tiny_fio):
    points = tiny_fio.points()
    assert len(points) == 1 and points[0]["name"] == "tiny-fio" and points[0]["params"] == {}
    deeper = tiny_fio.set("workload.fio.iodepth", 4)
    assert tiny_fio.overrides == () and deeper.overrides == ("workload.fio.iodepth=4",)
    r = poolsim.run(deeper, jobs=1)
    assert isinstance(r, poolsim.Result) and len(r) == 1
    df = r.points
    assert df.loc[0, "workload.fio.iodepth"] == 4
    assert df.loc[0, "iops"] > 10_000  # QD4 on a PCIe 4.0 SSD
    for column in ("iops_ci95", "latency_mean_us", "latency_p99_us", "simulated_s", "stop", "device_util_max"):
        assert column in df, column
    # The same seed gives the same figures.
    again = poolsim.run(deeper, jobs=1)
    assert again.raw == r.raw


def test_scenario_sources(tmp_path, root):
    path = tmp_path / "s.yaml"
    path.write_text(TINY_FIO)
    from_path = poolsim.Scenario(path)
    from_str_path = poolsim.Scenario(str(path))
    from_text = poolsim.Scenario(TINY_FIO)
    import yaml

    from_dict = poolsim.Scenario(yaml.safe_load(TINY_FIO))
    for s in (from_path, from_str_path, from_text, from_dict):
        assert s.points()[0]["name"] == "tiny-fio"
    assert from_path.origin == str(path)
    # A dict with Python values; to_yaml() carries the overrides.
    changed = from_dict.set({"workload.fio.iodepth": 8, "storage.kind": "pool", "compute.memory": "64GiB"})
    doc = yaml.safe_load(changed.to_yaml())
    assert doc["workload"]["fio"]["iodepth"] == 8 and doc["storage"]["kind"] == "pool"
    assert doc["compute"]["memory"] == "64GiB"
    reloaded = poolsim.Scenario(changed.to_yaml())
    assert reloaded.points()[0]["document"]["workload"]["fio"]["iodepth"] == 8
    # A mapping for a section sets the keys it names, in to_dict() as in a run; a set of a swept key
    # replaces the sweep; pinned() points of a scenario with a set load (the set and the pin agree).
    merged = poolsim.Scenario(root / "scenarios" / "default.yaml").set("database", {"checksum": "none"})
    doc = merged.to_dict()
    assert doc["database"]["checksum"] == "none" and doc["database"]["profile"] == "greatsql-8.0"
    # to_dict() gives every scalar as text: a Scenario of it writes "8" as a number, not a quoted
    # string (which poolsim refuses where a number belongs).
    assert poolsim.Scenario(doc, base_dir=str(root / "scenarios")).points()[0]["document"]["compute"]["count"] == 1
    assert merged.points()[0]["document"]["database"]["profile"] == "greatsql-8.0"
    one_thread = poolsim.Scenario(root / "scenarios" / "default.yaml").set("workload.threads", 8)
    assert "workload.threads" not in one_thread.to_dict().get("sweep", {})
    assert {p["document"]["workload"]["threads"] for p in one_thread.points()} == {8}
    timed = poolsim.Scenario(root / "scenarios" / "default.yaml").set("simulation.max_duration", "4s")
    assert len(timed.pinned(timed.points()[0]["params"]).points()) == 1
    # The default scenario expands its sweep.
    default = poolsim.Scenario(root / "scenarios" / "default.yaml")
    assert len(default.points()) == 10
    assert {"storage.kind", "workload.threads"} <= set(default.points()[0]["params"])


def test_input_error_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(TINY_FIO.replace("numjobs: 1", "numjobs: 1, iodepht: 4"))
    with pytest.raises(poolsim.InputError) as info:
        poolsim.run(poolsim.Scenario(bad))
    e = info.value
    assert isinstance(e, ValueError)
    assert str(e).startswith(f"{bad}:12:"), str(e)
    assert e.file == str(bad) and e.line == 12 and e.column > 0
    assert "iodepth" in str(e)  # did you mean
    # Broken YAML syntax, a bad unit, a bad override, a bad sweep key: errors, never crashes.
    with pytest.raises(poolsim.InputError, match=r"broken\.yaml:\d+"):
        poolsim.Scenario("name: [unclosed\n", origin="broken.yaml").points()
    with pytest.raises(poolsim.InputError, match="tiny-fio.yaml:2:"):
        poolsim.Scenario(TINY_FIO.replace("cores: 4}", "cores: four}"), origin="tiny-fio.yaml").validate()
    s = poolsim.Scenario(TINY_FIO)
    with pytest.raises(poolsim.InputError, match="--set"):
        s.set("workload.fio.iodepht", 4).points()
    with pytest.raises(poolsim.InputError, match="bs"):
        poolsim.run(s.set("workload.fio.bs", 16))  # a bare number where a size is needed
    with pytest.raises(poolsim.InputError, match="sweep"):
        poolsim.sweep(s, {"workload.thredas": [1, 2]})


def test_sweep_without_client(tiny_fio):
    r = poolsim.sweep(tiny_fio, {"storage.kind": ["local", "pool"], "workload.fio.iodepth": [1, 8]}, jobs=2,
                      progress=False)
    df = r.points
    assert len(df) == 4
    assert list(df["storage.kind"]) == ["local", "local", "pool", "pool"]  # the last axis varies fastest
    assert list(df["workload.fio.iodepth"]) == [1, 8, 1, 8]
    # NVMe-oF adds latency at QD1.
    local, pool = df.loc[0, "latency_mean_us"], df.loc[2, "latency_mean_us"]
    assert pool > local
    # Each point alone gives the same figures as in the sweep (points are independent processes).
    one = poolsim.run(tiny_fio.pinned(r.raw[3]["params"]), jobs=1)
    assert one.raw[0] == r.raw[3]


def test_progress_callback_and_interrupt(tiny_fio):
    calls = []
    poolsim.sweep(tiny_fio, {"workload.fio.iodepth": [1, 2, 4]}, jobs=1, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (3, 3) and [d for d, _ in calls] == sorted(d for d, _ in calls)

    # An exception in the progress callback (as a KeyboardInterrupt would) stops the sweep: the
    # simulations are killed and reaped, nothing is left running.
    slow = tiny_fio.set("simulation.max_duration", "2s").set("simulation.target_ci", "0.01%")

    class Stop(Exception):
        pass

    def stop(done, total):
        raise Stop()

    before = child_pids()
    fds = open_fds()
    started = time.monotonic()
    with pytest.raises(Stop):
        poolsim.sweep(slow, {"workload.fio.iodepth": [1, 2, 4, 8]}, jobs=2, progress=stop)
    assert time.monotonic() - started < 30
    assert child_pids() == before
    assert open_fds() == fds


def test_sigint_interrupts_a_run(tiny_fio):
    """SIGINT (Ctrl-C, Jupyter's interrupt) during a run raises KeyboardInterrupt within a fraction
    of a second and leaves no process behind."""
    slow = tiny_fio.set({"workload.fio.iodepth": 64, "simulation.max_duration": "30s",
                         "simulation.target_ci": "0.01%"})
    before = child_pids()
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            poolsim.sweep(slow, {"storage.kind": ["local", "pool"]}, jobs=2, progress=False)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 5
    assert child_pids() == before


def test_result_json_roundtrip(tiny_fio, tmp_path):
    r = poolsim.run(tiny_fio, jobs=1)
    path = tmp_path / "r.json"
    r.to_json(path)
    back = poolsim.Result.from_json(str(path))
    assert back.raw == r.raw
    assert json.loads(r.to_json())["points"][0]["workload"] == "fio"


def test_schema():
    schema = poolsim.schema()
    assert "properties" in schema and "workload" in schema["properties"]


def test_save_leaves_the_file_as_it_was_when_the_text_cannot_be_made(tmp_path):
    # The file was opened (emptied) before the YAML was made: a scenario that is not a mapping
    # raised with the file it was to replace already empty.
    target = tmp_path / "kept.yaml"
    target.write_text("name: kept\n")
    with pytest.raises(poolsim.InputError):
        poolsim.Scenario("[1, 2]").save(target)
    assert target.read_text() == "name: kept\n"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.yaml"]


def test_a_sweep_given_as_a_mapping_is_a_type_error(tiny_fio):
    # list() of a dict is its keys: {"workload.fio.iodepth": {1: "a", 4: "b"}} swept 1 and 4 silently.
    with pytest.raises(TypeError, match="is a mapping; give a list of values"):
        tiny_fio.with_sweep({"workload.fio.iodepth": {1: "a", 4: "b"}})
    assert len(tiny_fio.with_sweep({"workload.fio.iodepth": [1, 4]}).points()) == 2
