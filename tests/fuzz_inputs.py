#!/usr/bin/python3
"""Bad input never crashes, hangs or goes unnamed: mutates every value of poolsim's inputs and checks
the command line's contract on each (a test beside the unit tests; label `long`).

    /usr/bin/python3 tests/fuzz_inputs.py POOLSIM SOURCE_DIR [--seed N] [--per-file N]

Inputs mutated, each in a scratch copy: a small scenario's values (run), a server profile's values
(run), a device catalogue entry's values (run), the NDB seed scenario's values (run), a plan's
values (plan --bounds-only), a trace's meta.yaml values and lines of its other files (validate, and
calibrate with a second trace left whole; on disk traces, lines of the files the write-buffer fit
reads: diskstats, status counters, fio jobs), a published table's cells (validate --table) and `--set`
values (run). Each value is replaced by text of the wrong type or out of any range (a negative, 1e30,
`.nan`, `[]`, `{}`, null, a 64-bit overflow, a bad unit, ...); each sampled line of a trace file is
deleted, doubled, cut, blanked or given a bad number. A run must then end within the timeout with
exit code 0 (accepted), 1 (a validate gate) or 2 (refused), never by a signal, and a refusal must
name the input's file (or the `--set`) and not be yaml-cpp's own message ("bad conversion"), which
names no file or key. Session 44 found three defects this way (README, "Bad input").
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

VALUES = ["0", "-1", "1e30", "abc", '""', ".nan", ".inf", "[]", "{}", "null", "99999999999999999999", "0.5", "-1s",
          "1e9s", "0B", "1PiB", "true"]
LINE_MUTATIONS = ["delete", "double", "cut", "blank", "number", "negative", "garbage", "end_here"]
TIMEOUT_S = 120

SCENARIO = """name: fuzz
compute: {count: 1, cores: 2, memory: 4GiB, core_speed: 1.0}
storage:
  kind: local
  device: DEVICE
database:
  profile: PROFILE
  buffer_pool: 64MiB
  io_capacity: 1000
  io_capacity_max: 2000
  flush_log_at_trx_commit: 1
  doublewrite: true
workload:
  kind: sysbench
  test: oltp_read_write
  tables: 2
  table_size: 200000
  rand_type: uniform
  threads: 4
simulation:
  seed: 1
  warmup: 0.5s
  batch: 0.5s
  min_batches: 2
  target_ci: 10%
  max_duration: 1s
variants:
  small: {database.buffer_pool: 32MiB}
validation:
  columns:
    threads: {key: workload.threads}
    duration: {key: simulation.max_duration}
    pool:
      values:
        s: {variant: small}
  measured:
    tps: tps
"""

# A plan over the scenario above (scenario.yaml beside it): its values are mutated and each plan run
# with --bounds-only (the analytic bounds, nothing simulated: a plan's checks run before any point).
PLAN = """name: fuzz-plan
scenario: scenario.yaml
target:
  tps: 100/s
  p99: 50ms
  threads: 4
set:
  simulation.max_duration: 1s
  database.io_capacity: 1000
choices:
  memory:
    - name: small
      price_usd: 100
      source: fuzz
      set: {database.buffer_pool: 32MiB, compute.memory: 2GiB}
    - name: big
      price_usd: 200.5
      source: fuzz
      set: {database.buffer_pool: 64MiB}
  cores:
    - name: two
      price_usd: 0
      source: fuzz
      set: {compute.cores: 2}
