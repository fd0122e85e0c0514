"""DataFrame shapes of a sysbench result and the plot helpers."""

import math

import matplotlib
import pandas as pd
import pytest
from matplotlib.figure import Figure

import poolsim
from conftest import TINY_SYSBENCH
from poolsim import plots


@pytest.fixture(scope="module")
def sysbench_result():
    s = poolsim.Scenario(TINY_SYSBENCH, origin="tiny-sysbench.yaml")
    return poolsim.sweep(s, {"storage.kind": ["local", "pool"], "workload.threads": [2, 8]}, jobs=2, progress=False)


def test_points_frame(sysbench_result):
    df = sysbench_result.points
    assert len(df) == 4
    assert list(df.columns[:3]) == ["point", "storage.kind", "workload.threads"]
    for column in ("tps", "tps_ci95", "qps", "latency_mean_ms", "latency_p95_ms", "latency_p99_ms",
                   "latency_p99_ms_ci95", "innodb_hit_ratio", "cpu_util_max", "device_util_max", "stop"):
        assert column in df, column
    assert (df["tps"] > 0).all() and (df["latency_p99_ms"] >= df["latency_p50_ms"]).all()
    assert sysbench_result.params == ["storage.kind", "workload.threads"]
    # Frames are copies: changing one does not change the result.
    df["tps"] = 0
    assert (sysbench_result.points["tps"] > 0).all()


def test_series_histogram_breakdown_utilisation(sysbench_result):
    series = sysbench_result.series
    assert {"point", "storage.kind", "workload.threads", "t_s", "ops_per_s"} <= set(series.columns)
    assert set(series["point"]) == {0, 1, 2, 3}
    assert (series.groupby("point")["t_s"].count() >= 3).all()

    hist = sysbench_result.histogram
    assert {"point", "latency_ms", "cdf", "exact"} <= set(hist.columns)
    for _, part in hist.groupby("point"):
        assert part["cdf"].is_monotonic_increasing and math.isclose(part["cdf"].iloc[-1], 1.0)
        assert part["latency_ms"].is_monotonic_increasing

    b = sysbench_result.breakdown
    assert len(b) == 4
    for c in ("cpu", "read_io", "network", "log_fsync", "lock_wait", "free_page_wait", "concurrency_queue", "serial_section",
              "total_ms", "latency_mean_ms"):
        assert c in b, c
    # The components add up to (about) the mean latency.
    assert ((b["total_ms"] - b["latency_mean_ms"]).abs() <= 0.05 * b["latency_mean_ms"] + 1e-3).all()
    # Local storage uses no network for reads.
    assert (b.loc[b["storage.kind"] == "local", "network"] == 0).all()

    u = sysbench_result.utilisation
    assert {"point", "kind", "name", "utilisation"} <= set(u.columns)
    assert set(u["kind"]) >= {"device", "cpu"}
    # (a CPU busy to the end of the window may report a hair above 1)
    assert ((u["utilisation"] >= 0) & (u["utilisation"] <= 1.01)).all()
    assert "link" in set(u.loc[u["storage.kind"] == "pool", "kind"])

    assert len(sysbench_result.innodb) == 4


def test_innodb_serial_section_and_slots_are_resources(tiny_sysbench):
    # A profile with a serial section (GreatSQL 8.0's fitted latches) and a limited
    # innodb_thread_concurrency: both appear among the resources, and the bottleneck is the busiest.
    # A pool smaller than the data, so that pages are read (64 MiB held it all: no read_us).
    s = tiny_sysbench.set({"database.profile": "greatsql-8.0", "database.thread_concurrency": 2, "database.buffer_pool": "8MiB"})
    r = poolsim.run(s, jobs=1)
    u = r.utilisation
    kinds = set(u["kind"])
    assert {"serial section", "thread concurrency"} <= kinds
    assert (u.loc[u["kind"].isin(["serial section", "thread concurrency"]), "name"] == "compute0").all()
    p = r.points.iloc[0]
    # (the bottleneck also weighs an SSD's write drain and single cores, which are not rows here)
    assert p["bottleneck_utilisation"] >= u["utilisation"].max() - 1e-12
    assert p["innodb_serial_section_utilisation"] > 0
    # A read's time and its parts, flattened (local storage: all of it in the device).
    assert p["innodb_page_reads_per_txn"] > 0
    assert p["innodb_read_us_mean"] > 0 and math.isclose(p["innodb_read_us_mean"], p["innodb_read_us_device"])
    assert p["innodb_read_us_fabric"] == 0


def test_fio_frames(tiny_fio):
    r = poolsim.sweep(tiny_fio, {"workload.fio.iodepth": [1, 4]}, jobs=2, progress=False)
    assert r.breakdown.empty and list(r.breakdown.columns[:2]) == ["point", "workload.fio.iodepth"]
    assert len(r.histogram) > 0 and len(r.series) > 0
    fig = plots.tps_p99_vs_threads(r)  # IOPS and p99 against iodepth
    assert isinstance(fig, Figure)


