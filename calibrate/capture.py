#!/usr/bin/python3
"""poolsim trace capture: run sysbench oltp_read_write against a private
mariadbd over a matrix of buffer-pool sizes x thread counts x data locations
and write one trace directory per point (format: traces/README.md).

Stdlib + python3-yaml only.  Must run as root (mounts tmpfs, drops caches,
chowns the datadir to the mysql user).  See calibrate/README.md for usage.
"""

import argparse
import datetime as _dt
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time

import yaml

HZ = os.sysconf("SC_CLK_TCK")
SYSBENCH = "/usr/bin/sysbench"
MARIADBD = "/usr/sbin/mariadbd"
MARIADB = "/usr/bin/mariadb"
INSTALL_DB = "/usr/bin/mariadb-install-db"
FIO = "/usr/bin/fio"
PERF = "/usr/bin/perf"
DB_USER = "sbtest"
DB_PASS = "sbtest"
DB_NAME = "sbtest"
FIO_QDS = (1, 2, 4, 8, 16, 32, 64)
FIO_WRITE_QDS = (1, 8, 32)
FIO_COPY_LIMIT = 50 * 1024  # copy fio json into each trace dir only if smaller

LOG = None


def log(msg):
    line = "%s %s" % (_dt.datetime.now().strftime("%H:%M:%S"), msg)
    print(line, flush=True)
    if LOG:
        with open(LOG, "a") as f:
            f.write(line + "\n")


def now_iso():
    return _dt.datetime.now(_dt.timezone.utc).astimezone().isoformat(timespec="seconds")


# ---------------------------------------------------------------- units

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*$", re.I)
_MULT = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(s):
    m = _SIZE_RE.match(str(s))
    if not m:
        raise ValueError("bad size %r (use e.g. 512M, 1G, 1536M)" % s)
    return int(float(m.group(1)) * _MULT[m.group(2).upper()])


