"""Calibration and validation from Python, on the committed local-vm traces."""

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
    with pytest.raises(OSError):
        poolsim.Calibration("name: new\n", "{}\n", "report").save(profile)
    assert profile.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p-devices.yaml", "p.yaml"]