"""

failures = []
runs = {}  # runs per input, for the summary


def check(label, args, names):
    """Runs poolsim with `args`; records a failure when the contract above is broken. `names`: the
    texts of which one a refusal must contain (the mutated file, or the --set)."""
    what = label.split(" ")[0].rstrip(",").split("/")[0]  # the input: scenario, plan, a trace's name ...
    runs[what] = runs.get(what, 0) + 1
    try:
        r = subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        failures.append(f"{label}: no end within {TIMEOUT_S} s")
        return
    err = r.stderr.strip().replace("\n", " ")[:300]
    if r.returncode < 0 or r.returncode not in (0, 1, 2):
        failures.append(f"{label}: exit code {r.returncode}: {err}")
    elif r.returncode == 2 and not any(n in r.stderr for n in names):
        failures.append(f"{label}: refused without naming {names}: {err}")
    elif "bad conversion" in r.stderr or "yaml-cpp:" in r.stderr:
        failures.append(f"{label}: yaml-cpp's own message: {err}")


def value_lines(lines):
    """(index, prefix, inline) for each `key: value` line whose value can be replaced; an inline
    mapping's values each give one (prefix up to the value, suffix after it)."""
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*-?\s*[A-Za-z_0-9.-]+: )(\S.*?)(\s+#.*)?$", line)
        if not m:
            continue
        if m.group(2).startswith("{"):
            for km in re.finditer(r"([A-Za-z_0-9.-]+): ([^,{}\s][^,{}]*)", m.group(2)):
                start = m.start(2) + km.start(2)
                out.append((i, line[:start], line[m.start(2) + km.end(2):]))
        elif not m.group(2).startswith("["):
            out.append((i, m.group(1), m.group(3) or ""))
    return out


def mutate_values(path, run_args, names, rng, per_file, label):
    text = open(path).read()
    lines = text.split("\n")
    spots = value_lines(lines)
    # Every value once written null (what a tool writes for a figure it did not record), then a
    # sample of the other replacements.
    trials = [(spot, v) for spot in spots for v in VALUES if v != "null"]
    for (i, prefix, suffix), value in [(spot, "null") for spot in spots] + rng.sample(trials, min(per_file, len(trials))):
        changed = list(lines)
        changed[i] = prefix + value + suffix
        with open(path, "w") as f:
            f.write("\n".join(changed))
        check(f"{label} line {i + 1} '{lines[i].strip()[:60]}' -> {value}", run_args, names)
    with open(path, "w") as f:
        f.write(text)


def mutate_lines(path, run_args, names, rng, per_file, label):
    text = open(path, errors="replace").read()
    lines = text.split("\n")
    for _ in range(per_file):
        i = rng.randrange(len(lines))
        how = rng.choice(LINE_MUTATIONS)
        changed = list(lines)
        if how == "delete":
            del changed[i]
        elif how == "double":
            changed.insert(i, changed[i])
        elif how == "cut":
            changed[i] = changed[i][: len(changed[i]) // 2]
        elif how == "blank":
            changed[i] = ""
        elif how == "number":
            changed[i] = re.sub(r"\d+", lambda x: x.group(0) + "000007", changed[i], count=1)
        elif how == "negative":
            changed[i] = re.sub(r"(?<![\w.-])(\d)", r"-\1", changed[i], count=1)
        elif how == "garbage":
            changed[i] += " x\x7f garbage"
        else:
            changed = changed[:i]
        with open(path, "w") as f:
            f.write("\n".join(changed))
        check(f"{label} line {i + 1} {how}", run_args, names)
    with open(path, "w") as f:
        f.write(text)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("poolsim")
    parser.add_argument("source_dir")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-file", type=int, default=60, help="mutations per input file")
    a = parser.parse_args(argv[1:])
    rng = random.Random(a.seed)
    poolsim, src = os.path.abspath(a.poolsim), os.path.abspath(a.source_dir)
    work = tempfile.mkdtemp(prefix="poolsim-fuzz-")
    try:
        # A profile and a catalogue entry of the scenario's own, so that each can be mutated.
        profile = os.path.join(work, "profile.yaml")
        shutil.copy(os.path.join(src, "scenarios/profiles/mariadb-10.11.yaml"), profile)
        catalogue = open(os.path.join(src, "scenarios/catalogue/devices.yaml")).read().split("\n")
        first = catalogue.index("pcie4-nvme-tlc:")
        last = first + 1
        while last < len(catalogue) and (not catalogue[last] or catalogue[last][0] in " #"):
            last += 1
        devices = os.path.join(work, "devices.yaml")
        with open(devices, "w") as f:
            f.write("\n".join(["fuzz-ssd:"] + catalogue[first + 1:last]) + "\n")
        scenario = os.path.join(work, "scenario.yaml")
        with open(scenario, "w") as f:
            f.write("catalogue: [devices.yaml]\n" + SCENARIO.replace("DEVICE", "fuzz-ssd").replace("PROFILE", "profile.yaml"))
        run = [poolsim, "run", scenario, "--format", "json"]
        check("the unchanged scenario", run, [scenario])
        mutate_values(scenario, run, [scenario], rng, a.per_file, "scenario")
        mutate_values(profile, run, [profile], rng, a.per_file, "profile")
        mutate_values(devices, run, [devices], rng, a.per_file, "catalogue")
        # The scenario loads as it is, so a refusal under a --set is the --set's.
        for value in VALUES + ["[nope]", "[small, nope]"]:
            for key in ("workload.threads", "database.buffer_pool", "simulation.max_duration", "sweep.variant", "database",
                        "workload", "compute.memory"):
                check(f"--set {key}={value}", run + ["--set", f"{key}={value}"], ["--set"])
        # The NDB seed scenario (its own model: data nodes, transporter, operation mix), one point of
        # its sweep and 2 s at most, so that each run takes a second or two.
        ndb = os.path.join(work, "ndb.yaml")
        text = open(os.path.join(src, "scenarios/seeds/ndb-rdma.yaml")).read()
        text = re.sub(r"(?m)^  max_duration: 5s", "  max_duration: 2s", text)
        text = re.sub(r"(?m)^sweep:\n  ndb.transporter.kind: \[tcp, rdma\]\n", "", text)
        assert "max_duration: 2s" in text and "sweep:" not in text, "ndb-rdma.yaml changed: update the fuzz test"
        with open(ndb, "w") as f:
            f.write(text)
        run_ndb = [poolsim, "run", ndb, "--format", "json"]
        check("the unchanged NDB scenario", run_ndb, [ndb])
        mutate_values(ndb, run_ndb, [ndb], rng, a.per_file, "ndb")
        # A table's cells.
        table = os.path.join(work, "table.csv")
        rows = ["threads,pool,duration,tps", "4,s,1s,700", "8,,1s,900"]
        validate_table = [poolsim, "validate", "--scenario", scenario, "--table", table, "--format", "json"]
        for _ in range(a.per_file):
            changed = [r.split(",") for r in rows]
            r, c = rng.randrange(len(rows)), rng.randrange(4)
            changed[r][c] = rng.choice(VALUES + ["", '"', "1e308s", " 4"])
            with open(table, "w") as f:
                f.write("\n".join(",".join(x) for x in changed) + "\n")
            # The scenario loads as it is: a refusal is the table's.
            check(f"table line {r + 1} column {c + 1} -> {changed[r][c]!r}", validate_table, [table])
        # A plan's values, each plan run for its bounds only.
        plan = os.path.join(work, "plan.yaml")
        with open(plan, "w") as f:
            f.write(PLAN)
        bounds = [poolsim, "plan", plan, "--bounds-only", "--format", "json"]
        check("the unchanged plan", bounds, [plan])
        mutate_values(plan, bounds, [plan], rng, a.per_file, "plan")
        # calibrate's inputs: two tmpfs traces (a small pool and a large one, two thread counts: a fit
        # of about a second, where a disk trace's write-buffer fit takes six); meta.yaml's values and
        # lines of the other files of one of them (fio: one job's), the other left whole.
        local = os.path.join(src, "traces", "local-vm")
        mutated = os.path.join(work, "calibrate", "tmpfs-bp512M-t4")
        shutil.copytree(os.path.join(local, "tmpfs-bp512M-t4"), mutated)
        calibrate = [poolsim, "calibrate", mutated, os.path.join(local, "tmpfs-bp3G-t16"), "-o",
                     os.path.join(work, "calibrate", "profile.yaml")]
        check("calibrate, the unchanged traces", calibrate, [mutated])
        mutate_values(os.path.join(mutated, "meta.yaml"), calibrate, [mutated], rng, a.per_file,
                      "calibrate tmpfs-bp512M-t4/meta.yaml")
        for root, _, files in os.walk(mutated):
            for file in sorted(files):
                if file != "meta.yaml" and (root == mutated or file.startswith("randread-16k-qd1.")):
                    path = os.path.join(root, file)
                    mutate_lines(path, calibrate, [mutated], rng, max(1, a.per_file // 6),
                                 "calibrate " + os.path.relpath(path, os.path.dirname(mutated)))
        # calibrate on disk traces: the write-buffer fit simulates the traces that write pages (2 s
        # each here, about 4 s a run), from their diskstats awaits and the device fitted from their
        # fio jobs; lines of those files of one trace, the other left whole.
        disk = os.path.join(work, "calibrate-disk", "disk-bp512M-t4")
        shutil.copytree(os.path.join(local, "disk-bp512M-t4"), disk)
        calibrate_disk = [poolsim, "calibrate", disk, os.path.join(local, "disk-bp3G-t16"), "-o",
                          os.path.join(work, "calibrate-disk", "profile.yaml"), "--duration", "2"]
        check("calibrate-disk, the unchanged traces", calibrate_disk, [disk])
        for file in ("diskstats_before.txt", "diskstats_after.txt", "status_before.tsv", "status_after.tsv",
                     "fio/randread-16k-qd1.json", "fio/randwrite-16k-fsync-qd1.json"):
            mutate_lines(os.path.join(disk, file), calibrate_disk, [disk], rng, max(1, a.per_file // 6),
                         "calibrate-disk disk-bp512M-t4/" + file)
        # A trace of each set: meta.yaml's values, then lines of its other files.
        for name, profile_of in (("local-vm/disk-bp1G-t4", "local-vm/profile.yaml"),
                                 ("mdev-13845/bp4G-rw22-t16", "mdev-13845/profile.yaml")):
            trace = os.path.join(work, os.path.basename(name))
            shutil.copytree(os.path.join(src, "traces", name), trace)
            validate = [poolsim, "validate", "--profile", os.path.join(src, "traces", profile_of), trace, "--duration", "1",
                        "--format", "json"]
            mutate_values(os.path.join(trace, "meta.yaml"), validate, [trace], rng, a.per_file, name + "/meta.yaml")
            for root, _, files in os.walk(trace):
                for file in sorted(files):
                    path = os.path.join(root, file)
                    if file != "meta.yaml":
                        mutate_lines(path, validate, [trace], rng, max(1, a.per_file // 6), os.path.relpath(path, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL", f)
    print("runs: " + ", ".join(f"{k} {v}" for k, v in runs.items()))
    print(f"fuzz_inputs: {len(failures)} contract failures (seed {a.seed}, {a.per_file} mutations per file)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
