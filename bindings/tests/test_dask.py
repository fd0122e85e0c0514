"""Sweeps on a dask.distributed LocalCluster: two worker processes, one point per task."""

import pytest

import poolsim

distributed = pytest.importorskip("distributed")

# Runs on a worker (a lambda, so that cloudpickle sends it by value): its number of child processes.
WORKER_CHILDREN = lambda: sum(  # noqa: E731
    len(open(f"/proc/self/task/{t}/children").read().split()) for t in __import__("os").listdir("/proc/self/task"))


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    # The workers' scratch space under pytest's own directory (not a dask-worker-space left in TMPDIR).
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  worker_dashboard_address=None,
                                  local_directory=str(tmp_path_factory.mktemp("dask"))) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def test_sweep_on_local_cluster(client, tiny_fio):
    axes = {"storage.kind": ["local", "pool"], "workload.fio.iodepth": [1, 4, 16]}
    seen = []
    r = poolsim.sweep(tiny_fio, axes, client=client, progress=lambda d, t: seen.append(d))
    local = poolsim.sweep(tiny_fio, axes, jobs=2, progress=False)
    assert len(r) == 6 and seen[-1] == 6
    # Same points in the same order, and the same figures (same seed, each point its own process).
    assert r.raw == local.raw
    assert list(r.points["workload.fio.iodepth"]) == [1, 4, 16, 1, 4, 16]
    # Each point ran in a child process of its worker, reaped when it ended.
    assert list(client.run(WORKER_CHILDREN).values()) == [0, 0]


def test_dask_sweep_of_a_scenario_with_its_own_sweep(client, tiny_fio):
    own = tiny_fio.with_sweep({"workload.fio.iodepth": [1, 2]})
    r = poolsim.sweep(own, {"storage.kind": ["local", "pool"]}, client=client, progress=False)
    assert len(r) == 4
    assert sorted(map(tuple, r.points[["workload.fio.iodepth", "storage.kind"]].values.tolist())) == [
        (1, "local"), (1, "pool"), (2, "local"), (2, "pool")]


def test_input_errors_before_any_task(client, tiny_fio):
    with pytest.raises(poolsim.InputError):
        poolsim.sweep(tiny_fio, {"workload.fio.iodepth": [1, "deep"]}, client=client)


def test_many_points_leave_nothing_on_the_workers(client, tiny_fio):
    r = poolsim.sweep(tiny_fio, {"workload.fio.iodepth": list(range(1, 21))}, client=client, progress=False)
    assert len(r) == 20 and not r.errors
    assert list(client.run(WORKER_CHILDREN).values()) == [0, 0]


def test_dask_sweep_of_a_scenario_with_a_list_set(client, tiny_fio):
    # Every point failed: each was pinned by a one-value sweep of every param, and a list given by
    # set() is no single value ("expected a single value, got a list"). Locally the same sweep ran.
    s = tiny_fio.set("storage.volume.nodes", ["flash1"])
    axes = {"storage.kind": ["local", "pool"]}
    r = poolsim.sweep(s, axes, client=client, progress=False)
    assert not r.errors and r.raw == poolsim.sweep(s, axes, jobs=2, progress=False).raw
