"""Point results (the JSON objects `poolsim run --format json` prints) as pandas DataFrames.

Every frame starts with ``point`` (the point's index in the result) and the point's ``params``
columns (the swept and overridden keys, e.g. ``storage.kind``, ``workload.threads``), so frames
join and group on them.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

__all__ = ["points_frame", "series_frame", "histogram_frame", "breakdown_frame", "utilisation_frame",
           "innodb_frame", "param_columns"]

# Keys of a point that get frames of their own (or are the params).
_NESTED = {"params", "series", "breakdown_ms", "latency_histogram", "devices", "links", "cpus", "innodb"}
_RESOURCES = (("devices", "device"), ("links", "link"), ("cpus", "cpu"))
# InnoDB's one-at-a-time resources, each server's `innodb` entry gives their utilisation when the
# profile has a serial section or innodb_thread_concurrency is limited.
_INNODB_RESOURCES = (("serial_section_utilisation", "serial section"), ("thread_concurrency_utilisation", "thread concurrency"))
_QUANTILES = (("p50", 0.50), ("p95", 0.95), ("p99", 0.99), ("max", 1.0))
# What a point counts as completed (sysbench, fio, NDB). None completed: its latencies (a fio job's
# IOPS too, and a transaction's breakdown) are no measurement but an empty histogram's zeros, which the
# point's warnings say; the frames give NaN, not 0 ms.
_COMPLETED = ("transactions", "operations", "business_operations")
_FIO_RATES = ("iops", "iops_ci95", "throughput_MBps")


def _measured_nothing(point: dict) -> bool:
    return "error" not in point and any(point.get(k) == 0 for k in _COMPLETED)


def _warnings(point: dict):
    """The point's warnings as one text ("; " between them), or None."""
    warnings = point.get("warnings") or []
    return "; ".join(str(w) for w in warnings) if warnings else None


def _pd():
    import pandas

    return pandas


def param_columns(points: Sequence[dict]) -> list[str]:
    """The params keys of all points, in first-seen order."""
    seen: dict[str, None] = {}
    for p in points:
        for k in p.get("params", {}) or {}:
            seen.setdefault(k, None)
    return list(seen)


def _head(i: int, point: dict, params: list[str]) -> dict:
    row: dict[str, Any] = {"point": i}
    values = point.get("params", {}) or {}
    for k in params:
        row[k] = values.get(k)
    return row


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (int, float, str, bool))


def _flatten(prefix: str, value: Any, out: dict) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}_{k}" if prefix else k, v, out)
    elif _scalar(value):
        out[prefix] = value


def _figures(point: dict) -> dict:
    """A point's figures as flat columns: latency_ms {p99} -> latency_p99_ms, ci95 {tps} ->
    tps_ci95, innodb[0] {hit_ratio} -> innodb_hit_ratio, busiest device/link/CPU utilisation."""
    row: dict[str, Any] = {}
    for key, value in point.items():
        if key in _NESTED or key == "warnings":
            continue
        if key in ("latency_ms", "latency_us") and isinstance(value, dict):
            unit = key.split("_")[1]
            for q, v in value.items():
                row[f"latency_{q}_{unit}"] = v
        elif key == "ci95" and isinstance(value, dict):
            for k, v in value.items():
                row[f"{k}_ci95"] = v
        elif isinstance(value, dict):
            _flatten(key, value, row)
        elif _scalar(value):
            row[key] = value
    servers = point.get("innodb") or []
    if servers:
        for k, v in servers[0].items():
            _flatten(f"innodb_{k}", v, row)  # read_us {device} -> innodb_read_us_device
    for key, kind in _RESOURCES:
        entries = point.get(key)
        if entries:
            row[f"{kind}_util_max"] = max((e.get("utilisation", 0.0) or 0.0) for e in entries)
    if _measured_nothing(point):
        for column in row:
            if column.startswith("latency_") or column in _FIO_RATES:
                row[column] = math.nan
    return row


def points_frame(points: Sequence[dict]):
    """One row per point: params, figures, confidence-interval half-widths (``*_ci95``), the stop
    reason, the busiest resources, ``warnings`` (None, or the simulator's warnings joined by "; "),
    and ``error`` for a point whose simulation failed. A point that completed nothing has NaN
    latencies (and, for fio, IOPS), not the 0 ms of an empty histogram."""
    pd = _pd()
    params = param_columns(points)
    rows = []
    for i, p in enumerate(points):
        row = _head(i, p, params)
        row.update(_figures(p))
        rows.append(row)
    df = pd.DataFrame(rows)
    if "point" not in df:
        df = pd.DataFrame(columns=["point", *params])
    if "error" not in df and any("error" in p for p in points):
        df["error"] = None
    # Always there, so that a filter on it works on every result: None, or what the simulator warned.
    df["warnings"] = [_warnings(p) for p in points]
    return df


def series_frame(points: Sequence[dict]):
    """The interval series: one row per point and measurement batch (``t_s`` from the end of
    warm-up, ``ops_per_s`` = TPS or IOPS, batch latency mean and p95)."""
    pd = _pd()
    params = param_columns(points)
    rows = []
    for i, p in enumerate(points):
        head = _head(i, p, params)
        for entry in p.get("series", []) or []:
            rows.append({**head, **entry})
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=["point", *params, "t_s", "ops_per_s"])


