#!/usr/bin/python3
"""Where the long CPU bursts are, from a raw `perf sched timehist -w` (capture.py --perf-sched S
--perf-sched-raw keeps it as WORK/<trace>-timehist.txt.gz).

Splits the server's threads as capture.py does (the CONNECTIONS threads that ran longest are the
connection threads, one per client; the rest are InnoDB's background threads) and prints, per class
and per other command, the bursts (switch-in to switch-out) above each threshold: how many, their
share of the class's CPU time, and the mean and SCV of the bursts below the first threshold (the
body a statement's CPU draw stands for).

    calibrate/long_bursts.py /var/tmp/poolsim-capture/tmpfs-bp3G-t16-timehist.txt.gz 16
"""
import argparse
import collections
import gzip
import re

SERVER_COMMANDS = ("mariadbd", "mysqld")


def bursts_by_thread(path):
    """(command, thread id) -> [burst us] from timehist lines: time [cpu] task wait sch_delay run (ms)."""
    runs = collections.defaultdict(list)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            p = line.split()
            if len(p) < 6 or not p[1].startswith("["):
                continue
            try:
                ran_us = float(p[-1]) * 1e3
            except ValueError:
                continue
            m = re.match(r"(\S+?)\[(\d+)", p[2])
            if m:
                runs[(m.group(1), m.group(2))].append(ran_us)
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("timehist", help="perf sched timehist -w output (.gz or plain)")
    ap.add_argument("connections", type=int, help="client threads of the run (one server thread each)")
    ap.add_argument("--thresholds-ms", default="1,5", help="long-burst thresholds, ms (default: 1,5)")
    ap.add_argument("--top", type=int, default=6, help="classes printed, by CPU time (default: 6)")
    args = ap.parse_args()
    thresholds_us = [float(x) * 1e3 for x in args.thresholds_ms.split(",")]

    runs = bursts_by_thread(args.timehist)
    server = sorted((k for k in runs if k[0] in SERVER_COMMANDS), key=lambda k: -sum(runs[k]))
    connections = set(server[:args.connections])
    classes = collections.defaultdict(list)
    for key, bursts in runs.items():
        name = key[0] if key[0] not in SERVER_COMMANDS else key[0] + (":connections" if key in connections else ":background")
        classes[name].extend(bursts)

    for name, bursts in sorted(classes.items(), key=lambda kv: -sum(kv[1]))[:args.top]:
        total = sum(bursts)
        print("%-22s %7d bursts, %8.1f ms, mean %.1f us" % (name, len(bursts), total / 1e3, total / len(bursts)))
        for t in thresholds_us:
            long = [b for b in bursts if b > t]
            print("    > %4.0f ms: %5d bursts, %7.1f ms (%5.2f %% of its CPU), longest %.1f ms" %
                  (t / 1e3, len(long), sum(long) / 1e3, 100 * sum(long) / total, max(long, default=0) / 1e3))
        body = [b for b in bursts if b <= thresholds_us[0]]
        if body:
            m = sum(body) / len(body)
            scv = sum((b - m) ** 2 for b in body) / len(body) / (m * m) if m > 0 else 0.0
            print("    the rest: mean %.1f us, SCV %.3f" % (m, scv))


if __name__ == "__main__":
    main()
