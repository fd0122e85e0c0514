#!/usr/bin/python3
"""Per-transaction host figures of traces that carry iostat.txt (traces/mdev-13845): the host's busy
CPU per transaction (avg-cpu %user + %nice + %system x cores / TPS, the since-boot report left out),
the busy cores, the datadir device's reads and writes per transaction and its members' read await.

    /usr/bin/python3 calibrate/iostat_per_txn.py traces/mdev-13845/bp{16G,4G}-ro-t*

A diagnostic beside `poolsim validate --format json` (which compares the InnoDB counters): it shows
what the host spent, which the model's CPU and device are measured against.
"""
import sys
from pathlib import Path

import yaml


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def row(trace: Path):
    meta = yaml.safe_load((trace / "meta.yaml").read_text())
    tps = float(meta["summary"]["tps"])
    cores = int(meta["host"]["cores"])
    device = meta["storage"].get("device", "md0")
    members = meta["storage"].get("members", [])
    lines = (trace / "iostat.txt").read_text().splitlines()
    cpu, reads, writes, awaits = [], [], [], []
    columns = None
    for i, line in enumerate(lines):
        fields = line.split()
        if line.startswith("avg-cpu") and i + 1 < len(lines):
            v = lines[i + 1].split()
            cpu.append(float(v[0]) + float(v[1]) + float(v[2]))
        elif fields and fields[0] == "Device:":
            columns = fields
        elif fields and columns and fields[0] == device:
            reads.append(float(fields[columns.index("r/s")]))
            writes.append(float(fields[columns.index("w/s")]))
        elif fields and columns and fields[0] in members and float(fields[columns.index("r/s")]) > 0:
            awaits.append(float(fields[columns.index("r_await")]))
    # The first report of each kind is the since-boot average, not part of the run.
    reports = len(members) if members else 1
    cpu, reads, writes, awaits = cpu[1:], reads[1:], writes[1:], awaits[reports:]
    busy_cores = mean(cpu) / 100 * cores
    return {
        "trace": trace.name,
        "threads": meta["workload"]["threads"],
        "tps": tps,
        "host_cpu_ms_per_txn": busy_cores / tps * 1e3,
        "busy_cores": busy_cores,
        "reads_per_txn": mean(reads) / tps,
        "writes_per_txn": mean(writes) / tps,
        "member_r_await_ms": mean(awaits),
    }


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    header = f"{'trace':<18} {'thr':>4} {'tps':>9} {'cpu ms/txn':>10} {'busy':>5} {'reads/txn':>9} {'writes/txn':>10} {'r_await ms':>10}"
    print(header)
    for arg in argv[1:]:
        trace = Path(arg)
        try:
            r = row(trace)
        except (OSError, KeyError, ValueError, IndexError, yaml.YAMLError) as e:
            print(f"iostat_per_txn: {trace}: {e}", file=sys.stderr)
            return 2
        print(f"{r['trace']:<18} {r['threads']:>4} {r['tps']:>9.1f} {r['host_cpu_ms_per_txn']:>10.3f} {r['busy_cores']:>5.1f} "
              f"{r['reads_per_txn']:>9.2f} {r['writes_per_txn']:>10.2f} {r['member_r_await_ms']:>10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
