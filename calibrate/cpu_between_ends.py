#!/usr/bin/python3
"""The middle pools' host CPU per transaction against a line between the fitted ends.

For each location (disk, tmpfs) and thread count of a local-vm trace set, the host CPU per
transaction (capture.busy_pct of the cores, converted to the reference core of 3,200 probe events/s
when the capture probed the host) of the 1G and 1536M traces against the straight line, in page
reads per transaction, through the 512M and 3G traces (the pool-size calibration set's ends); and
the same for the pages written, to see whether the page writes' excess explains the CPU's.
A fit on the two ends, linear in the counters, predicts the line (README, "Calibration and
validation", session 26).
Usage: calibrate/cpu_between_ends.py traces/local-vm [more sets...]"""
import glob
import os
import sys

import numpy as np
import yaml

REFERENCE_PROBE_EPS = 3200.0
ENDS = ("bp3G", "bp512M")
MIDDLE = ("bp1G", "bp1536M")


def status(path):
    values = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 2:
                try:
                    values[parts[0]] = float(parts[1])
                except ValueError:
                    pass
    return values


def trace_figures(directory):
    meta = yaml.safe_load(open(os.path.join(directory, "meta.yaml")))
    capture, tps = meta["capture"], meta["summary"]["tps"]
    before = status(os.path.join(directory, "status_before.tsv"))
    after = status(os.path.join(directory, "status_after.tsv"))
    commits = after["Com_commit"] - before["Com_commit"]
    per_txn = lambda name: (after[name] - before[name]) / commits
    speed = 1.0
    if capture.get("cpu_probe_eps_before"):
        speed = (capture["cpu_probe_eps_before"] + capture["cpu_probe_eps_after"]) / 2 / REFERENCE_PROBE_EPS
    host_ms = capture["busy_pct"] / 100 * capture["cpus"] * 1000 / tps * speed
    return per_txn("Innodb_buffer_pool_reads"), per_txn("Innodb_buffer_pool_pages_flushed"), host_ms


def report(root):
    traces = {}
    for d in sorted(glob.glob(os.path.join(root, "*-bp*-t*"))):
        name = os.path.basename(d)
        if name.count("-") != 2:  # repeats and diagnostic variants
            continue
        location, pool, threads = name.split("-")
        traces[(location, pool, threads)] = trace_figures(d)
    print(f"{root}: host CPU per transaction (ms, reference core) against the line through {ENDS[1]} and {ENDS[0]}")
    excess_writes, excess_cpu = [], []
    for location in ("disk", "tmpfs"):
        for threads in ("t1", "t4", "t16", "t64"):
            ends = [traces.get((location, pool, threads)) for pool in ENDS]
            if None in ends:
                continue
            (r0, w0, h0), (r1, w1, h1) = ends
            cells = []
            for pool in MIDDLE:
                if (location, pool, threads) not in traces:
                    continue
                r, w, h = traces[(location, pool, threads)]
                f = (r - r0) / (r1 - r0)
                line_cpu, line_writes = h0 + (h1 - h0) * f, w0 + (w1 - w0) * f
                cells.append(f"{pool} {h:5.2f} vs {line_cpu:5.2f} ({100 * (h / line_cpu - 1):+5.1f} %), "
                             f"writes {w:4.2f} vs {line_writes:4.2f}")
                if threads != "t1":
                    excess_writes.append(w - line_writes)
                    excess_cpu.append(100 * (h / line_cpu - 1))
            print(f"  {location:5s} {threads:>3s}  " + " | ".join(cells))
    if len(excess_cpu) > 2:
        x, y = np.array(excess_writes), np.array(excess_cpu)
        print(f"  4-64 threads: CPU over the line {y.min():+.1f} to {y.max():+.1f} %, mean {y.mean():+.1f} % ({len(y)} points); "
              f"correlation with the pages written over their line {np.corrcoef(x, y)[0, 1]:+.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for root in sys.argv[1:]:
        report(root)
