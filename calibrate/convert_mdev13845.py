#!/usr/bin/python3
"""Convert the MariaDB MDEV-13845 sysbench 0.5 benchmark set into poolsim trace dirs.

Source (read-only): <repo>/../shared/datasets/mariadb-MDEV-13845  (or --src PATH)
Output:             <repo>/traces/mdev-13845                      (or --out PATH)

Only the InnoDB series 03 (16 GB buffer pool) and 04 (4 GB buffer pool) have raw
logs in the dataset; each run becomes one directory bp<pool>-<mix>-t<threads> with
  meta.yaml          run description (everything taken from the dataset files)
  sysbench.log       res0X/sysbench.<mix>.<thr>.res, byte-for-byte copy
  iostat.txt         res0X/iostat.<mix>.<thr>.res, the lines of the datadir's devices (md0 and
                     its members sdc, sdd) and the CPU; the system disks' lines dropped
  status_before.tsv  first SHOW GLOBAL STATUS snapshot of res0X/status.<mix>.<thr>.res
  status_after.tsv   last snapshot of the same file ("name<TAB>value", no header)
and PROVENANCE.md (this directory) is regenerated, including the TPS/p95 table and the
cross-check against the author's QPS.dat / RT_95.dat / RT_avg.dat.

Python 3 standard library + PyYAML (python3-yaml) only.  Re-runnable: existing run
directories are overwritten file by file; nothing outside --out is written.
"""

import argparse
import os
import re
import shutil
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)                           # .../calibrate -> repo
DEFAULT_OUT = os.path.join(REPO, "traces", "mdev-13845")
DEFAULT_SRC = os.path.join(REPO, "..", "shared", "datasets", "mariadb-MDEV-13845")
DATASET_REL = "shared/datasets/mariadb-MDEV-13845"

UPSTREAM = {
    "repository": "hgxl64/mariadb-benchmarks",
    "path": "Archive/Sysbench-0.5/MDEV-13845/RocksDB-10.3.10",
    "commit": "6ff617a8b44c6055c9b1c9ba915a6b575c315c53",
}

# The datadir's devices in iostat: md0, a RAID0 of sdc and sdd. The mapping is not stated in the
# dataset; it is what the figures show (md0's r/s = sdc's + sdd's in every report, and the other
# devices, sda/sdb and md1-md3, stay near idle during the runs). iostat.txt keeps only these.
DATADIR_DEVICES = ("sdc", "sdd", "md0")
RAID_MEMBERS = ("sdc", "sdd")

# The SSD model is not named anywhere in the dataset (PROVENANCE.md, my.cnf, cheetah02.err, the
# iostat headers: only "SATA SSD" and the device names), and there is no fio run. poolsim needs a
# device model, so the traces name a catalogue entry of the right class: a choice, not a fit.
DEVICE_MODEL_CHOICE = "samsung-850-pro"
DEVICE_MODEL_NOTE = ("U: a choice, not a measurement: the dataset does not name the SSDs (PROVENANCE.md, "
                     "cheetah02.err and iostat carry no model) and has no fio run; samsung-850-pro is "
                     "scenarios/catalogue/devices.yaml's SATA 6 Gb/s SSD class entry")

# series number -> (label used in directory names, human label)
SERIES = {"03": "bp16G", "04": "bp4G"}


# --------------------------------------------------------------------------- helpers
def read_text(path):
    with open(path, "r", encoding="utf-8", errors="strict") as f:
        return f.read()


def resolve_pointer(src, name):
    """config.04 / server.04 contain just 'config.03' / 'server.03': they are git
    symlinks stored as plain files.  Follow such one-word pointers."""
    path = os.path.join(src, name)
    seen = [name]
    while True:
        txt = read_text(path)
        word = txt.strip()
        if "\n" not in word and " " not in word and word != name \
                and os.path.isfile(os.path.join(src, word)) and word not in seen:
            seen.append(word)
            name, path = word, os.path.join(src, word)
            continue
        return txt, seen


def parse_config_sh(txt):
    """Tiny parser for the shell variable assignments in config.sh."""
    out = {}
    for m in re.finditer(r'^([A-Z_]+)=("([^"]*)"|\S*)\s*$', txt, re.M):
        out[m.group(1)] = m.group(3) if m.group(3) is not None else m.group(2)
    rw = {}
    for m in re.finditer(r"^\s*\[(\d+)\]='([^']*)'", txt, re.M):
        args = {}
        for a in re.finditer(r"--oltp-([a-z-]+)=(\S+)", m.group(2)):
            args[a.group(1).replace("-", "_")] = int(a.group(2))
        rw[int(m.group(1))] = args
    out["RW_ARG"] = rw
    return out


def parse_mycnf(txt):
    """[mysqld] options -> dict with '-' normalised to '_' and 'loose_' stripped."""
    out, section = {}, None
    for line in txt.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"^\[(.+)\]$", line)
        if m:
            section = m.group(1)
            continue
        if section != "mysqld":
            continue
        if "=" in line:
            k, v = [x.strip() for x in line.split("=", 1)]
        else:
            k, v = line, None
        k = k.replace("-", "_")
        if k.startswith("loose_"):
            k = k[len("loose_"):]
        out.setdefault(k, v)      # repeated keys (p_s instruments) keep the first
    return out


def parse_lua_defaults(txt):
    """common.lua set_vars():  oltp_x = oltp_x or N"""
    out = {}
    for m in re.finditer(r"^\s*oltp_(\w+)\s*=\s*oltp_\1\s+or\s+(\d+)\s*$", txt, re.M):
        out[m.group(1)] = int(m.group(2))
    return out


def analyse_oltp_lua(txt):
    """Walk event() of oltp.lua and list every db_query() with the loop count
    variable it sits in (or None), its class (read/write/other) and whether it is
    inside 'if not oltp_read_only'.  Blocks are tracked with a stack
    ('... do' / '... then' open, 'end' closes)."""
    body = txt[txt.index("function event("):]
    stmts, stack = [], []
    for line in body.splitlines()[1:]:
        s = line.split("--", 1)[0].strip()
        if not s:
            continue
        m = re.match(r"^for i=1,\s*oltp_(\w+) do$", s)
        if m:
            stack.append(("loop", m.group(1)))
            continue
        if re.match(r"^if not oltp_read_only then$", s):
            stack.append(("rw_only", None))
            continue
        if re.match(r"^(if|for|while)\b.*\b(then|do)$", s):
            stack.append(("other", None))
            continue
        if s == "end":
            if not stack:
                break                   # end of function event()
            stack.pop()
            continue
        m = re.search(r'db_query\((?:"([A-Z]+)|(begin_query|commit_query)|(query)\))', s)
        if not m:
            continue
        if m.group(2):
            kind, verb = "other", m.group(2)
        elif m.group(1):
            verb = m.group(1)
            kind = "read" if verb == "SELECT" else "write"
        else:                          # 'query' variable built just above: an UPDATE
            verb, kind = "UPDATE", "write"
        loops = [v for k, v in stack if k == "loop"]
        assert len(loops) <= 1, loops
        stmts.append({"verb": verb, "class": kind, "loop": loops[0] if loops else None,
                      "rw_only": any(k == "rw_only" for k, _ in stack)})
    return stmts


