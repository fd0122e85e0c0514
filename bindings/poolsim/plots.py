"""Plot helpers. Each returns a matplotlib Figure made without pyplot (no GUI backend, no global
figure list to leak from): it displays in Jupyter (``%matplotlib inline``) and saves with
``fig.savefig(...)`` under any backend, Agg included."""

from __future__ import annotations

import math
from typing import Any, Sequence

from .frames import label, short_name

__all__ = ["tps_p99_vs_threads", "latency_cdf", "breakdown_bar", "predicted_vs_measured"]


def _figure(width: float = 8.0, height: float = 4.0):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _points(data: Any):
    """A points DataFrame from a Result or a DataFrame."""
    if hasattr(data, "raw") and hasattr(data, "points"):
        return data.points, data.params
    df = data
    params = [c for c in df.columns if "." in c]
    return df, params


def _plain_log_ticks(axis) -> None:
    """Tick labels such as 20 and 0.5 rather than 2x10^1 on a log axis."""
    from matplotlib.ticker import FuncFormatter

    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    axis.set_major_formatter(fmt)
    axis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}"[0] in "25" else ""))


def _varying(df, columns: Sequence[str]) -> list[str]:
    return [c for c in columns if c in df and df[c].nunique(dropna=False) > 1]


def _as_list(by) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def _pick(df, *names):
    for n in names:
        if n in df:
            return n
    return None


def tps_p99_vs_threads(data: Any, by: str | Sequence[str] | None = None, threads: str | None = None,
                       logy: bool = False):
    """Throughput and p99 latency against client threads, one line per configuration (``by``:
    columns such as "storage.kind" or ["storage.kind", "database.buffer_pool"]; default: every other
    params column that varies). Error bars are the 95 % confidence half-widths. Works on a Result or
    its ``points`` frame; for fio results it plots IOPS and p99 against ``threads`` (e.g.
    "workload.fio.iodepth"). ``logy``: logarithmic y axes (configurations far apart)."""
    df, params = _points(data)
    if "error" in df:
        df = df[df["error"].isna()]
    x = threads or _pick(df, "workload.threads", "workload.fio.iodepth", "workload.fio.numjobs")
    if x is None or x not in df:
        raise ValueError("tps_p99_vs_threads: no threads column (pass threads=...)")
    y = _pick(df, "tps", "iops")
    y_ci = _pick(df, "tps_ci95", "iops_ci95")
    lat = _pick(df, "latency_p99_ms", "latency_p99_us")
    lat_ci = "latency_p99_ms_ci95" if lat == "latency_p99_ms" and "latency_p99_ms_ci95" in df else None
    if y is None or lat is None:
        raise ValueError("tps_p99_vs_threads: the frame has no throughput or p99 column")
    groups = _as_list(by) or _varying(df, [c for c in params if c != x])
    fig = _figure(10, 4)
    ax_t, ax_l = fig.subplots(1, 2)
    if not groups:
        parts = [((), df)]
    else:
        parts = df.groupby(groups[0] if len(groups) == 1 else groups, sort=False, dropna=False)
    for key, part in parts:
        part = part.sort_values(x)
        key = key if isinstance(key, tuple) else (key,)
        name = ", ".join(f"{short_name(g)}={k}" for g, k in zip(groups, key)) or None
        ax_t.errorbar(part[x], part[y], yerr=part[y_ci] if y_ci else None, marker="o", capsize=3, label=name)
        ax_l.errorbar(part[x], part[lat], yerr=part[lat_ci] if lat_ci else None, marker="o", capsize=3, label=name)
    xs = sorted(df[x].dropna().unique())
    for ax in (ax_t, ax_l):
        ax.set_xlabel(x)
        if xs and min(xs) > 0 and max(xs) / min(xs) >= 8:
            ax.set_xscale("log", base=2)
            ax.set_xticks(xs)
            ax.set_xticklabels([str(v) for v in xs])
        ax.grid(True, alpha=0.3)
    ax_t.set_ylabel("TPS" if y == "tps" else "IOPS")
    ax_l.set_ylabel("p99 latency (" + lat.rsplit("_", 1)[-1] + ")")
    for ax in (ax_t, ax_l):
        if logy:
            ax.set_yscale("log")
            _plain_log_ticks(ax.yaxis)
        else:
            ax.set_ylim(bottom=0)
    if groups:
        ax_t.legend(fontsize="small")
    return fig