def test_plot_helpers_return_figures(sysbench_result, tmp_path):
    assert matplotlib.get_backend().lower() == "agg"
    figures = {
        "tps": plots.tps_p99_vs_threads(sysbench_result, by="storage.kind"),
        "tps_df": plots.tps_p99_vs_threads(sysbench_result.points),
        "cdf": plots.latency_cdf(sysbench_result),
        "breakdown": plots.breakdown_bar(sysbench_result),
    }
    for name, fig in figures.items():
        assert isinstance(fig, Figure), name
        fig.savefig(tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.png").stat().st_size > 5000
    lines = figures["tps"].axes[0].get_lines()
    assert len(figures["tps"].axes) == 2 and len(figures["tps"].axes[0].get_legend().get_texts()) == 2
    assert lines


def test_predicted_vs_measured():
    rows = pd.DataFrame({"name": ["a", "b", "c"], "measured_tps": [100.0, 200.0, 400.0],
                         "predicted_tps": [110.0, 180.0, 400.0]})
    fig = plots.predicted_vs_measured(rows)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    # The y = x line spans the plotted range.
    (x0, x1), (y0, y1) = [ln.get_xdata() for ln in ax.get_lines()][0], [ln.get_ydata() for ln in ax.get_lines()][0]
    assert x0 == y0 and x1 == y1 and x0 <= 100 and x1 >= 400
    assert "median |error| 10.0 %" in ax.get_title()
    with pytest.raises(ValueError):
        plots.predicted_vs_measured(rows, figure="p95_ms")
    # With the runs' half-widths: error bars, and the errors beyond their own interval counted
    # (10 % beyond +-5, 10 % within +-12, 0 % within +-3).
    rows = rows.assign(measured_tps_ci95=[2.0, 4.0, 8.0], predicted_tps_ci95=[3.0, 5.0, 7.0],
                       error_ci95_pct_tps=[5.0, 12.0, 3.0])
    ax = plots.predicted_vs_measured(rows).axes[0]
    assert "1 of 3 beyond their 95 % interval" in ax.get_title()
    assert ax.containers, "error bars drawn"


def test_exact_histogram_when_reported():
    """A point that reports latency_histogram ([upper bound s, count] buckets) gets an exact CDF."""
    raw = [{"params": {"workload.threads": t}, "workload": "sysbench", "tps": 100.0 * t,
            "latency_ms": {"mean": 2.0, "p50": 1.5, "p95": 4.0, "p99": 6.0, "max": 9.0},
            "latency_histogram": [[0.001, 10], [0.002, 60], [0.004, 25], [0.009, 5]]} for t in (1, 2)]
    r = poolsim.Result(raw)
    h = r.histogram
    assert len(h) == 8 and h["exact"].all()
    first = h[h["point"] == 0]
    assert list(first["latency_ms"]) == [1.0, 2.0, 4.0, 9.0]
    assert list(first["cdf"]) == [0.10, 0.70, 0.95, 1.0]
    assert isinstance(plots.latency_cdf(r), Figure)


def test_failed_points_raise_or_are_kept():
    from poolsim.sweep import _finish

    raw = [{"params": {"workload.threads": 1}, "iops": 1.0},
           {"params": {"workload.threads": 2}, "error": "the simulation process killed by signal 11"}]
    with pytest.raises(poolsim.SimulationError, match="1 of 2 points failed") as info:
        _finish(raw, None, "raise")
    assert len(info.value.result) == 2
    kept = _finish(raw, None, "keep")
    assert list(kept.points["error"].isna()) == [True, False]


def test_a_point_that_measured_nothing_is_flagged_not_zero_ms():
    # The frames dropped `warnings`: a point that completed no transaction showed 0.0 ms latencies
    # (an empty histogram's), and histogram_frame all-zero quantiles, with no flag.
    warning = "no transaction completed in the measured 0.2 s: latency_ms is not a measurement (every transaction took longer)"
    zeros = {"mean": 0.0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    nothing = {"params": {"workload.threads": 4096}, "workload": "sysbench", "tps": 0.0, "latency_ms": zeros,
               "ci95": {"tps": 0.0, "latency_p99_ms": 0.0}, "transactions": 0, "warnings": [warning],
               "breakdown_ms": {"cpu": 0.0, "read_io": 0.0}}
    fine = {"params": {"workload.threads": 4}, "workload": "sysbench", "tps": 100.0,
            "latency_ms": {"mean": 2.0, "p50": 1.5, "p95": 4.0, "p99": 6.0, "max": 9.0},
            "ci95": {"tps": 1.0, "latency_p99_ms": 0.1}, "transactions": 500, "breakdown_ms": {"cpu": 1.0, "read_io": 1.0}}
    fio_nothing = {"params": {"workload.threads": 1}, "workload": "fio", "iops": 0.0, "iops_ci95": 0.0,
                   "throughput_MBps": 0.0, "latency_us": zeros, "operations": 0,
                   "warnings": ["no IO completed in the measured 0.001 s: iops and latency_us are not a measurement"]}
    r = poolsim.Result([nothing, fine, fio_nothing])
    df = r.points
    assert df.loc[0, "warnings"] == warning and df.loc[1, "warnings"] is None
    for column in ("latency_mean_ms", "latency_p99_ms", "latency_p99_ms_ci95"):
        assert math.isnan(df.loc[0, column]) and df.loc[1, column] > 0, column
    assert df.loc[0, "tps"] == 0.0  # a throughput of nothing is a measurement
    for column in ("iops", "iops_ci95", "throughput_MBps", "latency_p99_us"):
        assert math.isnan(df.loc[2, column]), column
    assert "no IO completed" in df.loc[2, "warnings"]
    assert set(r.histogram["point"]) == {1}
    b = r.breakdown
    assert b.loc[b["point"] == 0, ["cpu", "total_ms", "latency_mean_ms"]].isna().all(axis=None)
    assert b.loc[b["point"] == 1, "total_ms"].item() == 2.0
    # Every result has the column, a result without warnings too.
    assert list(poolsim.Result([fine]).points["warnings"]) == [None]