def per_trx_counts(stmts, mix, read_only):
    c = {"read": 0, "write": 0, "other": 0}
    for st in stmts:
        if st["rw_only"] and read_only:
            continue
        n = mix[st["loop"]] if st["loop"] else 1
        c[st["class"]] += n
    return c


# --------------------------------------------------------------------------- sysbench
IVL = re.compile(r"^\[\s*(\d+)s\] threads: (\d+), tps: ([\d.]+), reads: ([\d.]+), "
                 r"writes: ([\d.]+), response time: ([\d.]+)ms \((\d+)%\), "
                 r"errors: ([\d.]+), reconnects:\s+([\d.]+)$")


def parse_sysbench(txt):
    r = {"intervals": [], "unparsed": []}
    sect = None
    for line in txt.splitlines():
        if not line.strip():
            continue
        m = IVL.match(line)
        if m:
            r["intervals"].append(dict(
                t=int(m.group(1)), threads=int(m.group(2)), tps=float(m.group(3)),
                reads_ps=float(m.group(4)), writes_ps=float(m.group(5)),
                rt_pct_ms=float(m.group(6)), pct=int(m.group(7)),
                errors_ps=float(m.group(8)), reconnects_ps=float(m.group(9))))
            continue
        s = line.strip()
        m = re.match(r"^sysbench (\S+):", s)
        if m:
            r["version"] = m.group(1); continue
        m = re.match(r"^Number of threads: (\d+)$", s)
        if m:
            r["threads"] = int(m.group(1)); continue
        m = re.match(r"^Report intermediate results every (\d+) second", s)
        if m:
            r["report_interval_s"] = int(m.group(1)); continue
        m = re.match(r"^Initializing random number generator from seed \((\d+)\)", s)
        if m:
            r["seed"] = int(m.group(1)); continue
        if s in ("Running the test with following options:", "Threads started!",
                 "OLTP test statistics:", "General statistics:", "Threads fairness:"):
            continue
        if s == "queries performed:":
            sect = "q"; continue
        if s == "response time:":
            sect = "rt"; continue
        m = re.match(r"^(read|write|other|total):\s+(\d+)$", s)
        if m and sect == "q":
            r["q_" + m.group(1)] = int(m.group(2)); continue
        m = re.match(r"^(transactions|read/write requests|other operations|ignored errors|"
                     r"reconnects):\s+(\d+)\s+\(([\d.]+) per sec\.\)$", s)
        if m:
            key = {"transactions": "trx", "read/write requests": "rw_req",
                   "other operations": "other_ops", "ignored errors": "ign_err",
                   "reconnects": "reconnects"}[m.group(1)]
            r[key] = int(m.group(2)); r[key + "_ps"] = float(m.group(3)); continue
        m = re.match(r"^total time:\s+([\d.]+)s$", s)
        if m:
            r["total_time_s"] = float(m.group(1)); continue
        m = re.match(r"^total number of events:\s+(\d+)$", s)
        if m:
            r["events"] = int(m.group(1)); continue
        m = re.match(r"^total time taken by event execution:\s+([\d.]+)s$", s)
        if m:
            r["exec_time_s"] = float(m.group(1)); continue
        m = re.match(r"^(min|avg|max):\s+([\d.]+)ms$", s)
        if m and sect == "rt":
            r["rt_" + m.group(1) + "_ms"] = float(m.group(2)); continue
        m = re.match(r"^approx\.\s+(\d+) percentile:\s+([\d.]+)ms$", s)
        if m:
            r["rt_pct"] = int(m.group(1)); r["rt_p_ms"] = float(m.group(2)); continue
        m = re.match(r"^events \(avg/stddev\):\s+([\d.]+)/([\d.]+)$", s)
        if m:
            r["fair_events"] = (float(m.group(1)), float(m.group(2))); continue
        m = re.match(r"^execution time \(avg/stddev\):\s+([\d.]+)/([\d.]+)$", s)
        if m:
            r["fair_exec"] = (float(m.group(1)), float(m.group(2))); continue
        r["unparsed"].append(line)
    return r


# --------------------------------------------------------------------------- status
def split_status(txt):
    """The status files hold many snapshots, each starting with 'Variable_name\tValue'."""
    snaps, cur = [], None
    for line in txt.split("\n"):
        if line == "":
            continue
        name, _, value = line.partition("\t")
        if name == "Variable_name" and value == "Value":
            cur = []
            snaps.append(cur)
            continue
        if cur is None:
            raise ValueError("status line before first header: %r" % line)
        cur.append((name, value))
    return snaps


def filter_iostat(txt, keep):
    """iostat -x output with only the `keep` devices' lines (header, avg-cpu blocks, Device: headers
    and blank lines stay), so that each trace stays small.  Checks md0 = sdc + sdd (r/s) on the way."""
    out, in_dev = [], False
    reports, cur = [], None
    for line in txt.split("\n"):
        f = line.split()
        if f and f[0] in ("Device:", "Device"):
            in_dev = True
            cur = {}
            reports.append(cur)
            out.append(line)
            continue
        if not f:
            in_dev = False
        if in_dev and f:
            if f[0] in keep:
                out.append(line)
                cur[f[0]] = float(f[3])       # r/s
            continue
        out.append(line)
    for r in reports[1:]:
        assert abs(r["md0"] - sum(r[m] for m in RAID_MEMBERS)) <= 0.02 * max(1.0, r["md0"]) + 1, r
    return "\n".join(out)


def write_tsv(path, pairs):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for k, v in pairs:
            f.write("%s\t%s\n" % (k, v))


# --------------------------------------------------------------------------- .dat files
def parse_dat(txt):
    """collect.pl output: sections '# read-only' / '# read/write (NN% writes)', then
    '#thd\t01\t02...' and rows 'thd\tv01\tv02...'.  -> {(mix, thd, col): str}"""
    out, mix, cols = {}, None, None
    for line in txt.splitlines():
        if line.startswith("# read-only"):
            mix = "ro"; continue
        m = re.match(r"^# read/write \((\d+)% writes\)", line)
        if m:
            mix = "rw%s" % m.group(1); continue
        if line.startswith("#thd"):
            cols = line.split("\t")[1:]; continue
        if mix and cols and re.match(r"^\d+\t", line):
            f = line.split("\t")
            for c, v in zip(cols, f[1:]):
                out[(mix, int(f[0]), c)] = v
    return out


