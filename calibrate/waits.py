#!/usr/bin/python3
"""Where a transaction's time goes, from a diagnostic trace (capture.py --perf-schema
[--perf-sched S]): per transaction, the client connections' performance_schema waits
(pfs_waits.tsv) and, when present, the scheduler's view of the server and client threads
(perf_sched_timehist.tsv: run time, wait for a CPU after wake-up, sleep).

    calibrate/waits.py TRACE_DIR...

Stdlib + python3-yaml only.  Times are per committed transaction of the measured run (pfs)
or of the perf window (perf sched, whose window is shorter than the run)."""

import os
import sys

import yaml

PS_PER_MS = 1e9  # performance_schema timers are in picoseconds


def read_tsv(path):
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def summarise(d, out=sys.stdout):
    with open(os.path.join(d, "meta.yaml")) as f:
        meta = yaml.safe_load(f)
    s, w, cap = meta["summary"], meta["workload"], meta.get("capture") or {}
    txns = s["tps"] * s["total_time_s"]
    threads = w["threads"]
    print("%s: %d threads, %.1f TPS, %.2f ms per transaction per thread, CPU busy %s %%" % (
        os.path.basename(d.rstrip("/")), threads, s["tps"], threads / s["tps"] * 1e3,
        cap.get("busy_pct")), file=out)
    waits = os.path.join(d, "pfs_waits.tsv")
    if os.path.exists(waits):
        print("  client connections' waits (performance_schema), ms per transaction:", file=out)
        for user, event, count, total_ps, _ in read_tsv(waits):
            ms = float(total_ps) / PS_PER_MS / txns
            if user != "(background)" and user != "root" and ms >= 0.02:
                print("    %-48s %8.3f  (%6.2f per txn, mean %7.1f us)" % (
                    event, ms, int(count) / txns, float(total_ps) / int(count) / 1e6), file=out)
    sched = os.path.join(d, "perf_sched_timehist.tsv")
    if os.path.exists(sched):
        rows = read_tsv(sched)
        head, rows = rows[0], rows[1:]
        col = {name: i for i, name in enumerate(head)}
        def total(group, name):
            return sum(float(r[col[name]]) for r in group) if name in col else float("nan")
        # the connection threads are the `threads` mariadbd threads that ran the most
        server = sorted((r for r in rows if r[0].startswith("mariadbd")),
                        key=lambda r: -float(r[col["run_ms"]]))[:threads]
        client = [r for r in rows if r[0].startswith("sysbench") and int(r[col["switched_in"]]) > 100]
        other = [r for r in rows if r not in server and r not in client and not r[0].startswith("<idle>")]
        window_s = cap.get("perf_sched_s") or 10  # the first diagnostic traces recorded 10 s
        window_txns = s["tps"] * window_s
        print("  scheduler (perf sched, %g s window), ms per transaction:" % window_s, file=out)
        for name, group in (("server threads", server), ("client threads", client)):
            print("    %-16s run %6.3f  wait for a CPU %6.3f (after an idle CPU %6.3f)  sleep %6.3f  wake-ups %5.1f" % (
                name, total(group, "run_ms") / window_txns, total(group, "sch_delay_ms") / window_txns,
                total(group, "after_idle_sch_delay_ms") / window_txns,
                (total(group, "wait_ms") - total(group, "sch_delay_ms")) / window_txns,
                total(group, "switched_in") / window_txns), file=out)
        print("    other threads run %.3f" % (total(other, "run_ms") / window_txns), file=out)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for d in sys.argv[1:]:
        summarise(d)
