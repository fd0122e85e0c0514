#!/usr/bin/python3
"""Cost of waking an idle CPU on this host, as a function of how long it was idle.

Two processes pinned to different CPUs exchange one byte over a socket pair; before each
exchange the sender sleeps for an idle gap, so the receiver's CPU has been idle that long
when the byte arrives. For each gap it reports the round trip (median and mean), and from
getrusage the CPU time each side used per exchange: on a virtual machine a wake from a long
idle costs both time (the hypervisor must run the halted vCPU again) and CPU time charged to
the woken thread, while KVM's halt polling keeps wakes after short idles cheap.

    calibrate/wake_probe.py [-o wake-probe.json] [--exchanges N]

Stdlib only. Run it on a quiet machine: another busy process keeps the CPUs from idling.
"""

import argparse
import json
import os
import resource
import socket
import statistics
import sys
import time

GAPS_US = (0, 50, 100, 200, 500, 1000, 2000, 5000)


def cpu_s(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def probe(gap_us, exchanges, cpus):
    a, b = socket.socketpair()
    pid = os.fork()
    if pid == 0:  # the receiver: wakes on each byte, answers, reports its CPU time
        a.close()
        os.sched_setaffinity(0, {cpus[1]})
        c0 = cpu_s(resource.RUSAGE_SELF)
        while b.recv(1) == b"x":
            b.send(b"y")
        b.send(("%.9f" % (cpu_s(resource.RUSAGE_SELF) - c0)).encode())
        os._exit(0)
    b.close()
    os.sched_setaffinity(0, {cpus[0]})
    rtts, c0 = [], cpu_s(resource.RUSAGE_SELF)
    sleep_s = gap_us / 1e6
    for _ in range(exchanges):
        if sleep_s:
            time.sleep(sleep_s)
        t0 = time.perf_counter_ns()
        a.send(b"x")
        a.recv(1)
        rtts.append((time.perf_counter_ns() - t0) / 1e3)
    sender_cpu = cpu_s(resource.RUSAGE_SELF) - c0
    a.send(b"q")
    receiver_cpu = float(a.recv(64).decode())
    os.waitpid(pid, 0)
    return {"gap_us": gap_us, "exchanges": exchanges,
            "round_trip_median_us": round(statistics.median(rtts), 2),
            "round_trip_mean_us": round(statistics.fmean(rtts), 2),
            "receiver_cpu_per_exchange_us": round(receiver_cpu / exchanges * 1e6, 2),
            "sender_cpu_per_exchange_us": round(sender_cpu / exchanges * 1e6, 2)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", help="write the results as JSON here (else stdout)")
    ap.add_argument("--exchanges", type=int, default=2000)
    args = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        sys.exit("wake_probe.py: needs two CPUs")
    rows = [probe(g, args.exchanges, cpus[:2]) for g in GAPS_US]
    doc = {"tool": "calibrate/wake_probe.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "kernel": os.uname().release, "cpus": len(cpus), "rows": rows}
    text = json.dumps(doc, indent=1) + "\n"
    if args.out:
        tmp = args.out + ".partial"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.out)
    else:
        sys.stdout.write(text)
    for r in rows:
        print("gap %5d us: round trip median %7.1f us mean %7.1f us; CPU per exchange receiver %6.1f us sender %6.1f us" % (
            r["gap_us"], r["round_trip_median_us"], r["round_trip_mean_us"],
            r["receiver_cpu_per_exchange_us"], r["sender_cpu_per_exchange_us"]), file=sys.stderr)


if __name__ == "__main__":
    main()