def perl_pp(x):
    """collect.pl's pp(): note '%d' truncates (Perl int conversion) for x >= 10000."""
    if x < 0:
        return "---"
    if x < 10.0:
        return "%.4f" % x
    if x < 100.0:
        return "%.3f" % x
    if x < 1000.0:
        return "%.2f" % x
    if x < 10000.0:
        return "%.1f" % x
    return "%d" % int(x)


# --------------------------------------------------------------------------- YAML
class Quoted(str):
    """a string always written in double quotes (versions like "10.3.10")."""


class BlockList(list):
    """a list always written in block style (one '- item' per line)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(Quoted, lambda d, v: d.represent_scalar(
    "tag:yaml.org,2002:str", str(v), style='"'))
_Dumper.add_representer(BlockList, lambda d, v: d.represent_sequence(
    "tag:yaml.org,2002:seq", list(v), flow_style=False))


def write_meta(path, meta):
    txt = yaml.dump(meta, Dumper=_Dumper, sort_keys=False, default_flow_style=None,
                    width=4096, allow_unicode=False)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("# poolsim trace: converted by calibrate/convert_mdev13845.py from a third-party "
                "dataset (see traces/mdev-13845/PROVENANCE.md); do not edit by hand\n")
        f.write(txt)
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)       # sanity: must load back


# --------------------------------------------------------------------------- timing
def time_of_trx(intervals, report, n):
    """Seconds after sysbench start at which the n-th transaction completed,
    interpolated from the per-interval tps (rates x interval length)."""
    cum = 0.0
    for iv in intervals:
        k = iv["tps"] * report
        if cum + k >= n:
            return iv["t"] - report + report * ((n - cum) / k if k else 0.0)
        cum += k
    return float(intervals[-1]["t"]) if intervals else None


def parse_dadadir(txt):
    """res0X/dadadir-size.txt: '--- after read-only ---' / '--- after read-write (22%) ---'
    followed by 'du -sh' output; one pair per run, in run order."""
    out, tag = [], None
    for line in txt.splitlines():
        m = re.match(r"^--- after (read-only|read-write \((\d+)%\)) ---$", line)
        if m:
            tag = "ro" if m.group(1) == "read-only" else "rw%s" % m.group(2)
            continue
        m = re.match(r"^(\S+)\t(\S+)$", line)
        if m and tag:
            out.append((tag, m.group(1)))
            tag = None
    return out


# --------------------------------------------------------------------------- main
def quantity(v):
    """'16G' -> '16GiB' (MySQL option suffixes are binary)."""
    m = re.match(r"^(\d+)([KMGT])$", v or "")
    return "%s%siB" % (m.group(1), m.group(2)) if m else v


def fmt_int(n):
    return "{:,}".format(n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=DEFAULT_SRC, help="dataset directory (read-only)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (traces/mdev-13845)")
    a = ap.parse_args()
    src, out = os.path.abspath(a.src), os.path.abspath(a.out)

    cfg = parse_config_sh(read_text(os.path.join(src, "config.sh")))
    lua_defaults = parse_lua_defaults(read_text(os.path.join(src, "lua", "common.lua")))
    stmts = analyse_oltp_lua(read_text(os.path.join(src, "lua", "oltp.lua")))
    desc = {}
    for line in read_text(os.path.join(src, "DESC")).splitlines():
        m = re.match(r"^(\d+)\s*\.{2,}\s*(.*)$", line)
        if m:
            desc[m.group(1)] = m.group(2)

    threads = [int(t) for t in cfg["THREADS"].split()]
    rw_pcts = [int(p) for p in cfg["RW_CONFIG"].split()]
    tables = int(cfg["TABLES"])
    table_size = int(cfg["TOTAL_ROWS"]) // tables
    cores = int(cfg["CORES"])
    runtime = {"ro": int(cfg["RUNTIME_RO"]), "rw": int(cfg["RUNTIME_RW"])}
    report = int(cfg["REPORT"])
    seed_cfg = 42      # run.sysbench passes --rand-seed=42 (also printed in every log)
    assert re.search(r"--rand-seed=42 ", read_text(os.path.join(src, "run.sysbench")))

    # mixes in run order (run.sysbench: for each thread count: RO, then RW per RW_CONFIG)
    mixes = [("ro", None)] + [("rw%d" % p, p) for p in rw_pcts]

    dat = {n: parse_dat(read_text(os.path.join(src, n)))
           for n in ("QPS.dat", "RT_95.dat", "RT_avg.dat")}

    os.makedirs(out, exist_ok=True)
    rows, mismatches, notes_global, status_checks = [], [], [], []
    made = []

    for series, label in SERIES.items():
        mycnf_txt, mycnf_chain = resolve_pointer(src, "my.cnf.%s" % series)
        cnf = parse_mycnf(mycnf_txt)
        server_txt, server_chain = resolve_pointer(src, "server.%s" % series)
        server_name = server_txt.strip()                        # mariadb-10.3.10
        product, version = server_name.split("-", 1)
        cfgx_txt, cfgx_chain = resolve_pointer(src, "config.%s" % series)
        engine = re.search(r"^ENGINE=(\S+)", cfgx_txt, re.M).group(1)
        res = os.path.join(src, "res%s" % series)
        err = read_text(os.path.join(res, "cheetah02.err"))
        m = re.search(r"Initializing buffer pool, total size = (\S+), instances = (\d+), "
                      r"chunk size = (\S+)", err)
        bp_err = (m.group(1), int(m.group(2)), m.group(3))
        assert bp_err[0] == cnf["innodb_buffer_pool_size"], (bp_err, cnf)
        du = parse_dadadir(read_text(os.path.join(res, "dadadir-size.txt")))
        assert len(du) == len(threads) * len(mixes), len(du)
        order, prev_after, prev_name = 0, None, None
        for thd in threads:
            for mix, pct in mixes:
                order += 1
                kind = "ro" if mix == "ro" else "rw"
                stem = "ro.%d" % thd if kind == "ro" else "rw.%d.%d" % (pct, thd)
                f_sb = os.path.join(res, "sysbench.%s.res" % stem)
                f_io = os.path.join(res, "iostat.%s.res" % stem)
                f_st = os.path.join(res, "status.%s.res" % stem)
                name = "%s-%s-t%d" % (label, mix, thd)
                d = os.path.join(out, name)
                os.makedirs(d, exist_ok=True)

                sb_txt = read_text(f_sb)
                sb = parse_sysbench(sb_txt)
                if sb["unparsed"]:
                    raise SystemExit("%s: unparsed lines %r" % (f_sb, sb["unparsed"][:3]))
                assert sb["threads"] == thd and sb["seed"] == seed_cfg
                assert sb["q_read"] + sb["q_write"] == sb["rw_req"]
                assert sb["q_other"] == sb["other_ops"]
                assert sb["q_total"] == sb["rw_req"] + sb["other_ops"]
                assert sb["trx"] == sb["events"]
                assert du[order - 1][0] == mix, (du[order - 1], mix)
                ivl = sb["intervals"]

                shutil.copyfile(f_sb, os.path.join(d, "sysbench.log"))
                with open(os.path.join(d, "iostat.txt"), "w", encoding="utf-8", newline="\n") as f:
                    f.write(filter_iostat(read_text(f_io), DATADIR_DEVICES))

                snaps = split_status(read_text(f_st))
                write_tsv(os.path.join(d, "status_before.tsv"), snaps[0])
                write_tsv(os.path.join(d, "status_after.tsv"), snaps[-1])
                s0, s1 = dict(snaps[0]), dict(snaps[-1])
                nvars = sorted(set(len(x) for x in snaps))

                # statement mix for this run (lua defaults overridden by RW_ARG)
                mixp = dict(lua_defaults)
                if kind == "rw":
                    mixp.update(cfg["RW_ARG"][pct])
                exp = per_trx_counts(stmts, mixp, kind == "ro")
                exp_wpct = 100.0 * exp["write"] / (exp["read"] + exp["write"])
                got = {k: sb["q_" + k] / sb["trx"] for k in ("read", "write", "other")}

                # When were the first/last status snapshots taken?  Runs of a series are
                # back-to-back on one server, so the previous run's last snapshot is a
                # baseline.  RW: every committed trx inserts exactly one row; RO: use
                # Innodb_rows_read as a progress counter.
                timing = {}
                if prev_after is not None:
                    ctr = "Innodb_rows_inserted" if kind == "rw" else "Innodb_rows_read"
                    base = int(prev_after[ctr])
                    x0, x1 = int(s0[ctr]) - base, int(s1[ctr]) - base
                    n_before = x0 if kind == "rw" else sb["trx"] * x0 / x1
                    timing["before_at_s"] = round(time_of_trx(ivl, report, n_before), 1)
                    # Transactions between the two snapshots, the divisor of a counter delta.
                    timing["transactions"] = int(round(x1 - x0 if kind == "rw" else sb["trx"] * (x1 - x0) / x1))
                    if kind == "rw":
                        timing["after_missing_trx"] = sb["trx"] - x1
                status_checks.append(dict(name=name, kind=kind, timing=timing,
                                          snaps=len(snaps)))

                # cross-check with the author's summary tables
                for datname, val in (("QPS.dat", sb["rw_req_ps"]),
                                     ("RT_95.dat", sb["rt_p_ms"]),
                                     ("RT_avg.dat", sb["rt_avg_ms"])):
                    have = dat[datname].get((mix, thd, series))
                    want = perl_pp(val)
                    if have != want:
                        mismatches.append((datname, series, mix, thd, have, want, val))

                row = dict(name=name, series=series, mix=mix, thd=thd, sb=sb, exp=exp,
                           got=got, n_ivl=len(ivl), order=order,
                           first_ivl_tps=ivl[0]["tps"] if ivl else None,
                           bp_reads=(int(s0["Innodb_buffer_pool_reads"]),
                                     int(s1["Innodb_buffer_pool_reads"])),
                           free_after=int(s1["Innodb_buffer_pool_pages_free"]),
                           qps_dat=dat["QPS.dat"].get((mix, thd, series)))
                rows.append(row)

                notes = BlockList()
                notes.append("doublewrite, flush_log_at_trx_commit and binlog are not set in my.cnf.%s; "
                             "the values are the MariaDB 10.3 defaults as stated in the dataset's "
                             "PROVENANCE.md (doublewrite confirmed: Innodb_dblwr_pages_written > 0)"
                             % series)
                notes.append("log_files_in_group: 2 is from PROVENANCE.md ('redo 2x2G'); my.cnf sets "
                             "only innodb_log_file_size = 2G (innodb_log_files_in_group unset = default 2)")
                notes.append("not stated anywhere in the dataset, therefore omitted: host memory, "
                             "datadir filesystem, sync_binlog, io_capacity_max, CPU model, SSD model")
                notes.append("not an isolated run: all %d runs of series %s ran back-to-back on one "
                             "mysqld (res%s/cheetah02.err) in run.order; tables created and filled "
                             "just before run 1 (CREATEDB=1, WARMUP=0); no restart, no warm-up"
                             % (len(threads) * len(mixes), series, series))
                if kind == "rw":
                    notes.append("after this run run.sysbench forced a checkpoint (max_dirty_pages_pct=0, "
                                 "io_capacity=20000 until <100 dirty pages); the previous run's "
                                 "forced checkpoint (if it was read-write) also preceded this one")
                notes.append("status_before/after: first/last of %d snapshots of the Innodb_%% status "
                             "variables only (%s vars, no Com_*/Questions/Uptime), taken every ~%d s "
                             "by dump_status.sh (not in the dataset). The first snapshot is taken "
                             "~2 s INTO the run (status.before_at_s), the last one at the end of the "
                             "run; run.previous's status_after.tsv is the state just before this run"
                             % (len(snaps), "/".join(map(str, nvars)), report))
                notes.append("iostat.txt: 'iostat -mx %d %d' with only the lines of md0, sdc and sdd "
                             "(the datadir's RAID0 and its members: md0's r/s = sdc's + sdd's in every "
                             "report; the mapping is not stated) and the avg-cpu blocks; the first "
                             "report is the since-boot average, not part of the run. avg-cpu is the "
                             "whole host: mysqld, sysbench (same host, run.sysbench, CPU_MASK all), "
                             "iostat and dump_status.sh"
                             % (report, runtime[kind] // report + 1))
                notes.append("sysbench 0.5 'read/write requests' exclude BEGIN/COMMIT; summary.qps is "
                             "total queries incl. BEGIN/COMMIT per second (sysbench 1.x 'queries' "
                             "semantics, comparable to calibrate/capture.py traces); "
                             "summary.rw_requests_per_s is the figure in the author's QPS.dat")
                if sb["ign_err"]:
                    notes.append("%d ignored errors: aborted attempts that sysbench restarted; their "
                                 "BEGIN, reads and writes up to the error are included in the query "
                                 "counts but not in transactions" % sb["ign_err"])
                if prev_after is None:
                    notes.append("first run of the series: no previous snapshot, so the timing of "
                                 "status_before cannot be estimated")

                wl = {
                    "tool": "sysbench", "version": Quoted(sb["version"]), "test": "oltp",
                    "script": "lua/%s" % cfg["LUA"],
                    "tables": tables, "table_size": table_size,
                    "rand_type": cfg["RANDSPEC"], "rand_seed": sb["seed"],
                    "range_size": lua_defaults["range_size"],
                    "threads": thd, "duration_s": runtime[kind],
                    "read_only": kind == "ro",
                    "write_pct": 0 if kind == "ro" else pct,
                    "write_pct_exact": round(exp_wpct, 2),
                    "report_interval_s": sb["report_interval_s"],
                    "mix": {k: mixp[k] for k in ("point_selects", "simple_ranges", "sum_ranges",
                                                 "order_ranges", "distinct_ranges")},
                    "statements_per_trx": {"read": exp["read"], "write": exp["write"],
                                           "other": exp["other"]},
                }
                if kind == "rw":
                    # oltp.lua issues one DELETE and one INSERT per transaction (no option): the
                    # scenario key delete_inserts counts such pairs.
                    wl["mix"].update({"index_updates": mixp["index_updates"],
                                      "non_index_updates": mixp["non_index_updates"],
                                      "delete_inserts": 1})
                status = {"snapshots": len(snaps), "interval_s": report,
                          "pool_pages_total": int(s0["Innodb_buffer_pool_pages_total"]),
                          "pool_pages_data_before": int(s0["Innodb_buffer_pool_pages_data"]),
                          "pool_pages_dirty_before": int(s0["Innodb_buffer_pool_pages_dirty"])}
                status.update(timing)
                meta = {
                    "engine": {"product": product, "version": Quoted(version),
                               "storage_engine": engine},
                    "workload": wl,
                    "server": {
                        "buffer_pool": quantity(cnf["innodb_buffer_pool_size"]),
                        "flush_log_at_trx_commit": 1,
                        "doublewrite": True,
                        "binlog": False,
                        "io_capacity": int(cnf["innodb_io_capacity"]),
                        "flush_method": cnf["innodb_flush_method"],
                        "flush_neighbors": int(cnf["innodb_flush_neighbors"]),
                        "log_file_size": quantity(cnf["innodb_log_file_size"]),
                        "log_files_in_group": 2,
                        "log_buffer_size": quantity(cnf["innodb_log_buffer_size"]),
                        "buffer_pool_instances": int(cnf["innodb_buffer_pool_instances"]),
                        "buffer_pool_chunk_size": quantity(bp_err[2]),
                        "write_io_threads": int(cnf["innodb_write_io_threads"]),
                        "adaptive_hash_index_parts": int(cnf["innodb_adaptive_hash_index_parts"]),
                        "page_size": "%dKiB" % (int(s1["Innodb_page_size"]) // 1024),
                        "performance_schema": cnf["performance_schema"] not in ("off", "0"),
                        "query_cache_type": int(cnf["query_cache_type"]),
                        "max_connections": int(cnf["max_connections"]),
                        "table_open_cache": int(cnf["table_open_cache"]),
                        "table_open_cache_instances": int(cnf["table_open_cache_instances"]),
                    },
                    "host": {"name": "cheetah02", "cores": cores,
                             "os": re.match(r"^(Linux \S+)", read_text(f_io)).group(1)},
                    "storage": {"kind": "sata", "device": "md0", "devices": len(RAID_MEMBERS),
                                "members": list(RAID_MEMBERS), "raid": "md RAID0 (PROVENANCE.md)",
                                "datadir": cfg["DATADIR"],
                                "model": DEVICE_MODEL_CHOICE, "model_note": DEVICE_MODEL_NOTE},
                    "dataset": {"rows": tables * table_size,
                                "datadir_du_after": du[order - 1][1]},
                    "run": {"series": Quoted(series), "series_desc": desc.get(series),
                            "order": order, "of": len(threads) * len(mixes),
                            "previous": prev_name},
                    "summary": {
                        "tps": sb["trx_ps"],
                        "qps": round(sb["q_total"] / sb["total_time_s"], 2),
                        "rw_requests_per_s": sb["rw_req_ps"],
                        "lat_avg_ms": sb["rt_avg_ms"],
                        "lat_p95_ms": sb["rt_p_ms"],
                        "lat_min_ms": sb["rt_min_ms"], "lat_max_ms": sb["rt_max_ms"],
                        "ignored_errors": sb["ign_err"], "reconnects": sb["reconnects"],
                        "total_time_s": sb["total_time_s"],
                        "transactions": sb["trx"], "reads": sb["q_read"],
                        "writes": sb["q_write"], "other": sb["q_other"],
                        "intervals": len(ivl),
                    },
                    "status": status,
                    "source": {
                        "dataset": DATASET_REL,
                        "upstream": dict(UPSTREAM),
                        "files": {
                            "sysbench.log": "res%s/sysbench.%s.res" % (series, stem),
                            "iostat.txt": "res%s/iostat.%s.res (lines of md0, sdc, sdd and avg-cpu)" % (series, stem),
                            "status_before.tsv": "res%s/status.%s.res (snapshot 1 of %d)"
                                                 % (series, stem, len(snaps)),
                            "status_after.tsv": "res%s/status.%s.res (snapshot %d of %d)"
                                                % (series, stem, len(snaps), len(snaps)),
                            "my.cnf": " -> ".join(mycnf_chain),
                            "server": " -> ".join(server_chain),
                            "config": ["config.sh", " -> ".join(cfgx_chain)],
                            "run_script": "run.sysbench",
                            "lua": ["lua/oltp.lua", "lua/common.lua"],
                            "errlog": "res%s/cheetah02.err" % series,
                            "datadir_size": "res%s/dadadir-size.txt" % series,
                        },
                    },
                    "notes": notes,
                }
                back = write_meta(os.path.join(d, "meta.yaml"), meta)
                assert back["workload"]["threads"] == thd
                assert back["engine"]["version"] == version
                prev_after, prev_name = s1, name
                made.append(name)

    write_provenance(out, src, rows, mismatches, status_checks, stmts, lua_defaults, cfg)
    print("wrote %d run directories to %s" % (len(made), out))
    print("QPS/RT .dat mismatches: %d" % len(mismatches))
    for mm in mismatches:
        print("  ", mm)
    return 0


# --------------------------------------------------------------------------- PROVENANCE
def write_provenance(out, src, rows, mismatches, status_checks, stmts, lua_defaults, cfg):
    L = []
    w = L.append
    w("# traces/mdev-13845 — MariaDB 10.3.10 InnoDB, sysbench 0.5 OLTP (MDEV-13845 set)")
    w("")
    w("Generated by `calibrate/convert_mdev13845.py` (re-run from the repo root: "
      "`/usr/bin/python3 calibrate/convert_mdev13845.py [--src DIR] [--out DIR]`; default source "
      "`<repo>/../shared/datasets/mariadb-MDEV-13845`, default output this directory). Do not edit "
      "by hand. How poolsim calibrates on these traces and what it predicts: the README's "
      "\"Calibration and validation\" section (MDEV-13845).")
    w("")
    w("## Where the data comes from")
    w("")
    w("- Third-party, real measurements by Axel Schwenke (MariaDB Corporation), public repository "
      "**%s**, path `%s`, commit `%s`; measured 2018-11-06/07 (timestamps in "
      "`res0X/cheetah02.err`)." % (UPSTREAM["repository"], UPSTREAM["path"], UPSTREAM["commit"]))
    w("- Local, unchanged copy: `%s` (its PROVENANCE.md lists the facts repeated here)." % DATASET_REL)
    w("- Host `cheetah02`: 32 logical CPUs (config.sh `CORES=32`, iostat header `(32 CPU)`), "
      "Linux 3.16.0-77-generic; datadir `/mnt/ssd-raid0/sysbench/datadir` on an md RAID0 of two "
      "SATA SSDs (PROVENANCE.md; in iostat the load lands on sdc+sdd and md0). Memory, filesystem, "
      "CPU and SSD models are not stated anywhere, so they are omitted from meta.yaml.")
    w("- MariaDB 10.3.10 (server.03; server.04/config.04 are git symlinks stored as one-line files "
      "pointing at server.03/config.03), InnoDB. Series **03** = `innodb_buffer_pool_size = 16G` "
      "(data fits; datadir 14 GB), series **04** = `4G` (IO-bound). my.cnf.03/04 differ only in "
      "that line: redo `innodb_log_file_size = 2G` (2 files per PROVENANCE.md / default), "
      "`O_DIRECT`, `innodb_io_capacity = 4000`, `innodb_flush_neighbors = 0`, 2 pool instances, "
      "8 write IO threads, 32 MB log buffer, performance_schema off, query cache off. "
      "Doublewrite on, `flush_log_at_trx_commit = 1` and binlog off are the (unset) defaults, "
      "as stated by PROVENANCE.md; sync_binlog is not stated and omitted.")
    w("- sysbench 0.5 with the dataset's `lua/oltp.lua`, 8 tables x 5,000,000 rows, uniform, "
      "`--rand-seed=42`, `--report-interval=2`, `--percentile=95`; threads 1 2 4 8 16 32 64 128 256; "
      "read-only 91 s, read-write 181 s at 22/50/80/100 % writes (`RW_ARG` in config.sh).")
    w("- MyRocks series 01/02/05/06 of the summary tables have no raw logs in the dataset and are "
      "not converted.")
    w("")
    w("## What was converted, and how")
    w("")
    w("One directory per run, `bp16G-*` from `res03/`, `bp4G-*` from `res04/`, named "
      "`<pool>-<ro|rw22|rw50|rw80|rw100>-t<threads>` (90 directories):")
    w("")
    w("| file | from | how |")
    w("|---|---|---|")
    w("| `sysbench.log` | `res0X/sysbench.<mix>.<thr>.res` | byte-for-byte copy |")
    w("| `iostat.txt` | `res0X/iostat.<mix>.<thr>.res` | the lines of md0, sdc and sdd (the datadir's RAID0 and its members), the header, the avg-cpu blocks and the `Device:` headers, verbatim; the system disks' lines (sda, sdb, md1-md3) dropped to keep the traces small (`iostat -mx 2 N`; first report = since boot) |")
    w("| `status_before.tsv` | `res0X/status.<mix>.<thr>.res`, first snapshot | `name<TAB>value`, header line dropped, values verbatim (may be empty) |")
    w("| `status_after.tsv` | same file, last snapshot | same |")
    w("| `meta.yaml` | my.cnf.0X, config.sh, run.sysbench, lua/, cheetah02.err, the log itself | see keys `source`, `notes` |")
    w("")
    w("The status files are **not** a single snapshot nor a before/after pair: `dump_status.sh` "
      "(not in the dataset) wrote a snapshot of the 100 `Innodb_%` status variables (only those — "
      "no `Com_*`, `Questions`, `Uptime`) every ~2 s while sysbench ran: 46 snapshots for "
      "read-only runs, 91 for read-write runs, each beginning with a `Variable_name<TAB>Value` "
      "header. The first one is written as `status_before.tsv`, the last as `status_after.tsv` "
      "(no header, like `calibrate/capture.py`'s `mariadb -N -B` dumps); the full series stays in "
      "the source file named in `meta.yaml`.")
    w("")
    w("**When the snapshots were taken** (checked, because a delta after-minus-before is only "
      "meaningful if it is known what it spans). All runs of a series ran back-to-back on one "
      "server, so the previous run's last snapshot is a baseline. In read-write runs every "
      "committed transaction inserts exactly one row, so `Innodb_rows_inserted` is a transaction "
      "counter; in read-only runs `Innodb_rows_read` serves as progress counter.")
    w("")
    ck = [c for c in status_checks if c["timing"]]
    bat = sorted(c["timing"]["before_at_s"] for c in ck)
    rwc = [c for c in ck if c["kind"] == "rw"]
    miss = [c["timing"]["after_missing_trx"] for c in rwc]
    late = [c for c in ck if c["timing"]["before_at_s"] > 3.0]
    w("- `status_after.tsv` = state at the **end** of the run: over the %d read-write runs "
      "(first run of each series excluded: no baseline) Δ`Innodb_rows_inserted` from the previous "
      "run's last snapshot equals the sysbench transaction count exactly in %d runs and falls short "
      "by at most %d transactions in the others (high thread counts)."
      % (len(rwc), sum(1 for x in miss if x == 0), max(miss)))
    w("- `status_before.tsv` = state **about one report interval into** the run, not before it: "
      "estimated from the counters and the interval tps lines, the first snapshot is taken "
      "%.1f–%.1f s after sysbench started (median %.1f s), i.e. it already contains the first "
      "~2 s of the run (e.g. dirty pages > 0 in read-write runs)."
      % (bat[0], bat[-1], bat[len(bat) // 2]))
    w("- For a true pre-run state use the status_after.tsv of `run.previous` (meta.yaml); between "
      "the two only the forced checkpoint after a read-write run (and background purge) happened. "
      "The per-run estimate is in `meta.yaml` as `status.before_at_s` (and "
      "`status.after_missing_trx` for read-write runs). `status.transactions` is the number of "
      "transactions between the two snapshots (read-write: Δ`Innodb_rows_inserted`; read-only: the "
      "log's count scaled by the share of Δ`Innodb_rows_read` after the first snapshot): poolsim "
      "divides counter deltas by it rather than by the log's count (the first run of a series has "
      "no estimate and uses the log's count).")
    w("")
    w("## sysbench 0.5 log format (what a parser must handle)")
    w("")
    w("Each `sysbench.log` holds exactly one run:")
    w("")
    w("```")
    w("sysbench 0.5:  multi-threaded system evaluation benchmark")
    w("")
    w("Running the test with following options:")
    w("Number of threads: 16")
    w("Report intermediate results every 2 second(s)")
    w("Initializing random number generator from seed (42).")
    w("")
    w("")
    w("Threads started!")
    w("")
    w("[   2s] threads: 16, tps: 2816.12, reads: 39522.62, writes: 11284.46, response time: 8.65ms (95%), errors: 0.00, reconnects:  0.00")
    w("...                                   (one line per 2 s interval)")
    w("OLTP test statistics:")
    w("    queries performed:")
    w("        read:                            6691132")
    w("        write:                           1911752")
    w("        other:                           955876")
    w("        total:                           9558760")
    w("    transactions:                        477938 (2640.45 per sec.)")
    w("    read/write requests:                 8602884 (47528.07 per sec.)")
    w("    other operations:                    955876 (5280.90 per sec.)")
    w("    ignored errors:                      0      (0.00 per sec.)")
    w("    reconnects:                          0      (0.00 per sec.)")
    w("")
    w("General statistics:")
    w("    total time:                          181.0064s")
    w("    total number of events:              477938")
    w("    total time taken by event execution: 2895.0430s")
    w("    response time:")
    w("         min:                                  1.93ms")
    w("         avg:                                  6.06ms")
    w("         max:                                 39.15ms")
    w("         approx.  95 percentile:              10.15ms")
    w("")
    w("Threads fairness:")
    w("    events (avg/stddev):           29871.1250/210.47")
    w("    execution time (avg/stddev):   180.9402/0.00")
    w("```")
    w("")
    w("- **Interval lines** are present (`--report-interval=2`): "
      "`^\\[\\s*(\\d+)s\\] threads: N, tps: F, reads: F, writes: F, response time: Fms \\(95%\\), "
      "errors: F, reconnects:\\s+F$`. `tps`, `reads`, `writes`, `errors`, `reconnects` are **rates per "
      "second** over the interval (not counts); `response time` is the interval's 95th percentile. "
      "Read-only logs have 45 interval lines (2 s … 90 s), read-write logs 90 (2 s … 180 s); "
      "one log (bp4G-rw80-t256, total time 182.33 s) has a 91st line `[ 182s]`.")
    w("- **Queries performed** are absolute counts: `read` = SELECTs, `write` = UPDATE/DELETE/INSERT, "
      "`other` = BEGIN + COMMIT, `total` = sum. `read/write requests` = read + write (with a per-second "
      "rate in parentheses; this is the author's \"QPS\"), `other operations` = other.")
    w("- **transactions**: count and `(X per sec.)`; equals `total number of events`. "
      "The number of spaces before `(` varies with the width of the count.")
    w("- **ignored errors** / **reconnects**: count and rate. An ignored error is an aborted "
      "attempt of a transaction that sysbench 0.5 restarts (the class of errors it treats as "
      "restartable, e.g. deadlocks; the log does not say which error occurred).")
    w("- **Response time** (per transaction = event): `min:`, `avg:`, `max:`, and "
      "`approx.  95 percentile:` (two spaces after `approx.`), all in `ms` with variable padding. "
      "The percentile is sysbench's histogram approximation.")
    w("- `total time` is wall time in seconds (`181.0064s`), may exceed --max-time (up to 182.33 s "
      "here at 256 threads). Rates are count / total time.")
    w("- Every line of all 90 logs matched one of these patterns (convert.py fails otherwise).")
    w("")
    w("## Statements per transaction (lua/oltp.lua) — checked")
    w("")
    w("`event()` in the dataset's `lua/oltp.lua` issues: `BEGIN`; `oltp_point_selects` x point SELECT; "
      "`oltp_simple_ranges`, `oltp_sum_ranges`, `oltp_order_ranges`, `oltp_distinct_ranges` x range "
      "SELECTs; then, unless `--oltp-read-only=on`, `oltp_index_updates` + `oltp_non_index_updates` x "
      "UPDATE, one DELETE, one INSERT; `COMMIT`. Defaults (common.lua `set_vars`): %s. "
      "Read-only runs use the defaults; read-write runs use config.sh `RW_ARG[pct]`."
      % ", ".join("%s=%d" % kv for kv in sorted(lua_defaults.items())
                  if kv[0] not in ("databases", "tables_count", "table_size")))
    w("")
    w("| mix | reads/trx (lua) | writes/trx (lua) | other/trx | write share | read+write per trx = QPS/TPS | measured reads/trx | measured writes/trx | measured other/trx |")
    w("|---|---|---|---|---|---|---|---|---|")
    for mix in ["ro", "rw22", "rw50", "rw80", "rw100"]:
        rs = [r for r in rows if r["mix"] == mix]
        e = rs[0]["exp"]
        rng = lambda k: "%.3f–%.3f" % (min(r["got"][k] for r in rs), max(r["got"][k] for r in rs))
        w("| %s | %d | %d | %d | %.1f %% | **%d** | %s | %s | %s |" % (
            mix, e["read"], e["write"], e["other"],
            100.0 * e["write"] / (e["read"] + e["write"]), e["read"] + e["write"],
            rng("read"), rng("write"), rng("other")))
    w("")
    w("So `QPS / 18 = TPS` (PROVENANCE.md) holds only for the standard mix **rw22** (14 reads + 4 "
      "writes) and, by coincidence, **rw100** (0 + 18). Read-only is QPS/14, rw50 QPS/28, rw80 "
      "QPS/70. With BEGIN/COMMIT each transaction sends 2 more statements (`total` = 20 for the "
      "standard mix, 16 read-only, 30 rw50, 72 rw80, 20 rw100).")
    w("")
    w("The measured counts equal transactions x the lua figures exactly in every run without "
      "ignored errors. In the runs with ignored errors the surplus is (reads, writes, other):")
    w("")
    for r in rows:
        sb, e = r["sb"], r["exp"]
        ex = tuple(sb["q_" + k] - e[k] * sb["trx"] for k in ("read", "write", "other"))
        if any(ex) or sb["ign_err"]:
            w("- %s: %d ignored errors -> surplus %d / %d / %d" % ((r["name"], sb["ign_err"]) + ex))
    w("")
    w("i.e. per ignored error exactly one extra `other` (the BEGIN of the aborted attempt; no "
      "COMMIT, no ROLLBACK counted), all reads of the aborted attempt (14 per error where the mix "
      "has reads) and the writes it had issued up to the failure; the transaction counter counts "
      "only the successful retry.")
    w("")
    w("## Measured TPS and p95 per run (parsed from sysbench.log)")
    w("")
    w("TPS = `transactions: … (X per sec.)`; p95 = `approx.  95 percentile`; QPS = "
      "`read/write requests` per sec. `QPS.dat` = value in the author's summary (column 03/04).")
    w("")
    for series, label in SERIES.items():
        w("### %s (series %s, buffer pool %s)" % (label, series, "16 GiB" if series == "03" else "4 GiB"))
        w("")
        w("| dir | threads | TPS | p95 ms | avg ms | QPS (r+w/s) | QPS.dat | ignored err | total time s |")
        w("|---|---|---|---|---|---|---|---|---|")
        for mix in ["ro", "rw22", "rw50", "rw80", "rw100"]:
            for r in rows:
                if r["series"] != series or r["mix"] != mix:
                    continue
                sb = r["sb"]
                w("| %s | %d | %.2f | %.2f | %.2f | %.2f | %s | %d | %.2f |" % (
                    r["name"], r["thd"], sb["trx_ps"], sb["rt_p_ms"], sb["rt_avg_ms"],
                    sb["rw_req_ps"], r["qps_dat"], sb["ign_err"], sb["total_time_s"]))
        w("")
    w("## Cross-check against the author's QPS.dat / RT_95.dat / RT_avg.dat (columns 03, 04)")
    w("")
    w("collect.pl takes QPS from the `read/write requests … (X per sec.)` line, RT from `avg:` and "
      "`approx.  95 percentile:`, and prints them with `pp()` (4 significant-ish digits; values "
      ">= 10000 with Perl `%d`, i.e. truncated, not rounded). convert.py re-formats its own parsed "
      "values with the same rules and compares strings for all 90 runs x 3 tables.")
    w("")
    if mismatches:
        w("**%d mismatches:**" % len(mismatches))
        w("")
        w("| table | series | mix | threads | in .dat | from log |")
        w("|---|---|---|---|---|---|")
        for m in mismatches:
            w("| %s | %s | %s | %d | %s | %s (%s) |" % m)
    else:
        w("Result: **no mismatch** — all 270 values (QPS, p95, avg for 45 runs x 2 series) equal the "
          "values parsed from the logs. Note that QPS.dat is read+write statements per second, not "
          "transactions per second; see the statements-per-transaction table for the divisor.")
    w("")
    w("## Oddities worth knowing")
    w("")
    ign = [r for r in rows if r["sb"]["ign_err"]]
    w("- Ignored errors (restarted transactions) in %d runs: %s." % (
        len(ign), ", ".join("%s (%d)" % (r["name"], r["sb"]["ign_err"]) for r in ign) or "none"))
    long_ = [r for r in rows if r["sb"]["total_time_s"] > (91.5 if r["mix"] == "ro" else 181.5)]
    w("- Runs lasting noticeably longer than --max-time: %s." % ", ".join(
        "%s %.2f s" % (r["name"], r["sb"]["total_time_s"]) for r in long_))
    w("- Runs are sequential on one server per series (order: for each thread count ro, rw22, rw50, "
      "rw80, rw100 — `run.order` in meta.yaml); no restart and no warm-up between runs; data created "
      "fresh before run 1. A forced checkpoint follows each read-write run only.")
    hot = [r for r in rows if r["first_ivl_tps"] and r["first_ivl_tps"] > 2 * r["sb"]["trx_ps"]]
    hot_series = sorted(set(r["name"].split("-")[0] for r in hot))
    hot_mixes = [m for m in ["ro", "rw22", "rw50", "rw80", "rw100"] if any(r["mix"] == m for r in hot)]
    hot_thd = sorted(set(r["thd"] for r in hot))
    w("- First-interval transient: in %d runs the first 2 s interval has more than twice the "
      "run's average tps (series %s; mixes %s; threads %s; e.g. %s). These runs start with "
      "almost no dirty pages (forced checkpoint after the preceding read-write run; see "
      "`status.pool_pages_dirty_before`, itself already ~2 s into the run) and then settle at a "
      "much lower, presumably flushing-limited rate. Worth modelling or skipping the first interval."
      % (len(hot), "/".join(hot_series), "/".join(hot_mixes),
         "/".join(str(t) for t in hot_thd),
         ", ".join("%s %.0f vs %.0f" % (r["name"], r["first_ivl_tps"], r["sb"]["trx_ps"])
                   for r in sorted(hot, key=lambda r: -r["first_ivl_tps"] / r["sb"]["trx_ps"])[:3])))
    w("- `calibrate/capture.py`'s `parse_sysbench()` (sysbench 1.x) would not parse these logs: "
      "0.5 has no `queries:` line (it has `read/write requests:` without BEGIN/COMMIT) and writes "
      "`approx.  95 percentile:` instead of `95th percentile:`. meta.yaml therefore carries the "
      "parsed values in the same `summary` keys (`tps`, `qps` = all queries incl. BEGIN/COMMIT per "
      "second as in sysbench 1.x, `lat_avg_ms`, `lat_p95_ms`, `ignored_errors`, `total_time_s`).")
    w("- `dadadir-size.txt` (sic) shows the 16 GiB series' datadir growing from 14G to 19G over the "
      "series while the 4 GiB series stays at 14G.")
    w("- `config.04` and `server.04` contain only the text `config.03` / `server.03` (symlinks "
      "flattened to files).")
    w("- The upstream directory is named `RocksDB-10.3.10` (it also holds the MyRocks series); "
      "03/04 are InnoDB (`config.03`: `ENGINE=InnoDB`, my.cnf has the RocksDB lines commented "
      "out, cheetah02.err shows InnoDB start-up).")
    big = [r for r in rows if r["series"] == "03"]
    first_read = next((r for r in sorted(big, key=lambda r: r["order"])
                       if r["bp_reads"][1] > r["bp_reads"][0]), None)
    if first_read:
        w("- The 16 GiB series is not entirely in memory at its end: `Innodb_buffer_pool_pages_free` "
          "falls from ~%d (end of t64 runs) to %d (end of the last run) and "
          "`Innodb_buffer_pool_reads` stays at %d from the load until %s (run %d of 45), where "
          "reads from disk start (%d -> %d; %s ends at %d). Together with the datadir growth "
          "(14G -> 19G), the last runs of series 03 are not quite the 'from memory' case any more."
          % (max(r["free_after"] for r in big if r["thd"] == 64),
             sorted(big, key=lambda r: r["order"])[-1]["free_after"],
             first_read["bp_reads"][0], first_read["name"], first_read["order"],
             first_read["bp_reads"][0], first_read["bp_reads"][1],
             sorted(big, key=lambda r: r["order"])[-1]["name"],
             sorted(big, key=lambda r: r["order"])[-1]["bp_reads"][1]))
    w("")
    with open(os.path.join(out, "PROVENANCE.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(L))


if __name__ == "__main__":
    sys.exit(main())
