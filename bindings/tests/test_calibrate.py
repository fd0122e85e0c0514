"""Calibration and validation from Python, on the committed local-vm traces."""

import os
import shutil

import pytest
from matplotlib.figure import Figure

import poolsim
from poolsim import plots


def fit_traces(root):
    base = root / "traces" / "local-vm"
    dirs = [base / f"{loc}-bp{pool}-t{t}" for loc in ("disk", "tmpfs") for pool in ("512M", "3G") for t in (1, 4, 16, 64)]
    return [d for d in dirs if (d / "meta.yaml").exists()]


def test_calibrate(root, tmp_path):
    dirs = fit_traces(root)
    if len(dirs) < 8:
        pytest.skip("the local-vm traces are not there")
    c = poolsim.calibrate(dirs, name="py-test", output=tmp_path / "fit.yaml")
    assert "py-test" in c.profile_yaml and c.report
    assert (tmp_path / "fit.yaml").read_text() == c.profile_yaml
    assert (tmp_path / "fit-devices.yaml").read_text() == c.devices_yaml


def test_bad_trace_is_an_input_error(root, tmp_path):
    good = fit_traces(root)
    if not good:
        pytest.skip("the local-vm traces are not there")
    bad = tmp_path / "bad-trace"
    shutil.copytree(good[0], bad)
    (bad / "meta.yaml").write_text("engine: {product: mariadb\n")
    with pytest.raises(poolsim.InputError, match="meta.yaml"):
        poolsim.calibrate([bad])
    if poolsim._poolsim.has_validation:
        with pytest.raises(poolsim.InputError, match="meta.yaml"):
            poolsim.validate([bad], root / "traces" / "local-vm" / "profile.yaml", duration=0.5, jobs=1)


@pytest.mark.skipif(not poolsim._poolsim.has_validation, reason="built without validation.cpp")
def test_validate_one_trace(root):
    trace = root / "traces" / "local-vm" / "tmpfs-bp3G-t4"
    profile = root / "traces" / "local-vm" / "profile.yaml"
    if not (trace / "meta.yaml").exists() or not profile.exists():
        pytest.skip("the local-vm traces are not there")
    v = poolsim.validate([trace], profile, duration=1.0, jobs=1)
    rows = v.rows
    assert len(rows) == 1 and rows.loc[0, "name"] == "tmpfs-bp3G-t4"
    assert rows.loc[0, "measured_tps"] > 0 and rows.loc[0, "predicted_tps"] > 0
    assert "tps" in str(v.summary)
    assert isinstance(plots.predicted_vs_measured(v), Figure)


@pytest.mark.skipif(not poolsim._poolsim.has_validation, reason="built without validation.cpp")
def test_validate_table(root):
    scenario, table = root / "scenarios" / "seeds" / "ndb-rdma.yaml", root / "scenarios" / "seeds" / "ndb-rdma.csv"
    if not scenario.exists() or not table.exists():
        pytest.skip("no published table with a validation: section")
    v = poolsim.validate_table(scenario, table, duration=0.5, jobs=2)
    rows = v.rows
    compared = rows[rows["predicted_ops_per_s"].notna()] if "predicted_ops_per_s" in rows else rows.iloc[0:0]
    assert len(compared) >= 1 and (compared["measured_ops_per_s"] > 0).all()
    assert isinstance(plots.predicted_vs_measured(v, "ops_per_s"), Figure)


@pytest.mark.skipif(not poolsim._poolsim.has_validation, reason="built without validation.cpp")
def test_calibrate_fits_a_flush_the_traces_did_not_measure(root):
    # The MDEV-13845 runs name a catalogue SATA SSD and have no fio: calibrate simulates the runs that
    # fsync to fit its flush latency, as `poolsim calibrate --duration --jobs` does.
    base = root / "traces" / "mdev-13845"
    dirs = [base / run for run in ("bp16G-ro-t1", "bp16G-rw22-t1", "bp16G-rw50-t2", "bp16G-rw100-t4")]
    if not all((d / "meta.yaml").exists() for d in dirs):
        pytest.skip("the mdev-13845 traces are not there")
    c = poolsim.calibrate(dirs, name="py-flush", duration=5, jobs=2)
    assert "flush latency of mdev-13845-sata" in c.report
    assert "flush_latency fitted by poolsim calibrate" in c.devices_yaml