def size_tag(n):
    """512M / 1G / 1536M: the short form used in trace dir names."""
    for suf, mult in (("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n % mult == 0:
            return "%d%s" % (n // mult, suf)
    return str(n)


def size_unit(n):
    """512MiB / 1GiB: the unit-carrying form used in meta.yaml."""
    t = size_tag(n)
    return t + "iB" if t[-1] in "KMGT" else t + "B"


# ---------------------------------------------------------------- shell

def run(cmd, check=True, timeout=None, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s%s" % (
            r.returncode, " ".join(cmd), r.stdout[-2000:], r.stderr[-2000:]))
    return r


def du_bytes(path):
    r = run(["du", "-sb", path])
    return int(r.stdout.split()[0])


def is_mountpoint(path):
    return os.path.ismount(path)


def mount_info(path):
    """(device, fstype, mountpoint) of the filesystem holding path."""
    path = os.path.realpath(path)
    best = None
    with open("/proc/mounts") as f:
        for line in f:
            dev, mnt, fs = line.split()[:3]
            mnt = mnt.replace("\\040", " ")
            if path == mnt or path.startswith(mnt.rstrip("/") + "/"):
                if best is None or len(mnt) > len(best[2]):
                    best = (dev, fs, mnt)
    return best


def block_device_name(path):
    st = os.stat(path)
    maj, mnr = os.major(st.st_dev), os.minor(st.st_dev)
    link = "/sys/dev/block/%d:%d" % (maj, mnr)
    if os.path.exists(link):
        name = os.path.basename(os.path.realpath(link))
        # partition -> parent disk
        parent = os.path.basename(os.path.dirname(os.path.realpath(link)))
        if os.path.exists("/sys/block/%s/%s" % (parent, name)):
            return parent
        return name
    return None


def storage_kind_for(dev):
    if dev is None:
        return "tmpfs"
    if dev.startswith("nvme"):
        return "nvme"
    if dev.startswith(("vd", "xvd")):
        return "virtual-disk"
    if dev.startswith("sd"):
        try:
            with open("/sys/block/%s/device/vendor" % dev) as f:
                vendor = f.read().strip()
            if vendor in ("QEMU", "VMware", "Msft"):
                return "virtual-disk"
        except OSError:
            pass
        return "sata"
    return "virtual-disk"


# ---------------------------------------------------------------- /proc sampling

def read_proc_stat():
    """aggregate cpu line -> dict of jiffies"""
    with open("/proc/stat") as f:
        parts = f.readline().split()
    names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq",
             "steal", "guest", "guest_nice"]
    vals = [int(x) for x in parts[1:1 + len(names)]]
    return dict(zip(names, vals))


def cpu_busy(s):
    # guest time is already included in user/nice
    return s["user"] + s["nice"] + s["system"] + s["irq"] + s["softirq"]


def cpu_total(s):
    return (s["user"] + s["nice"] + s["system"] + s["idle"] + s["iowait"]
            + s["irq"] + s["softirq"] + s["steal"])


def proc_times(pid):
    """(comm, utime+stime jiffies, starttime jiffies) or None"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            data = f.read()
    except OSError:
        return None
    lp, rp = data.index("("), data.rindex(")")
    comm = data[lp + 1:rp]
    rest = data[rp + 2:].split()
    # rest[0] is field 3 (state); utime=14, stime=15, starttime=22
    return comm, int(rest[11]) + int(rest[12]), int(rest[19])


def all_proc_times():
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            t = proc_times(int(d))
            if t:
                out[int(d)] = t
    return out


def boot_jiffies_now():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0]) * HZ


class CpuSampler:
    """Samples /proc/stat plus every process once a second during a run.

    Attribution: the machine-wide busy time (user+nice+system+irq+softirq)
    minus mariadbd, sysbench (rusage of the reaped child) and this script.
    The per-process sampling names the main 'other' consumers (processes
    started during the window count from their start)."""

    def __init__(self, exclude_pids):
        self.exclude = set(exclude_pids)
        self.t0 = time.monotonic()
        self.stat0 = read_proc_stat()
        self.self0 = resource.getrusage(resource.RUSAGE_SELF)
        self.jiffy0 = boot_jiffies_now()
        self.prev = all_proc_times()
        self.per_comm = {}

    def sample(self):
        cur = all_proc_times()
        for pid, (comm, t, start) in cur.items():
            if pid in self.exclude or pid == os.getpid():
                continue
            p = self.prev.get(pid)
            if p is not None and p[2] == start:
                d = t - p[1]
            elif start >= self.jiffy0:
                d = t  # born inside the window
            else:
                d = 0  # first seen now but older: cannot attribute
            if d > 0:
                self.per_comm[comm] = self.per_comm.get(comm, 0) + d
        self.prev = cur

    def finish(self, mariadbd_jiffies, sysbench_seconds):
        self.sample()
        elapsed = time.monotonic() - self.t0
        s1 = read_proc_stat()
        d = {k: s1[k] - self.stat0[k] for k in s1}
        busy = cpu_busy(d)
        total = cpu_total(d) or 1
        self1 = resource.getrusage(resource.RUSAGE_SELF)
        self_s = ((self1.ru_utime - self.self0.ru_utime)
                  + (self1.ru_stime - self.self0.ru_stime))
        ncpu = os.cpu_count()
        cap = elapsed * ncpu  # cpu-seconds available
        busy_s = busy / HZ
        mdb_s = mariadbd_jiffies / HZ
        other_s = max(0.0, busy_s - mdb_s - sysbench_seconds - self_s)
        top = sorted(self.per_comm.items(), key=lambda kv: -kv[1])[:8]
        return {
            "window_s": round(elapsed, 2),
            "cpus": ncpu,
            "busy_pct": round(100.0 * busy_s / cap, 2),
            "mariadbd_cpu_pct": round(100.0 * mdb_s / cap, 2),
            "sysbench_cpu_pct": round(100.0 * sysbench_seconds / cap, 2),
            "capture_tool_cpu_pct": round(100.0 * self_s / cap, 2),
            "other_cpu_pct": round(100.0 * other_s / cap, 2),
            "other_cpu_cores": round(other_s / elapsed, 3),
            "iowait_pct": round(100.0 * d["iowait"] / total, 2),
            "steal_pct": round(100.0 * d["steal"] / total, 2),
            "top_other": [{"comm": c, "cpu_s": round(j / HZ, 2)} for c, j in top],
        }


def other_busy_pct(seconds, exclude_pids=()):
    """Machine busy % (of all cores) over `seconds`, excluding the given
    processes and this one: how loaded the host is by neighbours."""
    s0 = read_proc_stat()
    p0 = {p: (proc_times(p) or ("", 0, 0))[1] for p in exclude_pids}
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.monotonic()
    time.sleep(seconds)
    s1 = read_proc_stat()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    el = time.monotonic() - t0
    busy = cpu_busy({k: s1[k] - s0[k] for k in s1}) / HZ
    for p in exclude_pids:
        busy -= ((proc_times(p) or ("", 0, 0))[1] - p0[p]) / HZ
    busy -= (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return max(0.0, 100.0 * busy / (el * os.cpu_count()))


def cpu_probe(args):
    """Events per second of `sysbench cpu` on one thread for --cpu-probe seconds: the VM's
    effective core speed at the time (it varies with the host's load: the same point ran
    42 % slower, at 64 % more CPU per transaction, nine hours apart; traces/local-vm/idle)."""
    if not args.cpu_probe:
        return None
    r = run([SYSBENCH, "cpu", "--threads=1", "--time=%d" % args.cpu_probe, "run"])
    m = re.search(r"events per second:\s+([\d.]+)", r.stdout)
    if not m:
        raise RuntimeError("sysbench cpu printed no events per second:\n" + r.stdout[-500:])
    return float(m.group(1))


def wait_for_quiet(args, name):
    """Wait up to --quiet-wait s for neighbours to use < --quiet-threshold %
    of the host's CPU (measured over 5 s). Returns (waited_s, last_pct)."""
    if args.quiet_wait <= 0:
        return 0, None
    t0 = time.monotonic()
    while True:
        pct = other_busy_pct(5)
        waited = time.monotonic() - t0
        if pct < args.quiet_threshold or waited >= args.quiet_wait:
            if waited > 6:
                log("%s: waited %.0fs for a quiet host (other cpu now %.0f%%)" % (name, waited, pct))
            return round(waited, 1), round(pct, 1)


# ---------------------------------------------------------------- mariadbd

class Server:
    def __init__(self, args, loc, datadir, bp_bytes, rundir):
        self.args, self.loc, self.datadir = args, loc, datadir
        self.bp = bp_bytes
        self.rundir = rundir
        self.sock = os.path.join(rundir, "mysqld.sock")
        self.cnf = os.path.join(rundir, "my.cnf")
        self.errlog = os.path.join(rundir, "mariadbd.err")
        self.proc = None

    def flush_method(self):
        return "fsync" if self.loc == "tmpfs" else self.args.flush_method

    def settings(self, prepare=False):
        a = self.args
        s = [
            ("datadir", self.datadir),
            ("socket", self.sock),
            ("pid-file", os.path.join(self.rundir, "mysqld.pid")),
            ("log-error", self.errlog),
            ("tmpdir", self.rundir),
            ("user", "mysql"),
            ("skip-networking", None),
            ("skip-name-resolve", None),
            ("skip-log-bin", None),
            ("sync_binlog", 0),
            ("performance_schema", "ON" if a.perf_schema else "OFF"),
            ("max_connections", max(200, max(a.threads) * 2 + 20)),
            ("max_prepared_stmt_count", 100000),
            ("innodb_buffer_pool_size", self.bp),
            ("innodb_log_file_size", a.log_file_size),
            ("innodb_log_buffer_size", "64M"),
            ("innodb_flush_method", self.flush_method()),
            ("innodb_flush_log_at_trx_commit", 2 if prepare else 1),
            ("innodb_doublewrite", 1),
            ("innodb_file_per_table", 1),
            ("innodb_io_capacity", a.io_capacity),
            ("innodb_io_capacity_max", a.io_capacity_max or 2 * a.io_capacity),
            ("innodb_buffer_pool_dump_at_shutdown", 0),
            ("innodb_buffer_pool_load_at_startup", 0),
            ("innodb_fast_shutdown", 0 if prepare else 1),
        ]
        if a.perf_schema:
            # every wait, stage and statement instrument, timed; the InnoDB
            # monitor counters too.  Diagnostic only: timing every mutex costs CPU.
            s += [("performance_schema_instrument", "%=ON"),
                  ("performance_schema_consumer_events_stages_current", "ON"),
                  ("performance_schema_consumer_events_waits_current", "ON"),
                  ("innodb_monitor_enable", "all")]
        for extra in a.mysqld_opt:
            k, _, v = extra.partition("=")
            s.append((k, v if _ else None))
        return s

    def write_cnf(self, prepare=False):
        with open(self.cnf, "w") as f:
            f.write("# written by calibrate/capture.py\n[mysqld]\n")
            for k, v in self.settings(prepare):
                f.write("%s\n" % k if v is None else "%s = %s\n" % (k, v))

    def start(self, prepare=False):
        os.makedirs(self.rundir, exist_ok=True)
        shutil.chown(self.rundir, "mysql", "mysql")
        self.write_cnf(prepare)
        if os.path.exists(self.errlog):
            os.unlink(self.errlog)
        self.proc = subprocess.Popen([MARIADBD, "--defaults-file=" + self.cnf],
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.time() + 600
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("mariadbd exited (%s); see %s:\n%s" % (
                    self.proc.returncode, self.errlog, self.tail_err()))
            if os.path.exists(self.sock):
                r = self.sql("SELECT 1", check=False, as_root=True)
                if r.returncode == 0:
                    return
            time.sleep(0.5)
        raise RuntimeError("mariadbd did not come up:\n" + self.tail_err())

    def tail_err(self):
        try:
            with open(self.errlog) as f:
                return "".join(f.readlines()[-30:])
        except OSError:
            return "(no error log)"

    @property
    def pid(self):
        return self.proc.pid

    def sql(self, q, check=True, as_root=True, db=None):
        cmd = [MARIADB, "--no-defaults", "-S", self.sock, "-N", "-B",
               "-u", "root" if as_root else DB_USER]
        if not as_root:
            cmd.append("-p" + DB_PASS)
        if db:
            cmd.append(db)
        cmd += ["-e", q]
        return run(cmd, check=check, timeout=600)

    def dump_tsv(self, q, path):
        r = self.sql(q)
        with open(path, "w") as f:
            f.write(r.stdout)

    def stop(self):
        if not self.proc:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=1800)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


# performance_schema / INNODB_METRICS dumps of --perf-schema, one file each:
# the measured run's waits, stages and statements split by user (sbtest = the
# client connections, NULL = server background threads such as the page cleaner).
PFS_DUMPS = {
    "pfs_waits.tsv":
        "SELECT IFNULL(USER,'(background)'), EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT, MAX_TIMER_WAIT "
        "FROM performance_schema.events_waits_summary_by_user_by_event_name "
        "WHERE COUNT_STAR > 0 ORDER BY SUM_TIMER_WAIT DESC",
    "pfs_stages.tsv":
        "SELECT IFNULL(USER,'(background)'), EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT, MAX_TIMER_WAIT "
        "FROM performance_schema.events_stages_summary_by_user_by_event_name "
        "WHERE COUNT_STAR > 0 ORDER BY SUM_TIMER_WAIT DESC",
    "pfs_statements.tsv":
        "SELECT IFNULL(SCHEMA_NAME,''), COUNT_STAR, SUM_TIMER_WAIT, SUM_LOCK_TIME, MAX_TIMER_WAIT, "
        "SUM_ROWS_EXAMINED, SUM_ROWS_AFFECTED, DIGEST_TEXT "
        "FROM performance_schema.events_statements_summary_by_digest "
        "WHERE COUNT_STAR > 0 ORDER BY SUM_TIMER_WAIT DESC",
}
PFS_TRUNCATE = ("TRUNCATE TABLE performance_schema.events_waits_summary_by_user_by_event_name; "
                "TRUNCATE TABLE performance_schema.events_stages_summary_by_user_by_event_name; "
                "TRUNCATE TABLE performance_schema.events_statements_summary_by_digest")
METRICS_QUERY = ("SELECT NAME, COUNT FROM information_schema.INNODB_METRICS "
                 "WHERE ENABLED = 1 ORDER BY NAME")


class PerfSched:
    """--perf-sched S: `perf sched record` of every CPU for S seconds from the middle of
    the measured run; keeps `perf sched latency` (per task: run time, context switches,
    mean and max delay from wake-up to running) as perf_sched_latency.txt, per thread the
    sums of `perf sched timehist` (sleep, wait for a CPU, run time, and the wait of runs that
    followed an idle CPU) as perf_sched_timehist.tsv, per command the bursts' distributions
    as perf_sched_bursts.tsv, and with --perf-sched-raw every line of `timehist -w` in WORK."""

    def __init__(self, args, outdir, connections):
        self.data = os.path.join(args.work, "perf-sched.data")
        self.out = os.path.join(outdir, "perf_sched_latency.txt")
        self.keep_raw = (os.path.join(args.work, os.path.basename(outdir.rstrip("/")).replace(".partial", "") +
                                      "-timehist.txt.gz") if args.perf_sched_raw else None)
        self.proc = None
        self.connections = connections  # the point's client threads (one server thread each)
        delay = max(0.0, (args.duration - args.perf_sched) / 2.0)
        self.timer = threading.Timer(delay, self._start, (args.perf_sched,))
        self.timer.start()

    def _start(self, seconds):
        self.proc = subprocess.Popen([PERF, "sched", "record", "-a", "-o", self.data,
                                      "--", "sleep", str(seconds)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def finish(self):
        self.timer.join()
        if self.proc is None or self.proc.wait(timeout=600) != 0:
            raise RuntimeError("perf sched record failed (is perf installed and tracefs mounted?)")
        r = run([PERF, "sched", "latency", "-i", self.data])
        with open(self.out, "w") as f:
            f.write(r.stdout)
        # per thread, summed over the window: times switched in, sleep before each
        # wake-up (wait time, includes the sch delay), wait for a CPU after it (sch delay),
        # run time; and the sch delay of the runs that followed an idle CPU (no queue to
        # wait in: what is left is the cost of waking an idle CPU)
        r = run([PERF, "sched", "timehist", "-i", self.data])
        sums, last_on_cpu = {}, {}
        for line in r.stdout.splitlines():
            f = line.split()
            if len(f) < 6 or not f[1].startswith("["):
                continue
            try:
                wait, delay, ran = float(f[-3]), float(f[-2]), float(f[-1])
            except ValueError:
                continue
            task = " ".join(f[2:-3])
            acc = sums.setdefault(task, [0, 0.0, 0.0, 0.0, 0, 0.0])
            acc[0] += 1
            acc[1] += wait
            acc[2] += delay
            acc[3] += ran
            if last_on_cpu.get(f[1], "").startswith("<idle>"):
                acc[4] += 1
                acc[5] += delay
            last_on_cpu[f[1]] = task
        with open(self.out.replace("latency.txt", "timehist.tsv"), "w") as f:
            f.write("task\tswitched_in\twait_ms\tsch_delay_ms\trun_ms"
                    "\tafter_idle\tafter_idle_sch_delay_ms\n")
            for task, a in sorted(sums.items(), key=lambda kv: -kv[1][3]):
                f.write("%s\t%d\t%.3f\t%.3f\t%.3f\t%d\t%.3f\n" % (task, *a))
        write_burst_distributions(r.stdout, self.out.replace("latency.txt", "bursts.tsv"), self.connections)
        if self.keep_raw:
            # Every switch, for offline analysis (tens of MB: kept in the scratch area, not the trace).
            import gzip
            w = run([PERF, "sched", "timehist", "-w", "-i", self.data])  # with the wake-up events
            with gzip.open(self.keep_raw, "wt") as f:
                f.write(w.stdout)
        os.unlink(self.data)


SERVER_COMMANDS = ("mariadbd", "mysqld")
# A "long" CPU burst: over 1 ms, ~4x the p99 of a connection thread's burst on the VM
# (traces/local-vm/sched-threads/README.md): beyond the statements' gamma body.
LONG_BURST_US = 1000.0


def write_burst_distributions(timehist, path, connections=0):
    """Per command (all its threads together), the distribution of CPU bursts (run time from
    switch-in to switch-out) and of the wait for a CPU after a wake-up (sch delay), from `perf
    sched timehist` lines: count, mean, squared coefficient of variation (the variability a
    queue's waits scale with: (1 + SCV) / 2 for M/G/c) and quantiles. Commands that ran fewer
    than 100 times in the window are left out; long_count / long_mean_us count the bursts (or
    waits) over LONG_BURST_US. With `connections` (the client threads), the
    server's threads are also split into two derived rows, `<server>:connections` (the
    `connections` threads that ran longest: one per client) and `<server>:background` (the rest:
    page cleaner, purge, the task pool), which readers that pool commands must skip."""
    runs, delays = {}, {}
    by_thread = {}  # server thread id -> (comm, [run us], [delay us])
    for line in timehist.splitlines():
        f = line.split()
        if len(f) < 6 or not f[1].startswith("["):
            continue
        try:
            delay, ran = float(f[-2]), float(f[-1])
        except ValueError:
            continue
        comm = re.sub(r"\[.*$", "", " ".join(f[2:-3]))
        if comm.startswith("<idle>"):
            continue
        runs.setdefault(comm, []).append(ran * 1e3)     # ms -> us
        delays.setdefault(comm, []).append(delay * 1e3)
        tid = re.search(r"\[(\d+)", " ".join(f[2:-3]))
        if connections and comm in SERVER_COMMANDS and tid:
            t = by_thread.setdefault(tid.group(1), (comm, [], []))
            t[1].append(ran * 1e3)
            t[2].append(delay * 1e3)
    if by_thread:
        longest = sorted(by_thread, key=lambda k: -sum(by_thread[k][1]))
        for rank, k in enumerate(longest):
            comm, r, d = by_thread[k]
            name = comm + (":connections" if rank < connections else ":background")
            runs.setdefault(name, []).extend(r)
            delays.setdefault(name, []).extend(d)

    def describe(v):
        v = sorted(v)
        n = len(v)
        mean = sum(v) / n
        var = sum((x - mean) ** 2 for x in v) / n
        q = lambda p: v[min(n - 1, int(p * n))]
        long = [x for x in v if x > LONG_BURST_US]
        return [n, mean, var / mean ** 2 if mean > 0 else 0.0, q(0.5), q(0.9), q(0.99), v[-1],
                len(long), sum(long) / len(long) if long else 0.0]

    with open(path, "w") as f:
        f.write("comm\twhat\tcount\tmean_us\tscv\tp50_us\tp90_us\tp99_us\tmax_us\tlong_count\tlong_mean_us\n")
        for comm in sorted(runs, key=lambda c: -sum(runs[c])):
            if len(runs[comm]) < 100:
                continue
            for what, v in (("run", runs[comm]), ("sch_delay", delays[comm])):
                d = describe(v)
                f.write("%s\t%s\t%d\t%.1f\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%.1f\n" % (comm, what, *d))


def preload(args, srv):
    """Read every table's clustered and secondary index once (in parallel),
    so a pool bigger than the data starts the warm-up already full."""
    procs = []
    for i in range(1, args.tables + 1):
        q = ("SELECT SUM(LENGTH(c)) FROM sbtest%d FORCE INDEX (PRIMARY); "
             "SELECT SUM(k) FROM sbtest%d FORCE INDEX (k_%d);" % (i, i, i))
        procs.append(subprocess.Popen(
            [MARIADB, "--no-defaults", "-S", srv.sock, "-N", "-B", "-u", "root",
             DB_NAME, "-e", q], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
    for p in procs:
        _, err = p.communicate(timeout=1800)
        if p.returncode != 0:
            raise RuntimeError("preload failed: %s" % err.decode()[-500:])


# ---------------------------------------------------------------- sysbench

def sysbench_cmd(args, srv, threads, seconds, action="run", rate=0):
    return [SYSBENCH, args.test,
            "--db-driver=mysql", "--mysql-socket=" + srv.sock,
            "--mysql-user=" + DB_USER, "--mysql-password=" + DB_PASS,
            "--mysql-db=" + DB_NAME,
            "--tables=%d" % args.tables, "--table-size=%d" % args.table_size,
            "--rand-type=" + args.rand_type, "--range-size=%d" % args.range_size,
            "--threads=%d" % threads, "--time=%d" % seconds,
            "--rate=%d" % rate,
            "--report-interval=%d" % args.report_interval,
            "--percentile=%d" % args.percentile, "--histogram=off", action]


def run_sysbench(cmd, logpath, sampler=None):
    """Run sysbench writing to logpath; returns (exit code, cpu seconds)."""
    with open(logpath, "w") as out:
        out.write("# " + " ".join(c if "password" not in c else "--mysql-password=***"
                                  for c in cmd) + "\n")
        out.flush()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        if sampler:
            sampler.exclude.add(p.pid)
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            if sampler:
                sampler.sample()
            time.sleep(1.0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, ru.ru_utime + ru.ru_stime


_FINAL = {
    "transactions": re.compile(r"^\s*transactions:\s+(\d+)\s+\(([\d.]+) per sec"),
    "queries": re.compile(r"^\s*queries:\s+(\d+)\s+\(([\d.]+) per sec"),
    "errors": re.compile(r"^\s*ignored errors:\s+(\d+)"),
    "p95": re.compile(r"^\s*(\d+)th percentile:\s+([\d.]+)"),
    "avg": re.compile(r"^\s*avg:\s+([\d.]+)"),
    "time": re.compile(r"^\s*total time:\s+([\d.]+)s"),
}


def server_settings(variables_path):
    """meta.yaml's server settings from the server's variables (name TAB value), where it printed them."""
    try:
        with open(variables_path) as f:
            v = dict(line.rstrip("\n").split("\t", 1) for line in f if "\t" in line)
    except OSError:
        return {}
    out = {}
    on = {"ON": True, "1": True, "OFF": False, "0": False}
    for key, name in (("flush_log_at_trx_commit", "innodb_flush_log_at_trx_commit"), ("sync_binlog", "sync_binlog"),
                      ("io_capacity", "innodb_io_capacity"), ("io_capacity_max", "innodb_io_capacity_max")):
        if v.get(name, "").isdigit():
            out[key] = int(v[name])
    for key, name in (("doublewrite", "innodb_doublewrite"), ("binlog", "log_bin")):
        if v.get(name) in on:
            out[key] = on[v[name]]
    if v.get("innodb_log_file_size", "").isdigit():
        out["log_file_size"] = size_unit(int(v["innodb_log_file_size"]))
    return out


def parse_sysbench(path):
    res = {}
    with open(path) as f:
        for line in f:
            for k, rx in _FINAL.items():
                m = rx.match(line)
                if not m:
                    continue
                if k in ("transactions", "queries"):
                    res[k] = int(m.group(1))
                    res[k + "_per_s"] = float(m.group(2))
                elif k == "p95":
                    res["lat_p%s_ms" % m.group(1)] = float(m.group(2))
                elif k == "errors":
                    res["ignored_errors"] = int(m.group(1))
                elif k == "avg":
                    res["lat_avg_ms"] = float(m.group(1))
                elif k == "time":
                    res["total_time_s"] = float(m.group(1))
    out = {}
    if "transactions_per_s" in res:
        out["tps"] = res["transactions_per_s"]
    if "queries_per_s" in res:
        out["qps"] = res["queries_per_s"]
    for k in sorted(res):
        if k.startswith("lat_") or k in ("ignored_errors", "total_time_s"):
            out[k] = res[k]
    return out


# ---------------------------------------------------------------- fio

def fio_jobs(loc):
    direct = 0 if loc == "tmpfs" else 1  # O_DIRECT is refused by tmpfs
    jobs = []
    for qd in FIO_QDS:
        jobs.append(("randread-16k-qd%d" % qd,
                     ["--rw=randread", "--bs=16k", "--iodepth=%d" % qd,
                      "--direct=%d" % direct, "--ioengine=libaio"]))
    jobs.append(("randwrite-16k-fsync-qd1",
                 ["--rw=randwrite", "--bs=16k", "--iodepth=1", "--fsync=1",
                  "--direct=%d" % direct, "--ioengine=libaio"]))
    # Page-cleaner-like writes at depth: the device's write service and
    # throughput, which the read jobs do not show.
    for qd in FIO_WRITE_QDS:
        jobs.append(("randwrite-16k-qd%d" % qd,
                     ["--rw=randwrite", "--bs=16k", "--iodepth=%d" % qd,
                      "--direct=%d" % direct, "--ioengine=libaio"]))
    # Reads while writes flow (70/30, as an IO-bound OLTP run mixes them).
    jobs.append(("randrw70-16k-qd16",
                 ["--rw=randrw", "--rwmixread=70", "--bs=16k", "--iodepth=16",
                  "--direct=%d" % direct, "--ioengine=libaio"]))
    # Redo-log-like appends: small sequential writes, each made durable.
    jobs.append(("write-4k-fdatasync-qd1",
                 ["--rw=write", "--bs=4k", "--iodepth=1", "--fdatasync=1",
                  "--direct=%d" % direct, "--ioengine=libaio"]))
    return jobs


def run_fio(args, loc, fio_dir, outdir):
    os.makedirs(fio_dir, exist_ok=True)
    os.makedirs(outdir, exist_ok=True)
    fname = os.path.join(fio_dir, "fio.dat")
    for name, opts in fio_jobs(loc):
        dest = os.path.join(outdir, name + ".json")
        if os.path.exists(dest) and not args.redo_fio:
            continue
        cmd = [FIO, "--name=" + name, "--filename=" + fname,
               "--size=" + args.fio_size, "--runtime=%d" % args.fio_runtime,
               "--time_based=1", "--ramp_time=1", "--numjobs=1",
               "--randrepeat=0", "--norandommap=1", "--group_reporting=1",
               "--output-format=json", "--output=" + dest] + opts
        log("fio %s %s" % (loc, name))
        run(cmd, timeout=3600)
    if not args.keep_fio_file and os.path.exists(fname):
        os.unlink(fname)


def fio_summary(path):
    with open(path) as f:
        txt = f.read()
    # fio may print warnings before the JSON object
    j = json.loads(txt[txt.index("{"):])
    job = j["jobs"][0]
    side = job["read"] if job["read"]["io_bytes"] > 0 else job["write"]
    lat = side.get("lat_ns") or {}
    pct = (side.get("clat_ns") or {}).get("percentile", {})
    out = {"iops": round(side["iops"], 1),
           "lat_mean_us": round(lat.get("mean", 0) / 1000.0, 1),
           "clat_p99_us": round(pct.get("99.000000", 0) / 1000.0, 1)}
    sync = (job.get("sync") or {}).get("lat_ns") or {}
    if sync.get("N"):
        out["fsync_mean_us"] = round(sync["mean"] / 1000.0, 1)
    return out


# ---------------------------------------------------------------- data set

def install_db(datadir):
    os.makedirs(datadir, exist_ok=True)
    shutil.chown(datadir, "mysql", "mysql")
    run([INSTALL_DB, "--no-defaults", "--datadir=" + datadir, "--user=mysql",
         "--auth-root-authentication-method=socket", "--skip-test-db"],
        timeout=600)


def prepare_dataset(args):
    """Create the pristine prepared datadir once (sysbench prepare)."""
    pristine = os.path.join(args.work, "prepared", "datadir")
    marker = os.path.join(args.work, "prepared", "PREPARED.json")
    key = {"tables": args.tables, "table_size": args.table_size, "test": args.test}
    if os.path.exists(marker):
        with open(marker) as f:
            have = json.load(f)
        if all(have.get(k) == v for k, v in key.items()):
            return pristine, have
        raise RuntimeError("%s was prepared with %s; remove %s to re-prepare"
                           % (pristine, have, os.path.dirname(pristine)))
    if os.path.exists(pristine):
        shutil.rmtree(pristine)
    log("preparing data set: %d tables x %d rows in %s" % (
        args.tables, args.table_size, pristine))
    install_db(pristine)
    rundir = os.path.join(args.work, "run")
    srv = Server(args, "disk", pristine, max(parse_size("2G"), max(args.bp)), rundir)
    t0 = time.time()
    try:
        srv.start(prepare=True)
        srv.sql("CREATE DATABASE IF NOT EXISTS %s; "
                "CREATE USER IF NOT EXISTS '%s'@'localhost' IDENTIFIED BY '%s'; "
                "GRANT ALL ON %s.* TO '%s'@'localhost';"
                % (DB_NAME, DB_USER, DB_PASS, DB_NAME, DB_USER))
        cmd = sysbench_cmd(args, srv, min(args.tables, 8), 0, "prepare")
        cmd = [c for c in cmd if not c.startswith(("--time", "--report", "--percentile", "--histogram"))]
        rc, _ = run_sysbench(cmd, os.path.join(args.work, "prepared", "prepare.log"))
        if rc != 0:
            raise RuntimeError("sysbench prepare failed, see prepared/prepare.log")
        srv.sql("SET GLOBAL innodb_fast_shutdown = 0")
    finally:
        srv.stop()
    info = dict(key)
    info["prepare_s"] = round(time.time() - t0, 1)
    info["datadir_bytes"] = du_bytes(pristine)
    info["sbtest_bytes"] = du_bytes(os.path.join(pristine, DB_NAME))
    info["prepared_at"] = now_iso()
    with open(marker, "w") as f:
        json.dump(info, f, indent=1)
    log("prepared in %.0fs: datadir %d bytes, sbtest %d bytes" % (
        info["prepare_s"], info["datadir_bytes"], info["sbtest_bytes"]))
    return pristine, info


def location_datadir(args, loc, pristine):
    """Datadir for a location: a copy of the pristine prepared one, reused
    by every point of that location."""
    if loc == "disk":
        base = os.path.join(args.work, "disk")
        os.makedirs(base, exist_ok=True)
    else:
        base = os.path.join(args.work, "tmpfs")
        os.makedirs(base, exist_ok=True)
        if not is_mountpoint(base):
            run(["mount", "-t", "tmpfs", "-o", "size=%s,mode=0755" % args.tmpfs_size,
                 "poolsim-tmpfs", base])
    datadir = os.path.join(base, "datadir")
    marker = os.path.join(base, "COPIED")
    if not os.path.exists(marker):
        if os.path.exists(datadir):
            shutil.rmtree(datadir)
        log("copying prepared datadir to %s" % datadir)
        run(["cp", "-a", pristine, datadir], timeout=3600)
        copied = now_iso()
        with open(marker, "w") as f:
            f.write(copied + "\n")
        with open(age_path(base), "w") as f:
            json.dump({"copied": copied, "transactions": 0}, f, indent=1)
        if args.age_transactions > 0:
            age_dataset(args, loc, base, datadir)
    return base, datadir


# The data set's age: sysbench builds each table's index k after loading its rows, packed full, so a
# fresh copy splits k leaves at most inserts and each split logs about a page of redo (0.46 splits per
# transaction on the first runs of a fresh copy, 0.04-0.05 on an aged one: traces/local-vm, README
# "Session 34"). AGE.json beside a location's copy counts the transactions run on it since the copy.
def age_path(base):
    return os.path.join(base, "AGE.json")


def read_age(base):
    """{"copied": iso, "transactions": n}; transactions None for a copy made before the ledger."""
    try:
        with open(age_path(base)) as f:
            return json.load(f)
    except FileNotFoundError:
        copied = None
        marker = os.path.join(base, "COPIED")
        if os.path.exists(marker):
            with open(marker) as f:
                copied = f.read().strip() or None
        return {"copied": copied, "transactions": None}


def add_age(base, transactions):
    age = read_age(base)
    if age.get("transactions") is not None and transactions:
        age["transactions"] += int(transactions)
        with open(age_path(base), "w") as f:
            json.dump(age, f, indent=1)
    return age


def sysbench_transactions(path):
    """Transactions a sysbench log reports (0 when it has no summary)."""
    try:
        with open(path) as f:
            for line in f:
                m = _FINAL["transactions"].match(line)
                if m:
                    return int(m.group(1))
    except FileNotFoundError:
        pass
    return 0


def age_dataset(args, loc, base, datadir):
    """Runs --age-transactions transactions of the capture's workload on a fresh copy (16 threads or
    more, a pool of the matrix's largest size), so its index k is past its first splits before any
    point is measured."""
    rundir = os.path.join(args.work, "run")
    srv = Server(args, loc, datadir, max(args.bp), rundir)
    logpath = os.path.join(base, "age.log")
    log("ageing the %s copy: %d transactions" % (loc, args.age_transactions))
    srv.start()
    try:
        cmd = sysbench_cmd(args, srv, max(16, max(args.threads)), 0)
        cmd.insert(-1, "--events=%d" % args.age_transactions)
        rc, _ = run_sysbench(cmd, logpath)
        if rc != 0:
            raise RuntimeError("ageing sysbench failed rc=%d (see %s)" % (rc, logpath))
    finally:
        srv.stop()
    age = add_age(base, sysbench_transactions(logpath))
    log("aged the %s copy: %s transactions since the copy" % (loc, age.get("transactions")))


def release_location(args, loc):
    if loc == "tmpfs":
        base = os.path.join(args.work, "tmpfs")
        if is_mountpoint(base) and not args.keep_tmpfs:
            run(["umount", base], check=False)


# ---------------------------------------------------------------- one point

def host_info():
    with open("/proc/meminfo") as f:
        kb = int(f.readline().split()[1])
    gib = int(round(kb / (1 << 20)))
    info = {"cores": os.cpu_count(), "memory": "%dGiB" % gib}
    # The host's CPU: the same VM kind lands on different hosts, whose cores differ by more than
    # the sysbench cpu probe shows (traces/local-vm/second-host/README.md).
    cpu = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "cpu family", "model", "stepping") and key not in cpu:
                cpu[key] = value.strip()
            if not line.strip() and cpu:
                break
    if cpu:
        info["cpu_model"] = "%s (family %s, model %s, stepping %s)" % (
            cpu.get("model name", "?"), cpu.get("cpu family", "?"), cpu.get("model", "?"), cpu.get("stepping", "?"))
    # DAMON (kdamond): a guest kernel's proactive reclaim, set up by the VM's image, whose CPU and
    # long bursts differ by host (traces/local-vm/sched-threads/README.md): "<state> <operations>
    # <scheme actions>" per kdamond.
    damon = []
    root = "/sys/kernel/mm/damon/admin/kdamonds"
    try:
        for k in sorted(os.listdir(root)):
            if not k.isdigit():
                continue
            def read(*parts):
                try:
                    with open(os.path.join(root, k, *parts)) as f:
                        return f.read().strip()
                except OSError:
                    return "?"
            ctx = os.path.join(root, k, "contexts")
            ops, actions = [], []
            for c in sorted(x for x in os.listdir(ctx) if x.isdigit()):
                ops.append(read("contexts", c, "operations"))
                schemes = os.path.join(ctx, c, "schemes")
                actions += [read("contexts", c, "schemes", s_, "action")
                            for s_ in sorted(x for x in os.listdir(schemes) if x.isdigit())]
            damon.append(" ".join([read("state"), ",".join(ops) or "-", ",".join(actions) or "-"]))
    except OSError:
        pass
    if damon:
        info["damon"] = "; ".join(damon)
    return info


def completion_cpus(dev):
    """How many CPUs take the block device's completion interrupts: the CPUs holding at least 5 %
    of the interrupts (since boot) of the lines /proc/interrupts names after its controller
    (virtioN-req.*, nvmeNq*). None when the lines are not found."""
    try:
        ctrl = os.path.basename(os.path.realpath("/sys/block/%s/device" % dev))
    except OSError:
        return None
    prefix = ctrl + "-req" if ctrl.startswith("virtio") else (ctrl + "q" if ctrl.startswith("nvme") else None)
    if prefix is None:
        return None
    per_cpu = None
    with open("/proc/interrupts") as f:
        ncpu = len(f.readline().split())
        for line in f:
            fields = line.split()
            if not fields or not fields[-1].startswith(prefix):
                continue
            counts = [int(x) for x in fields[1:1 + ncpu]]
            per_cpu = counts if per_cpu is None else [a + b for a, b in zip(per_cpu, counts)]
    if not per_cpu or sum(per_cpu) == 0:
        return None
    return sum(1 for c in per_cpu if c >= 0.05 * sum(per_cpu))


def storage_info(args, loc, datadir):
    if loc == "tmpfs":
        return {"kind": "tmpfs", "device": "tmpfs", "fs": "tmpfs"}
    dev = block_device_name(datadir)
    _, fs, _ = mount_info(datadir)
    info = {"kind": args.storage_kind or storage_kind_for(dev),
            "device": dev or "unknown", "fs": fs}
    if dev:
        # the request queues, and the CPUs their completions interrupt (calibrate models a
        # single interrupt CPU: poolsim's completion_interrupts: one-core)
        mq = "/sys/block/%s/mq" % dev
        if os.path.isdir(mq):
            info["queues"] = len(os.listdir(mq))
        cpus = completion_cpus(dev)
        if cpus:
            info["completion_cpus"] = cpus
    return info


def read_file(path):
    with open(path) as f:
        return f.read()


class Quoted(str):
    """A string written double-quoted (versions: "10.11.19", "1.0.20")."""


def write_meta(path, meta):
    class D(yaml.SafeDumper):
        pass
    D.add_representer(Quoted, lambda d, v: d.represent_scalar(
        "tag:yaml.org,2002:str", str(v), style='"'))
    txt = yaml.dump(meta, Dumper=D, sort_keys=False, default_flow_style=None,
                    width=4096, allow_unicode=False)
    with open(path, "w") as f:
        f.write("# poolsim trace: written by calibrate/capture.py (see traces/README.md)\n")
        f.write(txt)
    yaml.safe_load(read_file(path))  # sanity


def status_value(tsv, name):
    for line in tsv.splitlines():
        k, _, v = line.partition("\t")
        if k == name:
            return v
    return None


def capture_point(args, loc, bp, threads, name, datadir, fio_outdir, dataset, base=None):
    final = os.path.join(args.out, name)
    tmp = final + ".partial"
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    os.makedirs(tmp)
    rundir = os.path.join(args.work, "run")
    srv = Server(args, loc, datadir, bp, rundir)
    log("=== %s: start mariadbd (bp=%s, flush_method=%s)" % (name, size_tag(bp), srv.flush_method()))
    if args.drop_caches:
        subprocess.run(["sync"])
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    waited, quiet_pct = wait_for_quiet(args, name)
    age = read_age(base) if base else {"copied": None, "transactions": None}
    probe_before = cpu_probe(args)
    started = now_iso()
    srv.start()
    try:
        version = srv.sql("SELECT VERSION()").stdout.strip()
        wt = args.warmup_threads or max(threads, 16)
        preload_s = None
        if args.preload == "always" or (
                args.preload == "auto" and dataset.get("sbtest_bytes")
                and bp >= dataset["sbtest_bytes"]):
            log("%s: preload (full scans of every table and index)" % name)
            t0 = time.time()
            preload(args, srv)
            preload_s = round(time.time() - t0, 1)
        if args.warmup > 0:
            log("%s: warm-up %ds, %d threads" % (name, args.warmup, wt))
            rc, _ = run_sysbench(sysbench_cmd(args, srv, wt, args.warmup),
                                 os.path.join(tmp, "warmup.log"))
            if rc != 0:
                raise RuntimeError("warm-up sysbench failed rc=%d" % rc)
        srv.dump_tsv("SHOW GLOBAL VARIABLES", os.path.join(tmp, "variables.tsv"))
        # before-snapshot, then the measured run
        srv.dump_tsv("SHOW GLOBAL STATUS", os.path.join(tmp, "status_before.tsv"))
        if args.perf_schema:
            srv.dump_tsv(METRICS_QUERY, os.path.join(tmp, "innodb_metrics_before.tsv"))
            srv.sql(PFS_TRUNCATE)
        shutil.copyfile("/proc/diskstats", os.path.join(tmp, "diskstats_before.txt"))
        mdb0 = proc_times(srv.pid)[1]
        sched = PerfSched(args, tmp, threads) if args.perf_sched else None
        sampler = CpuSampler([srv.pid])
        measured_start = now_iso()
        log("%s: measured run %ds, %d threads" % (name, args.duration, threads))
        rc, sb_cpu = run_sysbench(sysbench_cmd(args, srv, threads, args.duration, rate=args.rate),
                                  os.path.join(tmp, "sysbench.log"), sampler)
        mdb1 = proc_times(srv.pid)[1]
        cpu = sampler.finish(mdb1 - mdb0, sb_cpu)
        if sched:
            sched.finish()
        shutil.copyfile("/proc/diskstats", os.path.join(tmp, "diskstats_after.txt"))
        srv.dump_tsv("SHOW GLOBAL STATUS", os.path.join(tmp, "status_after.tsv"))
        # The indexes' pages as the run left them: ANALYZE TABLE refreshes mysql.innodb_index_stats,
        # whose n_leaf_pages and size come from the index segments (exact, not sampled). The
        # secondary index k, built sorted at prepare, grows its leaves with every transaction the
        # data set has seen (traces/README.md).
        srv.sql("ANALYZE TABLE " + ", ".join("%s.sbtest%d" % (DB_NAME, i) for i in range(1, args.tables + 1)))
        srv.dump_tsv("SELECT table_name, index_name, stat_name, stat_value FROM mysql.innodb_index_stats "
                     "WHERE database_name = '%s' AND stat_name IN ('n_leaf_pages', 'size') "
                     "ORDER BY table_name, index_name, stat_name" % DB_NAME, os.path.join(tmp, "index_stats.tsv"))
        if args.perf_schema:
            srv.dump_tsv(METRICS_QUERY, os.path.join(tmp, "innodb_metrics_after.tsv"))
            for fn, q in PFS_DUMPS.items():
                srv.dump_tsv(q, os.path.join(tmp, fn))
        if rc != 0:
            raise RuntimeError("measured sysbench failed rc=%d (see %s)" % (
                rc, os.path.join(tmp, "sysbench.log")))
        stb = read_file(os.path.join(tmp, "status_before.tsv"))
        pages_data = status_value(stb, "Innodb_buffer_pool_pages_data")
        pages_total = status_value(stb, "Innodb_buffer_pool_pages_total")
    finally:
        srv.stop()
        if os.path.exists(srv.errlog):
            shutil.copyfile(srv.errlog, os.path.join(tmp, "mariadbd.err"))
        # The copy has aged by whatever ran, kept or not.
        if base:
            add_age(base, sysbench_transactions(os.path.join(tmp, "warmup.log")) +
                    sysbench_transactions(os.path.join(tmp, "sysbench.log")))
    shutil.copyfile(srv.cnf, os.path.join(tmp, "my.cnf"))
    probe_after = cpu_probe(args)  # after the server stopped: nothing else busy

    # fio copies
    fio_files = sorted(os.listdir(fio_outdir)) if os.path.isdir(fio_outdir) else []
    if fio_files:
        os.makedirs(os.path.join(tmp, "fio"))
        for fn in fio_files:
            src = os.path.join(fio_outdir, fn)
            if os.path.getsize(src) <= FIO_COPY_LIMIT:
                shutil.copyfile(src, os.path.join(tmp, "fio", fn))

    summary = parse_sysbench(os.path.join(tmp, "sysbench.log"))
    server_vars = server_settings(os.path.join(tmp, "variables.tsv"))
    m = re.match(r"(\d+\.\d+\.\d+)", version)
    meta = {
        "engine": {"product": "mariadb", "version": Quoted(m.group(1) if m else version),
                   "build": version},
        "workload": {"tool": "sysbench", "version": Quoted(args.sysbench_version),
                     "test": args.test, "tables": args.tables,
                     "table_size": args.table_size, "rand_type": args.rand_type,
                     "range_size": args.range_size, "threads": threads,
                     "duration_s": args.duration, "rate": args.rate},
        # The settings as the server ran them (SHOW GLOBAL VARIABLES, variables.tsv): --mysqld-opt
        # can change any of them, and poolsim refuses a meta.yaml its variables.tsv contradicts.
        "server": dict({"buffer_pool": size_unit(bp), "flush_log_at_trx_commit": 1,
                        "doublewrite": True, "binlog": False, "sync_binlog": 0,
                        "io_capacity": args.io_capacity,
                        "flush_method": srv.flush_method(),
                        "io_capacity_max": args.io_capacity_max or 2 * args.io_capacity,
                        "log_file_size": size_unit(parse_size(args.log_file_size))}, **server_vars),
        "host": host_info(),
        "storage": storage_info(args, loc, datadir),
        "dataset": {"datadir_bytes": dataset.get("datadir_bytes"),
                    "sbtest_bytes": dataset.get("sbtest_bytes"),
                    # the copy this point ran on: when it was made from the prepared data set and
                    # the sysbench transactions run on it before this point's warm-up (null: a copy
                    # made before the count was kept)
                    "copied": age.get("copied"),
                    "transactions_before": age.get("transactions")},
        "capture": dict({
            "tool": "calibrate/capture.py",
            "started": started,
            "measured_started": measured_start,
            "finished": now_iso(),
            "location": loc,
            "quiet_wait_s": waited,
            "other_cpu_pct_at_start": quiet_pct,
            "preload_s": preload_s,
            "warmup_s": args.warmup,
            "warmup_threads": wt if args.warmup > 0 else 0,
            "pool_pages_data_before": int(pages_data) if pages_data else None,
            "pool_pages_total": int(pages_total) if pages_total else None,
            "fio": os.path.relpath(fio_outdir, args.out) if fio_files else None,
            "trace_set": args.trace_set or os.path.basename(args.out),
            "cpu_probe_eps_before": probe_before,
            "cpu_probe_eps_after": probe_after,
            "perf_schema": bool(args.perf_schema),
            "perf_sched_s": args.perf_sched or None,
        }, **cpu),
        "summary": summary,
    }
    write_meta(os.path.join(tmp, "meta.yaml"), meta)
    old_meta = os.path.join(final, "meta.yaml")
    if args.recapture_above is not None and os.path.exists(old_meta):
        with open(old_meta) as f:
            old_other = (yaml.safe_load(f).get("capture") or {}).get("other_cpu_pct")
        if old_other is not None and cpu["other_cpu_pct"] >= old_other:
            log("%s: keeping the earlier capture (other cpu %.1f%% <= new %.1f%%)" % (
                name, old_other, cpu["other_cpu_pct"]))
            shutil.rmtree(tmp)
            return meta
    if os.path.exists(final):
        shutil.rmtree(final)
    os.rename(tmp, final)
    log("%s: tps=%s p95=%sms other_cpu=%s%% (steal %s%%)" % (
        name, summary.get("tps"), summary.get("lat_p95_ms"),
        cpu["other_cpu_pct"], cpu["steal_pct"]))
    return meta


# ---------------------------------------------------------------- main

def needs_capture(args, name):
    """--skip-existing: missing, or (--recapture-above) too noisy."""
    meta = os.path.join(args.out, name, "meta.yaml")
    if not os.path.exists(meta):
        return True
    if args.recapture_above is None:
        return False
    with open(meta) as f:
        m = yaml.safe_load(f)
    other = (m.get("capture") or {}).get("other_cpu_pct")
    return other is not None and other > args.recapture_above


def point_name(loc, bp, threads, suffix=""):
    return "%s-bp%s-t%d%s" % (loc, size_tag(bp), threads, suffix)


def build_matrix(args):
    sfx = ("-rate%d" % args.rate if args.rate else "") + ("-pfs" if args.perf_schema else "")
    pts = []
    for loc in args.locations:
        for bp in args.bp:
            for t in args.threads:
                pts.append((loc, bp, t, point_name(loc, bp, t, sfx)))
    for spec in args.repeat:
        loc, bp, t = spec.split(":")
        bp, t = parse_size(bp), int(t)
        pts.append((loc, bp, t, point_name(loc, bp, t, "-repeat" + sfx)))
    if args.only:
        want = set(args.only)
        pts = [p for p in pts if p[3] in want]
    return pts


def status_tsv(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("\t")
                out[k] = v
    except OSError:
        pass
    return out


def report(args, out=None):
    """Print a markdown summary of the traces under --out (and of its fio results)."""
    out = out or sys.stdout

    def print(*a):
        out.write(" ".join(str(x) for x in a) + "\n")
    print("# %s: summary of the traces\n" % os.path.basename(args.out))
    print("Written by `calibrate/capture.py --report` (%s). Derived from each trace's "
          "meta.yaml, sysbench.log and status dumps; rates are per second of the "
          "measured run. other%% = CPU used by other processes, %% of all cores.\n" % now_iso())
    # The fio sets the traces ran with (capture.fio in their meta.yaml); other fio-* directories are
    # diagnostic subsets with their own README.
    referenced = set()
    for d in os.listdir(args.out):
        meta = os.path.join(args.out, d, "meta.yaml")
        if os.path.isfile(meta):
            with open(meta) as f:
                referenced.update(re.findall(r"^\s+fio: ([\w.-]+)\s*$", f.read(), re.M))
    for fd in sorted(os.listdir(args.out)):
        if fd in referenced and os.path.isdir(os.path.join(args.out, fd)):
            print("## %s\n" % fd)
            print("| job | IOPS | mean lat us | clat p99 us | fsync mean us |")
            print("|---|---|---|---|---|")
            names = sorted(os.listdir(os.path.join(args.out, fd)),
                           key=lambda n: ("write" in n, int(re.sub(r"\D", "", n.split("qd")[-1]) or 0)))
            for fn in (n for n in names if n.endswith(".json")):
                f = fio_summary(os.path.join(args.out, fd, fn))
                print("| %s | %.0f | %.1f | %.1f | %s |" % (
                    fn[:-5], f["iops"], f["lat_mean_us"], f["clat_p99_us"],
                    f.get("fsync_mean_us", "")))
            print("")
    print("## sysbench points\n")
    rows = []
    for name in sorted(os.listdir(args.out)):
        mp = os.path.join(args.out, name, "meta.yaml")
        if not os.path.exists(mp):
            continue
        with open(mp) as f:
            m = yaml.safe_load(f)
        d = os.path.join(args.out, name)
        b = status_tsv(os.path.join(d, "status_before.tsv"))
        a = status_tsv(os.path.join(d, "status_after.tsv"))
        dur = m["workload"].get("duration_s") or 1

        def rate(k):
            try:
                return (int(a[k]) - int(b[k])) / dur
            except (KeyError, ValueError):
                return float("nan")
        s = m.get("summary") or parse_sysbench(os.path.join(d, "sysbench.log"))
        c = m.get("capture") or {}
        key = ((m.get("capture") or {}).get("location", ""),
               parse_size(m["server"]["buffer_pool"]), m["workload"]["threads"], name)
        rows.append((key, name, s.get("tps"), s.get("lat_p95_ms"), s.get("lat_avg_ms"),
                     rate("Innodb_buffer_pool_reads"), rate("Innodb_data_fsyncs"),
                     c.get("pool_pages_data_before"), c.get("mariadbd_cpu_pct"),
                     c.get("other_cpu_pct"), c.get("steal_pct")))
    hdr = ("trace", "tps", "p95_ms", "avg_ms", "bp_reads/s", "fsyncs/s",
           "pool_data_pg", "mariadbd%", "other%", "steal%")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for r in sorted(rows):
        r = r[1:]
        print("| " + " | ".join(
            "%.1f" % x if isinstance(x, float) else str(x) for x in r) + " |")


def csv_list(conv):
    return lambda s: [conv(x) for x in s.split(",") if x]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "traces", "local-vm"),
                    help="trace-set directory (one subdirectory per point)")
    ap.add_argument("--work", default="/var/tmp/poolsim-capture",
                    help="scratch area for datadirs, sockets and fio files (keep outside the repo)")
    ap.add_argument("--bp", type=csv_list(parse_size), default="512M,1G,1536M,3G",
                    help="buffer pool sizes")
    ap.add_argument("--threads", type=csv_list(int), default="1,4,16,64")
    ap.add_argument("--locations", type=csv_list(str), default="disk,tmpfs",
                    help="disk (the filesystem of --work) and/or tmpfs (mounted under --work)")
    ap.add_argument("--repeat", action="append", default=None,
                    help="LOC:BP:THREADS point to capture a second time at the end "
                         "(name suffix -repeat); may be given more than once")
    ap.add_argument("--no-repeat", action="store_true")
    ap.add_argument("--only", action="append", default=None,
                    help="capture only this trace name (may repeat)")
    ap.add_argument("--skip-existing", action="store_true",
                    help="skip points whose trace dir already has meta.yaml")
    ap.add_argument("--recapture-above", type=float, default=None, metavar="PCT",
                    help="with --skip-existing: also redo points whose other_cpu_pct > PCT; "
                         "the new capture replaces the old one only if its other_cpu_pct is lower")
    ap.add_argument("--quiet-wait", type=int, default=0, metavar="S",
                    help="before each point, wait up to S seconds for the host's other CPU "
                         "use to drop below --quiet-threshold (0 = don't wait)")
    ap.add_argument("--quiet-threshold", type=float, default=15.0, metavar="PCT")
    ap.add_argument("--duration", type=int, default=45, help="measured run, s")
    ap.add_argument("--warmup", type=int, default=30, help="warm-up run, s (0 = none)")
    ap.add_argument("--preload", choices=["auto", "always", "never"], default="auto",
                    help="before the warm-up, scan every table and index; auto = only when "
                         "the pool is at least as big as the sbtest tables")
    ap.add_argument("--warmup-threads", type=int, default=0,
                    help="warm-up threads (0 = max(threads, 16))")
    ap.add_argument("--test", default="oltp_read_write")
    ap.add_argument("--tables", type=int, default=8)
    ap.add_argument("--table-size", type=int, default=1000000)
    ap.add_argument("--rand-type", default="uniform")
    ap.add_argument("--range-size", type=int, default=100)
    ap.add_argument("--report-interval", type=int, default=5)
    ap.add_argument("--percentile", type=int, default=95)
    ap.add_argument("--io-capacity", type=int, default=2000)
    ap.add_argument("--io-capacity-max", type=int, default=0, help="0 = 2 x io-capacity")
    ap.add_argument("--flush-method", default="O_DIRECT",
                    help="innodb_flush_method on disk (tmpfs always uses fsync)")
    ap.add_argument("--log-file-size", default="512M", help="innodb_log_file_size")
    ap.add_argument("--mysqld-opt", action="append", default=[],
                    help="extra my.cnf line KEY=VALUE (may repeat)")
    ap.add_argument("--cpu-probe", type=int, default=5, metavar="S",
                    help="run `sysbench cpu` on one thread for S s before the server starts and "
                         "after the measured run (the host's effective core speed; 0 = skip)")
    ap.add_argument("--rate", type=int, default=0,
                    help="sysbench --rate of the measured run: transactions per second in all, "
                         "arriving as a Poisson process (0 = closed loop); names get -rateN")
    ap.add_argument("--trace-set", default=None,
                    help="the trace set whose devices these runs use (meta capture.trace_set; "
                         "poolsim names the device <set>-<kind>); default: the name of --out")
    ap.add_argument("--perf-schema", action="store_true",
                    help="diagnostic capture: performance_schema on with every wait, stage and "
                         "statement instrument timed, INNODB_METRICS all enabled; writes "
                         "pfs_*.tsv and innodb_metrics_*.tsv (costs CPU: keep these traces "
                         "out of calibration)")
    ap.add_argument("--perf-sched-raw", action="store_true",
                    help="with --perf-sched: also keep every line of `perf sched timehist` as "
                         "WORK/<trace>-timehist.txt.gz (outside the trace: tens of MB)")
    ap.add_argument("--perf-sched", type=int, default=0, metavar="S",
                    help="diagnostic: record the scheduler (perf sched) for S seconds in the "
                         "middle of the measured run; writes perf_sched_latency.txt")
    ap.add_argument("--age-transactions", type=int, default=0, metavar="N",
                    help="after copying the prepared data set to a location, run N transactions on "
                         "it before the first point (a fresh copy's packed index k splits at most "
                         "inserts; meta.yaml dataset.transactions_before records the age either way)")
    ap.add_argument("--tmpfs-size", default="10g")
    ap.add_argument("--keep-tmpfs", action="store_true")
    ap.add_argument("--drop-caches", action="store_true",
                    help="drop the page cache before each server start")
    ap.add_argument("--storage-kind", default=None,
                    help="override storage.kind for the disk location")
    ap.add_argument("--fio", choices=["auto", "skip", "only"], default="auto",
                    help="auto: run fio once per location if its results are missing")
    ap.add_argument("--redo-fio", action="store_true")
    ap.add_argument("--fio-size", default="4g")
    ap.add_argument("--fio-runtime", type=int, default=5)
    ap.add_argument("--keep-fio-file", action="store_true")
    ap.add_argument("--list", action="store_true", help="print the matrix and exit")
    ap.add_argument("--report", action="store_true",
                    help="print a markdown summary of the traces under --out and exit "
                         "(also written to <out>/RESULTS.md after every capture run)")
    args = ap.parse_args(argv)
    if isinstance(args.bp, str):
        args.bp = csv_list(parse_size)(args.bp)
    if isinstance(args.threads, str):
        args.threads = csv_list(int)(args.threads)
    if isinstance(args.locations, str):
        args.locations = csv_list(str)(args.locations)
    if args.repeat is None:
        args.repeat = [] if args.no_repeat else ["disk:1G:16", "tmpfs:1G:16"]
    for loc in args.locations:
        if loc not in ("disk", "tmpfs"):
            ap.error("unknown location %r" % loc)
    if args.perf_sched_raw and not args.perf_sched:
        ap.error("--perf-sched-raw needs --perf-sched S")
    args.out = os.path.abspath(args.out)
    args.work = os.path.abspath(args.work)

    if args.report:
        report(args)
        return 0
    pts = build_matrix(args)
    if args.list:
        for p in pts:
            print(p[3])
        return 0
    if os.geteuid() != 0:
        ap.error("must run as root")
    r = run([SYSBENCH, "--version"])
    args.sysbench_version = r.stdout.split()[-1]

    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    global LOG
    LOG = os.path.join(args.work, "capture.log")
    log("capture.py %s" % " ".join(sys.argv[1:]))
    log("%d points -> %s" % (len(pts), args.out))

    pristine, dataset = (None, {})
    if args.fio != "only":
        pristine, dataset = prepare_dataset(args)
    failures = []
    done = 0
    for loc in args.locations:
        loc_pts = [p for p in pts if p[0] == loc]
        fio_outdir = os.path.join(args.out, "fio-" + loc)
        if not loc_pts and args.fio != "only":
            continue
        if args.skip_existing:
            loc_pts = [p for p in loc_pts if needs_capture(args, p[3])]
        need_fio = args.fio == "only" or (args.fio == "auto" and (
            args.redo_fio or not os.path.isdir(fio_outdir)
            or len(os.listdir(fio_outdir)) < len(fio_jobs(loc))))
        if not loc_pts and not need_fio:
            continue
        if pristine is not None:
            base, datadir = location_datadir(args, loc, pristine)
        else:
            base = os.path.join(args.work, loc)
            os.makedirs(base, exist_ok=True)
            if loc == "tmpfs" and not is_mountpoint(base):
                run(["mount", "-t", "tmpfs", "-o", "size=%s" % args.tmpfs_size,
                     "poolsim-tmpfs", base])
        if need_fio:
            run_fio(args, loc, os.path.join(base, "fio"), fio_outdir)
        if args.fio == "only":
            release_location(args, loc)
            continue
        for (l, bp, t, name) in loc_pts:
            try:
                capture_point(args, l, bp, t, name, datadir, fio_outdir, dataset, base)
                done += 1
            except Exception as e:  # keep going with the rest of the matrix
                log("FAILED %s: %s" % (name, e))
                failures.append(name)
        release_location(args, loc)
    log("done: %d captured, %d failed %s" % (done, len(failures), " ".join(failures)))
    with open(os.path.join(args.out, "RESULTS.md"), "w") as f:
        report(args, f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
