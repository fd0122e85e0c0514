#!/usr/bin/python3
"""Statement cycles from a raw schedule: how a sysbench client's statement latencies spread and how
they add up into transactions.

    /usr/bin/python3 calibrate/statement_cycles.py WORK/<trace>-timehist.txt.gz [threads] [statements]

Reads `perf sched timehist -w` as `calibrate/capture.py --perf-sched S --perf-sched-raw` keeps it
(outside the trace). For each of the `threads` busiest sysbench threads, a statement's cycle is the
time from the client's previous switch-out to the end of its next run (its `wait time` plus its
`run time`: the server's waits and work, then the client's wait for a CPU and its own work). Prints
the cycles' p95 and p99 over their mean, the same for sums of `statements` consecutive cycles (a
transaction's worth) beside the sums of the same cycles shuffled (what independent statements would
give), and the cycles' autocorrelation within a thread. `calibrate/sched_discipline.py` prints the
same statement figures for the model's discipline and for CFS.
"""
import gzip
import random
import re
import statistics
import sys
from collections import defaultdict

LINE = re.compile(r"^\s*([\d.]+)\s+\[(\d+)\]\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")


def percentile(values, q):
    values = sorted(values)
    return values[int(q * len(values))]


def cycles_by_thread(path, threads):
    runs = defaultdict(list)
    with gzip.open(path, "rt") as f:
        for line in f:
            m = LINE.match(line)
            if m and m.group(3).startswith("sysbench["):
                runs[m.group(3)].append(float(m.group(4)) + float(m.group(6)))  # wait + run, ms
    busiest = sorted(runs, key=lambda task: -len(runs[task]))[:threads]
    return [runs[task] for task in busiest]


def window_sums(cycles, k):
    return [sum(cycles[i:i + k]) for i in range(0, len(cycles) - k, k)]


def autocorrelation(per_thread, lag):
    xs = [x for c in per_thread for x in c[:-lag]]
    ys = [y for c in per_thread for y in c[lag:]]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    cov = sum((a - mx) * (b - my) for a, b in zip(xs, ys)) / len(xs)
    return cov / (statistics.pstdev(xs) * statistics.pstdev(ys))


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    threads = int(argv[2]) if len(argv) > 2 else 16
    statements = int(argv[3]) if len(argv) > 3 else 20
    try:
        per_thread = cycles_by_thread(argv[1], threads)
    except (OSError, EOFError) as e:
        print(f"statement_cycles: {argv[1]}: {e}", file=sys.stderr)
        return 2
    if not per_thread or min(len(c) for c in per_thread) <= 50 + statements:
        print(f"statement_cycles: {argv[1]}: too few sysbench runs", file=sys.stderr)
        return 2
    cycles = [x for c in per_thread for x in c]
    mean = statistics.fmean(cycles)
    print(f"statement cycles: {len(cycles)} over {len(per_thread)} threads, mean {mean:.3f} ms, "
          f"p95/mean {percentile(cycles, 0.95) / mean:.2f}, p99/mean {percentile(cycles, 0.99) / mean:.2f}")
    actual = [s for c in per_thread for s in window_sums(c, statements)]
    rng = random.Random(1)
    shuffled = []
    for c in per_thread:
        c = c[:]
        rng.shuffle(c)
        shuffled += window_sums(c, statements)
    for name, sums in (("consecutive", actual), ("shuffled", shuffled)):
        m = statistics.fmean(sums)
        print(f"sums of {statements} {name} cycles: mean {m:.2f} ms, p95/mean {percentile(sums, 0.95) / m:.3f}, "
              f"p99/mean {percentile(sums, 0.99) / m:.3f}")
    print("autocorrelation within a thread: " +
          ", ".join(f"lag {lag} {autocorrelation(per_thread, lag):.3f}" for lag in (1, 2, 5, 10, 20)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