def test_a_duration_the_cli_refuses_is_a_value_error(root):
    # NaN and negative durations failed the native layer's `> 0` test and ran uncapped without a word.
    for duration in (float("nan"), -1.0, float("inf")):
        with pytest.raises(ValueError, match="duration must be a finite number of seconds >= 0"):
            poolsim.validate_table(root / "scenarios/seeds/ndb-rdma.yaml", root / "scenarios/seeds/ndb-rdma.csv",
                                   duration=duration, jobs=1)


def test_a_table_takes_no_devices_file(root):
    # The devices file was passed down and never read: the CLI refuses --devices with --table.
    with pytest.raises(ValueError, match="devices from the scenario's catalogue"):
        poolsim.validate_table(root / "scenarios/seeds/ndb-rdma.yaml", root / "scenarios/seeds/ndb-rdma.csv",
                               devices=root / "traces/local-vm/profile-devices.yaml", duration=0.5, jobs=1)


def test_a_validation_document_without_its_keys_is_a_value_error():
    # Rendering read past the end of a document without "rows" or "summary": a segmentation fault
    # of the interpreter (repr() of poolsim.Validation({}) in a notebook killed its kernel).
    for raw in ({}, {"rows": []}, {"rows": [{"params": {}}], "summary": {}}, {"rows": 3, "summary": 3}):
        with pytest.raises(ValueError, match="not a validation document"):
            poolsim.Validation(raw).table
    assert "poolsim.Validation" in repr(poolsim.Validation({}))  # the fallback, not a crash


def test_save_writes_the_profile_and_its_devices_together_or_neither(tmp_path):
    # The profile was replaced before the devices file failed (here a directory in its place).
    profile = tmp_path / "p.yaml"
    profile.write_text("old\n")
    (tmp_path / "p-devices.yaml").mkdir()
    with pytest.raises(poolsim.InputError, match="p-devices.yaml' is a directory"):  # as `calibrate -o` refuses it
        poolsim.Calibration("name: new\n", "{}\n", "report").save(profile)
    assert profile.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p-devices.yaml", "p.yaml"]


def _copies(root, tmp_path, count=2):
    traces = fit_traces(root)[:count]
    if len(traces) < count:
        pytest.skip("the local-vm traces are not there")
    copies = []
    for t in traces:
        copies.append(tmp_path / t.name)
        shutil.copytree(t, copies[-1])
    return copies


