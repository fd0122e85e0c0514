"""Hundreds of scenarios in one Python session: no growth in open files, child processes or memory."""

import time

import poolsim
from conftest import child_pids, open_fds


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_hundreds_of_scenarios_in_one_session(tiny_fio):
    # Warm up (imports, first allocations), then measure.
    poolsim.run(tiny_fio, jobs=1, progress=False)
    fds, children, rss = open_fds(), child_pids(), rss_kib()
    started = time.monotonic()
    n = 0
    for i in range(200):
        s = tiny_fio.set({"workload.fio.iodepth": 1 + i % 8, "simulation.seed": i + 1})
        r = poolsim.run(s, jobs=1, progress=False)
        assert len(r) == 1 and r.raw[0]["iops"] > 0
        n += 1
        if i % 50 == 49:
            assert open_fds() == fds, f"open files grew after {n} runs"
            assert child_pids() == children, f"child processes left after {n} runs"
    # And a few sweeps of many points at once.
    for _ in range(3):
        r = poolsim.sweep(tiny_fio, {"workload.fio.iodepth": list(range(1, 17))}, jobs=2, progress=False)
        assert len(r) == 16
        n += 16
    elapsed = time.monotonic() - started
    assert open_fds() == fds
    assert child_pids() == children
    grown = rss_kib() - rss
    assert grown < 50 * 1024, f"RSS grew by {grown} KiB over {n} points"
    print(f"{n} points in {elapsed:.1f} s ({1000 * elapsed / n:.0f} ms per point), RSS +{grown} KiB")


def test_concurrent_runs_from_threads(tiny_fio):
    """Runs from several Python threads at once (a Dask worker with several threads does this): each
    waits for its own processes only."""
    from concurrent.futures import ThreadPoolExecutor

    children, fds = child_pids(), open_fds()
    alone = [poolsim.run(tiny_fio.set("workload.fio.iodepth", d), jobs=1, progress=False).raw for d in (1, 2, 4, 8)]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(
            lambda d: poolsim.run(tiny_fio.set("workload.fio.iodepth", d), jobs=1, progress=False).raw, (1, 2, 4, 8)))
    assert together == alone
    assert child_pids() == children and open_fds() == fds
