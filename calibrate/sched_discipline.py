#!/usr/bin/python3
"""How much of a transaction's latency spread the CPU scheduler's discipline makes: a diagnostic
experiment beside the simulator, not part of it.

A closed loop of N sysbench threads on C cores, CPU only (a cached pool on tmpfs): each transaction
is S statements, each a server burst (gamma, mean `server_us`, SCV `scv`, and optionally the
measured long-burst tail) followed by a client burst (exponential, mean `client_us`); the client and
the server are two threads that wake each other. Two disciplines:

- fcfs: one shared run queue served first come, first served, bursts run to completion. This is
  what poolsim's CPU does (model/platform/platform.cpp: each burst is booked on the first free core
  when it becomes ready).
- cfs: Linux's CFS as kernel/sched/fair.c sets it for 2 CPUs: each thread accumulates vruntime; the
  run queue is ordered by it; a woken thread is placed at max(own, min_vruntime - latency / 2)
  (GENTLE_FAIR_SLEEPERS) and preempts the running thread with the largest vruntime when it leads it
  by more than the wake-up granularity; a running thread yields at the end of its slice when others
  wait. Latency 12 ms, minimum granularity 1.5 ms, wake-up granularity 2 ms (6 / 0.75 / 1 ms x
  (1 + log2 2 CPUs), SCHED_TUNABLESCALING_LOG).

    /usr/bin/python3 calibrate/sched_discipline.py [transactions]
    /usr/bin/python3 calibrate/sched_discipline.py --group-commit [transactions]

Prints, per thread count and discipline, the transaction latency's p95 and p99 over its mean and the
waits for a CPU after a wake-up (mean, SCV, max), to set against perf sched's `sch_delay` rows of
traces/local-vm/sched-threads/*/perf_sched_bursts.tsv and the traces' sysbench p95 over mean.
"""
import heapq
import random
import sys
from collections import deque

# CFS for 2 CPUs (factor 1 + log2 2 = 2): sched_latency, min_granularity, wakeup_granularity.
CFS_LATENCY_S = 12e-3
CFS_MIN_GRANULARITY_S = 1.5e-3
CFS_WAKEUP_GRANULARITY_S = 2e-3


def gamma(rng, mean, scv):
    if scv <= 0:
        return mean
    shape = 1.0 / scv
    return rng.gammavariate(shape, mean / shape)