def histogram_frame(points: Sequence[dict]):
    """The latency distribution per point: ``latency_ms`` (a bucket's upper bound), ``count`` and
    ``cdf``. From the point's ``latency_histogram`` when the simulator reports one (``exact`` True);
    otherwise from its quantiles p50/p95/p99/max (``exact`` False, ``count`` NaN). A point that
    completed nothing has no rows."""
    pd = _pd()
    params = param_columns(points)
    rows = []
    for i, p in enumerate(points):
        if _measured_nothing(p):  # no latency to distribute (its quantiles are an empty histogram's zeros)
            continue
        head = _head(i, p, params)
        buckets = p.get("latency_histogram")
        if buckets:
            pairs = [(b[0], b[1]) if isinstance(b, (list, tuple)) else (b["upper_s"], b["count"]) for b in buckets]
            total = sum(c for _, c in pairs) or 1
            running = 0
            for upper_s, count in pairs:
                running += count
                rows.append({**head, "latency_ms": upper_s * 1e3, "count": count, "cdf": running / total, "exact": True})
            continue
        for key, scale in (("latency_ms", 1.0), ("latency_us", 1e-3)):
            quantiles = p.get(key)
            if isinstance(quantiles, dict):
                for q, level in _QUANTILES:
                    if q in quantiles:
                        rows.append({**head, "latency_ms": quantiles[q] * scale, "count": math.nan, "cdf": level,
                                     "exact": False})
                break
    if not rows:
        return pd.DataFrame(columns=["point", *params, "latency_ms", "count", "cdf", "exact"])
    return pd.DataFrame(rows)


def breakdown_frame(points: Sequence[dict]):
    """Where a transaction's time goes (ms per transaction), one row per sysbench point: cpu,
    read_io, network, log_fsync, lock_wait, free_page_wait, concurrency_queue, serial_section, and their ``total_ms``
    beside the measured ``latency_mean_ms``."""
    pd = _pd()
    params = param_columns(points)
    rows, components = [], []
    for i, p in enumerate(points):
        b = p.get("breakdown_ms")
        if not b:
            continue
        for k in b:
            if k not in components:
                components.append(k)
        row = _head(i, p, params)
        row.update(b)
        row["total_ms"] = sum(v for v in b.values() if isinstance(v, (int, float)))
        row["latency_mean_ms"] = (p.get("latency_ms") or {}).get("mean")
        if _measured_nothing(p):  # per transaction, with none completed
            for k in [*b, "total_ms", "latency_mean_ms"]:
                row[k] = math.nan
        rows.append(row)
    if not rows:
        return pd.DataFrame(columns=["point", *params, "total_ms", "latency_mean_ms"])
    df = pd.DataFrame(rows)
    return df[["point", *params, *components, "total_ms", "latency_mean_ms"]]


def utilisation_frame(points: Sequence[dict]):
    """Resource utilisation, one row per point and resource: ``kind`` (device, link, cpu, and InnoDB's
    serial section and thread concurrency slots, named by their server's host), ``name``,
    ``utilisation`` (0..1) and the resource's other figures."""
    pd = _pd()
    params = param_columns(points)
    rows = []
    for i, p in enumerate(points):
        head = _head(i, p, params)
        for key, kind in _RESOURCES:
            for e in p.get(key, []) or []:
                name = e.get("name", e.get("host", e.get("device", "")))
                row = {**head, "kind": kind, "name": name, "utilisation": e.get("utilisation")}
                for k, v in e.items():
                    if k not in row and _scalar(v):
                        row[k] = v
                rows.append(row)
        for server in p.get("innodb", []) or []:
            for key, kind in _INNODB_RESOURCES:
                if key in server:
                    rows.append({**head, "kind": kind, "name": server.get("host", ""), "utilisation": server[key]})
    if not rows:
        return pd.DataFrame(columns=["point", *params, "kind", "name", "utilisation"])
    return pd.DataFrame(rows)


def innodb_frame(points: Sequence[dict]):
    """InnoDB figures per point and server (hit ratio, page reads and writes per transaction, ...)."""
    pd = _pd()
    params = param_columns(points)
    rows = []
    for i, p in enumerate(points):
        head = _head(i, p, params)
        for s, server in enumerate(p.get("innodb", []) or []):
            row = {**head, "server": s}
            _flatten("", server, row)
            rows.append(row)
    if not rows:
        return pd.DataFrame(columns=["point", *params, "server"])
    return pd.DataFrame(rows)


def short_name(column: str) -> str:
    """A params column's short name for legends: "workload.threads" -> "threads", "storage.kind" ->
    "storage" (generic last words give way to the one before)."""
    parts = column.split(".")
    if len(parts) > 1 and parts[-1] in ("kind", "name", "size", "type", "preset"):
        return parts[-2]
    return parts[-1]


def label(row: Any, columns: Iterable[str]) -> str:
    """'storage=pool, threads=8' for a row of a frame."""
    return ", ".join(f"{short_name(c)}={row[c]}" for c in columns)
