#!/usr/bin/python3
"""How evenly the scheduler spread a run over the CPUs, from a raw `perf sched timehist -w`
(capture.py --perf-sched S --perf-sched-raw keeps it as WORK/<trace>-timehist.txt.gz).

Prints per CPU its busy share and what ran there; per command how long its threads waited for a
CPU after waking, and how much of that wait another CPU sat idle (time a work-conserving shared
queue would not have lost); and where woken threads ran against where their waker was.

    calibrate/sched_balance.py /var/tmp/poolsim-capture/disk-bp1G-t4-timehist.txt.gz
"""
import argparse
import bisect
import collections
import gzip
import re
import sys


def comm_of(task):
    return re.sub(r"\[.*", "", task)


def waker_class(task):
    c = comm_of(task)
    if c.startswith(("kworker", "ksoftirqd")):
        return "kworker"
    return c if c in ("mariadbd", "sysbench", "<idle>") else "other"


def parse(path):
    """Runs (cpu, start, end, task, sch delay) and wake-ups {wakee: (waker, cpu)} in order."""
    runs, wakes = [], []
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            if len(fields) < 4 or not fields[1].startswith("["):
                continue
            try:
                t = float(fields[0])
                cpu = int(fields[1].strip("[]"))
            except ValueError:
                continue
            if "awakened:" in fields:
                i = fields.index("awakened:")
                wakes.append((len(runs), " ".join(fields[2:i]), cpu, " ".join(fields[i + 1:])))
                continue
            try:
                delay_ms, run_ms = float(fields[-2]), float(fields[-1])
            except ValueError:
                sys.exit("%s:%d: expected wait, sch delay and run time columns" % (path, n))
            task = " ".join(fields[2:-3])
            runs.append((cpu, t - run_ms / 1e3, t, task, delay_ms / 1e3))
    if not runs:
        sys.exit("%s: no `perf sched timehist` run lines" % path)
    return runs, wakes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("timehist", help="perf sched timehist -w output (.gz or plain)")
    a = ap.parse_args()
    runs, wakes = parse(a.timehist)
    busy = [r for r in runs if not r[3].startswith("<idle>")]
    if not busy:
        sys.exit("%s: only idle time in the window" % a.timehist)
    t0 = min(r[1] for r in busy)
    t1 = max(r[2] for r in busy)
    span = t1 - t0
    if span <= 0:
        sys.exit("%s: the window has no length" % a.timehist)
    # Idle periods per CPU: the gaps between consecutive runs (perf prints <idle> for some CPUs only;
    # the time before a CPU's first run and after its last in the window is not counted).
    by_cpu = collections.defaultdict(list)
    for cpu, s, e, task, _ in busy:
        by_cpu[cpu].append((s, e))
    idle = {}
    for cpu, v in by_cpu.items():
        v.sort()
        idle[cpu] = [(v[i][1], v[i + 1][0]) for i in range(len(v) - 1) if v[i + 1][0] > v[i][1]]
    starts = {cpu: [s for s, _ in v] for cpu, v in idle.items()}

    def idle_overlap(cpu, s, e):
        v, st = idle[cpu], starts[cpu]
        i = max(0, bisect.bisect_right(st, s) - 1)
        total = 0.0
        while i < len(v) and v[i][0] < e:
            total += max(0.0, min(e, v[i][1]) - max(s, v[i][0]))
            i += 1
        return total

    print("window %.2f s" % span)
    ran = collections.defaultdict(float)
    for cpu, s, e, task, _ in busy:
        ran[(cpu, comm_of(task))] += e - s
    for cpu in sorted(by_cpu):
        share = sum(e - s for s, e in by_cpu[cpu]) / span
        top = sorted(((v, c) for (k, c), v in ran.items() if k == cpu), reverse=True)[:3]
        print("CPU %d busy %5.1f %%: %s" % (cpu, 100 * share, ", ".join("%s %.2f s" % (c, v) for v, c in top)))
    waited = collections.defaultdict(lambda: collections.defaultdict(float))
    lost = collections.defaultdict(float)
    for cpu, s, e, task, delay in busy:
        if delay <= 0:
            continue
        c = comm_of(task)
        waited[c][cpu] += delay
        lost[c] += sum(idle_overlap(o, s - delay, s) for o in idle if o != cpu)
    for c in sorted(waited, key=lambda k: -sum(waited[k].values()))[:4]:
        total = sum(waited[c].values())
        per_cpu = ", ".join("CPU %d %.2f s" % (k, v) for k, v in sorted(waited[c].items()))
        print("%-10s waited for a CPU %.2f s (%s); another CPU idle meanwhile %.2f s (%.0f %%)" % (
            c, total, per_cpu, lost[c], 100 * lost[c] / total if total else 0))
    # Wake-ups: each run's last wake-up before it.
    stats = collections.defaultdict(lambda: [0, 0.0])
    w = 0
    pending = {}
    for i, (cpu, s, e, task, delay) in enumerate(runs):
        while w < len(wakes) and wakes[w][0] <= i:
            _, waker, wcpu, wakee = wakes[w]
            pending[wakee] = (waker, wcpu)
            w += 1
        if task in pending:
            waker, wcpu = pending.pop(task)
            k = (comm_of(task), waker_class(waker), "its waker's CPU" if wcpu == cpu else "another CPU", cpu)
            stats[k][0] += 1
            stats[k][1] += delay
    print("wake-ups (wakee, waker, where the wakee ran; at least 1 % of them):")
    n_all = sum(v[0] for v in stats.values())
    for k in sorted(stats, key=lambda k: -stats[k][0]):
        n, d = stats[k]
        if n < 0.01 * n_all:
            continue
        print("  %-9s woken by %-8s ran on %-15s (CPU %d): %6d, waiting %5.0f us each" % (k[0], k[1], k[2], k[3], n, 1e6 * d / n))


if __name__ == "__main__":
    main()