def simulate(discipline, threads, cores=2, statements=20, server_us=110.0, client_us=25.0, scv=0.42,
             tail_share=0.0, tail_mean_us=3800.0, transactions=20000, seed=1, log_write_us=0.0, log_flush_us=0.0,
             wake_us=5.0, stats=None):
    """Returns, after a 10 % warm-up and in seconds: the transactions' latencies, the waits for a
    CPU after a wake-up, and each statement's cycle as its client sees it (from the end of one of
    its client bursts to the end of the next: the server's wait and run, then the client's).

    With `log_write_us` > 0 the last statement (COMMIT) makes its transaction durable by group
    commit, as InnoDB with innodb_flush_log_at_trx_commit = 1 does: the first committer finding the
    log idle leads, sleeps in its write and then in its fsync (fixed device times), and after each
    wakes and runs `wake_us` on a core before it goes on; at the end it releases the group: the
    committers its write covered go on to their client burst, and the first of the others leads the
    next group (woken, it too runs `wake_us` before it writes). `stats`, a dict, gets `fsyncs` and
    `commits` counted after the warm-up."""
    rng = random.Random(seed)
    wake_s, write_s, flush_s = wake_us * 1e-6, log_write_us * 1e-6, log_flush_us * 1e-6
    # Group commit: each commit's position in the log, the positions written and flushed, the leader's
    # step after its current burst, and the committers waiting for a group.
    appended = flushed = group_target = 0
    log_busy = False
    step = [None] * threads        # None, "flush" (its write done), "release" (its fsync done), "lead"
    commit_lsn = [0] * threads
    log_waiters = []               # threads, in the order they began to wait
    fsyncs = commits = 0
    server_s, client_s, tail_mean_s = server_us * 1e-6, client_us * 1e-6, tail_mean_us * 1e-6
    # Entity 2i is thread i's server side, 2i+1 its client side; one of the two is runnable at a time.
    vruntime = [0.0] * (2 * threads)
    side = [0] * threads           # 0: the server burst is next, 1: the client burst
    done_statements = [0] * threads
    began = [0.0] * threads
    remaining = [0.0] * threads    # of the current burst
    running = [None] * cores
    run_since = [0.0] * cores
    armed = [None] * cores         # the sequence number of each core's pending end event
    events, queue, fifo = [], [], deque()
    sequence = 0
    min_vruntime = 0.0
    woke_at = {}
    latencies, waits, cycles = [], [], []
    last_client_end = [0.0] * threads
    completed = 0
    warm = transactions // 10

    def burst(i):
        if side[i] == 1:
            return rng.expovariate(1.0 / client_s)
        body = gamma(rng, server_s * (1 - tail_share), scv)
        if tail_share > 0 and rng.random() < tail_share * server_s / tail_mean_s:
            body += rng.expovariate(1.0 / tail_mean_s)
        return body

    def next_sequence():
        nonlocal sequence
        sequence += 1
        return sequence

    def slice_s():
        waiting = sum(1 for e in running if e is not None) + len(queue)
        per_cpu = max(1.0, waiting / cores)
        period = CFS_LATENCY_S if per_cpu <= CFS_LATENCY_S / CFS_MIN_GRANULARITY_S else per_cpu * CFS_MIN_GRANULARITY_S
        return max(CFS_MIN_GRANULARITY_S, period / per_cpu)

    def start(c, e, now):
        if e in woke_at:
            wait = now - woke_at.pop(e)
            if completed > warm:
                waits.append(wait)
        running[c], run_since[c] = e, now
        length = remaining[e // 2]
        if discipline == "cfs" and queue:
            length = min(length, slice_s())
        armed[c] = next_sequence()
        heapq.heappush(events, (now + length, armed[c], c, e))

    def account(c, now):
        e = running[c]
        ran = now - run_since[c]
        remaining[e // 2] -= ran
        vruntime[e] += ran
        run_since[c] = now

    def wake(i, now):
        nonlocal min_vruntime
        e = 2 * i + side[i]
        woke_at[e] = now
        free = next((c for c in range(cores) if running[c] is None), None)
        if discipline == "fcfs":
            if free is not None:
                start(free, e, now)
            else:
                fifo.append(e)
            return
        current = [vruntime[running[c]] for c in range(cores) if running[c] is not None]
        if queue:
            current.append(queue[0][0])
        if current:
            min_vruntime = max(min_vruntime, min(current))
        vruntime[e] = max(vruntime[e], min_vruntime - CFS_LATENCY_S / 2)
        if free is not None:
            start(free, e, now)
            return
        for c in range(cores):
            account(c, now)
        victim = max(range(cores), key=lambda c: vruntime[running[c]])
        if vruntime[running[victim]] - vruntime[e] > CFS_WAKEUP_GRANULARITY_S:
            preempted = running[victim]
            heapq.heappush(queue, (vruntime[preempted], next_sequence(), preempted))
            start(victim, e, now)
        else:
            heapq.heappush(queue, (vruntime[e], next_sequence(), e))

    def dispatch(c, now):
        if discipline == "fcfs":
            if fifo:
                start(c, fifo.popleft(), now)
            else:
                running[c] = None
        elif queue:
            start(c, heapq.heappop(queue)[2], now)
        else:
            running[c] = None

    def to_client(i, now):
        side[i] = 1
        remaining[i] = burst(i)
        wake(i, now)

    def woken_server(i, now, next_step):
        """Thread i's server side wakes to run `wake_us`, then takes `next_step`."""
        step[i] = next_step
        side[i] = 0
        remaining[i] = wake_s
        wake(i, now)

    def sleep_io(i, now, seconds, next_step):
        heapq.heappush(events, (now + seconds, next_sequence(), -1, i))
        step[i] = next_step

    def commit(i, now):
        """Thread i's COMMIT ran; True when its transaction is durable at once (it goes on)."""
        nonlocal appended, log_busy, group_target, commits
        appended += 1
        commit_lsn[i] = appended
        if completed > warm:
            commits += 1
        if not log_busy:
            log_busy = True
            group_target = appended
            sleep_io(i, now, write_s, "flush")
        else:
            log_waiters.append(i)
        return False

    def after_wake(i, c, now):
        """The leader's `wake_us` burst ended on core c: its next step."""
        nonlocal flushed, log_busy, group_target, fsyncs
        what = step[i]
        dispatch(c, now)
        if what == "flush":
            sleep_io(i, now, flush_s, "release")
            return
        if what == "lead":
            group_target = appended
            sleep_io(i, now, write_s, "flush")
            return
        # "release": the group is durable; the committers it covers go on, the first other one leads.
        if completed > warm:
            fsyncs += 1
        flushed = group_target
        step[i] = None
        still = []
        for w in log_waiters:
            if commit_lsn[w] <= flushed:
                to_client(w, now)
            else:
                still.append(w)
        log_waiters[:] = still
        if log_waiters:
            woken_server(log_waiters.pop(0), now, "lead")
        else:
            log_busy = False
        to_client(i, now)

    for i in range(threads):
        remaining[i] = burst(i)
        wake(i, 0.0)
    while completed < transactions:
        now, seq, c, e = heapq.heappop(events)
        if c < 0:  # a log IO completed: its thread wakes
            i = e
            woken_server(i, now, step[i])
            continue
        if armed[c] != seq:
            continue  # preempted: this end was cancelled
        account(c, now)
        i = e // 2
        if remaining[i] > 1e-12:  # the slice ended first
            heapq.heappush(queue, (vruntime[e], next_sequence(), e))
            start(c, heapq.heappop(queue)[2], now)
            continue
        if side[i] == 0 and step[i] is not None:
            after_wake(i, c, now)
            continue
        if side[i] == 0 and write_s > 0 and done_statements[i] == statements - 1:
            commit(i, now)
            dispatch(c, now)
            continue
        if side[i] == 0:
            side[i] = 1
        else:
            if completed > warm:
                cycles.append(now - last_client_end[i])
            last_client_end[i] = now
            side[i] = 0
            done_statements[i] += 1
            if done_statements[i] == statements:
                done_statements[i] = 0
                completed += 1
                if completed > warm:
                    latencies.append(now - began[i])
                began[i] = now
        remaining[i] = burst(i)
        dispatch(c, now)
        wake(i, now)
    if stats is not None:
        stats.update(fsyncs=fsyncs, commits=commits)
    return latencies, waits, cycles


def summary(values):
    values = sorted(values)
    n = len(values)
    mean = sum(values) / n
    scv = sum((v - mean) ** 2 for v in values) / n / mean ** 2
    return mean, values[int(0.95 * n)], values[int(0.99 * n)], scv, values[-1]


# The VM's disk under MariaDB's redo log (traces/local-vm/disk-bp3G-t*, no page reads or writes):
# threads -> (mean write await, mean flush await) in us from /proc/diskstats over the run, and the
# fsyncs per transaction the server made (Innodb_data_fsyncs).
DISK_3G = {1: (120.0, 204.0, 1.00), 4: (122.0, 171.0, 0.90), 16: (140.0, 219.0, 0.56), 64: (231.0, 435.0, 0.22)}


def group_commit(transactions):
    """Fsyncs per transaction under group commit for each discipline, against disk-bp3G-t*."""
    print(f"{'threads':>7} {'measured':>8} {'fcfs':>8} {'cfs':>8}   fsyncs per transaction (wake-up CPU 5 us)")
    for threads, (write_us, flush_us, measured) in DISK_3G.items():
        row = []
        for discipline in ("fcfs", "cfs"):
            stats = {}
            simulate(discipline, threads, server_us=104.0, client_us=25.0, transactions=transactions,
                     log_write_us=write_us, log_flush_us=flush_us, stats=stats)
            row.append(stats["fsyncs"] / stats["commits"])
        print(f"{threads:>7} {measured:>8.2f} {row[0]:>8.2f} {row[1]:>8.2f}")
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--group-commit":
        return group_commit(int(argv[2]) if len(argv) > 2 else 20000)
    transactions = int(argv[1]) if len(argv) > 1 else 20000
    print(f"{'threads':>7} {'discipline':>10} {'tail':>5} {'mean ms':>8} {'p95/mean':>8} {'p99/mean':>8}"
          f" {'wait us':>8} {'wait SCV':>8} {'wait max ms':>11} {'stmt p95/mean':>13} {'stmt p99/mean':>13}")
    for threads in (16, 64):
        for tail in (0.0, 0.042):
            for discipline in ("fcfs", "cfs"):
                latencies, waits, cycles = simulate(discipline, threads, tail_share=tail, transactions=transactions)
                mean, p95, p99, _, _ = summary(latencies)
                wait_mean, _, _, wait_scv, wait_max = summary(waits)
                cycle_mean, cycle_p95, cycle_p99, _, _ = summary(cycles)
                print(f"{threads:>7} {discipline:>10} {tail:>5.3f} {mean * 1e3:>8.2f} {p95 / mean:>8.3f} {p99 / mean:>8.3f}"
                      f" {wait_mean * 1e6:>8.0f} {wait_scv:>8.2f} {wait_max * 1e3:>11.1f}"
                      f" {cycle_p95 / cycle_mean:>13.2f} {cycle_p99 / cycle_mean:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
