#!/usr/bin/python3
"""Naive baselines for the calibration targets (issue 4), from the measured traces alone:
- pool-size hold-out: TPS interpolated linearly in buffer-pool size between the smallest and the
  largest measured pool of the same location and thread count;
- device hold-out: "the device does not matter" (the disk run's TPS predicts the tmpfs run);
- MDEV-13845 (traces/mdev-13845): "the pool size does not matter" (the 16 GB pool's TPS of the same
  mix and thread count predicts the 4 GB pool's).
Usage: calibrate/baselines.py traces/local-vm | traces/mdev-13845"""
import os
import re
import statistics
import sys

SIZES = {"512M": 512, "1G": 1024, "1536M": 1536, "3G": 3072}


def tps(path):
    text = open(os.path.join(path, "sysbench.log")).read()
    return float(re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", text).group(1))


def mdev(root):
    runs = {}
    for d in os.listdir(root):
        m = re.fullmatch(r"bp(16G|4G)-(ro|rw\d+)-t(\d+)", d)
        if m:
            runs[(m.group(1), m.group(2), int(m.group(3)))] = tps(os.path.join(root, d))
    errors = []
    print("MDEV-13845, 'the pool size does not matter' (the 16 GB pool's TPS predicts the 4 GB pool's):")
    for (pool, mix, threads), measured in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][2])):
        if pool != "4G":
            continue
        predicted = runs[("16G", mix, threads)]
        err = 100 * (predicted - measured) / measured
        errors.append(abs(err))
        print(f"  bp4G-{mix}-t{threads}: measured {measured:.1f} baseline {predicted:.1f} error {err:+.1f} %")
    print(f"  median |error| {statistics.median(errors):.1f} %, max {max(errors):.1f} % ({len(errors)} runs)")


def main(root):
    if os.path.exists(os.path.join(root, "bp4G-ro-t1")):
        return mdev(root)
    runs = {}
    for d in os.listdir(root):
        m = re.fullmatch(r"(disk|tmpfs)-bp(\w+?)-t(\d+)", d)
        if m and m.group(2) in SIZES:
            runs[(m.group(1), SIZES[m.group(2)], int(m.group(3)))] = tps(os.path.join(root, d))
    errors = []
    print("pool-size hold-out, linear interpolation between 512M and 3G:")
    for (loc, size, threads), measured in sorted(runs.items()):
        if size in (512, 3072):
            continue
        lo, hi = runs[(loc, 512, threads)], runs[(loc, 3072, threads)]
        predicted = lo + (hi - lo) * (size - 512) / (3072 - 512)
        err = 100 * (predicted - measured) / measured
        errors.append(abs(err))
        print(f"  {loc}-{size}M-t{threads}: measured {measured:.1f} interpolated {predicted:.1f} error {err:+.1f} %")
    print(f"  median |error| {statistics.median(errors):.1f} %, max {max(errors):.1f} %")
    errors = []
    for (loc, size, threads), measured in sorted(runs.items()):
        if loc == "tmpfs" and ("disk", size, threads) in runs:
            errors.append(abs(100 * (runs[("disk", size, threads)] - measured) / measured))
    print(f"device hold-out, 'the device does not matter' (disk TPS for tmpfs): median |error| "
          f"{statistics.median(errors):.1f} %, max {max(errors):.1f} %")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "traces/local-vm")