def test_calibrate_checks_its_output_before_fitting(root, tmp_path, monkeypatch):
    # output=<a trace's meta.yaml> replaced it without a word, and a missing output directory failed
    # only after the whole fit (FileNotFoundError on '.tmp-poolsim').
    traces = _copies(root, tmp_path)
    meta = traces[0] / "meta.yaml"
    before = meta.read_text()
    with pytest.raises(poolsim.InputError, match="is a file of the trace .*an input of this command"):
        poolsim.calibrate(traces, output=meta, jobs=1)
    assert meta.read_text() == before
    with pytest.raises(poolsim.InputError, match="there is no directory 'nodir'"):
        poolsim.calibrate(traces, output="nodir/p.yaml", jobs=1)
    with pytest.raises(poolsim.InputError, match="is a directory"):
        poolsim.calibrate(traces, output=tmp_path, jobs=1)
    # Calibration.save likewise, with the traces it was fitted on.
    c = poolsim.Calibration("name: p\n", "{}\n", "report", traces=traces)
    with pytest.raises(poolsim.InputError, match="is a file of the trace"):
        c.save(traces[1] / "meta.yaml")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(poolsim.InputError, match="there is no directory 'nodir'"):
        c.save("nodir/p.yaml")
    # An empty path (output="" passed the native check as "no output" and failed after the fit) and
    # a NUL character (the file written was the name before it: the devices over the profile).
    for bad, message in (("", "output is an empty path"), ("p\0q.yaml", "output 'p.x00q.yaml' holds a NUL character")):
        with pytest.raises(ValueError, match=message):
            poolsim.calibrate(traces, output=bad, jobs=1)
        with pytest.raises(ValueError, match=message):
            c.save(bad)
    with pytest.raises(TypeError, match="traces must be a path or a list of paths, got NoneType"):
        poolsim.validate(None, "profile.yaml")
    with pytest.raises(ValueError, match="duration .* is too large"):
        poolsim.validate(traces, "profile.yaml", duration=10**400)
    with pytest.raises(TypeError, match="name must be a str"):
        poolsim.calibrate(traces, name=5, jobs=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(t.name for t in traces)


def test_calibrate_refuses_a_trace_given_twice(root, tmp_path):
    # T + [str(T[1]) + "/"] counted the trace twice in the fit; the CLI refuses it.
    traces = _copies(root, tmp_path)
    with pytest.raises(poolsim.InputError, match="the trace is given twice: it would count twice in the fit"):
        poolsim.calibrate(traces + [str(traces[1]) + "/"], jobs=1)


def test_trace_names_that_are_not_utf8_are_refused_first(root, tmp_path):
    # calibrate leaked "[json.exception.type_error.316] invalid UTF-8 byte" after the whole fit (and a
    # str with surrogateescape gave pybind's "incompatible function arguments").
    traces = _copies(root, tmp_path, 1)
    latin = os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9")
    os.rename(traces[0], latin)
    for name in (latin, os.fsencode(latin)):
        with pytest.raises(poolsim.InputError, match=r"traces: '.*caf\.\.\.' has a name that is not UTF-8 \(byte 0xE9"):
            poolsim.calibrate([name], jobs=1)
        if poolsim._poolsim.has_validation:
            with pytest.raises(poolsim.InputError, match="has a name that is not UTF-8"):
                poolsim.validate([name], root / "traces" / "local-vm" / "profile.yaml", jobs=1)


@pytest.mark.skipif(not poolsim._poolsim.has_validation, reason="built without validation.cpp")
def test_validate_needs_traces_and_a_profile_that_is_there(root, tmp_path):
    # validate([]) returned an empty Validation (the profile not even looked at); a missing profile was
    # blamed on its first key ('cpu_probe_eps').
    with pytest.raises(poolsim.InputError, match="give trace directories and a profile"):
        poolsim.validate([], tmp_path / "missing.yaml")
    trace = root / "traces" / "local-vm" / "tmpfs-bp3G-t4"
    with pytest.raises(poolsim.InputError, match="key 'profile': '.*missing.yaml' does not exist"):
        poolsim.validate([trace], tmp_path / "missing.yaml", jobs=1)
    with pytest.raises(TypeError, match="jobs must be a whole number"):
        poolsim.validate([trace], root / "traces" / "local-vm" / "profile.yaml", jobs="2")
    with pytest.raises(TypeError, match="duration must be a number"):
        poolsim.validate([trace], root / "traces" / "local-vm" / "profile.yaml", duration="1")


def test_save_writes_into_a_fifo(tmp_path):
    # Calibration.save replaced a FIFO by a regular file (its ".tmp-poolsim" renamed over it).
    import stat
    import threading

    fifo = tmp_path / "p.yaml"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()), daemon=True)
    reader.start()
    poolsim.Calibration("name: p\n", "{}\n", "report").save(fifo)
    reader.join(10)
    assert got == ["name: p\n"] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert (tmp_path / "p-devices.yaml").read_text() == "{}\n"


def test_capture_writes_the_servers_own_settings(root, tmp_path):
    # calibrate/capture.py wrote flush_log_at_trx_commit 1, doublewrite on, no binlog into meta.yaml
    # whatever --mysqld-opt had set; it now takes them from the server's variables (variables.tsv),
    # which poolsim checks meta.yaml against.
    import importlib.util

    spec = importlib.util.spec_from_file_location("capture", root / "calibrate" / "capture.py")
    capture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(capture)
    variables = tmp_path / "variables.tsv"
    variables.write_text("innodb_flush_log_at_trx_commit\t2\ninnodb_doublewrite\tOFF\nlog_bin\tON\nsync_binlog\t1\n"
                         "innodb_io_capacity\t400\ninnodb_io_capacity_max\t800\ninnodb_log_file_size\t100663296\n")
    assert capture.server_settings(str(variables)) == {
        "flush_log_at_trx_commit": 2, "sync_binlog": 1, "io_capacity": 400, "io_capacity_max": 800,
        "doublewrite": False, "binlog": True, "log_file_size": "96MiB"}
    assert capture.server_settings(str(tmp_path / "none.tsv")) == {}