def latency_cdf(result: Any, by: str | Sequence[str] | None = None, points: Sequence[int] | None = None):
    """The latency CDF of each point (from its histogram; from its quantiles p50/p95/p99/max, drawn
    as markers, when the simulator reports no histogram). ``points`` selects point indices; ``by``
    names the params columns for the legend (default: those that vary)."""
    hist = result.histogram if hasattr(result, "histogram") else result
    params = result.params if hasattr(result, "params") else [c for c in hist.columns if "." in c]
    if points is not None:
        hist = hist[hist["point"].isin(list(points))]
    names = _as_list(by) or _varying(hist, params)
    fig = _figure(7, 4.5)
    ax = fig.subplots()
    approximate = False
    for p, part in hist.groupby("point", sort=True):
        part = part.sort_values("latency_ms")
        text = label(part.iloc[0], names) if names else f"point {p}"
        exact = bool(part["exact"].iloc[0]) if "exact" in part else True
        if exact:
            ax.step(part["latency_ms"], part["cdf"], where="post", label=text)
        else:
            approximate = True
            ax.plot(part["latency_ms"], part["cdf"], marker="o", linestyle="--", label=text)
    if approximate:
        ax.set_title("from each point's p50, p95, p99 and max (no histogram reported)", fontsize="small")
    ax.set_xscale("log")
    _plain_log_ticks(ax.xaxis)
    ax.set_xlabel("latency (ms)")
    ax.set_ylabel("fraction of transactions")
    ax.set_ylim(0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    if len(hist["point"].unique()) <= 16:
        ax.legend(fontsize="small")
    return fig


def breakdown_bar(result: Any, by: str | Sequence[str] | None = None):
    """Stacked bars of where a transaction's time goes (ms per transaction, by component), one bar
    per sysbench point, labelled with its params (``by``: which columns; default: those that vary)."""
    b = result.breakdown if hasattr(result, "breakdown") else result
    params = result.params if hasattr(result, "params") else [c for c in b.columns if "." in c]
    skip = {"point", "total_ms", "latency_mean_ms", *params}
    components = [c for c in b.columns if c not in skip]
    names = _as_list(by) or _varying(b, params)
    fig = _figure(max(6.0, 0.6 * len(b) + 3), 4.5)
    ax = fig.subplots()
    if b.empty:
        ax.text(0.5, 0.5, "no breakdown (not a sysbench result)", ha="center", va="center", transform=ax.transAxes)
        return fig
    xs = list(range(len(b)))
    bottom = [0.0] * len(b)
    for c in components:
        values = [0.0 if (v is None or (isinstance(v, float) and math.isnan(v))) else float(v) for v in b[c]]
        ax.bar(xs, values, bottom=bottom, label=c)
        bottom = [s + v for s, v in zip(bottom, values)]
    ax.set_xticks(xs)
    ax.set_xticklabels([label(row, names) if names else str(row["point"]) for _, row in b.iterrows()],
                       rotation=60, ha="right", fontsize="small")
    ax.set_ylabel("ms per transaction")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def predicted_vs_measured(validation: Any, figure: str = "tps", label_column: str | None = None):
    """Predicted against measured ``figure`` ("tps", "p95_ms", ...) for each validation row, with
    the y = x line; the title gives the median absolute error. ``validation`` is a
    poolsim.Validation or its ``rows`` frame (columns measured_<figure>, predicted_<figure>);
    ``label_column`` names the points (default: name, row or line, whichever the frame has). Where
    the frame has the 95 % half-widths (measured_<figure>_ci95, predicted_<figure>_ci95) they are
    drawn as error bars, and where it has the error's own interval (error_ci95_pct_<figure>) the
    title counts the errors beyond it."""
    df = validation.rows if hasattr(validation, "rows") and not hasattr(validation, "columns") else validation
    m, p = f"measured_{figure}", f"predicted_{figure}"
    if m not in df or p not in df:
        raise ValueError(f"predicted_vs_measured: the frame has no {m} / {p} columns")
    df = df[df[m].notna() & df[p].notna()]
    if label_column is None:
        label_column = _pick(df, "name", "row", "trace", "line")
    fig = _figure(5.5, 5.5)
    ax = fig.subplots()
    m_ci, p_ci = f"{m}_ci95", f"{p}_ci95"
    if m_ci in df or p_ci in df:
        ax.errorbar(df[m], df[p], xerr=df[m_ci] if m_ci in df else None, yerr=df[p_ci] if p_ci in df else None,
                    fmt="none", ecolor="tab:blue", alpha=0.5, zorder=2)
    ax.scatter(df[m], df[p], zorder=3)
    if label_column and label_column in df and len(df) <= 40:
        for _, row in df.iterrows():
            ax.annotate(str(row[label_column]), (row[m], row[p]), fontsize="x-small", xytext=(3, 3),
                        textcoords="offset points")
    values = list(df[m]) + list(df[p])
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    pad = 0.05 * (hi - lo or 1.0)
    lo, hi = max(0.0, lo - pad) if lo >= 0 else lo - pad, hi + pad
    ax.plot([lo, hi], [lo, hi], color="grey", linestyle="--", label="y = x")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel(f"measured {figure}")
    ax.set_ylabel(f"predicted {figure}")
    if len(df):
        errors = (100 * (df[p] - df[m]) / df[m]).abs()
        title = f"median |error| {errors.median():.1f} %, max {errors.max():.1f} %"
        interval = f"error_ci95_pct_{figure}"
        if interval in df and df[interval].notna().any():
            known = df[interval].notna()
            beyond = int((errors[known] > df.loc[known, interval]).sum())
            title += f"; {beyond} of {int(known.sum())} beyond their 95 % interval"
        ax.set_title(title)
    ax.legend(loc="upper left")
    ax.grid(True, alpha=0.3)
    return fig
