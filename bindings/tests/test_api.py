"""Scenarios, runs, sweeps without a cluster, input errors."""

import json
import os
import signal
import threading
import time

import pytest

import poolsim
from conftest import TINY_FIO, TINY_SYSBENCH, child_pids, open_fds


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
    # A check across two keys that an override makes fail names the override, as the CLI's --set
    # does; it named the scenario's line of the other key only (session 44).
    with pytest.raises(poolsim.InputError, match=r"^--set simulation\.max_duration=1e308s: key 'simulation\.batch': "
                       r"with the scenario's own settings this value is refused: "):
        s.set("simulation.max_duration", "1e308s").points()
    # Across sections: the override that alone makes the scenario fail (session 45; it named the
    # scenario's database line, which the override had made a section no fio point reads).
    with pytest.raises(poolsim.InputError, match=r"^--set workload=null: key 'database': "):
        poolsim.Scenario(TINY_SYSBENCH, origin="tiny-sysbench.yaml").set("workload", None).validate()


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


def _read_fifo_in_background(path, got):
    def read():
        with open(path, encoding="utf-8") as f:
            got.append(f.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader


def test_outputs_to_a_fifo_or_a_device_go_into_it(tiny_fio, tmp_path):
    # Scenario.save and Result.to_json wrote path + ".tmp-poolsim" and renamed it over the path: a FIFO
    # (or, as root, /dev/null) was replaced by a regular file. The CLI's --out writes into them.
    import stat

    r = poolsim.Result([{"params": {}, "iops": 1.0}])
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for write in (lambda: r.to_json(fifo), lambda: tiny_fio.save(fifo)):
        got = []
        reader = _read_fifo_in_background(fifo, got)
        write()
        reader.join(10)
        assert stat.S_ISFIFO(os.stat(fifo).st_mode)
        assert got and got[0].strip()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
    # A character device (a copy of /dev/null's node, where making one is allowed).
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        return
    r.to_json(null)
    tiny_fio.save(null)
    assert stat.S_ISCHR(os.stat(null).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null", "pipe"]


def test_pinned_points_of_a_scenario_with_a_list_set(tiny_fio):
    # pinned() swept every param as a one-value sweep; a list (or null, a mapping) given by set() is
    # no single value: "expected a single value, got a list" (and every point of a Dask sweep failed).
    s = tiny_fio.set("storage.volume.nodes", ["flash1"]).with_sweep({"storage.kind": ["local", "pool"]})
    points = s.points()
    assert points[0]["params"]["storage.volume.nodes"] == ["flash1"]
    for p in points:
        pinned = s.pinned(p["params"]).points()
        assert len(pinned) == 1 and pinned[0]["params"] == p["params"]


def test_with_sweep_runs_its_axes_after_the_file_s_last_fastest(root):
    # A key the file already sweeps kept the file's place: buffer_pool varied fastest, not threads.
    default = poolsim.Scenario(root / "scenarios" / "default.yaml")
    axes = {"storage.kind": ["local", "pool"], "database.buffer_pool": ["47GiB", "93GiB"], "workload.threads": [8, 32, 128]}
    points = default.with_sweep(axes).points()
    import itertools

    expected = [dict(zip(axes, combo)) for combo in itertools.product(*axes.values())]
    assert [{k: p["params"][k] for k in axes} for p in points] == expected
    assert list(default.with_sweep(axes).to_dict()["sweep"]) == list(axes)
    # The file's other axes first, in its order; a flow-style sweep; an axis given twice goes last.
    text = TINY_FIO + "sweep: {storage.kind: [local, pool], workload.fio.iodepth: [1, 2], workload.fio.numjobs: [1, 2]}\n"
    def column(s, key):
        return [p["params"][key] for p in s.points()]

    s = poolsim.Scenario(text).with_sweep({"workload.fio.iodepth": [4, 8]})
    assert column(s, "storage.kind") == ["local"] * 4 + ["pool"] * 4
    assert column(s, "workload.fio.numjobs") == [1, 1, 2, 2] * 2
    assert column(s, "workload.fio.iodepth") == [4, 8] * 4
    again = poolsim.Scenario(text).with_sweep({"storage.kind": ["pool", "local"], "workload.fio.numjobs": [3]})
    again = again.with_sweep({"storage.kind": ["local", "pool"]})
    assert column(again, "workload.fio.iodepth") == [1, 1, 2, 2]
    assert column(again, "storage.kind") == ["local", "pool"] * 2
    assert column(again, "workload.fio.numjobs") == [3] * 4
    # An error in an axis the file keeps still names its line.
    bad = TINY_FIO + "sweep:\n  workload.fio.iodepth: [1, deep]\n  storage.kind: [local]\n"
    with pytest.raises(poolsim.InputError, match=r"<string>:15:"):
        poolsim.Scenario(bad).with_sweep({"storage.kind": ["pool"]}).points()


def test_save_refuses_what_the_loader_refuses(tmp_path):
    # to_dict() applied the overrides in Python: 'storage.nodes.0.cores' (refused by the loader) was
    # written as a mapping {0: {cores: 4}} in place of the node list.
    saved = tmp_path / "saved.yaml"
    saved.write_text("kept\n")
    s = poolsim.Scenario(TINY_FIO).set("storage.nodes.0.cores", 4)
    for call in (lambda: s.save(saved), s.to_yaml, s.to_dict):
        with pytest.raises(poolsim.InputError, match="storage.nodes.0.cores"):
            call()
    assert saved.read_text() == "kept\n"
    # Broken YAML is an InputError there too (PyYAML's ScannerError before), name included.
    with pytest.raises(poolsim.InputError, match=r"broken\.yaml:\d+:\d+: YAML syntax error"):
        poolsim.Scenario("name: [x\n", origin="broken.yaml").name


def test_save_writes_what_the_scenario_runs(tmp_path):
    # A set of a key a variant also sets was written into the file's section, which the variant
    # overrides: the saved file ran the variants' values. A quoted "null" was written bare (null),
    # an empty `sweep:` as '' (a string where a mapping belongs).
    v = poolsim.Scenario("name: x\nvariants: {a: {workload.fio.iodepth: 2}, b: {workload: {fio: {iodepth: 3}}}}\n"
                         "sweep: {variant: [a, b]}\n").set("workload.fio.iodepth", 9)
    v.save(tmp_path / "v.yaml")
    depths = [p["document"]["workload"]["fio"]["iodepth"] for p in poolsim.Scenario(tmp_path / "v.yaml").points()]
    assert depths == [p["document"]["workload"]["fio"]["iodepth"] for p in v.points()] == [9, 9]
    for s in (poolsim.Scenario("name: x\n").set("name", "null"), poolsim.Scenario("name: '8'\n"),
              poolsim.Scenario("name: x\nsweep:\n")):
        again = poolsim.Scenario(s.to_yaml())
        assert [p["name"] for p in again.points()] == [p["name"] for p in s.points()]


def test_a_nul_character_is_refused_naming_the_argument(tiny_fio, tmp_path):
    # The operating system ends a name at NUL: save() wrote 'x' for 'x\0y.yaml', a scenario path
    # with a NUL read the file before it, and the library's messages (C strings) ended there.
    with pytest.raises(ValueError, match="path '.*x.x00y.yaml' holds a NUL character"):
        tiny_fio.save(tmp_path / "x\0y.yaml")
    with pytest.raises(ValueError, match="path .* holds a NUL character"):
        poolsim.Result([]).to_json(str(tmp_path / "r\0.json"))
    with pytest.raises(ValueError, match="source .* holds a NUL character"):
        poolsim.Scenario.from_file(str(tmp_path / "s.yaml\0junk"))
    with pytest.raises(ValueError, match="key 'storage.kind': 'loc.x00al' holds a NUL character"):
        tiny_fio.with_sweep({"storage.kind": ["loc\0al"]})
    assert list(tmp_path.iterdir()) == []


def test_scenario_files_are_read_as_the_cli_reads_them(tmp_path):
    # UnicodeDecodeError without a file or line; a mistyped path, a directory or an upper-case .YAML
    # read as YAML text ("<string>:1:1: a scenario must be a YAML mapping").
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"name: caf\xe9\n" + TINY_FIO.encode())
    with pytest.raises(poolsim.InputError, match=r"latin\.yaml:1:10: byte 0xE9 is not UTF-8"):
        poolsim.Scenario(latin)
    wide = tmp_path / "wide.yaml"
    wide.write_bytes(TINY_FIO.encode("utf-16"))
    with pytest.raises(poolsim.InputError, match="wide.yaml:1:1: the text is UTF-16"):
        poolsim.Scenario.from_file(wide)
    for missing in (str(tmp_path / "nope"), str(tmp_path / "NOPE.YAML")):
        with pytest.raises(poolsim.InputError, match="cannot read file"):
            poolsim.Scenario(missing)
        with pytest.raises(poolsim.InputError, match="cannot read file"):
            poolsim.run(missing)
    with pytest.raises(poolsim.InputError, match="is a directory"):
        poolsim.Scenario(str(tmp_path))
    upper = tmp_path / "S.YAML"
    upper.write_text(TINY_FIO)
    assert poolsim.Scenario(str(upper)).points()[0]["name"] == "tiny-fio"
    # One line of YAML is still text.
    assert poolsim.Scenario("name: x").text == "name: x"


def test_values_outside_the_bmp(tiny_fio):
    # json.dumps escaped them as surrogate pairs, which yaml-cpp refused.
    name = "tiny \U0001F600 fio"
    assert tiny_fio.set("name", name).points()[0]["name"] == name
    assert tiny_fio.with_sweep({"name": [name, "b"]}).points()[0]["name"] == name
    assert poolsim.load(TINY_FIO, name=name).points()[0]["name"] == name
    assert poolsim.Scenario(tiny_fio.set("name", name).to_yaml()).points()[0]["name"] == name


def test_numpy_and_pandas_values(tmp_path):
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    import yaml

    doc = yaml.safe_load(TINY_FIO)
    # Arrays and Series become lists, of any length (one element was unwrapped to a scalar).
    doc["storage"]["volume"]["nodes"] = np.array(["flash1"])
    s = poolsim.Scenario(doc)
    assert s.points()[0]["document"]["storage"]["volume"]["nodes"] == ["flash1"]
    doc["storage"]["volume"]["nodes"] = pd.Series(["flash1"])
    assert poolsim.Scenario(doc).points()[0]["document"]["storage"]["volume"]["nodes"] == ["flash1"]
    doc["sweep"] = {"workload.fio.iodepth": np.array([1, 2])}  # a RepresenterError naming no key
    assert len(poolsim.Scenario(doc).points()) == 2
    base = poolsim.Scenario(TINY_FIO)
    assert base.set("storage.volume.nodes", np.array(["flash1"])).points()[0]["params"]["storage.volume.nodes"] == ["flash1"]
    assert [p["params"]["workload.fio.iodepth"] for p in base.with_sweep({"workload.fio.iodepth": np.array([2, 4])}).points()] == [2, 4]
    assert base.set("workload.fio.iodepth", np.int64(4)).points()[0]["params"]["workload.fio.iodepth"] == 4
    # NA, NaN, a table: refused with the key named.
    doc = yaml.safe_load(TINY_FIO)
    doc["compute"]["cores"] = pd.NA
    with pytest.raises(ValueError, match="key 'compute.cores'"):
        poolsim.Scenario(doc)
    doc["compute"]["cores"] = float("nan")
    with pytest.raises(ValueError, match="key 'compute.cores'"):
        poolsim.Scenario(doc)
    with pytest.raises(ValueError, match="key 'compute.cores'"):
        base.set("compute.cores", pd.NA)
    with pytest.raises(TypeError, match="key 'compute.cores'"):
        base.set("compute.cores", np.zeros((2, 2)))


def test_argument_errors_name_the_argument(tiny_fio, tmp_path, monkeypatch):
    for call in (lambda: tiny_fio.set("compute.cores", float("nan")),
                 lambda: tiny_fio.with_sweep({"compute.cores": [float("inf")]})):
        with pytest.raises(ValueError, match="key 'compute.cores'"):
            call()
    for jobs, error in ((10**10, ValueError), ("2", TypeError), (float("nan"), TypeError), (0.5, TypeError),
                        (0, ValueError), (-1, ValueError), (True, TypeError)):
        with pytest.raises(error, match="jobs must be a whole number"):
            poolsim.run(tiny_fio, jobs=jobs)
        with pytest.raises(error, match="jobs must be a whole number"):
            poolsim.sweep(tiny_fio, {"workload.fio.iodepth": [1]}, jobs=jobs)
    # Wrong types named as arguments (they gave pybind's "incompatible function arguments" with the
    # whole YAML text, or an AttributeError from inside the module).
    for call, message in ((lambda: tiny_fio.with_sweep(None), "axes of a sweep are a mapping"),
                          (lambda: poolsim.sweep(tiny_fio, ["workload.threads"]), "axes of a sweep are a mapping"),
                          (lambda: tiny_fio.pinned(None), "pinned takes a point's params"),
                          (lambda: poolsim.Scenario.from_yaml(5), "text must be a str"),
                          (lambda: poolsim.Scenario.from_yaml("name: x\n", origin=5), "origin must be a str"),
                          (lambda: poolsim.Result.concat([{"points": []}]), "Result.concat takes Results"),
                          (lambda: poolsim.sweep(tiny_fio, {"workload.fio.iodepth": [1]}, client="tcp://x"), "client must be")):
        with pytest.raises(TypeError, match=message):
            call()
    # Result.from_json: a path object; a document that is not a result.
    r = poolsim.Result([{"params": {}, "iops": 1.0}])
    path = tmp_path / "r.json"
    r.to_json(path)
    assert poolsim.Result.from_json(path).raw == r.raw
    with pytest.raises(ValueError, match="not a poolsim result"):
        poolsim.Result.from_json('{"x": 1}')
    # A file past the bound (a device such as /dev/zero was read until memory ran out).
    monkeypatch.setattr(poolsim.result, "MAX_JSON_CHARS", 64)
    with pytest.raises(ValueError, match="longer than 64 characters"):
        poolsim.Result.from_json("/dev/zero")
    monkeypatch.undo()
    (tmp_path / "bad.json").write_text("{\n  oops")
    with pytest.raises(ValueError, match=r"bad\.json:2:3: not JSON"):
        poolsim.Result.from_json(tmp_path / "bad.json")


def test_a_section_or_a_list_is_no_sweep_value_and_the_hint_says_what_is(tiny_fio):
    # "(a list of mappings to sweep a section)" was refused: "expected a single value, got a mapping".
    for axes in ({"workload.fio": [{"iodepth": 2}]}, {"storage.volume.nodes": [["flash1"]]}):
        with pytest.raises(TypeError, match="a sweep's values are single values .*`variants:` and sweep `variant`"):
            tiny_fio.with_sweep(axes)
    with pytest.raises(TypeError, match="`variants:` and sweep `variant`"):
        tiny_fio.with_sweep({"workload.fio.iodepth": {1: "a"}})
    # What the hint says works.
    variants = TINY_FIO + "variants:\n  deep: {workload.fio.iodepth: 8, workload.fio.numjobs: 2}\n  shallow: {}\n"
    points = poolsim.Scenario(variants).with_sweep({"variant": ["deep", "shallow"]}).points()
    assert [p["document"]["workload"]["fio"]["iodepth"] for p in points] == [8, 1]
